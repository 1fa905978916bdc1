"""The options of a scenario: every accelerator x GPU count x acquisition mode, with its inputs
and the constraints that do not move with prices or efficiency (one reason string per failure).

Steps (:func:`build_options`): the estimated sweep (:func:`sweep`), power and spec columns per
configuration (:func:`configuration_columns`), one copy per acquisition mode with its price, lead
time and ownership inputs (:func:`per_mode`), then the static constraints
(:func:`workbook.decide.feasibility.static_feasibility`). The columns are declared in
:mod:`workbook.decide.columns`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..catalog import Catalog, load_catalog
from ..catalog.derived import generic_formula
from ..model import assumption_values, cluster_power, estimate_frame
from ..text import layout_labels
from ..units import DAYS_PER_WEEK, WEEKS_PER_YEAR
from .allowed import ACQUISITIONS
from .bill import bill_columns
from .delivery import DELIVERY_COLUMNS, delivery_spreads
from .feasibility import static_feasibility
from .scenario import Scenario

#: Node counts tried for each accelerator: ~2 per octave (powers of two and 1.5x each, 1 to 2,048
#: nodes), up to 16,384 GPUs.
NODE_COUNTS = tuple(sorted({2**k for k in range(12)} | {3 * 2**k for k in range(10)}))

#: Columns of :func:`workbook.model.estimate_frame` that :attr:`Scenario.time_factor` multiplies.
TIME_COLUMNS = (
    "wall_hours",
    "wall_days",
    "wall_days_p10",
    "wall_days_p90",
    "gpu_hours",
    "gpu_hours_p10",
    "gpu_hours_p90",
)

#: Columns of :func:`workbook.model.estimate_frame` that :attr:`Scenario.time_factor` divides.
RATE_COLUMNS = (
    "tokens_per_s",
    "tokens_per_s_per_gpu",
    "steady_tokens_per_s_per_gpu",
    "mfu",
    "mfu_bf16_peak",
)

#: The columns of :func:`workbook.model.cluster_power` an option keeps.
POWER_COLUMNS = (
    "nodes",
    "it_kw",
    "racks",
    "rack_kw",
    "facility_kw",
    "node_kw",
    "block_kw",
    "block_exceeds_rack",
)


def gpu_counts(gpus_per_node: int, domain: int, max_gpus: int) -> list[int]:
    """Sensible cluster sizes: 1, 2, 4 GPUs inside a node, node multiples, and whole rack-scale
    domains (NVL72: whole racks only beyond one rack), up to ``max_gpus``."""
    counts = {c for c in (1, 2, 4) if c <= gpus_per_node}
    counts |= {gpus_per_node * k for k in NODE_COUNTS}
    if domain > gpus_per_node:
        counts = {c for c in counts if c <= domain} | {domain * k for k in NODE_COUNTS}
    return sorted(c for c in counts if c <= max_gpus)


def site_defaults(s: Scenario, cat: Catalog) -> dict:
    """The scenario's rack limit [kW], PUE [ratio] and electricity price [USD/kWh]
    (``rack_limit_kw``, ``pue``, ``electricity``), data/facility.csv defaults where unset."""
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


# ----------------------------------------------------------------------------------------------
# The sweep: every (accelerator, GPU count), estimated


def sweep(s: Scenario, cat: Catalog | None = None) -> pd.DataFrame:
    """Every (accelerator, GPU count) configuration of the scenario, estimated (one row each)."""
    cat = cat or load_catalog()
    acc = _swept_accelerators(s, cat)
    est = estimate_frame(_configurations(s, acc), catalog=cat)
    est["port_time_factor"] = port_time_factor(s, est["accelerator"].to_numpy(object), cat)
    _apply_time_factor(est, s.time_factor * est["port_time_factor"].to_numpy(float))
    est["time_factor"] = s.time_factor
    spec = acc.set_index("accelerator_id")
    est["name"] = spec.loc[est["accelerator"], "name"].to_numpy()
    return est


def _swept_accelerators(s: Scenario, cat: Catalog) -> pd.DataFrame:
    """The accelerator rows the scenario sweeps (unknown ids and fabrics raise)."""
    acc = cat.tables["accelerators"]
    if s.accelerators:
        for a in s.accelerators:
            cat.accelerator(a)
        acc = acc[acc["accelerator_id"].isin(s.accelerators)]
    if s.fabric:
        cat.fabric(s.fabric)
    return acc


def _configurations(s: Scenario, acc: pd.DataFrame) -> pd.DataFrame:
    """The configuration frame of :func:`workbook.model.estimate_frame`: one row per accelerator
    and cluster size (:func:`gpu_counts`), the scenario's model and training."""
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
    cfg["software_stack"] = s.software_stack
    shape = s.exact_shape
    if shape is not None:  # the exact shape: FLOPs and activations (model/shape.py)
        for name, value in shape.columns().items():
            cfg[name] = value
    # Rented or properly cooled owned racks: parts run at their designed cooling. An owned
    # liquid-only part in air racks is rejected (cooling constraint), not silently throttled.
    cfg["cooling"] = None
    return cfg


