"""Which assumption, moved within its stated range, changes the pick (tornado) and how often each
option wins when they move at once (Monte Carlo; not those the run-time band already holds,
:data:`BAND_HELD`, which would count the run time's uncertainty twice).

Ranges are the ``low``/``high`` columns of data/assumptions.csv and data/facility.csv. Each factor
re-evaluates the whole option table through :func:`workbook.decide.evaluate.evaluate_arrays`;
efficiency and failure rate act on run time (an approximation: the whole step time is scaled by the
change in matmul efficiency, and goodput by Young/Daly at the new failure rate), prices,
electricity, lead time and runs per year act on costs and the deadline directly.

``rec`` below is a :class:`workbook.decide.Recommendation` (its ``scenario``, ``options`` and
``top`` are read).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..catalog import Catalog
from ..model import goodput
from ..text import option_labels
from .bill import storage_price_parameter
from .evaluate import TieRule, best_index, evaluate_arrays, option_position

#: Assumptions that are factors of :func:`evaluate_arrays` themselves: (label, parameter).
SCALE_FACTORS = (
    ("Rental prices", "rent_price_factor"),
    ("Purchase prices", "buy_price_factor"),
    ("Runs per year (utilization)", "runs_factor"),
)

#: Monte Carlo draws evaluated at once (bounds the ``(draws, options)`` arrays).
MONTE_CARLO_CHUNK = 200

#: The assumptions the run-time band of a scenario's software stack already holds, which the
#: Monte Carlo does not draw: a draw of one moves every option's median run time, and each draw's
#: probabilities then put the whole band around the moved median, so the run time's uncertainty
#: was counted twice (enterprise-frontier-pretraining's pick, 82 % by day 365, met its constraints
#: in 34 % of the draws). The lead time's draws skip its band for the same reason
#: (``delivery_band=False``). Matmul efficiency: both levels' bands are the error of the throughput
#: the engine derives from it. The failure rate: the ``typical`` band is of whole published runs,
#: their failures and restarts in them; the ``tuned`` band is steady-state throughput between
#: failures (benchmark tables), so the tuned level still draws its failures.
BAND_HELD = {
    "typical": {
        "gemm_efficiency": "matmul efficiency",
        "failure_rate_per_gpu_hour": "failure rate",
    },
    "tuned": {"gemm_efficiency": "matmul efficiency"},
}


@dataclass
class Factor:
    """One assumption of the tornado, with the :func:`evaluate_arrays` factors at its two ends."""

    #: Name in the tornado.
    label: str
    #: Parameter name (data/assumptions.csv, data/facility.csv, or a factor's own name).
    parameter: str
    #: Base value, low and high end of its range [the parameter's unit].
    base: float
    low: float
    high: float
    #: Keyword factors of :func:`evaluate_arrays` at the low and the high end [x].
    at_low: dict
    at_high: dict


def factors(rec, cat: Catalog) -> list[Factor]:
    """Every assumption the tornado and the Monte Carlo move, in the tornado's input order."""
    assumptions = cat.global_rows("assumptions").set_index("parameter")
    o = rec.options
    return [
        _efficiency_factor(assumptions),
        _failure_rate_factor(assumptions, o),
        *(_scale_factor(assumptions, label, name, o) for label, name in SCALE_FACTORS),
        _electricity_factor(cat, o),
        _lead_time_factor(cat, o),
        _staff_factor(assumptions),
        _software_factor(assumptions),
        *_bill_factors(rec.scenario, assumptions, o),
    ]


def monte_carlo_factors(rec, cat: Catalog) -> list[Factor]:
    """The factors the Monte Carlo draws: :func:`factors` but those the run-time band already
    holds (:data:`BAND_HELD`)."""
    held = BAND_HELD[rec.scenario.software_stack]
    return [f for f in factors(rec, cat) if f.parameter not in held]


def monte_carlo_scope(s) -> str:
    """What the Monte Carlo draws, for a reader: ``each assumption within its range around its
    stated value, except matmul efficiency and failure rate, whose uncertainty the run-time band
    already holds``."""
    held = " and ".join(BAND_HELD[s.software_stack].values())
    return (
        f"each assumption within its range around its stated value, except {held}, whose "
        "uncertainty the run-time band already holds"
    )


def _efficiency_factor(assumptions: pd.DataFrame) -> Factor:
    """Matmul efficiency: run time scales with base / moved efficiency."""
    e = assumptions.loc["gemm_efficiency"]
    return Factor(
        "Matmul efficiency (MFU)",
        "gemm_efficiency",
        e["value"],
        e["low"],
        e["high"],
        {"time_factor": e["value"] / e["low"]},
        {"time_factor": e["value"] / e["high"]},
    )


