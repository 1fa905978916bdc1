"""The options of a scenario: every accelerator x GPU count x acquisition mode, with its inputs
and the constraints that do not move with prices or efficiency (one reason string per failure)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..catalog import Catalog, load_catalog
from ..model import assumption_values, cluster_power, estimate_frame
from .scenario import ACQUISITIONS, Scenario

#: Node counts tried for each accelerator: ~2 per octave up to 16,384 GPUs.
NODE_COUNTS = (
    1,
    2,
    3,
    4,
    6,
    8,
    12,
    16,
    24,
    32,
    48,
    64,
    96,
    128,
    192,
    256,
    384,
    512,
    768,
    1024,
    1536,
    2048,
)


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


def gpu_counts(gpus_per_node: int, domain: int, max_gpus: int) -> list[int]:
    """Sensible cluster sizes: 1, 2, 4 GPUs inside a node, node multiples, and whole rack-scale domains."""
    counts = {c for c in (1, 2, 4) if c <= gpus_per_node}
    counts |= {gpus_per_node * k for k in NODE_COUNTS}
    if domain > gpus_per_node:  # NVL72: whole racks only beyond one rack
        counts = {c for c in counts if c <= domain} | {domain * k for k in NODE_COUNTS}
    return sorted(c for c in counts if c <= max_gpus)


@dataclass
class Option:
    """One row of ``Recommendation.options`` as an object (``rec.top``)."""

    accelerator: str
    name: str
    n_gpus: int
    acquisition: str
    nodes: int
    wall_days: float
    lead_time_days: float
    time_to_result_days: float
    cost_per_run_usd: float
    cost_per_year_usd: float
    first_year_cost_usd: float
    usd_per_million_tokens: float
    capex_usd: float
    facility_kw: float
    racks: int
    rack_kw: float
    memory_per_gpu_gb: float
    mfu: float
    layout: str
    sentence: str = ""

    @classmethod
    def from_row(cls, r: pd.Series) -> "Option":
        return cls(
            accelerator=r["accelerator"],
            name=r["name"],
            n_gpus=int(r["n_gpus"]),
            acquisition=r["acquisition"],
            nodes=int(r["nodes"]),
            wall_days=float(r["wall_days"]),
            lead_time_days=float(r["lead_time_days"]),
            time_to_result_days=float(r["time_to_result_days"]),
            cost_per_run_usd=float(r["cost_per_run_usd"]),
            cost_per_year_usd=float(r["cost_per_year_usd"]),
            first_year_cost_usd=float(r["first_year_cost_usd"]),
            usd_per_million_tokens=float(r["usd_per_million_tokens"]),
            capex_usd=float(r["capex_usd"]),
            facility_kw=float(r["facility_kw"]),
            racks=int(r["racks"]),
            rack_kw=float(r["rack_kw"]),
            memory_per_gpu_gb=float(r["memory_per_gpu_gb"]),
            mfu=float(r["mfu"]),
            layout=str(r["layout"]),
        )


def site_defaults(s: Scenario, cat: Catalog) -> dict:
    """The scenario's rack limit, PUE and electricity price, data/facility.csv defaults where unset."""
    cooling = s.cooling
    return {
        "rack_limit_kw": s.rack_limit_kw
        if s.rack_limit_kw is not None
        else cat.param("facility", f"rack_limit_kw_{cooling}"),
        "pue": s.pue if s.pue is not None else cat.param("facility", f"pue_{cooling}"),
        "electricity": s.electricity_usd_per_kwh
        if s.electricity_usd_per_kwh is not None
        else cat.param("facility", "electricity_usd_per_kwh"),
    }


#: Columns of :func:`workbook.estimate_frame` that :attr:`Scenario.time_factor` multiplies (times) or divides (rates).
TIME_COLUMNS = ("wall_hours", "wall_days", "gpu_hours")


RATE_COLUMNS = (
    "tokens_per_s",
    "tokens_per_s_per_gpu",
    "steady_tokens_per_s_per_gpu",
    "mfu",
    "mfu_bf16_peak",
)


