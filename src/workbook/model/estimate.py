"""The estimation engine's public API: :func:`estimate_training` (one configuration) and
:func:`estimate_frame` (a DataFrame of configurations, vectorised: the decision engine's sweep).

Every factor is named in ``breakdown`` and comes from ``data/assumptions.csv`` (overridable through
:func:`workbook.catalog.load_catalog` overrides or the ``assumptions`` argument).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..catalog import Catalog, load_catalog
from ..checks import check_choice, check_number
from . import flops as compute
from .memory import STATE_BYTES
from .step_time import candidate_layouts, goodput, pick_layout, step_time

PRECISIONS = ("bf16", "fp8", "fp4")
METHODS = ("full", "lora", "qlora")
COOLING = ("air", "liquid")
INPUT_PIPELINES = ("compiled", "python")
DEFAULT_FABRIC = "ib-ndr-400"

#: Columns of the configuration frame, with defaults (None = required).
CONFIG_DEFAULTS: dict[str, Any] = {
    "n_params": None,
    "n_tokens": None,
    "accelerator": None,
    "n_gpus": None,
    "n_active_params": np.nan,
    "seq_len": 4096,
    "n_layers": np.nan,
    "d_model": np.nan,
    "precision": "bf16",
    "method": "full",
    "fabric": None,  # DEFAULT_FABRIC
    "cooling": None,  # what the part was designed for
    "attention": "causal",
    "input_pipeline": "compiled",
    "global_batch_tokens": np.nan,
    "optimizer": "adam-mixed",
}


def assumption_values(
    catalog: Catalog, overrides: dict[str, float] | None = None
) -> dict[str, float]:
    """Global values of every assumption (``overrides`` wins), keyed by parameter name."""
    df = catalog.tables["assumptions"]
    glob = df[df["accelerator_id"].isna()]
    values = dict(zip(glob["parameter"], glob["value"].astype(float)))
    for k, v in (overrides or {}).items():
        if k not in values:
            raise ValueError(f"assumption {k!r} is unknown; allowed: {', '.join(sorted(values))}")
        values[k] = float(check_number(f"assumptions[{k!r}]", v))
    return values


def _per_accelerator(
    catalog: Catalog, parameter: str, ids: np.ndarray, default: float
) -> np.ndarray:
    """An assumption per row's accelerator (the global ``default`` where there is no specific row)."""
    values = {a: catalog.param("assumptions", parameter, a) for a in set(ids)}
    return np.array([values.get(a, default) for a in ids], dtype=float)


def _column(df: pd.DataFrame, name: str) -> pd.Series:
    default = CONFIG_DEFAULTS[name]
    if name in df.columns:
        col = df[name]
        if default is not None and not (isinstance(default, float) and math.isnan(default)):
            col = col.where(col.notna(), default)
        return col
    if default is None and name not in ("fabric", "cooling"):
        raise ValueError(
            f"configuration column {name!r} is required; columns given: {', '.join(df.columns)}"
        )
    return pd.Series([default] * len(df), index=df.index)