def _stacks(acc_ids: np.ndarray, cat: Catalog) -> np.ndarray:
    """The software stack (data/accelerators.csv) of every row's accelerator."""
    spec = cat.tables["accelerators"].set_index("accelerator_id")
    return spec.loc[acc_ids, "software_stack"].to_numpy(object)


def port_time_factor(s: Scenario, acc_ids: np.ndarray, cat: Catalog) -> np.ndarray:
    """Time multiplier of a PyTorch team's first port to TPU [x]: software_maturity_xla /
    pytorch_on_xla_maturity (data/assumptions.csv) on XLA parts when
    :attr:`Scenario.framework` is ``pytorch``, 1 elsewhere (a JAX team runs the tuned stack the
    engine's XLA maturity describes)."""
    a = assumption_values(cat)
    slower = a["software_maturity_xla"] / a["pytorch_on_xla_maturity"]
    xla = _stacks(acc_ids, cat) == "xla"
    return np.where(xla & (s.framework == "pytorch"), slower, 1.0)


def porting_weeks(s: Scenario, acc_ids: np.ndarray, cat: Catalog) -> np.ndarray:
    """Weeks before a team's first useful run on a stack it does not use today [weeks]: TPU (XLA)
    for a PyTorch team, Trainium (Neuron) for every team (data/assumptions.csv
    porting_weeks_xla, porting_weeks_neuron); 0 elsewhere."""
    a = assumption_values(cat)
    stack = _stacks(acc_ids, cat)
    return np.select(
        [(stack == "xla") & (s.framework == "pytorch"), stack == "neuron"],
        [a["porting_weeks_xla"], a["porting_weeks_neuron"]],
        0.0,
    )


def _apply_time_factor(est: pd.DataFrame, time_factor) -> None:
    """Scale the whole-run times by ``time_factor`` (the scenario's pilot-run factor times any
    port derate; a scalar or one per row) and divide the rates by it, in place; the step-time
    breakdown stays as predicted."""
    factor = np.asarray(time_factor, float)
    if np.any(factor != 1.0):
        for c in TIME_COLUMNS:
            est[c] = est[c] * factor
        for c in RATE_COLUMNS:
            est[c] = est[c] / factor


# ----------------------------------------------------------------------------------------------
# The options: the sweep per acquisition mode, with power, prices and the static constraints


def option_sweep(s: Scenario, cat: Catalog) -> pd.DataFrame:
    """:func:`sweep` as :func:`build_options` takes it: without the band days, which the
    evaluation recomputes (spot overhead in) rather than copy per mode."""
    return sweep(s, cat).drop(columns=["wall_days_p10", "wall_days_p90"])