def sweep(s: Scenario, cat: Catalog | None = None) -> pd.DataFrame:
    """Every (accelerator, GPU count) configuration of the scenario, estimated (one row each)."""
    cat = cat or load_catalog()
    acc = cat.tables["accelerators"]
    if s.accelerators:
        for a in s.accelerators:
            cat.accelerator(a)
        acc = acc[acc["accelerator_id"].isin(s.accelerators)]
    if s.fabric:
        cat.fabric(s.fabric)
    rows = []
    for _, a in acc.iterrows():
        for n in gpu_counts(int(a["gpus_per_node"]), int(a["scale_up_domain_gpus"]), s.max_gpus):
            rows.append((a["accelerator_id"], n))
    cfg = pd.DataFrame(rows, columns=["accelerator", "n_gpus"])
    cfg["n_params"] = s.n_params
    cfg["n_active_params"] = s.n_active_params if s.n_active_params else np.nan
    cfg["n_tokens"] = s.tokens
    cfg["seq_len"] = s.seq_len
    cfg["precision"] = s.precision
    cfg["method"] = s.method
    cfg["fabric"] = s.fabric
    # Rented or properly cooled owned racks: parts run at their designed cooling. An owned
    # liquid-only part in air racks is rejected (cooling constraint), not silently throttled.
    cfg["cooling"] = None
    est = estimate_frame(cfg, catalog=cat)
    # The scenario's time factor (a pilot run's measured / predicted time): whole-run figures only.
    est["time_factor"] = s.time_factor
    if s.time_factor != 1.0:
        for c in TIME_COLUMNS:
            est[c] = est[c] * s.time_factor
        for c in RATE_COLUMNS:
            est[c] = est[c] / s.time_factor
    spec = acc.set_index("accelerator_id")
    est["name"] = spec.loc[est["accelerator"], "name"].to_numpy()
    return est


