"""Which assumption, moved within its stated range, changes the pick (tornado) and how often each
option wins when all of them move at once (Monte Carlo).

Ranges are the ``low``/``high`` columns of data/assumptions.csv and data/facility.csv. Each factor
re-evaluates the whole option table through :func:`workbook.decision.evaluate_arrays`; efficiency
and failure rate act on run time (an approximation: the whole step time is scaled by the change in
matmul efficiency, and goodput by Young/Daly at the new failure rate), prices, electricity, lead
time and runs per year act on costs and the deadline directly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..catalog import Catalog
from ..model import goodput
from .evaluate import best_index, evaluate_arrays


def _factors(rec, cat: Catalog) -> list[tuple[str, str, float, float, float, dict, dict]]:
    """(label, parameter, base, low, high, factor kwargs at low, at high)."""
    A = cat.tables["assumptions"].set_index("parameter")
    F = cat.tables["facility"]

    def g(name):
        return (
            A.loc[name]
            if not isinstance(A.loc[name], pd.DataFrame)
            else A.loc[name][A.loc[name]["accelerator_id"].isna()].iloc[0]
        )  # noqa: E731

    o = rec.options
    out = []
    e = g("gemm_efficiency")
    out.append(
        (
            "Matmul efficiency (MFU)",
            "gemm_efficiency",
            e["value"],
            e["low"],
            e["high"],
            {"time_factor": e["value"] / e["low"]},
            {"time_factor": e["value"] / e["high"]},
        )
    )
    fr = g("failure_rate_per_gpu_hour")
    a = {k: float(g(k)["value"]) for k in ("checkpoint_write_hours", "restart_hours")}
    n = o["n_gpus"].to_numpy(float)

    def gp(rate):
        return goodput(
            n,
            failure_rate_per_gpu_hour=rate,
            checkpoint_hours=a["checkpoint_write_hours"],  # noqa: E731
            restart_hours=a["restart_hours"],
        )

    base_gp = gp(fr["value"])
    out.append(
        (
            "Failure rate",
            "failure_rate_per_gpu_hour",
            fr["value"],
            fr["low"],
            fr["high"],
            {"time_factor": base_gp / gp(fr["low"])},
            {"time_factor": base_gp / gp(fr["high"])},
        )
    )
    for label, name, key in (
        ("Rental prices", "rent_price_factor", "rent_price_factor"),
        ("Purchase prices", "buy_price_factor", "buy_price_factor"),
        ("Runs per year (utilization)", "runs_factor", "runs_factor"),
    ):
        r = g(name)
        out.append(
            (label, name, r["value"], r["low"], r["high"], {key: r["low"]}, {key: r["high"]})
        )
    el = F[(F["parameter"] == "electricity_usd_per_kwh") & F["accelerator_id"].isna()].iloc[0]
    base_el = float(o["electricity"].iloc[0])
    out.append(
        (
            "Electricity price",
            "electricity_usd_per_kwh",
            base_el,
            el["low"],
            el["high"],
            {"electricity_factor": el["low"] / base_el},
            {"electricity_factor": el["high"] / base_el},
        )
    )
    lt = F[F["parameter"] == "lead_time_weeks"].set_index("accelerator_id")
    acc = o["accelerator"].to_numpy(object)
    is_new = (o["acquisition"] == "buy-new").to_numpy(bool)
    base_lt = lt["value"].reindex(acc).to_numpy(float)
    lo = np.where(is_new, lt["low"].reindex(acc).to_numpy(float) / base_lt, 1.0)
    hi = np.where(is_new, lt["high"].reindex(acc).to_numpy(float) / base_lt, 1.0)
    out.append(
        (
            "Lead time (new hardware)",
            "lead_time_weeks",
            1.0,
            float(np.nanmin(lo)),
            float(np.nanmax(hi)),
            {"lead_time_factor": np.nan_to_num(lo, nan=1.0)},
            {"lead_time_factor": np.nan_to_num(hi, nan=1.0)},
        )
    )
    return out


def _labels(rec) -> np.ndarray:
    o = rec.options
    return (o["acquisition"] + " " + o["n_gpus"].astype(str) + " x " + o["accelerator"]).to_numpy(
        object
    )


def _pick(rec, ev, idx) -> str:
    if idx < 0:
        return "nothing feasible"
    labels = rec.__dict__.get("_labels")
    if labels is None:
        labels = rec.__dict__["_labels"] = _labels(rec)
    return labels[idx]


def tornado(rec, cat: Catalog) -> pd.DataFrame:
    """One row per assumption: the pick's cost per run at the low and high end, and the pick there."""
    s, o = rec.scenario, rec.options
    top_pos = int(
        np.flatnonzero(
            (o["accelerator"] == rec.top.accelerator).to_numpy()
            & (o["n_gpus"] == rec.top.n_gpus).to_numpy()
            & (o["acquisition"] == rec.top.acquisition).to_numpy()
        )[0]
    )
    base_pick = _pick(rec, None, top_pos)
    rows = []
    for label, name, base, low, high, f_lo, f_hi in _factors(rec, cat):
        row = {"assumption": label, "parameter": name, "base": base, "low": low, "high": high}
        for end, f in (("low", f_lo), ("high", f_hi)):
            ev = evaluate_arrays(s, o, **f)
            row[f"cost_per_run_at_{end}"] = float(
                np.broadcast_to(ev["cost_per_run_usd"], (len(o),))[top_pos]
            )
            row[f"pick_at_{end}"] = _pick(rec, ev, int(best_index(s, o, ev)[0]))
        row["flips"] = (row["pick_at_low"] != base_pick) or (row["pick_at_high"] != base_pick)
        row["flips_at"] = (
            _flip_point(rec, name, base, low, high, f_lo, f_hi, base_pick) if row["flips"] else ""
        )
        row["swing_usd"] = abs(row["cost_per_run_at_high"] - row["cost_per_run_at_low"])
        rows.append(row)
    return pd.DataFrame(rows).sort_values("swing_usd", ascending=False).reset_index(drop=True)