def _failure_rate_factor(assumptions: pd.DataFrame, o: pd.DataFrame) -> Factor:
    """Failure rate: run time scales with base / moved goodput (Young/Daly) of each cluster."""
    fr = assumptions.loc["failure_rate_per_gpu_hour"]
    n = o["n_gpus"].to_numpy(float)
    checkpoint = float(assumptions.loc["checkpoint_write_hours"]["value"])
    restart = float(assumptions.loc["restart_hours"]["value"])

    def gp(rate):
        return goodput(
            n, failure_rate_per_gpu_hour=rate, checkpoint_hours=checkpoint, restart_hours=restart
        )

    base_gp = gp(fr["value"])
    return Factor(
        "Failure rate",
        "failure_rate_per_gpu_hour",
        fr["value"],
        fr["low"],
        fr["high"],
        {"time_factor": base_gp / gp(fr["low"])},
        {"time_factor": base_gp / gp(fr["high"])},
    )


#: The factors that move prices: an option on an unsourced price moves over a wider range.
PRICE_FACTORS = ("rent_price_factor", "buy_price_factor")
#: The smallest price factor a widened range may reach [x] (a price never falls to zero).
MIN_PRICE_FACTOR = 0.05


def _scale_factor(assumptions: pd.DataFrame, label: str, name: str, o: pd.DataFrame) -> Factor:
    """An assumption that is itself a factor of :func:`evaluate_arrays` (prices, runs a year).

    A price factor moves each option over its range, widened ``estimated_price_range_widening``
    times around 1 where the option's price is not sourced (``price_sourced``: an analyst estimate
    or the article's claim), so the tornado and the Monte Carlo treat an estimate as the less
    certain number it is; the tornado's ``low`` and ``high`` columns show the sourced range."""
    r = assumptions.loc[name]
    low, high = float(r["low"]), float(r["high"])
    if name not in PRICE_FACTORS:
        return Factor(label, name, r["value"], low, high, {name: low}, {name: high})
    w = float(assumptions.loc["estimated_price_range_widening"]["value"])
    sourced = o["price_sourced"].to_numpy(bool)
    at_low = np.where(sourced, low, max(MIN_PRICE_FACTOR, 1.0 - (1.0 - low) * w))
    at_high = np.where(sourced, high, 1.0 + (high - 1.0) * w)
    return Factor(label, name, r["value"], low, high, {name: at_low}, {name: at_high})


def _electricity_factor(cat: Catalog, o: pd.DataFrame) -> Factor:
    """Electricity price over data/facility.csv's range, against the scenario's price."""
    el = cat.global_rows("facility").set_index("parameter").loc["electricity_usd_per_kwh"]
    base_el = float(o["electricity"].iloc[0])
    return Factor(
        "Electricity price",
        "electricity_usd_per_kwh",
        base_el,
        el["low"],
        el["high"],
        {"electricity_factor": el["low"] / base_el},
        {"electricity_factor": el["high"] / base_el},
    )


def _lead_time_factor(cat: Catalog, o: pd.DataFrame) -> Factor:
    """New hardware's lead time over each accelerator's range (data/facility.csv); rented and used
    options keep theirs."""
    facility = cat.tables["facility"]
    lt = facility[facility["parameter"] == "lead_time_weeks"].set_index("accelerator_id")
    acc = o["accelerator"].to_numpy(object)
    is_new = (o["acquisition"] == "buy-new").to_numpy(bool)
    base_lt = lt["value"].reindex(acc).to_numpy(float)
    lo = np.where(is_new, lt["low"].reindex(acc).to_numpy(float) / base_lt, 1.0)
    hi = np.where(is_new, lt["high"].reindex(acc).to_numpy(float) / base_lt, 1.0)
    return Factor(
        "Lead time (new hardware)",
        "lead_time_weeks",
        1.0,
        float(np.nanmin(lo)),
        float(np.nanmax(hi)),
        {"lead_time_factor": np.nan_to_num(lo, nan=1.0)},
        {"lead_time_factor": np.nan_to_num(hi, nan=1.0)},
    )


def _staff_factor(assumptions: pd.DataFrame) -> Factor:
    """A platform engineer's yearly cost: the staff line of an owned cluster and of a large rental
    scales with moved / base engineer_cost_usd_per_year."""
    return _ratio_factor(
        assumptions, "Platform engineer cost", "engineer_cost_usd_per_year", "staff_factor"
    )


