"""The decision engine: sweep every option, mark what is infeasible and why, rank, explain.

``recommend(scenario)`` sweeps every catalog accelerator x sensible GPU counts (node multiples, whole
NVL72 racks, up to ``max_gpus``) x acquisition mode, estimates each through the vectorised engine,
checks every constraint (memory, deadline with lead time, budget, site power, rack power and cooling,
team and software risk, availability), ranks the feasible options by the scenario's objective and
explains the pick, the runners-up and why every other accelerator lost.

Costs and times are kept as components so that sensitivity (one assumption at a time over its stated
range) and the Monte Carlo re-evaluate the whole option table without re-running the sweep.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .catalog import Catalog, load_catalog
from . import cost
from .cost import HOURS_PER_YEAR, breakeven_runs_per_year
from .estimate import assumption_values, estimate_frame
from .power import cluster_power
from .scenario import ACQUISITIONS, Scenario

#: Node counts tried for each accelerator: ~2 per octave up to 16,384 GPUs.
NODE_COUNTS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048)

CONSTRAINTS = ("precision", "memory", "scale", "availability", "deadline", "lead_time", "budget", "site_power",
               "rack_power", "cooling", "team")
STATIC = ("precision", "memory", "scale", "availability", "site_power", "rack_power", "cooling", "team")

MODE_PHRASE = {
    "rent-spot": "rent on spot", "rent-on-demand": "rent on demand", "rent-reserved": "rent with a 1-year reservation",
    "buy-new": "buy new", "buy-used": "buy used",
}


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
            accelerator=r["accelerator"], name=r["name"], n_gpus=int(r["n_gpus"]), acquisition=r["acquisition"],
            nodes=int(r["nodes"]), wall_days=float(r["wall_days"]), lead_time_days=float(r["lead_time_days"]),
            time_to_result_days=float(r["time_to_result_days"]), cost_per_run_usd=float(r["cost_per_run_usd"]),
            cost_per_year_usd=float(r["cost_per_year_usd"]), first_year_cost_usd=float(r["first_year_cost_usd"]),
            usd_per_million_tokens=float(r["usd_per_million_tokens"]), capex_usd=float(r["capex_usd"]),
            facility_kw=float(r["facility_kw"]), racks=int(r["racks"]), rack_kw=float(r["rack_kw"]),
            memory_per_gpu_gb=float(r["memory_per_gpu_gb"]), mfu=float(r["mfu"]), layout=str(r["layout"]),
        )


@dataclass
class Recommendation:
    scenario: Scenario
    top: Option | None
    options: pd.DataFrame
    reasons: list[str]
    runners_up: list[Option]
    rejected: dict[str, list[str]]
    pareto: pd.DataFrame
    breakeven_runs_per_year: float
    sensitivity: pd.DataFrame = field(default_factory=pd.DataFrame)
    monte_carlo: pd.DataFrame = field(default_factory=pd.DataFrame)
    nearest: pd.DataFrame = field(default_factory=pd.DataFrame)
    snapshot: dict = field(default_factory=dict)
    elapsed_s: float = 0.0

    @property
    def feasible(self) -> bool:
        return self.top is not None

    @property
    def headline(self) -> str:
        if self.top is None:
            return "Nothing in the catalog meets every constraint of this scenario. " + (self.reasons[0] if self.reasons else "")
        return self.top.sentence

    def add_sensitivity(self, catalog: Catalog | None = None, samples: int = 1000, seed: int = 0,
                        tornado: bool = True) -> Recommendation:
        """Attach the tornado (one assumption at a time over its range) and a Monte Carlo of ``samples``
        draws (0: none) for the pick.

        :func:`recommend` calls this unless ``sensitivity=False``. The app calls it in two steps after it
        has shown the conclusion: the tornado (needed by the charts), then the Monte Carlo (text only).
        """
        if self.top is not None:
            from . import sensitivity

            cat = catalog or load_catalog()
            if tornado:
                self.sensitivity = sensitivity.tornado(self, cat)
            if samples:
                self.monte_carlo = sensitivity.monte_carlo(self, cat, samples=samples, seed=seed)
        return self

    def summary_text(self) -> str:
        lines = [self.headline, ""]
        lines += [f"- {r}" for r in self.reasons]
        if self.rejected:
            lines += ["", "Why not the others:"]
            for acc, why in self.rejected.items():
                lines.append(f"- {acc}: {'; '.join(why)}")
        return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# sweep

def site_defaults(s: Scenario, cat: Catalog) -> dict:
    """The scenario's rack limit, PUE and electricity price, data/facility.csv defaults where unset."""
    cooling = s.cooling
    return {
        "rack_limit_kw": s.rack_limit_kw if s.rack_limit_kw is not None else cat.param("facility", f"rack_limit_kw_{cooling}"),
        "pue": s.pue if s.pue is not None else cat.param("facility", f"pue_{cooling}"),
        "electricity": s.electricity_usd_per_kwh if s.electricity_usd_per_kwh is not None else cat.param("facility", "electricity_usd_per_kwh"),
    }


