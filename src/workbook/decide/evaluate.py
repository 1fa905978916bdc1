"""Times, costs and the moving constraints of every option as arrays: re-evaluated by the ranking,
the sensitivity tornado and the Monte Carlo without re-running the sweep.

Also the one place that finds an option by its key (:func:`option_position`, :func:`option_row`),
ranks (:func:`rank_columns`, :func:`best_index`), prices a cluster against runs per year
(:func:`cost_per_year_curve`) and finds where buying beats renting (:func:`breakeven_for`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..catalog import Catalog
from ..model import (
    BAND_QUANTILES,
    assumption_values,
    breakeven_runs_per_year,
    probability_within,
    quantile_multiplier,
)
from ..units import (
    DAYS_PER_WEEK,
    HOURS_PER_DAY,
    HOURS_PER_YEAR,
    TOKENS_PER_MILLION,
)
from . import ledger
from .delivery import deadline_probability, has_band
from .ledger import Factors
from .scenario import Scenario


class _Columns:
    """The options table's columns as numpy arrays, each read once (an evaluation reads the same
    cost columns for the median, the confidence point and the p10 / p90)."""

    def __init__(self, o: pd.DataFrame):
        self._o, self._arrays = o, {}

    def __getitem__(self, column: str) -> np.ndarray:
        if column not in self._arrays:
            self._arrays[column] = self._o[column].to_numpy()
        return self._arrays[column]


def _floats(o: pd.DataFrame | _Columns, column: str) -> np.ndarray:
    """One column of the options table as floats."""
    return np.asarray(o[column], dtype=float)


def evaluated(s: Scenario, o: pd.DataFrame) -> pd.DataFrame:
    """``o`` with :func:`evaluate`'s columns in place of any it had."""
    ev = evaluate(s, o)
    return pd.concat([o.drop(columns=[c for c in ev.columns if c in o.columns]), ev], axis=1)


