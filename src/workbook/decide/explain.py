"""The reasons in words: why each option failed the moving constraints, why the pick wins (one
function per reason), the one-sentence headline, the runners-up and the rejected accelerators."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..catalog import Catalog
from ..model import implied_peak_fraction, training_flops
from ..text import (
    MODE_PHRASE,
    amount_text,
    count_text,
    days_text,
    duration_text,
    energy_text,
    kw_text,
    money_text,
    params_label,
    power_text,
    probability_text,
    runs_text,
)
from ..units import DAYS_PER_YEAR, HOURS_PER_DAY, HOURS_PER_YEAR
from .band_reason import BandBasis, band_reason, band_text
from .bill import software_reason
from .delivery import delivery_reason
from .evaluate import TieRule
from .feasibility import CONSTRAINTS, reason_texts
from .option_record import Option
from .scenario import Scenario

# The moving constraints of every option (deadline, lead time, budget), its distance from feasible


def moving_reasons(s: Scenario, o: pd.DataFrame) -> pd.DataFrame:
    """Add the ``reasons`` columns of :mod:`workbook.decide.columns` to the evaluated options
    ``o`` (in place) and return it: ``why_deadline``, ``why_lead_time``, ``why_budget``, every
    failure in ``failed``, their count ``n_failed`` and the ``shortfall`` score."""
    o["why_deadline"] = _deadline_reasons(s, o)
    o["why_lead_time"] = reason_texts(
        ~o["lead_ok"].to_numpy(bool),
        lambda: f"lead time beyond {s.lead_time_tolerance_weeks} weeks",
    )
    need = f"{probability_text(s.confidence)} required"
    o["why_budget"] = reason_texts(
        ~o["budget_ok"].to_numpy(bool) & np.isfinite(o["first_year_cost_usd"].to_numpy(float)),
        lambda c, p: (
            f"first year costs ${c:,.0f} (median); within the {amount_text(s.budget_usd)} budget "
            "with "
            f"{probability_text(p, s.confidence)} probability, {need}"
        ),
        o["first_year_cost_usd"],
        o["p_budget"],
    )
    why = o[[f"why_{k}" for k in CONSTRAINTS]].to_numpy(object)
    o["failed"] = ["; ".join(filter(None, row)) for row in why]
    o["n_failed"] = (why != "").sum(axis=1)
    o["shortfall"] = _shortfall(s, o)
    return o


def _deadline_reasons(s: Scenario, o: pd.DataFrame) -> np.ndarray:
    """Why an option misses the deadline (lead time + run) or its runs do not fit in a year."""
    # An option without a run time (a precision the part lacks) fails on precision already: no
    # "4 + nan = nan days" for it.
    timed = np.isfinite(o["time_to_result_days"].to_numpy(float))
    need = f"{probability_text(s.confidence)} required"
    deadline = reason_texts(
        ~o["deadline_ok"].to_numpy(bool) & timed,
        lambda lt, w, t, p: (
            f"takes {lt:,.0f} + {w:,.0f} = {t:,.0f} days (lead time + run, median); finishes by "
            f"day {s.deadline_days:g} with {probability_text(p, s.confidence)} probability, "
            f"{need}"
        ),
        o["lead_time_days"],
        o["wall_days"],
        o["time_to_result_days"],
        o["p_deadline"],
    )
    year = ~o["schedule_fits_year"].to_numpy(bool)
    wall, p_year = o["wall_days"].to_numpy(float)[year], o["p_schedule"].to_numpy(float)[year]
    deadline[year] = [
        _year_reason(s, w, p, need) + (f"; {d}" if d else "")
        for w, p, d in zip(wall, p_year, deadline[year])
    ]
    return deadline


def _year_reason(s: Scenario, wall_days: float, p: float, need: str) -> str:
    """Why the year's runs do not fit in it: over the year at the median (``1 run of 475 days does
    not fit in a year``), or inside it at the median with too little probability."""
    runs = runs_text(s.runs_per_year)
    if wall_days * s.runs_per_year * HOURS_PER_DAY > HOURS_PER_YEAR * (1 + 1e-9):
        do = "does" if s.runs_per_year == 1 else "do"
        return f"{runs} of {duration_text(wall_days)} {do} not fit in a year"
    return (
        f"{runs} of {duration_text(wall_days)} (median) fit in a year with "
        f"{probability_text(p, s.confidence)} probability, {need}"
    )


def _shortfall(s: Scenario, o: pd.DataFrame) -> pd.Series:
    """How far an option is from feasible: static failures count fully (10 each), deadline and
    budget by the log of how far the median is over plus how far their probabilities fall short of
    the confidence, a schedule that does not fit in a year by 1."""
    static_fail = (
        o["n_failed"]
        - (o["why_deadline"] != "")
        - (o["why_budget"] != "")
        - (o["why_lead_time"] != "")
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        over_time = np.log(np.maximum(1.0, o["time_to_result_days"] / s.deadline_days))
        over_budget = np.log(np.maximum(1.0, o["first_year_cost_usd"] / max(s.budget_usd, 1.0)))
    short_p = sum(
        np.maximum(0.0, s.confidence - o[p]) for p in ("p_deadline", "p_budget", "p_schedule")
    )  # missing the confidence by a little is nearer than by a lot, at the same median
    return (
        10.0 * static_fail
        + over_time.fillna(10)
        + over_budget.fillna(10)
        + short_p
        + np.where(o["schedule_fits_year"], 0.0, 1.0)
    )


# Sentences about one option


def option_phrase(acquisition: str, n_gpus: float, name: str) -> str:
    """An option in a sentence: ``rent on demand 16 x NVIDIA H200``."""
    return f"{MODE_PHRASE[acquisition]} {int(n_gpus)} x {name}"


def delta_text(x: float, ref: float) -> str:
    """``x`` against the pick's ``ref``: ``+12% vs the pick`` (``n/a``: not finite, or ref 0)."""
    if not (math.isfinite(x) and math.isfinite(ref)) or ref == 0:
        return "n/a"
    d = x / ref - 1
    return f"{d:+.0%} vs the pick"