def _options(s: Scenario, est: pd.DataFrame, cat: Catalog) -> pd.DataFrame:
    """Expand the sweep to acquisition modes with cost, power and feasibility columns."""
    a = assumption_values(cat)
    site = site_defaults(s, cat)
    spec = cat.tables["accelerators"].set_index("accelerator_id")
    prices = cat.default_prices()
    basis = cat.default_prices("basis")
    acc_ids = est["accelerator"].to_numpy(object)
    gpn = spec.loc[acc_ids, "gpus_per_node"].to_numpy(float)
    domain = spec.loc[acc_ids, "scale_up_domain_gpus"].to_numpy(float)
    tdp = spec.loc[acc_ids, "tdp_w"].to_numpy(float)
    fac = lambda p: cat.param_by_accelerator("facility", p).reindex(acc_ids).to_numpy(float)  # noqa: E731
    host_kw = np.nan_to_num(fac("host_overhead_kw_per_node"), nan=0.0)
    power = cluster_power(
        est["n_gpus"].to_numpy(float),
        gpus_per_node=gpn,
        tdp_w=np.where(np.isfinite(tdp), tdp, 1.0),
        host_overhead_kw=host_kw,
        rack_limit_kw=site["rack_limit_kw"],
        nodes_per_rack_max=np.nan_to_num(fac("nodes_per_rack_max"), nan=1.0),
        pue=site["pue"],
        scale_up_domain_gpus=domain,
    )
    fabric_cost = cat.tables["fabrics"].set_index("fabric_id")["cost_usd_per_gpu"]
    lay = est[["tp", "pp", "dp", "zero_stage"]].astype(str)
    cols = {
        k: power[k]
        for k in (
            "nodes",
            "it_kw",
            "racks",
            "rack_kw",
            "facility_kw",
            "node_kw",
            "block_kw",
            "block_exceeds_rack",
        )
    }
    cols.update(
        gpus_per_node=gpn,
        cooling_options=spec.loc[acc_ids, "cooling_options"].to_numpy(object),
        software_stack=spec.loc[acc_ids, "software_stack"].to_numpy(object),
        availability=spec.loc[acc_ids, "availability"].to_numpy(object),
        lead_time_weeks_new=fac("lead_time_weeks"),
        server_cost_usd_per_node=np.nan_to_num(fac("server_cost_usd_per_node"), nan=0.0),
        fabric_cost_usd_per_gpu=np.where(
            power["nodes"] > 1, fabric_cost.reindex(est["fabric"]).to_numpy(float), 0.0
        ),
        layout=(
            "TP"
            + lay["tp"]
            + " PP"
            + lay["pp"]
            + " DP"
            + lay["dp"]
            + " ZeRO-"
            + lay["zero_stage"]
            + ", "
            + est["recompute"]
            + " recompute"
        ).to_numpy(object),
    )
    base = pd.concat([est, pd.DataFrame(cols, index=est.index)], axis=1)

    # One copy of every configuration per acquisition mode (numpy repeat, then per-mode columns).
    m = len(ACQUISITIONS)
    o = base.iloc[np.tile(np.arange(len(base)), m)].reset_index(drop=True)
    mode = np.repeat(np.array(ACQUISITIONS, dtype=object), len(base))
    kinds = ["rent-reserved-1y" if x == "rent-reserved" else x for x in ACQUISITIONS]
    pw = prices.reindex(acc_ids).reindex(columns=kinds)
    bw = basis.reindex(acc_ids).reindex(columns=kinds)
    price = pw.to_numpy(float).T.ravel()
    price_basis = bw.fillna("").to_numpy(object).T.ravel()
    is_buy = np.char.startswith(mode.astype(str), "buy")
    needs_retrofit = (
        is_buy & (o["cooling_options"].to_numpy(object) == "liquid") & (s.cooling == "air")
    )
    retro = needs_retrofit & s.allow_liquid_retrofit
    rent_weeks = cat.param("facility", "lead_time_weeks_rent")
    lead_weeks = np.select(
        [mode == "buy-new", mode == "buy-used"],
        [
            np.nan_to_num(o["lead_time_weeks_new"].to_numpy(float), nan=rent_weeks),
            cat.param("facility", "lead_time_weeks_used"),
        ],
        rent_weeks,
    )
    extra = dict(
        acquisition=mode,
        price=price,
        price_basis=price_basis,
        is_buy=is_buy,
        life_years=np.where(
            mode == "buy-used",
            a["used_hardware_life_years"],
            cat.param("facility", "hardware_life_years"),
        ),
        needs_retrofit=needs_retrofit,
        retrofit_usd=np.where(
            retro,
            o["it_kw"].to_numpy(float) * cat.param("facility", "liquid_retrofit_usd_per_kw"),
            0.0,
        ),
        pue=np.where(retro, cat.param("facility", "pue_liquid"), site["pue"]),
        lead_time_days=7.0 * lead_weeks,
        base_lead_time_days=7.0 * lead_weeks,
        spot_overhead=np.where(mode == "rent-spot", a["spot_preemption_overhead"], 0.0),
        electricity=np.full(len(o), site["electricity"]),
        colocation=np.full(len(o), cat.param("facility", "colocation_usd_per_kw_month")),
        resale=np.full(len(o), cat.param("facility", "resale_fraction_end_of_life")),
        capital_rate=np.full(len(o), cat.param("facility", "cost_of_capital_per_year")),
        idle_power_fraction=np.full(len(o), a["idle_power_fraction"]),
        base_wall_days=o["wall_days"].to_numpy(float),
    )
    o = pd.concat([o, pd.DataFrame(extra, index=o.index)], axis=1)
    o = _static_feasibility(s, o, cat, a, site)
    return o