def evaluate_arrays(
    s: Scenario,
    o: pd.DataFrame,
    *,
    time_factor=1.0,
    lead_time_factor=1.0,
    runs_factor=1.0,
    quantiles: bool = False,
    delivery_band: bool = True,
    **price_factors,
) -> dict:
    """Times, costs, budget and deadline checks of every option as numpy arrays.

    Factors [x] scale the base values and may be scalars, per-option arrays, or ``(samples, 1)``
    columns (Monte Carlo), which broadcast to ``(samples, options)``: ``time_factor``,
    ``lead_time_factor``, ``runs_factor`` and the price factors of
    :class:`workbook.decide.ledger.Factors` (``rent_price_factor``, ``buy_price_factor``,
    ``electricity_factor``, ``staff_factor``, ``software_factor``, ``storage_factor``,
    ``support_factor``, ``network_factor``, ``spares_factor``). The keys are the ``evaluate``
    columns of :mod:`workbook.decide.columns`: a rented option costs its runs' rent (a reservation
    the whole year's) plus any port of the team's code to its stack, an owned one its yearly
    ownership: depreciation and capital of its purchase plus a year's opex (energy, colocation,
    staff, storage, support); an owned option's first year is its purchase plus that opex, a
    steady year the opex alone (:mod:`workbook.decide.ledger`, each line x its factor).
    ``energy_kwh`` and ``co2e_kg`` are one run's electricity at the median run time (IT power x
    ``run_pue`` x hours) and its emissions.

    Times and costs are at the median of the option's time band (``time_sigma_below`` /
    ``_above``, :mod:`workbook.model.uncertainty`); ``p_deadline``, ``p_budget`` and
    ``p_schedule`` are the probabilities of a finished run by the deadline (lead time included),
    of a first year within the budget and of the year's runs fitting in a year (the band's error is
    the estimate's, so every run of the year shares it), and the deadline, budget and year checks
    hold when they are at least :attr:`Scenario.confidence` (evaluated at the band's
    ``confidence`` quantile of run time). A new cluster's delivery is uncertain too:
    ``p_deadline`` integrates its band (:mod:`.delivery`), whose median ``lead_time_factor``
    scales with the rest of the wait, unless ``delivery_band`` is False (the Monte Carlo, whose
    draws of ``lead_time_factor`` are that uncertainty already: not counted twice).
    ``quantiles`` adds the p10 and p90 of days, time to result and cost per run (the ``_p10`` /
    ``_p90`` columns) and ``p_schedule`` (the frame's; the tornado and the Monte Carlo do not
    read them).
    """
    runs = s.runs_per_year * np.asarray(runs_factor, float)
    o = _Columns(o)
    wall_days = _floats(o, "base_wall_days") * time_factor * (1.0 + _floats(o, "spot_overhead"))
    lead = _floats(o, "base_lead_time_days") * lead_time_factor
    band = (_floats(o, "time_sigma_below"), _floats(o, "time_sigma_above"))
    f = Factors(**price_factors)  # rent_price_factor ... spares_factor (ledger.Factors)
    prices = (f, ledger.capex_lines(o, f))
    med = _costs(s, o, wall_days, runs, *prices)
    m_conf = quantile_multiplier(s.confidence, *band)
    conf = _costs(s, o, wall_days * m_conf, runs, *prices)
    p_deadline, deadline_ok = _deadline(
        s, o, lead, wall_days, band, m_conf, lead_time_factor if delivery_band else None, quantiles
    )
    p_budget = _budget_probability(s, o, wall_days, runs, prices, med, conf, m_conf, band)
    busy_hours = np.nan_to_num(wall_days * HOURS_PER_DAY, nan=0.0) * runs
    year_and_money = (busy_hours * m_conf, lead, deadline_ok, conf["first_year"], med["per_run"])
    checks = _moving_checks(s, o, *year_and_money)
    q = _quantile_columns(s, o, wall_days, lead, runs, prices, band) if quantiles else {}
    if quantiles:  # (only the frame reads it: not computed for the sensitivity's draws)
        with np.errstate(divide="ignore"):  # no busy hours: the runs fit whatever the band
            q["p_schedule"] = probability_within(HOURS_PER_YEAR * (1 + 1e-9) / busy_hours, *band)
    energy_kwh = _floats(o, "it_kw") * _floats(o, "run_pue") * wall_days * HOURS_PER_DAY
    return {
        "wall_days": wall_days,
        **q.get("wall_days", {}),
        "lead_time_days": lead,
        "time_to_result_days": lead + wall_days,
        **q.get("time_to_result_days", {}),
        "cost_per_run_usd": med["per_run"],
        **q.get("cost_per_run_usd", {}),
        "cost_per_year_usd": med["per_year"],
        "first_year_cost_usd": med["first_year"],
        "usd_per_million_tokens": med["per_run"] / (s.tokens / TOKENS_PER_MILLION),
        "schedule_fits_year": checks["schedule_fits_year"],
        **_bill_lines(med, prices[1]),
        "energy_kwh": energy_kwh,
        "co2e_kg": energy_kwh * _floats(o, "grid_kg_co2e_per_kwh"),
        "p_deadline": p_deadline,
        "p_budget": p_budget,
        **({"p_schedule": q["p_schedule"]} if quantiles else {}),
        "deadline_ok": checks["deadline_ok"],
        "lead_ok": checks["lead_ok"],
        "budget_ok": checks["budget_ok"],
        "feasible": checks["feasible"],
    }


def _costs(s: Scenario, o, wall_days, runs, f: Factors, capex: dict) -> dict:
    """Cost per run, per year and of the first year of every option whose runs take
    ``wall_days``, at the factors ``f``, bought at ``capex`` (:func:`ledger.capex_lines`), with
    the owned and rented lines (``own``, ``rent``) [USD, USD/yr]."""
    # Unsupported precision (NaN days): already infeasible (static), costs nothing here.
    wall_h = np.nan_to_num(wall_days * HOURS_PER_DAY, nan=0.0)
    own = ledger.owned_lines(o, wall_h, runs, capex, f)
    rent = ledger.rented_lines(o, wall_h, runs, f)
    is_buy = np.asarray(o["is_buy"], bool)
    per_year = np.where(is_buy, own["total"], rent["total"])
    return {
        "per_run": per_year / runs,
        "per_year": per_year,
        "first_year": np.where(is_buy, own["first_year"], rent["total"]),
        "own": own,
        "rent": rent,
        "is_buy": is_buy,
    }


