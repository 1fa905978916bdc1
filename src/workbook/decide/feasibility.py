"""The constraints of an option that do not move with prices, efficiency or lead time, in four
groups (hardware, availability, site, team): one reason string per option and constraint, '' where
it holds. The moving ones (deadline, lead time, budget) are worded by
:func:`workbook.decide.explain.moving_reasons`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..units import MEGA
from .scenario import Scenario

#: Every constraint, in the order an option's failures are listed (``why_<constraint>`` columns).
CONSTRAINTS = (
    "precision",
    "memory",
    "scale",
    "availability",
    "deadline",
    "lead_time",
    "budget",
    "site_power",
    "rack_power",
    "cooling",
    "team",
)

#: The constraints that do not move with prices, efficiency or lead time (this module).
STATIC = (
    "precision",
    "memory",
    "scale",
    "availability",
    "site_power",
    "rack_power",
    "cooling",
    "team",
)


def reason_texts(mask, fmt, *cols) -> np.ndarray:
    """``fmt(*values)`` of ``cols`` where ``mask`` holds, '' elsewhere (an object array).

    Formatting every row is the slow part, so only the rows that fail are formatted; with no
    ``cols``, ``fmt()`` is called once and its text goes to every failing row.
    """
    out = np.full(len(mask), "", dtype=object)
    idx = np.flatnonzero(mask)
    arrays = [np.asarray(c)[idx] for c in cols]
    out[idx] = [fmt(*vals) for vals in zip(*arrays)] if cols else fmt()
    return out


class StaticReasons:
    """The first failure of each static constraint of every option ('' where it holds)."""

    def __init__(self, n_options: int):
        self.text = {k: np.full(n_options, "", dtype=object) for k in STATIC}

    def fail(self, key: str, mask, fmt, *cols) -> None:
        """Record ``fmt`` (a string, or a function of ``cols``) where ``mask`` holds and no reason
        of ``key`` is recorded yet."""
        mask = np.asarray(mask, bool) & (self.text[key] == "")
        texts = reason_texts(mask, fmt, *cols) if callable(fmt) else np.where(mask, fmt, "")
        self.text[key] = np.where(mask, texts, self.text[key])


def static_feasibility(s: Scenario, o: pd.DataFrame, a: dict, site: dict) -> pd.DataFrame:
    """Constraints that do not move with prices or efficiency: adds ``why_<constraint>`` for every
    :data:`STATIC` constraint and ``static_ok`` to ``o`` (in place) and returns it."""
    r = StaticReasons(len(o))
    _hardware_reasons(r, s, o, a)
    _availability_reasons(r, s, o, a)
    _site_reasons(r, s, o, a, site)
    _team_reasons(r, s, o, a)
    for k in STATIC:
        o[f"why_{k}"] = r.text[k]
    o["static_ok"] = np.logical_and.reduce([r.text[k] == "" for k in STATIC])
    return o


def _hardware_reasons(r: StaticReasons, s: Scenario, o: pd.DataFrame, a: dict) -> None:
    """Precision support, memory, and whether the global batch keeps the GPUs busy."""
    r.fail("precision", ~o["supported"], f"no {s.precision.upper()} support")
    r.fail(
        "memory",
        ~o["fits_in_memory"],
        lambda m, g, v: f"needs {m:,.0f} GB per GPU at {g} GPUs; has {v:g} GB",
        o["memory_per_gpu_gb"],
        o["n_gpus"],
        o["memory_gb_available"],
    )
    r.fail(
        "scale",
        o["n_gpus_used"] / o["n_gpus"] < a["min_gpu_use_fraction"],
        lambda u, g, b: (
            f"only {u:,} of {g:,} GPUs can be kept busy with a {b / MEGA:g}M-token global batch"
        ),
        o["n_gpus_used"],
        o["n_gpus"],
        o["global_batch_tokens"],
    )


def _availability_reasons(r: StaticReasons, s: Scenario, o: pd.DataFrame, a: dict) -> None:
    """Allowed modes, capacity that can be rented, parts that cannot be bought, missing prices."""
    mode = o["acquisition"]
    r.fail(
        "availability",
        ~mode.isin(s.acquisition_modes),
        "acquisition mode not allowed in this scenario",
    )
    r.fail(
        "availability",
        (mode == "rent-on-demand") & (o["n_gpus"] > a["on_demand_max_gpus"]),
        f"on-demand capacity beyond {a['on_demand_max_gpus']:g} GPUs is sold as reservations",
    )
    r.fail(
        "availability",
        o["is_buy"] & (o["availability"] == "rent-only"),
        "cloud-only: cannot be bought",
    )
    r.fail(
        "availability",
        (mode == "buy-used") & (not s.used_hardware_allowed),
        "used hardware not allowed",
    )
    _export_reasons(r, s, o, a)
    r.fail("availability", o["price"].isna(), lambda m: f"no {m} price in data/prices.csv", mode)
    r.fail(
        "availability",
        o["price"].notna() & ~o["price_sourced"].to_numpy(bool) & s.sourced_prices_only,
        "its price is an estimate; this scenario allows sourced prices only",
    )
    spot_max = a["spot_max_gpus"]
    r.fail(
        "availability",
        (mode == "rent-spot") & (o["n_gpus"] > spot_max),
        f"spot capacity beyond {spot_max:g} GPUs is not dependable",
    )


def _export_reasons(r: StaticReasons, s: Scenario, o: pd.DataFrame, a: dict) -> None:
    """Where a part may be bought: China-market variants only in China; export-controlled parts
    (TPP at or above data/assumptions.csv export_control_tpp) not in region ``china``."""
    r.fail(
        "availability",
        o["is_buy"] & (o["sold_in"] == "china") & (s.region != "china"),
        "a China-market variant: sold new only in China (buy the worldwide part instead)",
    )
    limit = a["export_control_tpp"]
    r.fail(
        "availability",
        o["is_buy"] & (o["tpp"] >= limit) & (s.region == "china"),
        lambda t: (
            f"export-controlled: TPP {t:,.0f} >= {limit:,.0f} (US BIS rule of 2023-10-17, "
            "ECCN 3A090.a) cannot be bought for China"
        ),
        o["tpp"],
    )


def _site_reasons(r: StaticReasons, s: Scenario, o: pd.DataFrame, a: dict, site: dict) -> None:
    """An owned cluster's site: facility power, the power of one rack, cooling."""
    r.fail(
        "site_power",
        o["is_buy"] & (o["facility_kw"] > s.site_power_kw),
        lambda k, p: f"draws {k:,.0f} kW at PUE {p:.2f}; the site has {s.site_power_kw:,.0f} kW",
        o["facility_kw"],
        o["pue"],
    )
    r.fail(
        "rack_power",
        o["is_buy"] & o["block_exceeds_rack"],
        lambda b, nk: (
            f"one {'NVL72 rack' if b > nk * 1.01 else 'node'} draws {b:,.1f} kW; "
            f"your racks carry {site['rack_limit_kw']:g} kW"
        ),
        o["block_kw"],
        o["node_kw"],
    )
    r.fail(
        "cooling",
        o["needs_retrofit"] & (not s.allow_liquid_retrofit),
        "needs liquid cooling; your racks are air (in air it throttles to about "
        f"{a['air_throttle_fraction']:.0%} of peak, the article's 20 kW rack test)",
    )