def _software_factor(assumptions: pd.DataFrame) -> Factor:
    """Engineer-weeks lost to an immature stack: every option's software line scales with moved
    / base stack_debug_weeks_rocm (SynapseAI's by the same ratio)."""
    return _ratio_factor(
        assumptions, "Weeks lost to an immature stack", "stack_debug_weeks_rocm", "software_factor"
    )


def _ratio_factor(assumptions: pd.DataFrame, label: str, parameter: str, name: str) -> Factor:
    """A line that scales with moved / base ``parameter``: evaluation knob ``name`` at its low
    and high end / its value."""
    lo, hi = _ratio(assumptions, parameter)
    r = assumptions.loc[parameter]
    return Factor(label, parameter, r["value"], r["low"], r["high"], {name: lo}, {name: hi})


def _ratio(assumptions: pd.DataFrame, parameter: str) -> tuple[float, float]:
    """An assumption's low and high end / its value [x]."""
    r = assumptions.loc[parameter]
    return float(r["low"] / r["value"]), float(r["high"] / r["value"])


def _bill_factors(s, assumptions: pd.DataFrame, o: pd.DataFrame) -> list[Factor]:
    """The bill's lines over their ranges (data/assumptions.csv): storage (owned, or the
    provider tier's price), the support contract, spares, and the network's cost per GPU of a
    one- or three-layer fabric (a two-layer one is the fabric table's cost)."""
    owned = o["is_buy"].to_numpy(bool)
    store_own = _ratio(assumptions, storage_price_parameter(s.provider_tier, True))
    store_rent = _ratio(assumptions, storage_price_parameter(s.provider_tier, False))
    tiers = o["network_tiers"].to_numpy(float)
    one, three = (_ratio(assumptions, f"network_cost_factor_{t}_tier") for t in ("one", "three"))
    out = [
        Factor(
            "Storage price",
            storage_price_parameter(s.provider_tier, False),
            1.0,
            min(store_own[0], store_rent[0]),
            max(store_own[1], store_rent[1]),
            {"storage_factor": np.where(owned, store_own[0], store_rent[0])},
            {"storage_factor": np.where(owned, store_own[1], store_rent[1])},
        ),
        Factor(
            "Network cost by tier",
            "network_cost_factor_three_tier",
            1.0,
            min(one[0], three[0]),
            max(one[1], three[1]),
            {"network_factor": np.select([tiers == 1, tiers == 3], [one[0], three[0]], 1.0)},
            {"network_factor": np.select([tiers == 1, tiers == 3], [one[1], three[1]], 1.0)},
        ),
    ]
    return out + [
        _ratio_factor(
            assumptions, "Support contract", "support_fraction_per_year", "support_factor"
        ),
        _ratio_factor(assumptions, "Spare GPUs", "spare_gpu_fraction", "spares_factor"),
    ]


def _pick(labels: np.ndarray, idx: int) -> str:
    """The label of the option at row position ``idx`` (-1: none feasible)."""
    return "nothing feasible" if idx < 0 else labels[idx]


def tornado(rec, cat: Catalog) -> pd.DataFrame:
    """One row per assumption: the pick's cost per run at the low and high end, and the pick
    there; sorted by the swing of the pick's cost per run [USD], largest first."""
    s, o = rec.scenario, rec.options
    labels = option_labels(o).to_numpy(object)
    top_pos = option_position(o, rec.top.accelerator, rec.top.n_gpus, rec.top.acquisition)
    base_pick = _pick(labels, top_pos)
    rule = TieRule.from_catalog(cat)
    rows = []
    for f in factors(rec, cat):
        row = {
            "assumption": f.label,
            "parameter": f.parameter,
            "base": f.base,
            "low": f.low,
            "high": f.high,
        }
        for end, kwargs in (("low", f.at_low), ("high", f.at_high)):
            ev = evaluate_arrays(s, o, **kwargs)
            row[f"cost_per_run_at_{end}"] = float(
                np.broadcast_to(ev["cost_per_run_usd"], (len(o),))[top_pos]
            )
            row[f"pick_at_{end}"] = _pick(labels, int(best_index(s, o, ev, rule)[0]))
        row["flips"] = (row["pick_at_low"] != base_pick) or (row["pick_at_high"] != base_pick)
        row["flips_at"] = _flip_point(s, o, labels, f, base_pick, rule) if row["flips"] else ""
        row["swing_usd"] = abs(row["cost_per_run_at_high"] - row["cost_per_run_at_low"])
        rows.append(row)
    return pd.DataFrame(rows).sort_values("swing_usd", ascending=False).reset_index(drop=True)