def _bill_lines(med: dict, capex: dict) -> dict[str, np.ndarray]:
    """The ``evaluate`` step's bill columns at the median run time: the capex lines and the
    yearly lines of an owned option (0 when rented), a rental's rent and egress (0 when owned),
    the opex and a steady year of both [USD, USD/yr]."""
    own, rent, is_buy = med["own"], med["rent"], med["is_buy"]

    def owned(x):
        return np.where(is_buy, x, 0.0)

    def rented(x):
        return np.where(is_buy, 0.0, x)

    return {
        "capex_usd": owned(capex["total"]),
        "gpu_usd": owned(capex["gpu"]),
        "server_usd": owned(capex["server"]),
        "spares_usd": owned(capex["spares"]),
        "depreciation_usd_per_year": owned(own["depreciation"]),
        "capital_usd_per_year": owned(own["capital"]),
        "energy_usd_per_year": owned(own["energy"]),
        "colocation_usd_per_year": owned(own["colocation"]),
        "support_usd_per_year": owned(own["support"]),
        "fixed_usd_per_year": owned(own["fixed"]),
        "rent_usd_per_year": rented(rent["rent"]),
        "staff_usd_per_year": np.where(is_buy, own["staff"], rent["staff"]),
        "egress_usd_per_year": rented(rent["egress"]),
        "opex_usd_per_year": np.where(is_buy, own["opex"], rent["total"]),
        "steady_year_cost_usd": np.where(is_buy, own["opex"], rent["total"] - rent["port"]),
    }


def _budget_probability(s, o, wall_days, runs, prices, med, conf, m_conf, band) -> np.ndarray:
    """P(first-year cost <= budget): the cost is non-decreasing and piecewise affine in run time,
    so the run-time multiplier where it reaches the budget is read off the line through the
    median and the confidence quantile (the p90 at a confidence of 0.5), then its probability."""
    m2, at2 = m_conf, conf
    if s.confidence == 0.5:
        m2 = quantile_multiplier(BAND_QUANTILES[-1], *band)
        at2 = _costs(s, o, wall_days * m2, runs, *prices)
    base = med["first_year"]
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = (at2["first_year"] - base) / (m2 - 1.0)
        m_at_budget = 1.0 + (s.budget_usd - base) / slope
    flat = ~(slope > base * 1e-12)  # the cost does not move with time (or is not finite)
    p = probability_within(np.where(flat, 1.0, m_at_budget), *band)
    p = np.where(flat, (base <= s.budget_usd).astype(float), p)
    return np.where(np.isfinite(base), p, 0.0)


def _quantile_columns(s, o, wall_days, lead, runs, prices, band) -> dict[str, dict]:
    """The p10 and p90 of days per run, time to result and cost per run."""
    out: dict[str, dict] = {"wall_days": {}, "time_to_result_days": {}, "cost_per_run_usd": {}}
    for p in (BAND_QUANTILES[0], BAND_QUANTILES[-1]):
        tag = f"_p{round(p * 100)}"
        w = wall_days * quantile_multiplier(p, *band)
        out["wall_days"]["wall_days" + tag] = w
        out["time_to_result_days"]["time_to_result_days" + tag] = lead + w
        out["cost_per_run_usd"]["cost_per_run_usd" + tag] = _costs(s, o, w, runs, *prices)[
            "per_run"
        ]
    return out


def _deadline(s: Scenario, o, lead, wall_days, band, m_conf, lead_factor, every_row: bool):
    """``p_deadline`` and whether it reaches the confidence. A new cluster's delivery counts as
    its band (:mod:`.delivery`, its median x ``lead_factor``), and the check is the probability
    itself. With ``lead_factor`` None (no delivery band), and for every option whose wait has no
    spread, the check is the run at its confidence quantile after the wait, as before. Unless
    ``every_row`` (the options frame), the band is integrated only for the options that pass the
    static constraints: the others are infeasible whatever their probability."""
    if lead_factor is None:
        p = probability_within((s.deadline_days - lead) / wall_days, *band)
        return p, lead + wall_days * m_conf <= s.deadline_days
    spread = (_floats(o, "delivery_sigma_below"), _floats(o, "delivery_sigma_above"))
    d = _floats(o, "delivery_days") * np.asarray(lead_factor, float)
    only = None if every_row else np.asarray(o["static_ok"], bool)
    p = deadline_probability(s.deadline_days - lead, (d, *spread), wall_days, band, only)
    point = ~has_band(d, *spread)
    if only is not None:
        point = point | ~only  # (infeasible anyway: the static checks fail)
    ok = np.where(point, lead + wall_days * m_conf <= s.deadline_days, p >= s.confidence - 1e-12)
    return p, ok