def platform_engineers_needed(is_buy, nodes, a: dict) -> np.ndarray:
    """Platform engineers an option needs [engineers] (data/assumptions.csv): an owned
    multi-node cluster ceil(nodes / nodes_per_platform_engineer), a rental of more than
    rented_staff_above_nodes nodes ceil(nodes / nodes_per_platform_engineer_rented) (the
    provider runs the hardware; the scheduler, images and failed jobs are the team's), else 0.
    Times engineer_cost_usd_per_year it is the option's staff_usd_per_year; the team's rule
    (:func:`_team_reasons`) asks an owned cluster's engineers of the team."""
    nodes = np.asarray(nodes, float)
    is_buy = np.asarray(is_buy, bool)
    owned = np.where(is_buy & (nodes > 1), np.ceil(nodes / a["nodes_per_platform_engineer"]), 0.0)
    rented = np.where(
        ~is_buy & (nodes > a["rented_staff_above_nodes"]),
        np.ceil(nodes / a["nodes_per_platform_engineer_rented"]),
        0.0,
    )
    return owned + rented


def _team_reasons(r: StaticReasons, s: Scenario, o: pd.DataFrame, a: dict) -> None:
    """Team and software risk: the article's rules, thresholds in data/assumptions.csv."""
    amd = o["software_stack"] == "rocm"
    weak_rocm = (not s.rocm_experience) and s.platform_engineers < a["rocm_min_platform_engineers"]
    r.fail(
        "team",
        amd & weak_rocm,
        f"ROCm needs ROCm experience or {a['rocm_min_platform_engineers']:g}+ platform engineers; "
        f"you have {s.platform_engineers} "
        "(the article: 'If your team is 5 people, do not pick AMD')",
    )
    r.fail(
        "team",
        (o["software_stack"] == "synapse") & (o["nodes"] > 1),
        "Gaudi 3 is not for distributed training "
        "(the article: the software gap is an order of magnitude)",
    )
    need_pe = np.where(o["is_buy"], platform_engineers_needed(o["is_buy"], o["nodes"], a), 0.0)
    r.fail(
        "team",
        need_pe > s.platform_engineers,
        lambda k, p: (
            f"owning {int(k)} nodes needs {int(p)} platform engineer(s); "
            f"you have {s.platform_engineers}"
        ),
        o["nodes"],
        need_pe,
    )