def _static_feasibility(
    s: Scenario, o: pd.DataFrame, cat: Catalog, a: dict, site: dict
) -> pd.DataFrame:
    """Constraints that do not move with prices or efficiency: one reason string per failure."""
    n = len(o)
    reasons = {k: np.full(n, "", dtype=object) for k in CONSTRAINTS}

    def fail(key, mask, fmt, *cols):
        """Record ``fmt`` (a string, or a function of ``cols``) where ``mask`` holds and nothing is yet."""
        mask = np.asarray(mask, bool) & (reasons[key] == "")
        texts = _texts(mask, fmt, *cols) if callable(fmt) else np.where(mask, fmt, "")
        reasons[key] = np.where(mask, texts, reasons[key])

    fail("precision", ~o["supported"], f"no {s.precision.upper()} support")
    fail(
        "memory",
        ~o["fits_in_memory"],
        lambda m, g, v: f"needs {m:,.0f} GB per GPU at {g} GPUs; has {v:g} GB",
        o["memory_per_gpu_gb"],
        o["n_gpus"],
        o["memory_gb_available"],
    )
    fail(
        "scale",
        o["n_gpus_used"] / o["n_gpus"] < a["min_gpu_use_fraction"],
        lambda u, g, b: (
            f"only {u:,} of {g:,} GPUs can be kept busy with a {b / 1e6:g}M-token global batch"
        ),
        o["n_gpus_used"],
        o["n_gpus"],
        o["global_batch_tokens"],
    )
    fail(
        "availability",
        ~o["acquisition"].isin(s.acquisition_modes),
        "acquisition mode not allowed in this scenario",
    )
    fail(
        "availability",
        (o["acquisition"] == "rent-on-demand") & (o["n_gpus"] > a["on_demand_max_gpus"]),
        f"on-demand capacity beyond {a['on_demand_max_gpus']:g} GPUs is sold as reservations",
    )
    fail(
        "availability",
        o["is_buy"] & (o["availability"] == "rent-only"),
        "cloud-only: cannot be bought",
    )
    fail(
        "availability",
        (o["acquisition"] == "buy-used") & (not s.used_hardware_allowed),
        "used hardware not allowed",
    )
    fail(
        "availability",
        o["price"].isna(),
        lambda m: f"no {m} price in data/prices.csv",
        o["acquisition"],
    )
    spot_max = a["spot_max_gpus"]
    fail(
        "availability",
        (o["acquisition"] == "rent-spot") & (o["n_gpus"] > spot_max),
        f"spot capacity beyond {spot_max:g} GPUs is not dependable",
    )
    # Owned site: power, racks, cooling.
    fail(
        "site_power",
        o["is_buy"] & (o["facility_kw"] > s.site_power_kw),
        lambda k, p: f"draws {k:,.0f} kW at PUE {p:.2f}; the site has {s.site_power_kw:,.0f} kW",
        o["facility_kw"],
        o["pue"],
    )
    fail(
        "rack_power",
        o["is_buy"] & o["block_exceeds_rack"],
        lambda b, nk: (
            f"one {'NVL72 rack' if b > nk * 1.01 else 'node'} draws {b:,.1f} kW; your racks carry {site['rack_limit_kw']:g} kW"
        ),
        o["block_kw"],
        o["node_kw"],
    )
    fail(
        "cooling",
        o["needs_retrofit"] & (not s.allow_liquid_retrofit),
        f"needs liquid cooling; your racks are air (in air it throttles to about {a['air_throttle_fraction']:.0%} of peak, "
        "the article's 20 kW rack test)",
    )
    # Team and software risk (the article's rules, thresholds in data/assumptions.csv).
    amd = o["software_stack"] == "rocm"
    weak_rocm = (not s.rocm_experience) and s.platform_engineers < a["rocm_min_platform_engineers"]
    fail(
        "team",
        amd & weak_rocm,
        f"ROCm needs ROCm experience or {a['rocm_min_platform_engineers']:g}+ platform engineers; you have "
        f"{s.platform_engineers} (the article: 'If your team is 5 people, do not pick AMD')",
    )
    fail(
        "team",
        (o["software_stack"] == "synapse") & (o["nodes"] > 1),
        "Gaudi 3 is not for distributed training (the article: the software gap is an order of magnitude)",
    )
    need_pe = np.where(
        o["is_buy"] & (o["nodes"] > 1), np.ceil(o["nodes"] / a["nodes_per_platform_engineer"]), 0
    )
    fail(
        "team",
        need_pe > s.platform_engineers,
        lambda k, p: (
            f"owning {int(k)} nodes needs {int(p)} platform engineer(s); you have {s.platform_engineers}"
        ),
        o["nodes"],
        need_pe,
    )
    for k in STATIC:
        o[f"why_{k}"] = reasons[k]
    o["static_ok"] = np.logical_and.reduce([reasons[k] == "" for k in STATIC])
    return o


def _texts(mask, fmt, *cols) -> np.ndarray:
    """Reason strings only where ``mask`` is set (formatting every row is the slow part)."""
    out = np.full(len(mask), "", dtype=object)
    idx = np.flatnonzero(mask)
    arrays = [np.asarray(c)[idx] for c in cols]
    out[idx] = [fmt(*vals) for vals in zip(*arrays)] if cols else fmt()
    return out