def _moving_checks(
    s: Scenario, o: pd.DataFrame, busy_hours, lead_days, deadline_ok, first_year_usd, per_run_usd
) -> dict[str, np.ndarray]:
    """The constraints that move with the factors: the year's runs fit in a year, the deadline
    (lead time included: ``deadline_ok``, :func:`_deadline`) and the budget, all three with the
    run time at the scenario's confidence quantile (``busy_hours``, ``first_year_usd``; before
    2026-12-03 the year's runs were checked at the median, so a pick whose runs fitted the year
    with 55 % probability passed), the lead-time tolerance; ``feasible`` adds the static ones and a
    finite cost."""
    fits_year = busy_hours <= HOURS_PER_YEAR * (1 + 1e-9)
    lead_ok = (
        np.ones_like(deadline_ok, bool)
        if s.lead_time_tolerance_weeks is None
        else lead_days <= s.lead_time_tolerance_weeks * DAYS_PER_WEEK
    )
    budget_ok = first_year_usd <= s.budget_usd
    feasible = (
        np.asarray(o["static_ok"], bool)
        & deadline_ok
        & lead_ok
        & budget_ok
        & fits_year
        & np.isfinite(per_run_usd)
    )
    return {
        "schedule_fits_year": fits_year,
        "deadline_ok": deadline_ok,
        "lead_ok": lead_ok,
        "budget_ok": budget_ok,
        "feasible": feasible,
    }


def evaluate(s: Scenario, o: pd.DataFrame, **factors) -> pd.DataFrame:
    """:func:`evaluate_arrays` for scalar or per-option factors, with the p10 and p90 columns, as a
    DataFrame aligned with ``o``."""
    arrays = evaluate_arrays(s, o, quantiles=True, **factors)
    return pd.DataFrame(
        {k: np.broadcast_to(v, (len(o),)) for k, v in arrays.items()}, index=o.index
    )


def rank_columns(s: Scenario) -> tuple[str, str]:
    """The columns options are ranked by, primary first: time to result then cost per run for
    ``fastest-within-budget``, cost then time for ``cheapest-within-deadline``."""
    if s.objective == "fastest-within-budget":
        return ("time_to_result_days", "cost_per_run_usd")
    return ("cost_per_run_usd", "time_to_result_days")


@dataclass(frozen=True)
class TieRule:
    """When a close runner-up on the objective wins on the other measure (data/assumptions.csv).

    ``near_tie_fraction``: options within this fraction of the best on the objective (cost per run,
    or time to result for ``fastest-within-budget``) are tied, and the tie goes to the one better
    on the other measure (the sooner, or the cheaper). ``dominance_cost_fraction`` and
    ``dominance_time_fraction``: a feasible option that finishes at least the second fraction
    sooner and costs at most the first fraction more for each second fraction of time saved
    replaces the pick (:func:`worth_its_premium`: 1 % more for 10 % sooner, 6 % for 60 %); then
    one that costs at most the first fraction more and finishes at least the second fraction
    sooner replaces it (repeatedly), whatever the objective: a reader never sees a pick that
    another beats on time at the same cost.

    Among tied options the higher probability of meeting the other constraint goes first
    (``p_deadline`` for ``cheapest-within-deadline``, ``p_budget`` for
    ``fastest-within-budget``, compared in whole percent, :data:`TIE_PROBABILITY_DECIMALS`), then
    the other measure.
    """

    near_tie_fraction: float
    dominance_cost_fraction: float
    dominance_time_fraction: float

    @classmethod
    def from_catalog(cls, catalog: Catalog) -> TieRule:
        a = assumption_values(catalog)
        return cls(
            a["near_tie_fraction"], a["dominance_cost_fraction"], a["dominance_time_fraction"]
        )


#: The arrays of :func:`evaluate_arrays` the pick is made from.
_PICK_KEYS = ("feasible", "cost_per_run_usd", "time_to_result_days")
#: Decimals probabilities are rounded to before a near-tie compares them (whole percent: a
#: hundredth of a percent is not a difference the band can tell).
TIE_PROBABILITY_DECIMALS = 2
#: How many times a dominating option may replace the pick (each step costs at most 1 % more and
#: saves at least 10 % of the time, so a handful of steps exhaust any option table).
MAX_DOMINANCE_STEPS = 20