def estimate_frame(
    configs: pd.DataFrame,
    *,
    catalog: Catalog | None = None,
    assumptions: dict[str, float] | None = None,
) -> pd.DataFrame:
    """Estimate every configuration (one per row) at once; returns a DataFrame of results.

    Input columns: see :data:`CONFIG_DEFAULTS` (``n_params``, ``n_tokens``, ``accelerator``,
    ``n_gpus`` required). Output: the inputs plus ``flops_total``, ``gpu_hours``, ``wall_days``,
    ``mfu``, ``tokens_per_s`` (whole run, goodput included), ``steady_tokens_per_s_per_gpu`` (between
    failures: global batch / step time / GPUs, what a benchmark or a short pilot measures),
    ``memory_per_gpu_gb``, ``fits_in_memory``, the layout (``tp``, ``pp``,
    ``dp``, ``zero_stage``, ``recompute``), the step components and the derating factors.
    A configuration whose precision the accelerator lacks gets ``supported = False`` and NaN times.
    """
    cat = catalog or load_catalog()
    a = assumption_values(cat, assumptions)
    if len(configs) == 0:
        raise ValueError("configs is empty; allowed: a DataFrame with at least one row")
    df = configs.reset_index(drop=True)
    n_params = np.asarray(
        check_number("n_params", _column(df, "n_params").to_numpy(float), positive=True), float
    )
    n_tokens = np.asarray(
        check_number("n_tokens", _column(df, "n_tokens").to_numpy(float), positive=True), float
    )
    n_gpus = np.asarray(
        check_number("n_gpus", _column(df, "n_gpus").to_numpy(float), positive=True, integer=True),
        float,
    )
    seq_len = np.asarray(
        check_number("seq_len", _column(df, "seq_len").to_numpy(float), minimum=1, integer=True),
        float,
    )
    active = _column(df, "n_active_params").to_numpy(float)
    active = np.where(np.isnan(active), n_params, active)
    check_number("n_active_params", active, positive=True)
    if np.any(active > n_params * (1 + 1e-9)):
        raise ValueError(
            "n_active_params exceeds n_params in some rows; allowed: 0 < n_active_params <= n_params"
        )
    precision = _column(df, "precision").to_numpy(object)
    method = _column(df, "method").to_numpy(object)
    attention = _column(df, "attention").to_numpy(object)
    pipeline = _column(df, "input_pipeline").to_numpy(object)
    optimizer = _column(df, "optimizer").to_numpy(object)
    check_choice("precision", precision, PRECISIONS)
    check_choice("method", method, METHODS)
    check_choice("attention", attention, compute.ATTENTION_CONVENTIONS)
    check_choice("input_pipeline", pipeline, INPUT_PIPELINES)
    check_choice("optimizer", optimizer, STATE_BYTES)

    acc_ids = _column(df, "accelerator").to_numpy(object)
    accs = cat.tables["accelerators"].set_index("accelerator_id")
    unknown = sorted({str(x) for x in acc_ids if x not in accs.index})
    if unknown:
        raise ValueError(f"accelerator={unknown[0]!r} is unknown; allowed: {', '.join(accs.index)}")
    spec = accs.loc[acc_ids]
    fab_ids = _column(df, "fabric").fillna(DEFAULT_FABRIC).to_numpy(object)
    fabs = cat.tables["fabrics"].set_index("fabric_id")
    unknown = sorted({str(x) for x in fab_ids if x not in fabs.index})
    if unknown:
        raise ValueError(f"fabric={unknown[0]!r} is unknown; allowed: {', '.join(fabs.index)}")
    fab = fabs.loc[fab_ids]
    cooling = _column(df, "cooling").to_numpy(object)
    designed = spec["cooling_options"].to_numpy(object)
    cooling = np.where(pd.isna(cooling), np.where(designed == "liquid", "liquid", "air"), cooling)
    check_choice("cooling", cooling, COOLING)

    # Shape and FLOPs.
    L_in, d_in = _column(df, "n_layers").to_numpy(float), _column(df, "d_model").to_numpy(float)
    L_der, d_der = compute.model_shape(active)  # a MoE's shape is its active path's (model_shape)
    L = np.where(np.isnan(L_in), L_der, L_in)
    d = np.where(np.isnan(d_in), d_der, d_in)
    check_number("n_layers", L, positive=True)
    check_number("d_model", d, positive=True)
    method_code = np.select([method == "lora", method == "qlora"], [1, 2], 0)
    per_param = np.select(
        [method_code == 0],
        [compute.METHOD_FLOPS_PER_PARAM["full"]],
        compute.METHOD_FLOPS_PER_PARAM["lora"],
    )
    attn_coef = np.array([compute.ATTENTION_CONVENTIONS[x] for x in attention], float)
    fpt = per_param * active + attn_coef * L * seq_len * d
    flops_total = fpt * n_tokens

    G = _column(df, "global_batch_tokens").to_numpy(float)
    G = np.where(
        np.isnan(G),
        np.where(n_params >= 1e11, a["large_model_global_batch_tokens"], a["global_batch_tokens"]),
        G,
    )
    G = np.maximum(G, seq_len)

    peak_bf16 = spec["tflops_dense_bf16"].to_numpy(float)
    peak = np.select(
        [precision == "fp8", precision == "fp4"],
        [spec["tflops_dense_fp8"].to_numpy(float), spec["tflops_dense_fp4"].to_numpy(float)],
        peak_bf16,
    )
    supported = np.isfinite(peak)
    peak = np.where(supported, peak, peak_bf16)
    precision_ratio = np.select(
        [precision == "fp8", precision == "fp4"],
        [a["fp8_gemm_efficiency_ratio"], a["fp4_gemm_efficiency_ratio"]],
        1.0,
    )
    opt_bytes = np.array([sum(STATE_BYTES[o].values()) for o in optimizer], float)
    grad_bytes = np.array([STATE_BYTES[o]["grads"] for o in optimizer], float)
    grad_bytes = np.where(grad_bytes > 0, grad_bytes, 2.0)
    domain = spec["scale_up_domain_gpus"].to_numpy(float)
    gpn = spec["gpus_per_node"].to_numpy(float)

    # Named derates (each reported in the breakdown).
    stack = spec["software_stack"].to_numpy(object)
    maturity = np.array([a[f"software_maturity_{s}"] for s in stack], float)
    throttled = (designed == "liquid") & (cooling == "air")
    thermal = np.where(throttled, a["air_throttle_fraction"], 1.0)
    pipe = np.where(pipeline == "python", a["input_pipeline_python_factor"], 1.0)
    moe = np.where(active < n_params * 0.999, a["moe_efficiency"], 1.0)
    qlora = np.where(method_code == 2, 1.0 / a["qlora_dequant_overhead"], 1.0)
    derate = maturity * thermal * pipe * moe * qlora

    step_kwargs = dict(
        flops_per_token=fpt,
        global_batch_tokens=G,
        n_layers=L,
        d_model=d,
        n_params=n_params,
        peak_tflops=peak,
        precision_ratio=precision_ratio,
        gemm_eff=a["gemm_efficiency"]
        * _per_accelerator(cat, "mamf_efficiency", acc_ids, a["mamf_efficiency"]),
        mem_bw_tbps=spec["memory_bw_tbps"].to_numpy(float),
        bw_eff=a["memory_bw_efficiency"],
        k_bw=a["memory_traffic_bytes_per_token_layer_dmodel"],
        su_bw_gbps=spec["scale_up_bw_gbps"].to_numpy(float),
        su_eff=a["scale_up_efficiency"],
        domain=domain,
        gpus_per_node=gpn,
        pcie_bw_gbps=_per_accelerator(cat, "pcie_bw_gbps", acc_ids, a["pcie_bw_gbps"]),
        fabric_bw_gbps_per_gpu=fab["bw_gbps_per_gpu"].to_numpy(float),
        fabric_eff=fab["efficiency"].to_numpy(float),
        dp_overlap=a["dp_overlap_fraction"],
        tp_overlap=a["tp_overlap_fraction"],
        full_method=method_code == 0,
        grad_bytes=grad_bytes,
        derate=derate,
        virtual_stages=a["pipeline_virtual_stages"],
    )

    def evaluated():
        for lay in candidate_layouts(
            n_gpus=n_gpus,
            n_params=n_params,
            n_layers=L,
            d_model=d,
            seq_len=seq_len,
            global_batch_tokens=G,
            memory_gb=spec["memory_gb"].to_numpy(float),
            domain=domain,
            tp_max=a["tp_max"],
            method_code=method_code,
            optimizer_bytes=opt_bytes,
            usable_fraction=a["memory_usable_fraction"],
            lora_fraction=a["lora_trainable_fraction"],
        ):
            rc = np.where(
                lay["recompute"] == 1,
                a["full_recompute_overhead"],
                a["selective_recompute_overhead"],
            )
            yield lay, step_time(layout=lay, recompute_overhead=rc, **step_kwargs)

    layout, st = pick_layout(evaluated())
    tokens_per_s = G / st["step_s"]
    ideal_hours = n_tokens / tokens_per_s / 3600.0
    gp = goodput(
        n_gpus,
        failure_rate_per_gpu_hour=a["failure_rate_per_gpu_hour"],
        checkpoint_hours=a["checkpoint_write_hours"],
        restart_hours=a["restart_hours"],
    )
    wall_hours = ideal_hours / gp
    nan_if = lambda x: np.where(supported, x, np.nan)  # noqa: E731
    out = pd.DataFrame(
        {
            "accelerator": acc_ids,
            "n_gpus": n_gpus.astype(int),
            "n_params": n_params,
            "n_active_params": active,
            "n_tokens": n_tokens,
            "seq_len": seq_len.astype(int),
            "precision": precision,
            "method": method,
            "fabric": fab_ids,
            "cooling": cooling,
            "attention": attention,
            "input_pipeline": pipeline,
            "n_layers": L,
            "d_model": d,
            "global_batch_tokens": G,
            "supported": supported,
            "flops_per_token": fpt,
            "flops_total": flops_total,
            "wall_hours": nan_if(wall_hours),
            "wall_days": nan_if(wall_hours / 24.0),
            "gpu_hours": nan_if(wall_hours * n_gpus),
            "tokens_per_s": nan_if(tokens_per_s * gp),
            "tokens_per_s_per_gpu": nan_if(tokens_per_s * gp / n_gpus),
            "steady_tokens_per_s_per_gpu": nan_if(tokens_per_s / n_gpus),
            "mfu": nan_if(flops_total / (n_gpus * wall_hours * 3600.0 * peak * 1e12)),
            "mfu_bf16_peak": nan_if(
                flops_total / (n_gpus * wall_hours * 3600.0 * peak_bf16 * 1e12)
            ),
            "memory_per_gpu_gb": layout["memory_per_gpu_gb"],
            "memory_gb_available": spec["memory_gb"].to_numpy(float),
            "fits_in_memory": layout["fits_in_memory"],
            "tp": layout["tp"].astype(int),
            "pp": layout["pp"].astype(int),
            "dp": layout["dp"].astype(int),
            "n_gpus_used": layout["n_used"].astype(int),
            "zero_stage": layout["zero_stage"].astype(int),
            "recompute": np.where(layout["recompute"] == 1, "full", "selective"),
            "goodput": gp,
            "software_maturity": maturity,
            "thermal_factor": thermal,
            "input_pipeline_factor": pipe,
            "moe_factor": moe,
            "qlora_factor": qlora,
            "throttled": throttled,
        }
    )
    for k, v in st.items():
        out[k] = nan_if(v)
    return out