def _flip_point(
    s, o: pd.DataFrame, labels: np.ndarray, f: Factor, base_pick: str, rule: TieRule
) -> str:
    """The first value, walking from the base towards the end that flips, where the pick changes."""
    for value, kwargs in ((f.low, f.at_low), (f.high, f.at_high)):
        for t in np.linspace(0.1, 1.0, 10):
            interp = {k: 1.0 + (np.asarray(v) - 1.0) * t for k, v in kwargs.items()}
            ev = evaluate_arrays(s, o, **interp)
            pick = _pick(labels, int(best_index(s, o, ev, rule)[0]))
            if pick != base_pick:
                at = f.base + (value - f.base) * t
                return f"{_describe(s, f.parameter, at)}: {pick}"
    return ""


def monte_carlo_draws(cat: Catalog) -> int:
    """How many draws the Monte Carlo makes: data/assumptions.csv ``monte_carlo_draws`` (the
    same for the app, the memo and :func:`workbook.decide.recommend`)."""
    return int(cat.param("assumptions", "monte_carlo_draws"))


def monte_carlo(rec, cat: Catalog, samples: int | None = None, seed: int = 0) -> pd.DataFrame:
    """How often each (acquisition, accelerator) wins when every factor of
    :func:`monte_carlo_factors` is drawn within its range, independently, with the scenario's
    value as its median (:func:`median_centred_draw`): ``option`` (its label) and ``share``
    [fraction of the draws], most frequent first.

    ``samples`` defaults to :func:`monte_carlo_draws`. Only options that pass every static
    constraint (``static_ok``) are re-evaluated: no draw can make another one feasible, so the
    winners are the same as over the whole table, about five times sooner."""
    s, o = rec.scenario, rec.options
    samples = monte_carlo_draws(cat) if samples is None else int(samples)
    rng = np.random.default_rng(seed)
    rule = TieRule.from_catalog(cat)
    keep = np.flatnonzero(o["static_ok"].to_numpy(bool))
    draws = {}
    for f in monte_carlo_factors(rec, cat):
        u = rng.uniform(size=(samples, 1))
        for k in f.at_low:
            lo, hi = (np.asarray(v, float) for v in (f.at_low[k], f.at_high[k]))
            lo, hi = (v[keep] if v.ndim and len(v) == len(o) else v for v in (lo, hi))
            draws[k] = draws.get(k, 1.0) * median_centred_draw(lo, hi, u)
    sub = o.iloc[keep]
    winners = []
    for start in range(0, samples, MONTE_CARLO_CHUNK):
        chunk = {k: v[start : start + MONTE_CARLO_CHUNK] for k, v in draws.items()}
        # The draws of lead_time_factor are the delivery's uncertainty here: no band on top.
        ev = evaluate_arrays(s, sub, **chunk, delivery_band=False)
        winners.extend(best_index(s, sub, ev, rule))
    labels = option_labels(sub).to_numpy(object)
    picks = pd.Series([_pick(labels, int(i)) for i in winners])
    freq = picks.value_counts(normalize=True).rename("share").reset_index()
    freq.columns = ["option", "share"]
    return freq


def median_centred_draw(lo, hi, u):
    """A factor of :func:`evaluate_arrays` drawn at ``u`` (uniform on 0-1) with the scenario's
    value, 1, as its median: the lower half of the draws uniform between the factor at the low
    end of the range (``lo``) and 1, the upper half between 1 and the factor at the high end
    (``hi``); ``u`` = 0, 0.5, 1 give ``lo``, 1, ``hi``. One uniform draw over the whole range
    centred an asymmetric range elsewhere: weeks lost to an immature stack, 2-12 around 4, drew a
    median of 7; electricity, $0.06-0.19 around $0.083, a median of $0.125; so the Monte Carlo
    answered for another scenario than the headline's (CHANGELOG 2026-12-06)."""
    t = 2.0 * np.asarray(u, float) - 1.0
    return np.where(t < 0, 1.0 - t * (lo - 1.0), 1.0 + t * (hi - 1.0))