def build_options(s: Scenario, est: pd.DataFrame, cat: Catalog) -> pd.DataFrame:
    """Expand the sweep ``est`` to acquisition modes with cost inputs, power and the static
    constraints (``why_*``, ``static_ok``); the columns of the ``options`` step in
    :mod:`workbook.decide.columns`."""
    a = assumption_values(cat)
    site = site_defaults(s, cat)
    base = pd.concat([est, configuration_columns(est, cat, site)], axis=1)
    o = per_mode(s, base, cat, a, site)
    return static_feasibility(s, o, a, site)


def _by_accelerator(cat: Catalog, parameter: str, acc_ids: np.ndarray) -> np.ndarray:
    """A data/facility.csv parameter per row's accelerator (its global default where it has no row;
    NaN if neither)."""
    return cat.param_by_accelerator("facility", parameter).reindex(acc_ids).to_numpy(float)


def _chassis(cat: Catalog, acc_ids: np.ndarray, n_gpus: np.ndarray, gpus_per_node: np.ndarray):
    """What holds each configuration's GPUs: one workstation where the part has a workstation
    form (data/facility.csv ``workstation_*`` rows: actively cooled cards) and the cluster has at
    most ``workstation_max_gpus`` cards, else servers of ``gpus_per_node``. Returns arrays
    ``workstation`` (bool), ``gpus_per_node`` (the workstation's cards where one), ``host_kw`` and
    ``server_usd`` per node [kW, USD]."""
    ws_max = _by_accelerator(cat, "workstation_max_gpus", acc_ids)
    ws = np.nan_to_num(ws_max, nan=0.0) >= n_gpus
    host = np.nan_to_num(_by_accelerator(cat, "host_overhead_kw_per_node", acc_ids), nan=0.0)
    server = np.nan_to_num(_by_accelerator(cat, "server_cost_usd_per_node", acc_ids), nan=0.0)
    return {
        "workstation": ws,
        "gpus_per_node": np.where(ws, n_gpus, gpus_per_node),
        "host_kw": np.where(ws, _by_accelerator(cat, "workstation_host_kw", acc_ids), host),
        "server_usd": np.where(ws, _by_accelerator(cat, "workstation_cost_usd", acc_ids), server),
    }


def configuration_columns(est: pd.DataFrame, cat: Catalog, site: dict) -> pd.DataFrame:
    """Power, spec and hardware-cost columns of every configuration of the sweep (rows of ``est``):
    :data:`POWER_COLUMNS` of :func:`workbook.model.cluster_power` at the site's rack limit and PUE,
    the accelerator's node shape, cooling, software stack, architecture and availability, lead
    time and server and fabric costs, and the parallel layout."""
    spec = cat.tables["accelerators"].set_index("accelerator_id")
    acc_ids = est["accelerator"].to_numpy(object)
    n = est["n_gpus"].to_numpy(float)
    box = _chassis(cat, acc_ids, n, spec.loc[acc_ids, "gpus_per_node"].to_numpy(float))
    gpn = box["gpus_per_node"]
    tdp = spec.loc[acc_ids, "tdp_w"].to_numpy(float)
    power = cluster_power(
        n,
        gpus_per_node=gpn,
        tdp_w=np.where(np.isfinite(tdp), tdp, 1.0),
        host_overhead_kw=box["host_kw"],
        rack_limit_kw=site["rack_limit_kw"],
        nodes_per_rack_max=np.nan_to_num(
            _by_accelerator(cat, "nodes_per_rack_max", acc_ids), nan=1.0
        ),
        pue=site["pue"],
        scale_up_domain_gpus=spec.loc[acc_ids, "scale_up_domain_gpus"].to_numpy(float),
    )
    fabric_cost = cat.tables["fabrics"].set_index("fabric_id")["cost_usd_per_gpu"]
    cols = {k: power[k] for k in POWER_COLUMNS}
    cols.update(
        gpus_per_node=gpn,
        cooling_options=spec.loc[acc_ids, "cooling_options"].to_numpy(object),
        software_stack=spec.loc[acc_ids, "software_stack"].to_numpy(object),
        architecture=spec.loc[acc_ids, "architecture"].to_numpy(object),
        availability=spec.loc[acc_ids, "availability"].to_numpy(object),
        sold_in=spec.loc[acc_ids, "sold_in"].to_numpy(object),
        tpp=total_processing_performance(spec.loc[acc_ids]),
        lead_time_weeks_new=_by_accelerator(cat, "lead_time_weeks", acc_ids),
        workstation=box["workstation"],
        server_cost_usd_per_node=box["server_usd"],
        fabric_cost_usd_per_gpu=np.where(
            power["nodes"] > 1, fabric_cost.reindex(est["fabric"]).to_numpy(float), 0.0
        ),
        layout=layout_labels(est).to_numpy(object),
    )
    return pd.DataFrame(cols, index=est.index)


