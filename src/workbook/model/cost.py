"""Rent and buy cost per run, per year and per million tokens, and the rent-vs-buy break-even.

Renting:  spot = billed GPU-hours x (1 + preemption overhead) x spot price; on-demand = GPU-hours x
price; reserved = a one-year commitment (n GPUs x 8,760 h x price, or the busy hours if longer)
shared by the year's runs.

Buying:   capex = GPUs + non-GPU server share + scale-out network per GPU + liquid-cooling retrofit;
per year = straight-line amortization of (capex - resale) over the life + cost of capital on the
average book value + colocation per kW + energy (busy hours at full power, idle hours at
``idle_power_fraction``) x PUE x $/kWh. Per run = per year / runs per year.

Break-even runs per year (buy vs rent): fixed ownership cost per year / (rent cost per run - the
owner's marginal energy cost per run). Arrays in, arrays out.
"""

from __future__ import annotations

import numpy as np

from ..checks import check_number
from ..units import HOURS_PER_YEAR, MONTHS_PER_YEAR


def rent_cost_per_run(gpu_hours, price_usd_per_gpu_hour, *, overhead_fraction=0.0):
    """Cost of one run rented by the GPU-hour [USD]; ``overhead_fraction`` for spot preemption."""
    h = np.asarray(check_number("gpu_hours", gpu_hours, minimum=0), float)
    p = np.asarray(price_usd_per_gpu_hour, float)  # NaN = no price known: NaN cost
    o = check_number("overhead_fraction", overhead_fraction, minimum=0)
    return h * p * (1.0 + np.asarray(o, float))


def reserved_cost_per_year(n_gpus, wall_hours, runs_per_year, price_usd_per_gpu_hour):
    """A one-year reservation of ``n_gpus`` [USD/yr]: all 8,760 h, or the busy hours if more."""
    busy = np.asarray(wall_hours, float) * np.asarray(
        check_number("runs_per_year", runs_per_year, positive=True), float
    )
    return (
        np.asarray(n_gpus, float)
        * np.maximum(HOURS_PER_YEAR, busy)
        * np.asarray(price_usd_per_gpu_hour, float)
    )


def capex(
    n_gpus,
    *,
    gpu_price_usd,
    server_cost_usd_per_node,
    gpus_per_node,
    fabric_cost_usd_per_gpu,
    retrofit_usd=0.0,
):
    """Purchase cost of a cluster [USD]."""
    n = np.asarray(check_number("n_gpus", n_gpus, positive=True), float)
    nodes = np.ceil(n / np.asarray(gpus_per_node, float))
    return (
        n * np.asarray(gpu_price_usd, float)
        + nodes * np.asarray(server_cost_usd_per_node, float)
        + n * np.asarray(fabric_cost_usd_per_gpu, float)
        + np.asarray(retrofit_usd, float)
    )


def ownership_per_year(
    capex_usd,
    *,
    life_years,
    resale_fraction,
    cost_of_capital,
    it_kw,
    pue,
    electricity_usd_per_kwh,
    busy_hours_per_year,
    idle_power_fraction,
    colocation_usd_per_kw_month,
):
    """Yearly cost of owning a cluster, split into fixed and energy parts (dict of arrays) [USD/yr].

    ``busy_hours_per_year`` is capped at 8,760 (the caller flags schedules that do not fit).
    """
    c = np.asarray(capex_usd, float)
    life = np.asarray(check_number("life_years", life_years, positive=True), float)
    resale = np.asarray(
        check_number("resale_fraction", resale_fraction, minimum=0, maximum=1), float
    )
    rate = np.asarray(check_number("cost_of_capital", cost_of_capital, minimum=0, maximum=1), float)
    kw = np.asarray(it_kw, float)
    busy = np.minimum(np.asarray(busy_hours_per_year, float), HOURS_PER_YEAR)
    idle = HOURS_PER_YEAR - busy
    price = np.asarray(
        check_number("electricity_usd_per_kwh", electricity_usd_per_kwh, minimum=0), float
    )
    amortization = c * (1.0 - resale) / life
    capital = c * (1.0 + resale) / 2.0 * rate
    colocation = kw * MONTHS_PER_YEAR * np.asarray(colocation_usd_per_kw_month, float)
    energy_idle = kw * np.asarray(pue, float) * idle * idle_power_fraction * price
    energy_busy = kw * np.asarray(pue, float) * busy * price
    fixed = amortization + capital + colocation
    return {
        "amortization": amortization,
        "capital": capital,
        "colocation": colocation,
        "energy_busy": energy_busy,
        "energy_idle": energy_idle,
        "fixed": fixed,
        "total": fixed + energy_busy + energy_idle,
    }


def breakeven_runs_per_year(
    fixed_usd_per_year,
    energy_idle_usd_per_year,
    rent_usd_per_run,
    owner_energy_usd_per_run,
    idle_power_fraction,
):
    """Runs per year above which buying is cheaper than renting [runs/yr] (inf if never).

    Owning costs ``F + E_idle + r x (e_run - idle share of e_run)``; renting costs ``r x R``.
    """
    F = np.asarray(fixed_usd_per_year, float) + np.asarray(energy_idle_usd_per_year, float)
    marginal = np.asarray(owner_energy_usd_per_run, float) * (1.0 - idle_power_fraction)
    gain = np.asarray(rent_usd_per_run, float) - marginal
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(gain > 0, F / gain, np.inf)
