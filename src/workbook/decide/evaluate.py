"""Times, costs and the moving constraints of every option as arrays: re-evaluated by the ranking,
the sensitivity tornado and the Monte Carlo without re-running the sweep."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..model import breakeven_runs_per_year, cost
from ..units import HOURS_PER_YEAR
from .scenario import Scenario


def evaluate_arrays(
    s: Scenario,
    o: pd.DataFrame,
    *,
    time_factor=1.0,
    rent_price_factor=1.0,
    buy_price_factor=1.0,
    electricity_factor=1.0,
    lead_time_factor=1.0,
    runs_factor=1.0,
) -> dict:
    """Times, costs, budget and deadline checks of every option as numpy arrays.

    Factors scale the base values and may be scalars, per-option arrays, or ``(samples, 1)`` columns
    (Monte Carlo), which broadcast to ``(samples, options)``.
    """
    col = lambda c: o[c].to_numpy(float)  # noqa: E731
    runs = s.runs_per_year * np.asarray(runs_factor, float)
    wall_days = col("base_wall_days") * time_factor * (1.0 + col("spot_overhead"))
    wall_h = wall_days * 24.0
    n, price = col("n_gpus"), col("price")
    is_buy = o["is_buy"].to_numpy(bool)
    reserved = (o["acquisition"] == "rent-reserved").to_numpy(bool)
    wall_h = np.nan_to_num(wall_h, nan=0.0)  # unsupported precision: already infeasible (static)
    rent_run = cost.rent_cost_per_run(n * wall_h, price * rent_price_factor)
    reserved_year = cost.reserved_cost_per_year(n, wall_h, runs, price * rent_price_factor)
    capex = cost.capex(
        n,
        gpu_price_usd=price * buy_price_factor,
        gpus_per_node=col("gpus_per_node"),
        server_cost_usd_per_node=col("server_cost_usd_per_node") * buy_price_factor,
        fabric_cost_usd_per_gpu=col("fabric_cost_usd_per_gpu"),
        retrofit_usd=col("retrofit_usd"),
    )
    kw, colo = col("it_kw"), col("colocation")
    own = cost.ownership_per_year(
        capex,
        life_years=col("life_years"),
        resale_fraction=col("resale"),
        cost_of_capital=col("capital_rate"),
        it_kw=kw,
        pue=col("pue"),
        electricity_usd_per_kwh=col("electricity") * electricity_factor,
        busy_hours_per_year=wall_h * runs,
        idle_power_fraction=col("idle_power_fraction"),
        colocation_usd_per_kw_month=colo,
    )
    fixed, energy = own["fixed"], own["energy_busy"] + own["energy_idle"]
    per_year = np.where(is_buy, own["total"], np.where(reserved, reserved_year, rent_run * runs))
    per_run = per_year / runs
    first_year = np.where(is_buy, capex + energy + kw * 12.0 * colo, per_year)
    lead = col("base_lead_time_days") * lead_time_factor
    ttr = lead + wall_days
    fits_year = wall_h * runs <= HOURS_PER_YEAR * (1 + 1e-9)
    deadline_ok = ttr <= s.deadline_days
    lead_ok = (
        np.ones_like(ttr, bool)
        if s.lead_time_tolerance_weeks is None
        else lead <= s.lead_time_tolerance_weeks * 7.0
    )
    budget_ok = first_year <= s.budget_usd
    feasible = (
        o["static_ok"].to_numpy(bool)
        & deadline_ok
        & lead_ok
        & budget_ok
        & fits_year
        & np.isfinite(per_run)
    )
    return {
        "wall_days": wall_days,
        "lead_time_days": lead,
        "time_to_result_days": ttr,
        "cost_per_run_usd": per_run,
        "cost_per_year_usd": per_year,
        "first_year_cost_usd": first_year,
        "capex_usd": np.where(is_buy, capex, 0.0),
        "usd_per_million_tokens": per_run / (s.tokens / 1e6),
        "schedule_fits_year": fits_year,
        "energy_usd_per_year": np.where(is_buy, energy, 0.0),
        "fixed_usd_per_year": np.where(is_buy, fixed, 0.0),
        "deadline_ok": deadline_ok,
        "lead_ok": lead_ok,
        "budget_ok": budget_ok,
        "feasible": feasible,
    }


def evaluate(s: Scenario, o: pd.DataFrame, **factors) -> pd.DataFrame:
    """:func:`evaluate_arrays` for scalar or per-option factors, as a DataFrame aligned with ``o``."""
    arrays = evaluate_arrays(s, o, **factors)
    return pd.DataFrame(
        {k: np.broadcast_to(v, (len(o),)) for k, v in arrays.items()}, index=o.index
    )


def best_index(s: Scenario, o: pd.DataFrame, ev: dict) -> np.ndarray:
    """Row position of the best feasible option (-1 if none), per sample when ``ev`` is 2-D."""
    primary, secondary = (
        ("time_to_result_days", "cost_per_run_usd")
        if s.objective == "fastest-within-budget"
        else ("cost_per_run_usd", "time_to_result_days")
    )
    feas = np.atleast_2d(ev["feasible"])
    key = np.where(
        feas, np.atleast_2d(ev[primary]) * (1 + 1e-9 * np.atleast_2d(ev[secondary]) / 1e9), np.inf
    )
    idx = np.argmin(key, axis=1)
    return np.where(np.isfinite(key[np.arange(len(idx)), idx]), idx, -1)


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
    ``acquisition``, ``cost_per_year_usd``, ``schedule_fits_year`` (the runs fit in 8,760 hours)."""
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
    """Runs per year above which buying new beats renting on demand, for the best option's cluster."""
    buy = option_row(o, best["accelerator"], best["n_gpus"], "buy-new")
    rent = option_row(o, best["accelerator"], best["n_gpus"], "rent-on-demand")
    if buy is None or rent is None:
        return math.nan
    if not (np.isfinite(buy["fixed_usd_per_year"]) and np.isfinite(rent["cost_per_run_usd"])):
        return math.nan
    kw, pue, elec, idle = buy["it_kw"], buy["pue"], buy["electricity"], buy["idle_power_fraction"]
    energy_run = kw * pue * elec * buy["wall_days"] * 24.0
    idle_year = kw * pue * elec * HOURS_PER_YEAR * idle
    return float(
        breakeven_runs_per_year(
            buy["fixed_usd_per_year"], idle_year, rent["cost_per_run_usd"], energy_run, idle
        )
    )