def total_processing_performance(spec: pd.DataFrame) -> np.ndarray:
    """The US export rules' Total Processing Performance of each accelerator row [TPP]: dense
    TFLOP/s at a precision x its bit length (2 x MacTOPS x bits), the highest over BF16, FP8 and
    FP4 (BIS rule of 2023-10-17, ECCN 3A090; data/assumptions.csv export_control_tpp)."""
    per_precision = [
        spec["tflops_dense_bf16"].to_numpy(float) * 16,
        np.nan_to_num(spec["tflops_dense_fp8"].to_numpy(float)) * 8,
        np.nan_to_num(spec["tflops_dense_fp4"].to_numpy(float)) * 4,
    ]
    return np.max(per_precision, axis=0)


def price_kind(acquisition: str) -> str:
    """The data/prices.csv kind an acquisition mode is priced by (a reservation: one year's)."""
    return "rent-reserved-1y" if acquisition == "rent-reserved" else acquisition


def _mode_prices(cat: Catalog, acc_ids: np.ndarray) -> tuple[np.ndarray, ...]:
    """Default price (per GPU-hour to rent, per GPU to buy; NaN if none), its basis, whether it
    is sourced (:func:`workbook.catalog.price_is_sourced`) and, for a sourced price derived from
    others (data/price_derivations.csv), its formula in the part's own terms
    (:func:`workbook.catalog.derived.generic_formula`; '' for a quote or an estimate) of every
    configuration in every mode, mode-major like the tiled options."""
    kinds = [price_kind(x) for x in ACQUISITIONS]

    def wide(field):
        return cat.default_prices(field).reindex(acc_ids).reindex(columns=kinds)

    sourced = wide("sourced").fillna(False).to_numpy(bool).T.ravel()
    der = cat.tables["price_derivations"]
    formulas = dict(zip(der["price_id"], der["formula"]))
    ids = wide("price_id").to_numpy(object).T.ravel()
    accs = np.tile(np.asarray(acc_ids, dtype=object), len(kinds))
    derivation = np.array(
        [generic_formula(formulas[i], a) if i in formulas else "" for i, a in zip(ids, accs)],
        dtype=object,
    )
    return (
        wide("price").to_numpy(float).T.ravel(),
        wide("basis").fillna("").to_numpy(object).T.ravel(),
        sourced,
        np.where(sourced, derivation, ""),
    )