def pick_sentence(s: Scenario, top: pd.Series) -> str:
    """The headline: the pick, its shape, days and cost per run and year, its power, and a run's
    energy and emissions."""
    verb = MODE_PHRASE[top["acquisition"]]
    nodes = int(top["nodes"])
    where = (
        f", {int(top['racks'])} {s.cooling}-cooled rack{'s' if top['racks'] > 1 else ''}"
        if top["is_buy"]
        else ""
    )
    if top["accelerator"].endswith("nvl72") and top["n_gpus"] >= 72:
        k = int(math.ceil(top["n_gpus"] / 72))
        shape, where = (
            f"{k} NVL72 rack{'s' if k > 1 else ''}",
            (", liquid-cooled" if top["is_buy"] else ""),
        )
    elif top["is_buy"] and top["workstation"]:
        shape, where = "one tower workstation", ""
    else:
        shape = f"{nodes} node{'s' if nodes > 1 else ''}"
    kw = top["facility_kw"]
    power = (
        f"{kw_text(kw)} of facility power"
        if top["is_buy"]
        else "no site power needed (the cloud's racks)"
    )
    port = top["porting_weeks"]
    waits = (
        f"lead time and the port of your code to {top['software_stack'].upper()} "
        f"({port:g} weeks, {money_text(top['porting_usd'])} of engineering) included"
        if port > 0
        else "lead time included"
    )
    return (
        f"{verb.capitalize()} {int(top['n_gpus'])} x {top['name']} ({shape}{where}): "
        f"{duration_text(top['wall_days'])} per run ({band_text(top, 'wall_days')}), "
        f"{days_text(top['time_to_result_days'])} from the decision to a finished run, {waits}; "
        f"{deadline_odds_text(s, top)}. {money_text(top['cost_per_run_usd'])} per run "
        f"({band_text(top, 'cost_per_run_usd')}; {money_text(top['cost_per_year_usd'])} a year for "
        f"{runs_text(s.runs_per_year)}), {power}; a run uses "
        f"{energy_text(top['energy_kwh'], top['co2e_kg'])}."
    )


def deadline_odds_text(s: Scenario, r: pd.Series) -> str:
    """``finishes by day 120 with 86 % probability`` (and the budget's where it is not over
    99 %, and the year's runs' chance of fitting in the year where there are several and it is not
    over 99 %: ``its 6 runs fit in the year with 93 %``)."""
    p = probability_text(r["p_deadline"])
    text = f"finishes by day {s.deadline_days:g} with {p} probability"
    if r["p_budget"] <= 0.99:
        text += f", within the budget with {probability_text(r['p_budget'])}"
    if s.runs_per_year > 1 and r["p_schedule"] <= 0.99:
        text += (
            f", its {runs_text(s.runs_per_year)} fit in the year with "
            f"{probability_text(r['p_schedule'])}"
        )
    return text