@dataclass
class TrainingEstimate:
    """The result of :func:`estimate_training`; ``breakdown`` names every factor."""

    gpu_hours: float
    wall_days: float
    mfu: float
    flops_total: float
    memory_per_gpu_gb: float
    fits_in_memory: bool
    tokens_per_s: float
    breakdown: dict[str, Any] = field(default_factory=dict)
    snapshot: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> str:
        b = self.breakdown
        return (
            f"{b['n_gpus']} x {b['accelerator']} ({b['precision']}): {self.wall_days:,.1f} days, "
            f"{self.gpu_hours:,.0f} GPU-hours, MFU {self.mfu:.0%}, {self.memory_per_gpu_gb:,.1f} GB/GPU "
            f"({'fits' if self.fits_in_memory else 'does NOT fit'} in {b['memory_gb_available']:g} GB)"
        )


def estimate_training(
    n_params,
    n_tokens,
    accelerator,
    n_gpus,
    *,
    n_active_params=None,
    seq_len=4096,
    n_layers=None,
    d_model=None,
    precision="bf16",
    method="full",
    fabric=None,
    cooling=None,
    attention="causal",
    input_pipeline="compiled",
    global_batch_tokens=None,
    optimizer="adam-mixed",
    catalog: Catalog | None = None,
    assumptions: dict[str, float] | None = None,
) -> TrainingEstimate:
    """Estimate one training run: compute, memory fit, time to train, with every factor named.

    Parameters
    ----------
    n_params : float
        Total parameters [count].
    n_tokens : float
        Training tokens [tokens].
    accelerator : str
        Catalog ``accelerator_id`` (``workbook.accelerators()``).
    n_gpus : int
        Accelerators in the job [count].
    n_active_params : float, optional
        Active parameters per token for mixture-of-experts [count].
    seq_len : int
        Sequence length [tokens] (default 4096).
    n_layers, d_model : int, optional
        Shape; derived from ``n_active_params`` (else ``n_params``; ``d = 128 L``) when absent.
    precision : {"bf16", "fp8", "fp4"}
    method : {"full", "lora", "qlora"}
    fabric : str, optional
        Scale-out network ``fabric_id`` (default ``ib-ndr-400``).
    cooling : {"air", "liquid"}, optional
        How the racks are cooled; a liquid-only part in air racks is throttled.
    attention : {"causal", "full", "none"}
        Attention-FLOP convention (:data:`workbook.compute.ATTENTION_CONVENTIONS`).
    input_pipeline : {"compiled", "python"}
    global_batch_tokens : float, optional
        Tokens per optimizer step (default 4M, 16M for >= 100B params).
    optimizer : {"adam-mixed", "adam-mixed-fp32-grads", "adam-fp8"}
    catalog, assumptions
        Data with overrides; assumption overrides by name (``{"gemm_efficiency": 0.6}``).
    """
    for name, v in (("accelerator", accelerator),):
        if not isinstance(v, str):
            raise ValueError(
                f"{name}={v!r} is not an accelerator id (a string); allowed: see workbook.accelerators()"
            )
    if fabric is not None and not isinstance(fabric, str):
        raise ValueError(f"fabric={fabric!r} is not a fabric id (a string)")
    for name, v in (("n_params", n_params), ("n_tokens", n_tokens)):
        check_number(name, v, positive=True)
    check_number("n_gpus", n_gpus, positive=True, integer=True)
    check_number("seq_len", seq_len, minimum=1, integer=True)
    for name, v in (
        ("n_active_params", n_active_params),
        ("n_layers", n_layers),
        ("d_model", d_model),
        ("global_batch_tokens", global_batch_tokens),
    ):
        if v is not None:
            check_number(name, v, positive=True)
    for name, v, allowed in (("precision", precision, PRECISIONS), ("method", method, METHODS)):
        check_choice(name, v, allowed)
    if cooling is not None:
        check_choice("cooling", cooling, COOLING)
    cat = catalog or load_catalog()
    cat.accelerator(accelerator)  # unknown id -> error listing valid ids
    if fabric is not None:
        cat.fabric(fabric)
    row = {
        "n_params": n_params,
        "n_tokens": n_tokens,
        "accelerator": accelerator,
        "n_gpus": n_gpus,
        "n_active_params": np.nan if n_active_params is None else n_active_params,
        "seq_len": seq_len,
        "n_layers": np.nan if n_layers is None else n_layers,
        "d_model": np.nan if d_model is None else d_model,
        "precision": precision,
        "method": method,
        "fabric": fabric,
        "cooling": cooling,
        "attention": attention,
        "input_pipeline": input_pipeline,
        "optimizer": optimizer,
        "global_batch_tokens": np.nan if global_batch_tokens is None else global_batch_tokens,
    }
    r = estimate_frame(pd.DataFrame([row]), catalog=cat, assumptions=assumptions).iloc[0]
    if not r["supported"]:
        spec = cat.accelerator(accelerator)
        have = [p for p in PRECISIONS if pd.notna(spec[f"tflops_dense_{p}"])]
        raise ValueError(
            f"precision={precision!r} is not supported by {accelerator}; allowed: {', '.join(have)}"
        )
    return TrainingEstimate(
        gpu_hours=float(r["gpu_hours"]),
        wall_days=float(r["wall_days"]),
        mfu=float(r["mfu"]),
        flops_total=float(r["flops_total"]),
        memory_per_gpu_gb=float(r["memory_per_gpu_gb"]),
        fits_in_memory=bool(r["fits_in_memory"]),
        tokens_per_s=float(r["tokens_per_s"]),
        breakdown={k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()},
        snapshot=cat.snapshot(),
    )
