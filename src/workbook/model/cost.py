"""Rent and buy cost per run, per year and per million tokens, and the rent-vs-buy break-even.

Renting:  spot = billed GPU-hours x (1 + preemption overhead) x spot price; on-demand = GPU-hours x
price; reserved = a one-year commitment (n GPUs x 8,760 h x price, or the busy hours if longer)
shared by the year's runs.

Buying:   capex = GPUs + non-GPU server share + scale-out network (cost per GPU rising with its
switch layers) + spare nodes + liquid-cooling retrofit + setup and burn-in;
per year = straight-line amortization of (capex - resale) over the life + cost of capital on the
average book value + colocation per kW + energy (busy hours at full power, idle hours at
``idle_power_fraction``) x PUE x $/kWh. Per run = per year / runs per year.

Break-even runs per year (buy vs rent): fixed ownership cost per year / (rent cost per run - the
owner's marginal energy cost per run). Arrays in, arrays out.
"""

from __future__ import annotations

import numpy as np

from ..checks import check_number
from ..units import HOURS_PER_YEAR, MONTHS_PER_YEAR, TERA


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


def capex_lines(
    n_gpus,
    *,
    gpu_price_usd,
    server_cost_usd_per_node,
    gpus_per_node,
    network_usd=0.0,
    spare_fraction=0.0,
    retrofit_usd=0.0,
    setup_usd=0.0,
) -> dict[str, np.ndarray]:
    """The purchase of a cluster line by line [USD]: ``gpu`` (n x price), ``server`` (nodes x the
    server around the GPUs), ``network`` (the scale-out network, :func:`network_cost_factor`),
    ``spares`` (``spare_fraction`` x (GPUs + servers): spare nodes on the shelf), ``retrofit``,
    ``setup`` (commissioning and burn-in, capitalised with the hardware as IAS 16.17(e) counts
    "costs of testing whether the asset is functioning properly") and ``total``, their sum."""
    n = np.asarray(check_number("n_gpus", n_gpus, positive=True), float)
    nodes = np.ceil(n / np.asarray(gpus_per_node, float))
    lines = {
        "gpu": n * np.asarray(gpu_price_usd, float),
        "server": nodes * np.asarray(server_cost_usd_per_node, float),
        "network": np.asarray(network_usd, float),
    }
    lines["spares"] = np.asarray(spare_fraction, float) * (lines["gpu"] + lines["server"])
    lines["retrofit"] = np.asarray(retrofit_usd, float)
    lines["setup"] = np.asarray(setup_usd, float)
    lines["total"] = sum(lines[k] for k in ("gpu", "server", "network", "spares", "retrofit"))
    lines["total"] = lines["total"] + lines["setup"]
    return lines


def capex(
    n_gpus,
    *,
    gpu_price_usd,
    server_cost_usd_per_node,
    gpus_per_node,
    fabric_cost_usd_per_gpu,
    retrofit_usd=0.0,
):
    """Purchase cost of a cluster [USD]: GPUs, servers, ``fabric_cost_usd_per_gpu`` per GPU and
    any retrofit (:func:`capex_lines` without spares or setup)."""
    n = np.asarray(check_number("n_gpus", n_gpus, positive=True), float)
    return capex_lines(
        n,
        gpu_price_usd=gpu_price_usd,
        server_cost_usd_per_node=server_cost_usd_per_node,
        gpus_per_node=gpus_per_node,
        network_usd=n * np.asarray(fabric_cost_usd_per_gpu, float),
        retrofit_usd=retrofit_usd,
    )["total"]


def network_tiers(nodes, *, one_tier_max_nodes, two_tier_max_nodes) -> np.ndarray:
    """Switch layers of a cluster's scale-out network [count]: 0 on one node, 1 up to
    ``one_tier_max_nodes`` (one leaf switch per rail), 2 up to ``two_tier_max_nodes`` (leaf and
    spine: radix^2 / 2 end points per rail), 3 beyond (a three-layer fat tree)."""
    k = np.asarray(check_number("nodes", nodes, minimum=1), float)
    return np.select(
        [k <= 1, k <= one_tier_max_nodes, k <= two_tier_max_nodes], [0.0, 1.0, 2.0], 3.0
    )


def network_cost_factor(tiers, *, one_tier_factor, three_tier_factor) -> np.ndarray:
    """Network cost per GPU of a ``tiers``-layer fabric / the fabric table's cost (a two-layer fat
    tree) [x]: 0 for no fabric, ``one_tier_factor`` for one layer, 1 for two, ``three_tier_factor``
    for three. A GPU's traffic crosses 2 x tiers - 1 switch ports and ``tiers`` optical links, so
    the cost per GPU rises with each layer (data/assumptions.csv network_cost_factor_*)."""
    t = np.asarray(tiers, float)
    return np.select([t == 0, t == 1, t == 2], [0.0, one_tier_factor, 1.0], three_tier_factor)


def storage_tb(
    n_tokens, n_params, *, bytes_per_token, checkpoints_kept, checkpoint_bytes_per_param
):
    """Storage a training project keeps [TB]: the tokenized dataset (``n_tokens`` x
    ``bytes_per_token``) and ``checkpoints_kept`` checkpoints of ``checkpoint_bytes_per_param``
    bytes per parameter."""
    data = np.asarray(check_number("n_tokens", n_tokens, minimum=0), float) * bytes_per_token
    ckpt = np.asarray(check_number("n_params", n_params, positive=True), float)
    return (data + ckpt * checkpoint_bytes_per_param * checkpoints_kept) / TERA


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