def _used_price(
    s: Scenario, mode: np.ndarray, price: np.ndarray, basis: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Second-hand prices x :attr:`Scenario.used_price_factor`, the basis saying so (1: as
    listed)."""
    f = float(s.used_price_factor)
    if f == 1.0:
        return price, basis
    used = mode == "buy-used"
    note = f" x {f:g} (the scenario's used-hardware price)"
    return np.where(used, price * f, price), np.where(used, basis + note, basis)


def _lead_time_weeks(cat: Catalog, mode: np.ndarray, new_weeks: np.ndarray) -> np.ndarray:
    """Wait for the hardware of every option [weeks]: new hardware per accelerator (the rental
    wait where unknown), used and rented from data/facility.csv."""
    rent_weeks = cat.param("facility", "lead_time_weeks_rent")
    return np.select(
        [mode == "buy-new", mode == "buy-used"],
        [np.nan_to_num(new_weeks, nan=rent_weeks), cat.param("facility", "lead_time_weeks_used")],
        rent_weeks,
    )


def per_mode(s: Scenario, base: pd.DataFrame, cat: Catalog, a: dict, site: dict) -> pd.DataFrame:
    """One copy of every configuration per acquisition mode (mode-major), with the mode's price,
    lead time, hardware life, liquid retrofit, PUE, spot overhead and the ownership inputs
    (electricity, colocation, resale, cost of capital, idle power)."""
    m = len(ACQUISITIONS)
    o = base.iloc[np.tile(np.arange(len(base)), m)].reset_index(drop=True)
    mode = np.repeat(np.array(ACQUISITIONS, dtype=object), len(base))
    price, price_basis, price_sourced, derivation = _mode_prices(
        cat, base["accelerator"].to_numpy(object)
    )
    price, price_basis = _used_price(s, mode, price, price_basis)
    is_buy = np.char.startswith(mode.astype(str), "buy")
    needs_retrofit = (
        is_buy & (o["cooling_options"].to_numpy(object) == "liquid") & (s.cooling == "air")
    )
    retro = needs_retrofit & s.allow_liquid_retrofit
    acc_ids = o["accelerator"].to_numpy(object)
    port_weeks = porting_weeks(s, acc_ids, cat)
    lead_days = DAYS_PER_WEEK * (
        _lead_time_weeks(cat, mode, o["lead_time_weeks_new"].to_numpy(float)) + port_weeks
    )
    delivery = delivery_spreads(cat, acc_ids, mode == "buy-new")
    team_usd_per_year = a["porting_engineers"] * a["engineer_cost_usd_per_year"]
    engineers_usd_per_week = team_usd_per_year / WEEKS_PER_YEAR
    port_usd = port_weeks * engineers_usd_per_week
    extra = dict(
        acquisition=mode,
        price=price,
        price_basis=price_basis,
        price_sourced=price_sourced,
        price_derivation=derivation,
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
        lead_time_days=lead_days,
        base_lead_time_days=lead_days,
        **dict(zip(DELIVERY_COLUMNS, delivery)),
        porting_weeks=port_weeks,
        porting_usd=port_usd,
        spot_overhead=np.where(mode == "rent-spot", a["spot_preemption_overhead"], 0.0),
        electricity=np.full(len(o), site["electricity"]),
        colocation=np.full(len(o), cat.param("facility", "colocation_usd_per_kw_month")),
        resale=np.full(len(o), cat.param("facility", "resale_fraction_end_of_life")),
        capital_rate=np.full(len(o), cat.param("facility", "cost_of_capital_per_year")),
        idle_power_fraction=np.full(len(o), a["idle_power_fraction"]),
        base_wall_days=o["wall_days"].to_numpy(float),
    )
    bill = bill_columns(s, o, cat, a, is_buy, extra["pue"], site, price_basis)
    _apply_bill(extra, bill)
    extra.update(bill)
    return pd.concat([o, pd.DataFrame(extra, index=o.index)], axis=1)


def _apply_bill(extra: dict, bill: dict) -> None:
    """What the bill changes in an option's inputs, in place: an owned cluster's burn-in joins
    its lead time; a rental pays its provider tier's price and runs at its goodput."""
    burn_in = bill["burn_in_days"]
    extra["lead_time_days"] = extra["lead_time_days"] + burn_in
    extra["base_lead_time_days"] = extra["base_lead_time_days"] + burn_in
    extra["price"] = extra["price"] * bill["provider_price_factor"]
    extra["base_wall_days"] = extra["base_wall_days"] / bill["provider_goodput"]