def _argmin_by(mask: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Per row, the position of the smallest ``first`` where ``mask`` holds, ties by ``second``."""
    f = np.where(mask, first, np.inf)
    low = np.min(f, axis=1, keepdims=True)
    tied = mask & (f <= low * (1 + 1e-12))
    return np.argmin(np.where(tied, second, np.inf), axis=1)


def best_index(s: Scenario, o: pd.DataFrame, ev: dict, rule: TieRule) -> np.ndarray:
    """Row position of the pick (-1 if nothing is feasible), per sample when ``ev`` is 2-D.

    The best on the scenario's objective (:func:`rank_columns`), unless near-ties (the more
    probable first where ``ev`` has ``p_deadline`` / ``p_budget``) or a dominating option decide
    (:class:`TieRule`).
    """
    primary, secondary = rank_columns(s)
    shape = np.broadcast_shapes(*(np.atleast_2d(ev[k]).shape for k in _PICK_KEYS))
    feas = np.broadcast_to(np.atleast_2d(ev["feasible"]), shape)
    first = np.broadcast_to(np.atleast_2d(ev[primary]), shape)
    second = np.broadcast_to(np.atleast_2d(ev[secondary]), shape)
    best = np.min(np.where(feas, first, np.inf), axis=1, keepdims=True)
    tied = feas & (first <= best * (1.0 + rule.near_tie_fraction))
    prob = "p_deadline" if s.objective == "cheapest-within-deadline" else "p_budget"
    if prob in ev:  # the more likely to meet the other constraint first
        p = np.round(np.broadcast_to(np.atleast_2d(ev[prob]), shape), TIE_PROBABILITY_DECIMALS)
        p = np.where(tied, p, -np.inf)
        tied &= p >= np.max(p, axis=1, keepdims=True)
    pick = _argmin_by(tied, second, first)
    cost = np.broadcast_to(np.atleast_2d(ev["cost_per_run_usd"]), shape)
    days = np.broadcast_to(np.atleast_2d(ev["time_to_result_days"]), shape)
    pick = worth_its_premium(feas, cost, days, pick, rule)

    def dominating(c, d):  # at most the cost fraction more and at least the time fraction sooner
        better = feas & (cost <= c * (1 + rule.dominance_cost_fraction))
        better &= days <= d * (1 - rule.dominance_time_fraction)
        return better.any(axis=1), _argmin_by(better, days, cost)

    pick = _until_stable(pick, cost, days, dominating)
    return np.where(np.isfinite(best[:, 0]), pick, -1)


def _until_stable(pick: np.ndarray, cost, days, step) -> np.ndarray:
    """``pick`` (a position per row) replaced by ``step(c, d)`` until it moves no row (at most
    :data:`MAX_DOMINANCE_STEPS` times): ``step`` takes the pick's cost and days per row (columns)
    and returns which rows move and to which option."""
    rows = np.arange(len(pick))
    for _ in range(MAX_DOMINANCE_STEPS):
        moved, choice = step(cost[rows, pick][:, None], days[rows, pick][:, None])
        if not moved.any():
            break
        pick = np.where(moved, choice, pick)
    return pick


#: The options' columns the pick is made from (:func:`best_index`).
PICK_COLUMNS = ("feasible", "cost_per_run_usd", "time_to_result_days", "p_deadline", "p_budget")


def pick_inputs(o: pd.DataFrame) -> dict:
    """The options' :data:`PICK_COLUMNS` as arrays: the ``ev`` of :func:`best_index`."""
    return {c: o[c].to_numpy() for c in PICK_COLUMNS}


def best_in_groups(s: Scenario, o: pd.DataFrame, ev: dict, rule: TieRule, groups) -> dict:
    """Per label of ``groups`` (one per option), the row position :func:`best_index` picks among
    that group's feasible options: one row of the pick per group, in one call. Groups with no
    feasible option are left out."""
    labels, inverse = np.unique(np.asarray(groups), return_inverse=True)
    feasible = np.asarray(ev["feasible"], bool)
    by_group = (inverse[None, :] == np.arange(len(labels))[:, None]) & feasible[None, :]
    picks = best_index(s, o, {**ev, "feasible": by_group}, rule)
    return {labels[g]: int(p) for g, p in enumerate(picks) if p >= 0}