def _flip_point(rec, name, base, low, high, f_lo, f_hi, base_pick) -> str:
    """The first value, walking from the base towards the end that flips, where the pick changes."""
    s, o = rec.scenario, rec.options
    for end, value, f in (("low", low, f_lo), ("high", high, f_hi)):
        for t in np.linspace(0.1, 1.0, 10):
            interp = {k: 1.0 + (np.asarray(v) - 1.0) * t for k, v in f.items()}
            ev = evaluate_arrays(s, o, **interp)
            pick = _pick(rec, ev, int(best_index(s, o, ev)[0]))
            if pick != base_pick:
                at = base + (value - base) * t
                return f"{_describe(s, name, at)}: {pick}"
    return ""


def monte_carlo(rec, cat: Catalog, samples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """How often each (acquisition, accelerator) wins when every factor is drawn uniformly in its range."""
    s, o = rec.scenario, rec.options
    rng = np.random.default_rng(seed)
    draws = {}
    for label, name, base, low, high, f_lo, f_hi in _factors(rec, cat):
        u = rng.uniform(size=(samples, 1))
        for k in f_lo:
            lo, hi = np.asarray(f_lo[k], float), np.asarray(f_hi[k], float)
            draws[k] = draws.get(k, 1.0) * (lo + (hi - lo) * u)
    winners = []
    for start in range(0, samples, 200):
        chunk = {k: v[start : start + 200] for k, v in draws.items()}
        ev = evaluate_arrays(s, o, **chunk)
        winners.extend(best_index(s, o, ev))
    picks = pd.Series([_pick(rec, None, int(i)) for i in winners])
    freq = (
        picks.value_counts(normalize=True)
        .rename("share")
        .reset_index()
        .rename(columns={"index": "option"})
    )
    freq.columns = ["option", "share"]
    return freq


def _describe(s, name: str, at: float) -> str:
    """A flip point in the reader's units."""
    if name == "runs_factor":
        return f"{s.runs_per_year * at:.3g} runs a year"
    if name in ("rent_price_factor", "buy_price_factor"):
        return f"{'rental' if name.startswith('rent') else 'purchase'} prices {at - 1:+.0%}"
    if name == "lead_time_weeks":
        return f"lead times x{at:.2f}"
    if name == "electricity_usd_per_kwh":
        return f"electricity ${at:.3f}/kWh"
    return f"{name} = {at:.3g}"