#: After a cost that rests on a price with no public source (``price_sourced`` False).
ESTIMATED_PRICE = " at an estimated price"
#: After a cost that rests on a price derived from others, not quoted (``price_derivation``: a
#: 1-year reservation as the on-demand price less a discount).
DERIVED_PRICE = " at a derived price"


def price_note(row) -> str:
    """:data:`ESTIMATED_PRICE` for an option whose price is an estimate, :data:`DERIVED_PRICE`
    for one whose price is derived from others, else '' (a quote)."""
    if not row["price_sourced"]:
        return ESTIMATED_PRICE
    return DERIVED_PRICE if row.get("price_derivation") else ""


def runner_up_sentence(r: Option, top: Option, note: str = "") -> str:
    """A runner-up: its days and cost per run against the pick's (``note``: :func:`price_note`
    of its row, where its price is estimated or derived the sentence says so)."""
    return (
        f"{option_phrase(r.acquisition, r.n_gpus, r.name)}: {duration_text(r.wall_days)} per run, "
        f"{money_text(r.cost_per_run_usd)} per run{note} "
        f"({delta_text(r.cost_per_run_usd, top.cost_per_run_usd)})"
    )


def nearest_line(r: pd.Series) -> str:
    """One of the nearest misses of an infeasible scenario, with what it fails on."""
    return f"Nearest: {option_phrase(r['acquisition'], r['n_gpus'], r['name'])}: {r['failed']}"


def rejected_line(b: pd.Series) -> str:
    """Why an accelerator lost: its best feasible option's cost and time, or its nearest miss."""
    mode, n = MODE_PHRASE[b["acquisition"]], int(b["n_gpus"])
    if b["feasible"]:
        return (
            f"feasible but not the best: {mode} {n} GPUs costs "
            f"{money_text(b['cost_per_run_usd'])} per run{price_note(b)} and takes "
            f"{b['time_to_result_days']:,.0f} days"
        )
    return f"best try {mode} {n} GPUs: {b['failed']}"


def impossibility(s: Scenario, catalog: Catalog) -> str | None:
    """Whether the scenario asks for more arithmetic than its hardware can do at all, or None.

    The most favourable case for the scenario: the training FLOPs counted as ``k N_active D``
    (:func:`workbook.model.training_flops` with ``attention="none"``: any attention only adds),
    on ``max_gpus`` of the allowed accelerator with the highest dense peak at the scenario's
    precision, computing at that peak for the whole deadline (no lead time, no failures). Above 1x
    the peak no option of any size within the scenario can finish in time (the implied MFU of
    :func:`workbook.model.check_claim`, the article's 70B / 5T-token / 48-day headline: 4.0x)."""
    acc = catalog.tables["accelerators"]
    if s.accelerators:
        acc = acc[acc["accelerator_id"].isin(s.accelerators)]
    column = f"tflops_dense_{s.precision}"
    acc = acc[np.isfinite(acc[column].to_numpy(float))]
    if acc.empty:
        return None
    fastest = acc.loc[acc[column].astype(float).idxmax()]
    flops = float(
        training_flops(s.n_active_params or s.n_params, s.tokens, attention="none", method=s.method)
    )
    need = implied_peak_fraction(flops, s.max_gpus, s.deadline_days, float(fastest[column]))
    if need <= 1.0:
        return None
    return (
        f"Physically impossible: {params_label(s.n_params)} parameters on "
        f"{params_label(s.tokens)} tokens in {s.deadline_days:g} days needs {need:.1f}x the dense "
        f"{s.precision.upper()} peak of {s.max_gpus:,} x {fastest['name']}, the fastest part "
        f"allowed, computing at full peak for the whole time ({power_text(flops)} FLOP; the best "
        "published large runs reach about 40-55 % of the peak). No option of any size within the "
        "scenario can do it: extend the deadline, allow more GPUs or train on fewer tokens."
    )


def infeasible_summary(s: Scenario, o: pd.DataFrame) -> str:
    """The three constraints that rule out the most options."""
    counts = {k: int((o[f"why_{k}"] != "").sum()) for k in CONSTRAINTS}
    worst = sorted(counts.items(), key=lambda kv: -kv[1])[:3]
    parts = ", ".join(f"{k.replace('_', ' ')} rules out {v:,} of {len(o):,}" for k, v in worst if v)
    return f"No option meets every constraint: {parts}."