def worth_its_premium(feas, cost, days, pick: np.ndarray, rule: TieRule) -> np.ndarray:
    """Per row, the pick replaced by a sooner option worth its premium (``(rows, options)``
    arrays; ``pick`` a position per row): an option that finishes at least
    ``dominance_time_fraction`` sooner than the pick and costs at most ``dominance_cost_fraction``
    more for each ``dominance_time_fraction`` of the time saved (1 % per 10 %: 6 % more for a run
    60 % sooner). Among those, the one with the least cost / pick's cost + rate x days / pick's
    days (time valued at that rate, so the premium stays under the rate: 10 % at most). The
    rule's own rationale (data/assumptions.csv dominance_cost_fraction) at every size of saving,
    not only at 10 %: a run 7x sooner for 3 % more is what an executive buys. Repeated from the
    new pick until no option is worth its premium over it (each step saves at least
    ``dominance_time_fraction``, so :data:`MAX_DOMINANCE_STEPS` is ample): measured from the
    first pick only, an option another beats by the same rule was named (CHANGELOG 2026-12-07)."""
    if rule.dominance_time_fraction <= 0:
        return pick
    rate = rule.dominance_cost_fraction / rule.dominance_time_fraction

    def worth(c0, d0):
        with np.errstate(divide="ignore", invalid="ignore"):
            saved = 1.0 - days / d0
            ok = feas & (saved >= rule.dominance_time_fraction) & (cost / c0 - 1.0 <= rate * saved)
            score = np.where(ok, cost / c0 + rate * days / d0, np.inf)
        return ok.any(axis=1), np.argmin(score, axis=1)

    return _until_stable(pick, cost, days, worth)


def option_position(o: pd.DataFrame, accelerator: str, n_gpus: int, acquisition: str) -> int | None:
    """Row position of one option by its key, or None (positional: a boolean filter copies every
    column of the ~150-column options table)."""
    hit = np.flatnonzero(
        (o["accelerator"].to_numpy(object) == accelerator)
        & (o["n_gpus"].to_numpy() == n_gpus)
        & (o["acquisition"].to_numpy(object) == acquisition)
    )
    return int(hit[0]) if len(hit) else None


def option_row(
    o: pd.DataFrame, accelerator: str, n_gpus: int, acquisition: str
) -> pd.Series | None:
    """One option by its key (:func:`option_position`), or None."""
    pos = option_position(o, accelerator, n_gpus, acquisition)
    return None if pos is None else o.iloc[pos]


def cost_per_year_curve(s: Scenario, o: pd.DataFrame, runs_per_year) -> pd.DataFrame:
    """Cost per year of each option in ``o`` at each of ``runs_per_year`` [runs/yr]: one
    :func:`evaluate_arrays` call over a ``(runs, options)`` grid. Long table: ``runs_per_year``,
    ``acquisition``, ``cost_per_year_usd``, ``schedule_fits_year`` (the runs fit in a year's
    :data:`workbook.units.HOURS_PER_YEAR` at the run time's confidence quantile)."""
    runs = np.asarray(runs_per_year, float)
    ev = evaluate_arrays(s, o, runs_factor=(runs / s.runs_per_year)[:, None])
    shape = (len(runs), len(o))
    return pd.DataFrame(
        {
            "runs_per_year": np.repeat(runs, len(o)),
            "acquisition": np.tile(o["acquisition"].to_numpy(object), len(runs)),
            "cost_per_year_usd": np.broadcast_to(ev["cost_per_year_usd"], shape).ravel(),
            "schedule_fits_year": np.broadcast_to(ev["schedule_fits_year"], shape).ravel(),
        }
    )


def breakeven_for(s: Scenario, o: pd.DataFrame, best: pd.Series) -> float:
    """Runs per year above which buying new beats renting on demand, for the best option's cluster
    (NaN where either is missing or has no finite cost) [runs/yr]."""
    buy = option_row(o, best["accelerator"], best["n_gpus"], "buy-new")
    rent = option_row(o, best["accelerator"], best["n_gpus"], "rent-on-demand")
    if buy is None or rent is None:
        return math.nan
    if not (np.isfinite(buy["fixed_usd_per_year"]) and np.isfinite(rent["cost_per_run_usd"])):
        return math.nan
    kw, pue, elec, idle = buy["it_kw"], buy["pue"], buy["electricity"], buy["idle_power_fraction"]
    energy_run = kw * pue * elec * buy["wall_days"] * HOURS_PER_DAY
    idle_year = kw * pue * elec * HOURS_PER_YEAR * idle
    # Both keep the project's storage all year: only the owner's extra is fixed, and the rent per
    # run (with a large rental's engineers for the run's time) is what each further run costs.
    rent_fixed = rent["storage_usd_per_year"] + rent["software_usd_per_year"]
    rent_run = rent["cost_per_run_usd"] - rent_fixed / s.runs_per_year
    fixed = buy["fixed_usd_per_year"] - rent_fixed
    return float(breakeven_runs_per_year(fixed, idle_year, rent_run, energy_run, idle))