#: Columns of :func:`workbook.estimate_frame` that :attr:`Scenario.time_factor` multiplies (times) or divides (rates).
TIME_COLUMNS = ("wall_hours", "wall_days", "gpu_hours")
RATE_COLUMNS = ("tokens_per_s", "tokens_per_s_per_gpu", "steady_tokens_per_s_per_gpu", "mfu", "mfu_bf16_peak")


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
        est["n_gpus"].to_numpy(float), gpus_per_node=gpn, tdp_w=np.where(np.isfinite(tdp), tdp, 1.0),
        host_overhead_kw=host_kw, rack_limit_kw=site["rack_limit_kw"],
        nodes_per_rack_max=np.nan_to_num(fac("nodes_per_rack_max"), nan=1.0), pue=site["pue"],
        scale_up_domain_gpus=domain,
    )
    fabric_cost = cat.tables["fabrics"].set_index("fabric_id")["cost_usd_per_gpu"]
    lay = est[["tp", "pp", "dp", "zero_stage"]].astype(str)
    cols = {k: power[k] for k in ("nodes", "it_kw", "racks", "rack_kw", "facility_kw", "node_kw", "block_kw", "block_exceeds_rack")}
    cols.update(
        gpus_per_node=gpn, cooling_options=spec.loc[acc_ids, "cooling_options"].to_numpy(object),
        software_stack=spec.loc[acc_ids, "software_stack"].to_numpy(object),
        availability=spec.loc[acc_ids, "availability"].to_numpy(object), lead_time_weeks_new=fac("lead_time_weeks"),
        server_cost_usd_per_node=np.nan_to_num(fac("server_cost_usd_per_node"), nan=0.0),
        fabric_cost_usd_per_gpu=np.where(power["nodes"] > 1, fabric_cost.reindex(est["fabric"]).to_numpy(float), 0.0),
        layout=("TP" + lay["tp"] + " PP" + lay["pp"] + " DP" + lay["dp"] + " ZeRO-" + lay["zero_stage"] + ", "
                + est["recompute"] + " recompute").to_numpy(object),
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
    needs_retrofit = is_buy & (o["cooling_options"].to_numpy(object) == "liquid") & (s.cooling == "air")
    retro = needs_retrofit & s.allow_liquid_retrofit
    rent_weeks = cat.param("facility", "lead_time_weeks_rent")
    lead_weeks = np.select([mode == "buy-new", mode == "buy-used"],
                           [np.nan_to_num(o["lead_time_weeks_new"].to_numpy(float), nan=rent_weeks),
                            cat.param("facility", "lead_time_weeks_used")], rent_weeks)
    extra = dict(
        acquisition=mode, price=price, price_basis=price_basis, is_buy=is_buy,
        life_years=np.where(mode == "buy-used", a["used_hardware_life_years"], cat.param("facility", "hardware_life_years")),
        needs_retrofit=needs_retrofit,
        retrofit_usd=np.where(retro, o["it_kw"].to_numpy(float) * cat.param("facility", "liquid_retrofit_usd_per_kw"), 0.0),
        pue=np.where(retro, cat.param("facility", "pue_liquid"), site["pue"]),
        lead_time_days=7.0 * lead_weeks, base_lead_time_days=7.0 * lead_weeks,
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


def _static_feasibility(s: Scenario, o: pd.DataFrame, cat: Catalog, a: dict, site: dict) -> pd.DataFrame:
    """Constraints that do not move with prices or efficiency: one reason string per failure."""
    n = len(o)
    reasons = {k: np.full(n, "", dtype=object) for k in CONSTRAINTS}

    def fail(key, mask, fmt, *cols):
        """Record ``fmt`` (a string, or a function of ``cols``) where ``mask`` holds and nothing is yet."""
        mask = np.asarray(mask, bool) & (reasons[key] == "")
        texts = _texts(mask, fmt, *cols) if callable(fmt) else np.where(mask, fmt, "")
        reasons[key] = np.where(mask, texts, reasons[key])

    fail("precision", ~o["supported"], f"no {s.precision.upper()} support")
    fail("memory", ~o["fits_in_memory"], lambda m, g, v: f"needs {m:,.0f} GB per GPU at {g} GPUs; has {v:g} GB",
         o["memory_per_gpu_gb"], o["n_gpus"], o["memory_gb_available"])
    fail("scale", o["n_gpus_used"] / o["n_gpus"] < a["min_gpu_use_fraction"],
         lambda u, g, b: f"only {u:,} of {g:,} GPUs can be kept busy with a {b / 1e6:g}M-token global batch",
         o["n_gpus_used"], o["n_gpus"], o["global_batch_tokens"])
    fail("availability", ~o["acquisition"].isin(s.acquisition_modes), "acquisition mode not allowed in this scenario")
    fail("availability", (o["acquisition"] == "rent-on-demand") & (o["n_gpus"] > a["on_demand_max_gpus"]),
         f"on-demand capacity beyond {a['on_demand_max_gpus']:g} GPUs is sold as reservations")
    fail("availability", o["is_buy"] & (o["availability"] == "rent-only"), "cloud-only: cannot be bought")
    fail("availability", (o["acquisition"] == "buy-used") & (not s.used_hardware_allowed), "used hardware not allowed")
    fail("availability", o["price"].isna(), lambda m: f"no {m} price in data/prices.csv", o["acquisition"])
    spot_max = a["spot_max_gpus"]
    fail("availability", (o["acquisition"] == "rent-spot") & (o["n_gpus"] > spot_max),
         f"spot capacity beyond {spot_max:g} GPUs is not dependable")
    # Owned site: power, racks, cooling.
    fail("site_power", o["is_buy"] & (o["facility_kw"] > s.site_power_kw),
         lambda k, p: f"draws {k:,.0f} kW at PUE {p:.2f}; the site has {s.site_power_kw:,.0f} kW", o["facility_kw"], o["pue"])
    fail("rack_power", o["is_buy"] & o["block_exceeds_rack"],
         lambda b, nk: f"one {'NVL72 rack' if b > nk * 1.01 else 'node'} draws {b:,.1f} kW; your racks carry {site['rack_limit_kw']:g} kW",
         o["block_kw"], o["node_kw"])
    fail("cooling", o["needs_retrofit"] & (not s.allow_liquid_retrofit),
         f"needs liquid cooling; your racks are air (in air it throttles to about {a['air_throttle_fraction']:.0%} of peak, "
         "the article's 20 kW rack test)")
    # Team and software risk (the article's rules, thresholds in data/assumptions.csv).
    amd = o["software_stack"] == "rocm"
    weak_rocm = (not s.rocm_experience) and s.platform_engineers < a["rocm_min_platform_engineers"]
    fail("team", amd & weak_rocm,
         f"ROCm needs ROCm experience or {a['rocm_min_platform_engineers']:g}+ platform engineers; you have "
         f"{s.platform_engineers} (the article: 'If your team is 5 people, do not pick AMD')")
    fail("team", (o["software_stack"] == "synapse") & (o["nodes"] > 1),
         "Gaudi 3 is not for distributed training (the article: the software gap is an order of magnitude)")
    need_pe = np.where(o["is_buy"] & (o["nodes"] > 1), np.ceil(o["nodes"] / a["nodes_per_platform_engineer"]), 0)
    fail("team", need_pe > s.platform_engineers,
         lambda k, p: f"owning {int(k)} nodes needs {int(p)} platform engineer(s); you have {s.platform_engineers}",
         o["nodes"], need_pe)
    for k in STATIC:
        o[f"why_{k}"] = reasons[k]
    o["static_ok"] = np.logical_and.reduce([reasons[k] == "" for k in STATIC])
    return o


# ----------------------------------------------------------------------------------------------
# costs and the moving constraints (re-evaluated by sensitivity and Monte Carlo)

def evaluate_arrays(s: Scenario, o: pd.DataFrame, *, time_factor=1.0, rent_price_factor=1.0, buy_price_factor=1.0,
                    electricity_factor=1.0, lead_time_factor=1.0, runs_factor=1.0) -> dict:
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
    capex = cost.capex(n, gpu_price_usd=price * buy_price_factor, gpus_per_node=col("gpus_per_node"),
                       server_cost_usd_per_node=col("server_cost_usd_per_node") * buy_price_factor,
                       fabric_cost_usd_per_gpu=col("fabric_cost_usd_per_gpu"), retrofit_usd=col("retrofit_usd"))
    kw, colo = col("it_kw"), col("colocation")
    own = cost.ownership_per_year(
        capex, life_years=col("life_years"), resale_fraction=col("resale"), cost_of_capital=col("capital_rate"),
        it_kw=kw, pue=col("pue"), electricity_usd_per_kwh=col("electricity") * electricity_factor,
        busy_hours_per_year=wall_h * runs, idle_power_fraction=col("idle_power_fraction"),
        colocation_usd_per_kw_month=colo)
    fixed, energy = own["fixed"], own["energy_busy"] + own["energy_idle"]
    per_year = np.where(is_buy, own["total"], np.where(reserved, reserved_year, rent_run * runs))
    per_run = per_year / runs
    first_year = np.where(is_buy, capex + energy + kw * 12.0 * colo, per_year)
    lead = col("base_lead_time_days") * lead_time_factor
    ttr = lead + wall_days
    fits_year = wall_h * runs <= HOURS_PER_YEAR * (1 + 1e-9)
    deadline_ok = ttr <= s.deadline_days
    lead_ok = np.ones_like(ttr, bool) if s.lead_time_tolerance_weeks is None else lead <= s.lead_time_tolerance_weeks * 7.0
    budget_ok = first_year <= s.budget_usd
    feasible = o["static_ok"].to_numpy(bool) & deadline_ok & lead_ok & budget_ok & fits_year & np.isfinite(per_run)
    return {
        "wall_days": wall_days, "lead_time_days": lead, "time_to_result_days": ttr, "cost_per_run_usd": per_run,
        "cost_per_year_usd": per_year, "first_year_cost_usd": first_year, "capex_usd": np.where(is_buy, capex, 0.0),
        "usd_per_million_tokens": per_run / (s.tokens / 1e6), "schedule_fits_year": fits_year,
        "energy_usd_per_year": np.where(is_buy, energy, 0.0), "fixed_usd_per_year": np.where(is_buy, fixed, 0.0),
        "deadline_ok": deadline_ok, "lead_ok": lead_ok, "budget_ok": budget_ok, "feasible": feasible,
    }


def evaluate(s: Scenario, o: pd.DataFrame, **factors) -> pd.DataFrame:
    """:func:`evaluate_arrays` for scalar or per-option factors, as a DataFrame aligned with ``o``."""
    arrays = evaluate_arrays(s, o, **factors)
    return pd.DataFrame({k: np.broadcast_to(v, (len(o),)) for k, v in arrays.items()}, index=o.index)


def best_index(s: Scenario, o: pd.DataFrame, ev: dict) -> np.ndarray:
    """Row position of the best feasible option (-1 if none), per sample when ``ev`` is 2-D."""
    primary, secondary = (("time_to_result_days", "cost_per_run_usd") if s.objective == "fastest-within-budget"
                          else ("cost_per_run_usd", "time_to_result_days"))
    feas = np.atleast_2d(ev["feasible"])
    key = np.where(feas, np.atleast_2d(ev[primary]) * (1 + 1e-9 * np.atleast_2d(ev[secondary]) / 1e9), np.inf)
    idx = np.argmin(key, axis=1)
    return np.where(np.isfinite(key[np.arange(len(idx)), idx]), idx, -1)


def _runs(n: float) -> str:
    return f"{n:g} run" + ("" if n == 1 else "s")


def _texts(mask, fmt, *cols) -> np.ndarray:
    """Reason strings only where ``mask`` is set (formatting every row is the slow part)."""
    out = np.full(len(mask), "", dtype=object)
    idx = np.flatnonzero(mask)
    arrays = [np.asarray(c)[idx] for c in cols]
    out[idx] = [fmt(*vals) for vals in zip(*arrays)] if cols else fmt()
    return out


def _moving_reasons(s: Scenario, o: pd.DataFrame) -> pd.DataFrame:
    deadline = _texts(~o["deadline_ok"].to_numpy(bool),
                      lambda lt, w, t: f"takes {lt:,.0f} + {w:,.0f} = {t:,.0f} days (lead time + run); deadline {s.deadline_days:g} days",
                      o["lead_time_days"], o["wall_days"], o["time_to_result_days"])
    year = ~o["schedule_fits_year"].to_numpy(bool)
    runs = _runs(s.runs_per_year)
    deadline[year] = [f"{runs} of {w:,.0f} days do not fit in a year" + (f"; {d}" if d else "")
                      for w, d in zip(o["wall_days"].to_numpy(float)[year], deadline[year])]
    o["why_deadline"] = deadline
    o["why_lead_time"] = _texts(~o["lead_ok"].to_numpy(bool), lambda: f"lead time beyond {s.lead_time_tolerance_weeks} weeks")
    o["why_budget"] = _texts(~o["budget_ok"].to_numpy(bool), lambda c: f"first year costs ${c:,.0f}; budget ${s.budget_usd:,.0f}",
                             o["first_year_cost_usd"])
    why = o[[f"why_{k}" for k in CONSTRAINTS]].to_numpy(object)
    o["failed"] = ["; ".join(filter(None, row)) for row in why]
    o["n_failed"] = (why != "").sum(axis=1)
    # How far an option is from feasible: static failures count fully, deadline and budget by how far over.
    static_fail = o["n_failed"] - (o["why_deadline"] != "") - (o["why_budget"] != "") - (o["why_lead_time"] != "")
    with np.errstate(divide="ignore", invalid="ignore"):
        over_time = np.log(np.maximum(1.0, o["time_to_result_days"] / s.deadline_days))
        over_budget = np.log(np.maximum(1.0, o["first_year_cost_usd"] / max(s.budget_usd, 1.0)))
    o["shortfall"] = 10.0 * static_fail + over_time.fillna(10) + over_budget.fillna(10) + \
        np.where(o["schedule_fits_year"], 0.0, 1.0)
    return o


def _rank_key(s: Scenario, df: pd.DataFrame) -> list[str]:
    if s.objective == "fastest-within-budget":
        return ["time_to_result_days", "cost_per_run_usd"]
    return ["cost_per_run_usd", "time_to_result_days"]


def _pareto(df: pd.DataFrame) -> pd.DataFrame:
    d = df[["time_to_result_days", "cost_per_run_usd"]].sort_values(["time_to_result_days", "cost_per_run_usd"])
    best, keep = np.inf, []
    for i, c in zip(d.index, d["cost_per_run_usd"]):
        if c < best:
            keep.append(i)
            best = c
    return df.loc[keep]


def _sentence(s: Scenario, top: pd.Series, breakeven: float) -> str:
    verb = MODE_PHRASE[top["acquisition"]]
    nodes = int(top["nodes"])
    where = f", {int(top['racks'])} {s.cooling}-cooled rack{'s' if top['racks'] > 1 else ''}" if top["is_buy"] else ""
    if top["accelerator"].endswith("nvl72") and top["n_gpus"] >= 72:
        k = int(math.ceil(top["n_gpus"] / 72))
        shape, where = f"{k} NVL72 rack{'s' if k > 1 else ''}", (", liquid-cooled" if top["is_buy"] else "")
    else:
        shape = f"{nodes} node{'s' if nodes > 1 else ''}"
    power = (f"{top['facility_kw']:,.0f} kW of facility power" if top["is_buy"]
             else "no site power needed (the cloud's racks)")
    return (f"{verb.capitalize()} {int(top['n_gpus'])} x {top['name']} ({shape}{where}): "
            f"{top['wall_days']:,.1f} days per run, ${top['cost_per_run_usd']:,.0f} per run "
            f"(${top['cost_per_year_usd']:,.0f} a year for {_runs(s.runs_per_year)}), {power}.")


def recommend(s: Scenario, *, catalog: Catalog | None = None, sensitivity: bool = True,
              monte_carlo_samples: int = 1000, seed: int = 0) -> Recommendation:
    """Recommend an option for the scenario; never raises for an infeasible scenario."""
    if not isinstance(s, Scenario):
        raise ValueError(f"scenario={s!r} is not a workbook.Scenario; build one with Scenario(...) or presets[name]")
    t0 = time.perf_counter()
    cat = catalog or load_catalog()
    est = sweep(s, cat)
    o = _options(s, est, cat)
    ev = evaluate(s, o)
    o = pd.concat([o.drop(columns=[c for c in ev.columns if c in o.columns]), ev], axis=1)
    o = _moving_reasons(s, o)
    keys = _rank_key(s, o)
    # Sort narrow key frames and take only the rows needed (full-width takes of ~150 columns are slow).
    narrow = o[["accelerator", "acquisition", "feasible", "shortfall"] + keys]
    feas_pos = np.flatnonzero(o["feasible"].to_numpy(bool))
    ranked_pos = feas_pos[np.lexsort([narrow[k].to_numpy(float)[feas_pos] for k in reversed(keys)])]
    reasons: list[str] = []
    rejected: dict[str, list[str]] = {}
    pareto = _pareto(o[o["static_ok"] & np.isfinite(o["cost_per_run_usd"])])
    if len(ranked_pos) == 0:
        finite = np.flatnonzero(np.isfinite(o["cost_per_run_usd"].to_numpy(float)))
        order = finite[np.lexsort([narrow[k].to_numpy(float)[finite] for k in reversed(["shortfall"] + keys)])]
        nearest = o.iloc[order[:5]]
        top = None
        runners: list[Option] = []
        reasons.append(_infeasible_summary(s, o))
        for _, r in nearest.iterrows():
            reasons.append(f"Nearest: {MODE_PHRASE[r['acquisition']]} {int(r['n_gpus'])} x {r['name']} fails on {r['failed']}")
        breakeven = math.nan
    else:
        best = o.iloc[ranked_pos[0]]
        top = Option.from_row(best)
        breakeven = breakeven_for(s, o, best)
        top.sentence = _sentence(s, best, breakeven)
        buy_row = option_row(o, best["accelerator"], best["n_gpus"], "buy-new")
        buy_failed = buy_row["failed"] if buy_row is not None else ""
        from .validate import holdout_time_range  # lazily: `python -m workbook.validate` must not find it preloaded

        # A time factor set by the reader replaces the published runs' range as the planning margin.
        rng = holdout_time_range(cat) if s.time_factor == 1.0 else None
        reasons += _why_top(s, best, len(ranked_pos), breakeven, buy_failed, rng, _robust_option(s, o, ranked_pos, rng))
        pairs = narrow.iloc[ranked_pos][["accelerator", "acquisition"]]
        first_of_pair = ranked_pos[~pairs.duplicated().to_numpy()]
        runners = [Option.from_row(o.iloc[i]) for i in first_of_pair[1:4]]
        for r in runners:
            r.sentence = (f"{MODE_PHRASE[r.acquisition]} {r.n_gpus} x {r.name}: {r.wall_days:,.1f} days, "
                          f"${r.cost_per_run_usd:,.0f} per run ({_delta(r.cost_per_run_usd, top.cost_per_run_usd)})")
        nearest = pd.DataFrame()
    # Per accelerator: its best feasible option, else its nearest miss (fewest failed constraints).
    sorted_narrow = narrow.assign(_infeasible=~narrow["feasible"]).sort_values(["accelerator", "_infeasible", "shortfall"] + keys)
    for i in sorted_narrow.drop_duplicates("accelerator").index:
        b = o.loc[i]
        if top is not None and b["accelerator"] == top.accelerator:
            continue
        if b["feasible"]:
            rejected[b["accelerator"]] = [
                f"feasible but not the best: {MODE_PHRASE[b['acquisition']]} {int(b['n_gpus'])} GPUs costs "
                f"${b['cost_per_run_usd']:,.0f} per run and takes {b['time_to_result_days']:,.0f} days"]
        else:
            rejected[b["accelerator"]] = [f"best try {MODE_PHRASE[b['acquisition']]} {int(b['n_gpus'])} GPUs: {b['failed']}"]
    rec = Recommendation(
        scenario=s, top=top, options=o, reasons=reasons, runners_up=runners, rejected=rejected, pareto=pareto,
        breakeven_runs_per_year=breakeven, nearest=nearest, snapshot=cat.snapshot(),
    )
    if sensitivity:
        rec.add_sensitivity(cat, samples=monte_carlo_samples, seed=seed)
    rec.elapsed_s = time.perf_counter() - t0
    return rec


def _delta(x: float, ref: float) -> str:
    if not (math.isfinite(x) and math.isfinite(ref)) or ref == 0:
        return "n/a"
    d = x / ref - 1
    return f"{d:+.0%} vs the pick"


def option_row(o: pd.DataFrame, accelerator: str, n_gpus: int, acquisition: str) -> pd.Series | None:
    """One option by its key (positional lookup: a boolean filter copies every column)."""
    hit = np.flatnonzero((o["accelerator"].to_numpy(object) == accelerator) & (o["n_gpus"].to_numpy() == n_gpus)
                         & (o["acquisition"].to_numpy(object) == acquisition))
    return o.iloc[hit[0]] if len(hit) else None


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
    return float(breakeven_runs_per_year(buy["fixed_usd_per_year"], idle_year, rent["cost_per_run_usd"], energy_run, idle))


def days_text(x: float, unit: bool = True) -> str:
    """Days for a sentence: one decimal under 10 days, whole days from 10 on (with the unit unless not ``unit``)."""
    v = f"{x:,.1f}" if x < 10 else f"{x:,.0f}"
    return f"{v} day{'' if v == '1.0' else 's'}" if unit else v


def _robust_option(s: Scenario, o: pd.DataFrame, ranked_pos: np.ndarray, time_range: dict | None) -> pd.Series | None:
    """The best-ranked feasible option that still makes the deadline when its run takes ``time_range["high"]``
    times its prediction (None when there is no range or no such option)."""
    if time_range is None or len(ranked_pos) == 0:
        return None
    slow_ttr = (o["lead_time_days"].to_numpy(float)[ranked_pos]
                + o["wall_days"].to_numpy(float)[ranked_pos] * time_range["high"])
    ok = np.flatnonzero(slow_ttr <= s.deadline_days)
    return o.iloc[ranked_pos[ok[0]]] if len(ok) else None


def _why_top(s: Scenario, best: pd.Series, n_feasible: int, breakeven: float, buy_failed: str,
             time_range: dict | None = None, robust: pd.Series | None = None) -> list[str]:
    out = []
    if s.objective == "cheapest-within-deadline":
        out.append(f"Cheapest of {n_feasible:,} feasible options that finish within the {s.deadline_days:g}-day deadline "
                   f"(lead time {best['lead_time_days']:,.0f} days + run {best['wall_days']:,.1f} days).")
    else:
        out.append(f"Fastest of {n_feasible:,} feasible options within the ${s.budget_usd:,.0f} first-year budget "
                   f"({best['time_to_result_days']:,.1f} days to a finished run, lead time included).")
    if s.time_factor != 1.0:
        out.append(f"Planned at your time factor of {s.time_factor:g}x the engine's prediction: "
                   f"{days_text(best['wall_days'])} per run instead of {days_text(best['wall_days'] / s.time_factor)} "
                   "(days, GPU-hours and their cost all scale with it).")
    if time_range is not None:
        from .validate import RANGE_QUANTILES

        slow = best["wall_days"] * time_range["high"]
        ttr = best["lead_time_days"] + slow
        margin = s.deadline_days - ttr
        verdict = (f"still inside the {s.deadline_days:g}-day deadline by {days_text(margin)}" if margin >= 0
                   else f"{days_text(-margin)} past the {s.deadline_days:g}-day deadline")
        out.append(f"If the run overshoots its prediction as much as the slowest tenth of published pre-training runs "
                   f"did ({time_range['high']:.2f}x, the {RANGE_QUANTILES[1] * 100:.0f}th percentile of "
                   f"{time_range['n']} held-out runs): {days_text(slow)}, {days_text(ttr)} to a finished run, {verdict}."
                   + ("" if margin >= 0 else
                      " No feasible option would still make it." if robust is None else
                      f" The best-ranked option that would: {MODE_PHRASE[robust['acquisition']]} {int(robust['n_gpus'])} x "
                      f"{robust['name']}, {robust['wall_days']:,.1f} days, ${robust['cost_per_run_usd']:,.0f} per run "
                      f"({_delta(robust['cost_per_run_usd'], best['cost_per_run_usd'])})."))
    out.append(f"Fits in memory: {best['memory_per_gpu_gb']:,.0f} of {best['memory_gb_available']:g} GB per GPU "
               f"({best['layout']}); estimated MFU {best['mfu']:.0%}.")
    out.append(f"First-year cost ${best['first_year_cost_usd']:,.0f} of the ${s.budget_usd:,.0f} budget; "
               f"${best['usd_per_million_tokens']:,.2f} per million training tokens.")
    if math.isfinite(breakeven):
        verdict = "buying would pay off" if s.runs_per_year >= breakeven else "renting is cheaper"
        line = (f"Rent vs buy at this size: buying breaks even at {breakeven:,.1f} runs a year; at your "
                f"{s.runs_per_year:g} {verdict}")
        if not best["is_buy"] and s.runs_per_year >= breakeven and buy_failed:
            line += f", but buying it fails on: {buy_failed}"
        out.append(line + ".")
    basis = str(best["price_basis"])
    if basis and (not basis.startswith(("vendor", "aggregator", "press")) or "estimate" in basis.lower()):
        out.append(f"Price basis: {best['price_basis']}; check it against a live quote before committing.")
    if best["is_buy"]:
        out.append(f"Power: {best['nodes']:,.0f} nodes x {best['node_kw']:,.1f} kW (GPUs plus host, not TDP alone) = "
                   f"{best['it_kw']:,.0f} kW IT, {best['facility_kw']:,.0f} kW at PUE {best['pue']:.2f}, in "
                   f"{best['racks']:,.0f} racks of {_site_rack(s, best)} kW.")
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