def _describe(s, name: str, at: float) -> str:
    """A flip point in the reader's units."""
    if name == "runs_factor":
        return f"{s.runs_per_year * at:.3g} runs a year"
    if name in ("rent_price_factor", "buy_price_factor"):
        return f"{'rental' if name.startswith('rent') else 'purchase'} prices {at - 1:+.0%}"
    if name == "lead_time_weeks":
        return f"lead times x{at:.2f}"
    if name == "engineer_cost_usd_per_year":
        return f"platform engineers ${at:,.0f} a year"
    if name == "stack_debug_weeks_rocm":
        return f"{at:.3g} weeks a year are lost to ROCm per engineer"
    if name.startswith("storage_"):
        return f"storage costs {at:.2f}x the catalog's price"
    if name.startswith("network_cost"):
        return f"the network costs {at:.2f}x the fabric table's price per GPU"
    if name == "electricity_usd_per_kwh":
        return f"electricity ${at:.3f}/kWh"
    return f"{name} = {at:.3g}"


def tornado_ranges(rec, cat: Catalog) -> dict[str, str]:
    """Each tornado assumption's range in the reader's units, keyed by its ``parameter``: the
    pick's own figures where the assumption moves them (its MFU, its price per GPU-hour or per
    GPU, its lead time), the assumption's otherwise; e.g. ``"0.35 - 0.55 MFU"`` (the pick's),
    ``"$2.10 - $2.90 per GPU-hour"`` (the pick's price over the range). Empty with no pick."""
    if rec.top is None:
        return {}
    o = rec.options
    pos = option_position(o, rec.top.accelerator, rec.top.n_gpus, rec.top.acquisition)
    top = o.iloc[pos]
    out = {}
    for f in factors(rec, cat):
        lo, hi = (float(np.broadcast_to(v, (len(o),))[pos]) for v in _first_factor(f))
        out[f.parameter] = _range_text(rec.scenario, f, top, lo, hi)
    return out


def _first_factor(f: Factor) -> tuple:
    """The (low, high) of a factor's one :func:`evaluate_arrays` keyword."""
    (k,) = f.at_low
    return f.at_low[k], f.at_high[k]


def _range_text(s, f: Factor, top: pd.Series, lo: float, hi: float) -> str:
    """One assumption's range for the reader (see :func:`tornado_ranges`); ``lo`` / ``hi``: the
    factor the pick moves by at each end [x]."""
    name = f.parameter
    if name == "gemm_efficiency":  # time x base / moved: MFU x moved / base
        return f"{top['mfu'] / lo:.2f} - {top['mfu'] / hi:.2f} MFU"
    if name == "failure_rate_per_gpu_hour":
        return f"1 failure per {1 / f.low:,.0f} - {1 / f.high:,.0f} GPU-hours"
    if name in PRICE_FACTORS and bool(top["is_buy"]) == (name == "buy_price_factor"):
        unit, fmt = ("per GPU", ",.0f") if top["is_buy"] else ("per GPU-hour", ",.2f")
        p = float(top["price"])
        return f"${p * lo:{fmt}} - ${p * hi:{fmt}} {unit}"
    if name in PRICE_FACTORS:  # the pick does not pay this kind of price
        return f"{f.low - 1:+.0%} to {f.high - 1:+.0%} (not the pick's)"
    if name == "runs_factor":
        return f"{s.runs_per_year * f.low:.3g} - {s.runs_per_year * f.high:.3g} runs a year"
    if name == "electricity_usd_per_kwh":
        return f"${f.low:.3f} - ${f.high:.3f} per kWh"
    if name == "lead_time_weeks" and top["acquisition"] == "buy-new":
        weeks = float(top["lead_time_weeks_new"])
        return f"{weeks * lo:.0f} - {weeks * hi:.0f} weeks to delivery"
    if name == "lead_time_weeks":
        return f"x {f.low:.2f} - {f.high:.2f} (not the pick's)"
    if name == "engineer_cost_usd_per_year":
        return f"${f.low:,.0f} - ${f.high:,.0f} per engineer-year"
    if name == "stack_debug_weeks_rocm":
        return f"{f.low:g} - {f.high:g} weeks a year per engineer on ROCm"
    if name.startswith("storage_"):
        return f"x {f.low:.2f} - {f.high:.2f} the catalog's storage price"
    if name.startswith("network_cost"):
        return f"x {f.low:.2f} - {f.high:.2f} the fabric table's cost per GPU"
    if name == "support_fraction_per_year":
        return f"{f.low:.0%} - {f.high:.0%} of the hardware's price a year"
    if name == "spare_gpu_fraction":
        return f"{f.low:.1%} - {f.high:.1%} spare GPUs and servers"
    return f"{f.low:.3g} - {f.high:.3g}"
