"""The reasons in words: why the pick wins, why each option failed, the one-sentence headline."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..text import MODE_PHRASE, days_text
from .options import CONSTRAINTS, _texts
from .scenario import Scenario


def _runs(n: float) -> str:
    return f"{n:g} run" + ("" if n == 1 else "s")


def _moving_reasons(s: Scenario, o: pd.DataFrame) -> pd.DataFrame:
    deadline = _texts(
        ~o["deadline_ok"].to_numpy(bool),
        lambda lt, w, t: (
            f"takes {lt:,.0f} + {w:,.0f} = {t:,.0f} days (lead time + run); deadline {s.deadline_days:g} days"
        ),
        o["lead_time_days"],
        o["wall_days"],
        o["time_to_result_days"],
    )
    year = ~o["schedule_fits_year"].to_numpy(bool)
    runs = _runs(s.runs_per_year)
    deadline[year] = [
        f"{runs} of {w:,.0f} days do not fit in a year" + (f"; {d}" if d else "")
        for w, d in zip(o["wall_days"].to_numpy(float)[year], deadline[year])
    ]
    o["why_deadline"] = deadline
    o["why_lead_time"] = _texts(
        ~o["lead_ok"].to_numpy(bool),
        lambda: f"lead time beyond {s.lead_time_tolerance_weeks} weeks",
    )
    o["why_budget"] = _texts(
        ~o["budget_ok"].to_numpy(bool),
        lambda c: f"first year costs ${c:,.0f}; budget ${s.budget_usd:,.0f}",
        o["first_year_cost_usd"],
    )
    why = o[[f"why_{k}" for k in CONSTRAINTS]].to_numpy(object)
    o["failed"] = ["; ".join(filter(None, row)) for row in why]
    o["n_failed"] = (why != "").sum(axis=1)
    # How far an option is from feasible: static failures count fully, deadline and budget by how far over.
    static_fail = (
        o["n_failed"]
        - (o["why_deadline"] != "")
        - (o["why_budget"] != "")
        - (o["why_lead_time"] != "")
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        over_time = np.log(np.maximum(1.0, o["time_to_result_days"] / s.deadline_days))
        over_budget = np.log(np.maximum(1.0, o["first_year_cost_usd"] / max(s.budget_usd, 1.0)))
    o["shortfall"] = (
        10.0 * static_fail
        + over_time.fillna(10)
        + over_budget.fillna(10)
        + np.where(o["schedule_fits_year"], 0.0, 1.0)
    )
    return o


def _sentence(s: Scenario, top: pd.Series, breakeven: float) -> str:
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
    else:
        shape = f"{nodes} node{'s' if nodes > 1 else ''}"
    power = (
        f"{top['facility_kw']:,.0f} kW of facility power"
        if top["is_buy"]
        else "no site power needed (the cloud's racks)"
    )
    return (
        f"{verb.capitalize()} {int(top['n_gpus'])} x {top['name']} ({shape}{where}): "
        f"{top['wall_days']:,.1f} days per run, ${top['cost_per_run_usd']:,.0f} per run "
        f"(${top['cost_per_year_usd']:,.0f} a year for {_runs(s.runs_per_year)}), {power}."
    )


def _delta(x: float, ref: float) -> str:
    if not (math.isfinite(x) and math.isfinite(ref)) or ref == 0:
        return "n/a"
    d = x / ref - 1
    return f"{d:+.0%} vs the pick"


def _robust_option(
    s: Scenario, o: pd.DataFrame, ranked_pos: np.ndarray, time_range: dict | None
) -> pd.Series | None:
    """The best-ranked feasible option that still makes the deadline when its run takes ``time_range["high"]``
    times its prediction (None when there is no range or no such option)."""
    if time_range is None or len(ranked_pos) == 0:
        return None
    slow_ttr = (
        o["lead_time_days"].to_numpy(float)[ranked_pos]
        + o["wall_days"].to_numpy(float)[ranked_pos] * time_range["high"]
    )
    ok = np.flatnonzero(slow_ttr <= s.deadline_days)
    return o.iloc[ranked_pos[ok[0]]] if len(ok) else None


def _why_top(
    s: Scenario,
    best: pd.Series,
    n_feasible: int,
    breakeven: float,
    buy_failed: str,
    time_range: dict | None = None,
    robust: pd.Series | None = None,
) -> list[str]:
    out = []
    if s.objective == "cheapest-within-deadline":
        out.append(
            f"Cheapest of {n_feasible:,} feasible options that finish within the {s.deadline_days:g}-day deadline "
            f"(lead time {best['lead_time_days']:,.0f} days + run {best['wall_days']:,.1f} days)."
        )
    else:
        out.append(
            f"Fastest of {n_feasible:,} feasible options within the ${s.budget_usd:,.0f} first-year budget "
            f"({best['time_to_result_days']:,.1f} days to a finished run, lead time included)."
        )
    if s.time_factor != 1.0:
        out.append(
            f"Planned at your time factor of {s.time_factor:g}x the engine's prediction: "
            f"{days_text(best['wall_days'])} per run instead of {days_text(best['wall_days'] / s.time_factor)} "
            "(days, GPU-hours and their cost all scale with it)."
        )
    if time_range is not None:
        from ..calibrate.validate import RANGE_QUANTILES

        slow = best["wall_days"] * time_range["high"]
        ttr = best["lead_time_days"] + slow
        margin = s.deadline_days - ttr
        verdict = (
            f"still inside the {s.deadline_days:g}-day deadline by {days_text(margin)}"
            if margin >= 0
            else f"{days_text(-margin)} past the {s.deadline_days:g}-day deadline"
        )
        out.append(
            f"If the run overshoots its prediction as much as the slowest tenth of published pre-training runs "
            f"did ({time_range['high']:.2f}x, the {RANGE_QUANTILES[1] * 100:.0f}th percentile of "
            f"{time_range['n']} held-out runs): {days_text(slow)}, {days_text(ttr)} to a finished run, {verdict}."
            + (
                ""
                if margin >= 0
                else " No feasible option would still make it."
                if robust is None
                else f" The best-ranked option that would: {MODE_PHRASE[robust['acquisition']]} {int(robust['n_gpus'])} x "
                f"{robust['name']}, {robust['wall_days']:,.1f} days, ${robust['cost_per_run_usd']:,.0f} per run "
                f"({_delta(robust['cost_per_run_usd'], best['cost_per_run_usd'])})."
            )
        )
    out.append(
        f"Fits in memory: {best['memory_per_gpu_gb']:,.0f} of {best['memory_gb_available']:g} GB per GPU "
        f"({best['layout']}); estimated MFU {best['mfu']:.0%}."
    )
    out.append(
        f"First-year cost ${best['first_year_cost_usd']:,.0f} of the ${s.budget_usd:,.0f} budget; "
        f"${best['usd_per_million_tokens']:,.2f} per million training tokens."
    )
    if math.isfinite(breakeven):
        verdict = "buying would pay off" if s.runs_per_year >= breakeven else "renting is cheaper"
        line = (
            f"Rent vs buy at this size: buying breaks even at {breakeven:,.1f} runs a year; at your "
            f"{s.runs_per_year:g} {verdict}"
        )
        if not best["is_buy"] and s.runs_per_year >= breakeven and buy_failed:
            line += f", but buying it fails on: {buy_failed}"
        out.append(line + ".")
    basis = str(best["price_basis"])
    if basis and (
        not basis.startswith(("vendor", "aggregator", "press")) or "estimate" in basis.lower()
    ):
        out.append(
            f"Price basis: {best['price_basis']}; check it against a live quote before committing."
        )
    if best["is_buy"]:
        out.append(
            f"Power: {best['nodes']:,.0f} nodes x {best['node_kw']:,.1f} kW (GPUs plus host, not TDP alone) = "
            f"{best['it_kw']:,.0f} kW IT, {best['facility_kw']:,.0f} kW at PUE {best['pue']:.2f}, in "
            f"{best['racks']:,.0f} racks of {_site_rack(s, best)} kW."
        )
    return out


def _site_rack(s: Scenario, best) -> str:
    return f"{s.rack_limit_kw:g}" if s.rack_limit_kw else f"{best['rack_kw']:,.0f} (used)"


def _infeasible_summary(s: Scenario, o: pd.DataFrame) -> str:
    counts = {}
    for k in CONSTRAINTS:
        col = o[f"why_{k}"]
        counts[k] = int((col != "").sum())
    worst = sorted(counts.items(), key=lambda kv: -kv[1])[:3]
    parts = ", ".join(f"{k.replace('_', ' ')} rules out {v:,} of {len(o):,}" for k, v in worst if v)
    return f"No option meets every constraint: {parts}."