# Why the pick wins: one function per reason (None where a reason does not apply)


def why_top(
    s: Scenario,
    best: pd.Series,
    n_feasible: int,
    breakeven: float,
    other_failed: str,
    basis: BandBasis,
    objective_best: pd.Series | None = None,
    rule: TieRule | None = None,
) -> list[str]:
    """Why ``best`` wins, in order: the objective at the scenario's confidence (and, when
    ``objective_best``, the option best on the objective alone, is another, the near-tie or
    dominance ``rule`` that decided), the time factor, the pick's time band and where it comes from
    (``basis``), its slow end (p90) against the deadline (the option that meets it with more
    probability is a caveat: :func:`workbook.decide.caveats.surer_caveat`), memory, the budget,
    rent vs buy at ``breakeven`` runs a year (``other_failed``: why the same cluster fails the
    other way: bought for a rented pick, rented on demand for a bought one), the price basis and,
    for an owned cluster, its power."""
    tie = objective_best is not None and rule is not None
    reasons = (
        _objective_reason(s, best, n_feasible)
        if not tie
        else _tie_reason(s, best, objective_best, rule),
        _time_factor_reason(s, best),
        band_reason(best, basis, s.exact_shape),
        _slow_end_reason(s, best),
        delivery_reason(best),
        _memory_reason(best),
        _budget_reason(s, best),
        _rent_vs_buy_reason(s, best, breakeven, other_failed),
        software_reason(best),
        _price_basis_reason(best),
        _power_reason(s, best),
    )
    return [r for r in reasons if r is not None]


def _objective_reason(s: Scenario, best: pd.Series, n_feasible: int) -> str:
    several = s.runs_per_year > 1
    runs = runs_text(s.runs_per_year)
    year = f", {probability_text(best['p_schedule'])} for the year's {runs}" if several else ""
    fit = f", and fit {runs} in a year," if several else ""
    odds = (
        f"with at least {probability_text(s.confidence)} probability (this one: "
        f"{probability_text(best['p_deadline'])} for the deadline, "
        f"{probability_text(best['p_budget'])} for the budget{year})"
    )
    if s.objective == "cheapest-within-deadline":
        return (
            f"Cheapest of {n_feasible:,} feasible options that finish within the "
            f"{s.deadline_days:g}-day deadline and the budget{fit} {odds} (lead time "
            f"{best['lead_time_days']:,.0f} days + run {best['wall_days']:,.1f} days, median)."
        )
    return (
        f"Fastest of {n_feasible:,} feasible options within the {amount_text(s.budget_usd)} "
        f"first-year budget and the {s.deadline_days:g}-day deadline{fit} {odds} "
        f"({best['time_to_result_days']:,.1f} days to a finished run at the median, lead time "
        "included)."
    )


def _tie_reason(s: Scenario, best: pd.Series, first: pd.Series, rule: TieRule) -> str:
    """The pick is not the best on the objective alone: say which is, by how much, and the rule."""
    cheapest = s.objective == "cheapest-within-deadline"
    d_cost = best["cost_per_run_usd"] / first["cost_per_run_usd"] - 1.0
    d_days = first["time_to_result_days"] - best["time_to_result_days"]
    other = option_phrase(first["acquisition"], first["n_gpus"], first["name"])
    what = "cheapest" if cheapest else "fastest"
    within = (
        f"options within {rule.near_tie_fraction:.0%} of the {what} "
        f"{'cost' if cheapest else 'time'} count as tied and the tie goes to the one likelier to "
        f"{'finish by the deadline' if cheapest else 'stay within the budget'}, then the "
        f"{'soonest finished run' if cheapest else 'cheapest'}"
    )
    gap = d_cost if cheapest else -d_days / first["time_to_result_days"]
    how = (
        "A near-tie" if gap <= rule.near_tie_fraction + 1e-12 else "A sooner run worth its premium"
    )
    return (
        f"{how} decided: the {what} of the feasible options, {other}, costs "
        f"{money_text(first['cost_per_run_usd'])} per run and has a finished run in "
        f"{days_text(first['time_to_result_days'])}; this one costs {d_cost:+.1%} per run and "
        f"finishes {days_text(abs(d_days))} {'sooner' if d_days >= 0 else 'later'} "
        f"(lead time {days_text(best['lead_time_days'])} + run {duration_text(best['wall_days'])}, "
        f"within the {s.deadline_days:g}-day deadline). Rule ({within}; an option at least "
        f"{rule.dominance_time_fraction:.0%} sooner that costs at most "
        f"{rule.dominance_cost_fraction:.0%} more for each {rule.dominance_time_fraction:.0%} of "
        f"the time saved wins): data/assumptions.csv."
    )


