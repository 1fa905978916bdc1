"""Notebook 03, rent vs buy: what one cluster costs per run and per year under every acquisition
mode with a price, the cost curve against runs per year, and the article's rent-vs-buy paragraph
recomputed.

Costs are the decision engine's (:func:`workbook.decide.recommend` prices the options,
:func:`workbook.decide.cost_per_year_curve` re-evaluates them per runs per year, the break-even is
:func:`workbook.decide.breakeven_for`); the chart is
:func:`workbook.present.guide_charts.rent_vs_buy_chart`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..checks import check_choice, check_number
from ..decide import MAX_GPUS, Scenario, breakeven_for, cost_per_year_curve, gpu_counts, recommend
from ..units import DAYS_PER_YEAR, HOURS_PER_DAY
from .inputs import accelerator_id, sizes

__all__ = [
    "ARTICLE_RENT_VS_BUY",
    "article_rent_vs_buy",
    "rent_vs_buy_curve",
    "rent_vs_buy_table",
]

#: The article's rent-vs-buy paragraph ("The One GPU I Would Buy If I Had $0"): "A typical 70B
#: pretraining run (5T tokens) takes roughly 48 days on 128 GPUs of H200. That's $502K in spot
#: pricing. Buying the GPUs outright costs $1.8M ... you break even at about 2.5 long runs per
#: year."
ARTICLE_RENT_VS_BUY = {
    "accelerator": "h200-sxm",
    "n_gpus": 128,
    "n_params": 70e9,
    "n_tokens": 5e12,
    "days": 48.0,
    "spot_usd_per_gpu_hour": 3.40,
    "spot_usd_per_run": 502_000.0,
    "buy_usd": 1_800_000.0,
    "breakeven_runs_per_year": 2.5,
}

#: Columns of the options table that :func:`rent_vs_buy_table` shows, in order.
_TABLE_COLUMNS = [
    "acquisition",
    "price",
    "price_basis",
    "wall_days",
    "cost_per_run_usd",
    "cost_per_year_usd",
    "first_year_cost_usd",
    "capex_usd",
    "usd_per_million_tokens",
    "schedule_fits_year",
]


def _scenario(acc: str, n_gpus: int, n_params, n_tokens, runs_per_year, cooling) -> Scenario:
    """A pretraining scenario on one cluster where only the cost question is asked.

    Feasibility is not the question here: no deadline, budget, site or team limit bites (ten
    years, USD 1e11, 10 GW, 100,000 platform engineers).
    """
    return Scenario(
        name=f"rent vs buy: {int(n_gpus)} x {acc}",
        workload="pretrain",
        n_params=float(n_params),
        n_tokens=float(n_tokens),
        deadline_days=3650,
        budget_usd=1e11,
        runs_per_year=float(runs_per_year),
        site_power_kw=1e7,
        cooling=cooling,
        allow_liquid_retrofit=True,
        platform_engineers=100_000,
        rocm_experience=True,
        accelerators=[acc],
        max_gpus=int(n_gpus),
    )


def _rent_vs_buy_options(accelerator, n_gpus, n_params, n_tokens, runs_per_year, cooling, catalog):
    """The checked scenario, its priced options at exactly ``n_gpus`` and the engine's break-even
    [runs/yr] (NaN without a buy-new price)."""
    cat = resolve_catalog(catalog)
    acc = accelerator_id(cat, accelerator)
    check_number("n_gpus", n_gpus, positive=True, integer=True)
    check_number("n_params", n_params, positive=True)
    check_number("n_tokens", n_tokens, positive=True)
    check_number("runs_per_year", runs_per_year, positive=True, maximum=DAYS_PER_YEAR)
    check_choice("cooling", cooling, ("air", "liquid"))
    spec = cat.accelerator(acc)
    cluster_sizes = gpu_counts(
        int(spec["gpus_per_node"]), int(spec["scale_up_domain_gpus"]), MAX_GPUS
    )
    if int(n_gpus) not in cluster_sizes:
        raise ValueError(
            f"n_gpus={n_gpus!r} is not a cluster size the engine prices for {acc}; allowed: "
            f"{', '.join(map(str, cluster_sizes[:12]))}, ..."
        )
    s = _scenario(acc, n_gpus, n_params, n_tokens, runs_per_year, cooling)
    o = recommend(s, catalog=cat, sensitivity=False).options
    same = o[(o["n_gpus"] == int(n_gpus)) & np.isfinite(o["price"].to_numpy(float))]
    buy = same[same["acquisition"] == "buy-new"]
    breakeven = float(breakeven_for(s, o, buy.iloc[0])) if len(buy) else math.nan
    return s, same, breakeven


def rent_vs_buy_table(
    accelerator: str,
    n_gpus: int,
    *,
    n_params: float,
    n_tokens: float,
    runs_per_year: float = 1.0,
    cooling: str = "air",
    catalog: Catalog | None = None,
) -> pd.DataFrame:
    """Cost of one cluster under every acquisition mode with a price, from the decision engine.

    Costs come from :func:`workbook.decide.evaluate` (rent: GPU-hours x price, spot with its
    preemption overhead, a 1-year reservation; buy: capex, straight-line amortization to resale,
    cost of capital, colocation, energy at PUE; see :mod:`workbook.model.cost`). The break-even is
    the engine's (buy-new vs rent-on-demand, :func:`workbook.decide.breakeven_for`).

    Parameters
    ----------
    accelerator : str
        Catalog id.
    n_gpus : int
        Cluster size [GPUs]; one of the engine's sizes (whole nodes / NVL72 racks).
    n_params, n_tokens : float
        Model parameters [count] and tokens per run [tokens].
    runs_per_year : float
        Runs of this size per year [runs/yr], 0 < x <= 365.
    cooling : {"air", "liquid"}
        The owner's racks; liquid-only parts bought for air racks carry the retrofit cost.

    Returns
    -------
    DataFrame, one row per priced mode: ``acquisition``, ``price`` [USD/GPU-h or USD/GPU],
    ``price_basis``, ``wall_days``, ``cost_per_run_usd``, ``cost_per_year_usd``,
    ``first_year_cost_usd``, ``capex_usd``, ``usd_per_million_tokens``, ``schedule_fits_year``,
    ``breakeven_runs_per_year`` and ``breakeven_busy_fraction`` (share of the year the cluster
    must be busy for buying to pay off).
    """
    _, same, breakeven = _rent_vs_buy_options(
        accelerator, n_gpus, n_params, n_tokens, runs_per_year, cooling, catalog
    )
    out = same[_TABLE_COLUMNS].reset_index(drop=True)
    on_demand = same["acquisition"] == "rent-on-demand"
    base_days = (
        float(same.loc[on_demand, "wall_days"].iloc[0])
        if on_demand.any()
        else float(same["wall_days"].min())
    )
    out["breakeven_runs_per_year"] = breakeven
    out["breakeven_busy_fraction"] = breakeven * base_days / DAYS_PER_YEAR
    return out


def rent_vs_buy_curve(
    accelerator: str,
    n_gpus: int,
    *,
    n_params: float,
    n_tokens: float,
    runs: Iterable[float] | None = None,
    cooling: str = "air",
    catalog: Catalog | None = None,
) -> pd.DataFrame:
    """Cost per year against runs per year for each mode (long table for the rent-vs-buy chart).

    ``runs`` [runs/yr] defaults to 40 points from 0.1 to as many runs as fit in a year. The
    options are re-evaluated at every point by :func:`workbook.decide.cost_per_year_curve`.

    Returns
    -------
    DataFrame, one row per (runs per year, mode): ``runs_per_year``, ``acquisition``,
    ``cost_per_year_usd``, ``schedule_fits_year``.
    """
    s, same, _ = _rent_vs_buy_options(
        accelerator, n_gpus, n_params, n_tokens, 1.0, cooling, catalog
    )
    if runs is None:
        max_fit = DAYS_PER_YEAR / float(same["wall_days"].min())
        grid = np.linspace(min(0.1, max_fit), max_fit, 40)
    else:
        grid = np.asarray(sizes("runs", runs))
    return cost_per_year_curve(s, same, grid)


def article_rent_vs_buy(catalog: Catalog | None = None) -> pd.DataFrame:
    """The article's rent-vs-buy paragraph next to the engine's figures for the same cluster.

    The article: 70B on 5T tokens, 128 H200, "roughly 48 days", "$502K in spot pricing", "$1.8M"
    to buy, break-even "about 2.5 long runs per year" (:data:`ARTICLE_RENT_VS_BUY`).

    Returns
    -------
    DataFrame with ``figure``, ``article``, ``engine`` and ``engine_over_article``.
    """
    art = ARTICLE_RENT_VS_BUY
    t = rent_vs_buy_table(
        art["accelerator"],
        art["n_gpus"],
        n_params=art["n_params"],
        n_tokens=art["n_tokens"],
        catalog=catalog,
    ).set_index("acquisition")
    days = float(t.loc["rent-on-demand", "wall_days"])
    rows = [
        ("run length (days)", art["days"], days),
        (
            "GPU-hours per run",
            art["n_gpus"] * art["days"] * HOURS_PER_DAY,
            art["n_gpus"] * days * HOURS_PER_DAY,
        ),
        (
            "rent on spot, per run (USD)",
            art["spot_usd_per_run"],
            float(t.loc["rent-spot", "cost_per_run_usd"]),
        ),
        ("buy new, capex (USD)", art["buy_usd"], float(t.loc["buy-new", "capex_usd"])),
        (
            "break-even (runs per year)",
            art["breakeven_runs_per_year"],
            float(t["breakeven_runs_per_year"].iloc[0]),
        ),
        (
            "break-even (share of the year busy)",
            art["breakeven_runs_per_year"] * art["days"] / DAYS_PER_YEAR,
            float(t["breakeven_busy_fraction"].iloc[0]),
        ),
        ("runs that fit in a year", DAYS_PER_YEAR / art["days"], DAYS_PER_YEAR / days),
    ]
    df = pd.DataFrame(rows, columns=["figure", "article", "engine"])
    df["engine_over_article"] = df["engine"] / df["article"]
    return df