def _time_factor_reason(s: Scenario, best: pd.Series) -> str | None:
    if s.time_factor == 1.0:
        return None
    return (
        f"Planned at your time factor of {s.time_factor:g}x the engine's prediction: "
        f"{days_text(best['wall_days'])} per run instead of "
        f"{days_text(best['wall_days'] / s.time_factor)} "
        "(days, GPU-hours and their cost all scale with it)."
    )


def _slow_end_reason(s: Scenario, best: pd.Series) -> str:
    """The pick's time to result at the slow end of its band (p90) against the deadline."""
    slow, ttr = best["wall_days_p90"], best["time_to_result_days_p90"]
    margin = s.deadline_days - ttr
    verdict = (
        f"still inside the {s.deadline_days:g}-day deadline by {days_text(margin)}"
        if margin >= 0
        else f"{days_text(-margin)} past the {s.deadline_days:g}-day deadline"
    )
    return (
        "At the slow end of its band (the 90th percentile): "
        f"{days_text(slow)} per run, {days_text(ttr)} to a finished run, {verdict}"
        f"{_slow_year_text(s, slow)}."
    )


def _slow_year_text(s: Scenario, slow_days: float) -> str:
    """The year's runs at the slow end's pace, against the year ('' for one run a year)."""
    if s.runs_per_year <= 1:
        return ""
    year = slow_days * s.runs_per_year
    over = (
        f"{days_text(year - DAYS_PER_YEAR)} more than the year"
        if year > DAYS_PER_YEAR
        else "inside the year"
    )
    return f"; its {runs_text(s.runs_per_year)} a year take {days_text(year)} at that pace, {over}"


def _memory_reason(best: pd.Series) -> str:
    return (
        f"Fits in memory: {best['memory_per_gpu_gb']:,.0f} of {best['memory_gb_available']:g} GB "
        f"per GPU ({best['layout']}); estimated MFU {best['mfu']:.0%}."
    )


def _budget_reason(s: Scenario, best: pd.Series) -> str:
    return (
        f"First-year cost {money_text(best['first_year_cost_usd'])} of the "
        f"{amount_text(s.budget_usd)} budget; "
        f"${best['usd_per_million_tokens']:,.2f} per million training tokens."
    )


def _rent_vs_buy_reason(
    s: Scenario, best: pd.Series, breakeven: float, other_failed: str
) -> str | None:
    """Where buying the pick's cluster breaks even with renting it on demand, and, when the cheaper
    way is not the pick's, why it fails (``other_failed``)."""
    if not math.isfinite(breakeven):
        return None
    buy_pays = s.runs_per_year >= breakeven
    verdict = "buying would pay off" if buy_pays else "renting is cheaper"
    line = (
        f"Rent vs buy at this size: buying breaks even at {breakeven:,.1f} runs a year; at your "
        f"{s.runs_per_year:g} {verdict}"
    )
    if other_failed and buy_pays != bool(best["is_buy"]):
        other = "renting it on demand" if best["is_buy"] else "buying it"
        line += f", but {other} fails on: {other_failed}"
    return line + "."


def _price_basis_reason(best: pd.Series) -> str | None:
    """A price that is not a vendor, aggregator or press figure, or is an estimate, is flagged."""
    basis = str(best["price_basis"])
    if not basis or (
        basis.startswith(("vendor", "aggregator", "press")) and "estimate" not in basis.lower()
    ):
        return None
    return f"Price basis: {best['price_basis']}; check it against a live quote before committing."


def _power_reason(s: Scenario, best: pd.Series) -> str | None:
    if not best["is_buy"]:
        return None
    rack = f"{s.rack_limit_kw:g}" if s.rack_limit_kw else f"{best['rack_kw']:,.0f} (used)"
    return (
        f"Power: {count_text(best['nodes'], 'node')} x {best['node_kw']:,.1f} kW (GPUs plus host, "
        f"not TDP alone) = {kw_text(best['it_kw'])} IT, {kw_text(best['facility_kw'])} at PUE "
        f"{best['pue']:.2f}, in {count_text(best['racks'], 'rack')} of {rack} kW."
    )
