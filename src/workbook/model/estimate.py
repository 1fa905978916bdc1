"""The estimation engine's public API: :func:`estimate_training` (one configuration) and
:func:`estimate_frame` (a DataFrame of configurations, vectorised: the decision engine's sweep).

:func:`estimate_frame` reads as its steps: the configurations (:class:`Configs`), their parts and
fabrics (:class:`Machines`), shape and FLOPs (:class:`Shape`), the named derates (:class:`Derates`),
the fastest layout that fits and its step time (:mod:`.step_time`), goodput, the result frame. Each
factor is named in ``breakdown``, from ``data/assumptions.csv`` (or overrides, or ``assumptions``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..checks import check_number
from ..units import HOURS_PER_DAY, SECONDS_PER_HOUR, TERA
from . import flops as compute
from .configs import (
    _OPTIONAL_NUMBERS,
    PRECISIONS,
    Configs,
    Machines,
    assumption_values,
    check_training_args,
    look_up_machines,
    per_accelerator,
    read_configs,
)
from .goodput import goodput
from .memory import state_bytes_per_param
from .shape import ModelShape, moe_routing_factor, shape_params, with_shape
from .step_time import Efficiencies, Hardware, Layout, Workload, best_layout, step_overhead_factor
from .uncertainty import TimeBand, level_moe_efficiency, time_band

#: Models from this size on [params] train with ``large_model_global_batch_tokens`` instead of
#: ``global_batch_tokens`` (assumptions.csv) when no batch is given.
LARGE_MODEL_PARAMS = 1e11
#: A model counts as a mixture of experts (``moe_efficiency`` applies) when its active
#: parameters are below this share of the total (a margin for rounding in the inputs).
MOE_ACTIVE_SHARE_BELOW = 0.999
#: A MoE's dispatch-and-combine width (:func:`workbook.model.shape.moe_routing_factor`).
ROUTING = "moe_routing_width"


@dataclass(frozen=True)
class Shape:
    """Model shape and compute of every configuration."""

    n_layers: np.ndarray  #: layers, given or derived (flops.model_shape) [count]
    d_model: np.ndarray  #: hidden size, given or derived [count]
    flops_per_token: np.ndarray  #: training FLOPs per token (flops.flops_per_token) [FLOP]
    flops_total: np.ndarray  #: flops_per_token x n_tokens [FLOP]
    global_batch_tokens: np.ndarray  #: tokens per optimizer step (>= seq_len) [tokens]
    #: activations per token, layer and d_model (34; the exact shape's where one is given)
    activation_coefficient: np.ndarray | float = 34.0


@dataclass(frozen=True)
class Derates:
    """The named derating factors of every configuration (each reported in the frame) [ratio]."""

    software_maturity: np.ndarray  #: software_maturity_<stack>
    thermal_factor: np.ndarray  #: air_throttle_fraction for a liquid part in air racks, else 1
    input_pipeline_factor: np.ndarray  #: input_pipeline_python_factor for a Python loader, else 1
    moe_factor: np.ndarray  #: level_moe_efficiency x shape.moe_routing_factor; dense 1
    qlora_factor: np.ndarray  #: 1 / qlora_dequant_overhead for QLoRA, else 1
    #: 1 / (1 + k / tokens per GPU per step), k step_overhead_tokens (tuned: _tuned_tokens)
    step_overhead_factor: np.ndarray
    throttled: np.ndarray  #: a liquid-cooled part runs in air racks
    moe: np.ndarray  #: a mixture of experts (MOE_ACTIVE_SHARE_BELOW): the tuned MoE band too

    @property
    def total(self) -> np.ndarray:
        """The product of the factors: step time is divided by it."""
        return (
            self.software_maturity
            * self.thermal_factor
            * self.input_pipeline_factor
            * self.moe_factor
            * self.qlora_factor
            * self.step_overhead_factor
        )


def _shape(cfg: Configs, a: dict[str, float]) -> Shape:
    """Step 3: the shape (given, else derived from the active parameters: a MoE's shape is its
    active path's, :func:`flops.model_shape`), FLOPs and the global batch."""
    L_der, d_der = compute.model_shape(cfg.n_active_params)
    L = np.where(np.isnan(cfg.n_layers), L_der, cfg.n_layers)
    d = np.where(np.isnan(cfg.d_model), d_der, cfg.d_model)
    check_number("n_layers", L, positive=True)
    check_number("d_model", d, positive=True)
    kinds = {"attention": cfg.names("attention"), "method": cfg.names("method")}
    fpt = compute.flops_per_token(
        cfg.n_params,
        n_active_params=cfg.n_active_params,
        seq_len=cfg.seq_len,
        n_layers=L,
        d_model=d,
        **kinds,
    )
    coefficient = 34.0
    exact = cfg.has_shape
    if exact.any():
        counts = shape_params(L, d, **cfg.exact)
        # k x active matmul params (LM head too) + attention of width heads x head size
        params = np.where(exact, counts["matmul_params"], cfg.n_active_params)
        width = np.where(exact, counts["attention_width"], d)
        exact_fpt = compute.flops_per_token(
            params, seq_len=cfg.seq_len, n_layers=L, d_model=width, **kinds
        )
        fpt = np.where(exact, exact_fpt, fpt)
        coefficient = np.where(exact, counts["activation_coefficient"], 34.0)
    default_batch = np.where(
        cfg.n_params >= LARGE_MODEL_PARAMS,
        a["large_model_global_batch_tokens"],
        a["global_batch_tokens"],
    )
    G = np.where(np.isnan(cfg.global_batch_tokens), default_batch, cfg.global_batch_tokens)
    return Shape(
        n_layers=L,
        d_model=d,
        flops_per_token=fpt,
        flops_total=fpt * cfg.n_tokens,
        global_batch_tokens=np.maximum(G, cfg.seq_len),
        activation_coefficient=coefficient,
    )


def _derates(cat: Catalog, cfg: Configs, m: Machines, shape: Shape, a) -> Derates:
    """Step 4: the named derates, each from ``data/assumptions.csv`` (the MoE factor of each
    level and part: :func:`workbook.model.uncertainty.level_moe_efficiency`)."""
    parts = m.spec.table
    maturity = [a[f"software_maturity_{s}"] for s in parts["software_stack"].to_numpy(object)]
    liquid_only = parts["cooling_options"].to_numpy(object) == "liquid"
    throttled = m.spec.per_row(liquid_only) & (m.cooling == "air")
    is_moe = cfg.n_active_params < cfg.n_params * MOE_ACTIVE_SHARE_BELOW
    moe = level_moe_efficiency(cat, cfg.accelerator, cfg.software_stack, a) * moe_routing_factor(
        cfg.exact["ffn_hidden"], cfg.exact["n_experts"], a[ROUTING]
    )
    tuned = cfg.is_("software_stack", "tuned")
    overhead = np.where(tuned, a["step_overhead_tuned_tokens"], a["step_overhead_tokens"])
    return Derates(
        software_maturity=m.spec.per_row(np.asarray(maturity, float)),
        thermal_factor=np.where(throttled, a["air_throttle_fraction"], 1.0),
        input_pipeline_factor=np.where(
            cfg.is_("input_pipeline", "python"), a["input_pipeline_python_factor"], 1.0
        ),
        moe_factor=np.where(is_moe, moe, 1.0),
        qlora_factor=np.where(cfg.is_("method", "qlora"), 1.0 / a["qlora_dequant_overhead"], 1.0),
        step_overhead_factor=step_overhead_factor(overhead, shape.global_batch_tokens / cfg.n_gpus),
        throttled=throttled,
        moe=is_moe,
    )


def _step_inputs(cat, cfg, m, shape, derates, a) -> tuple[Workload, Hardware, Efficiencies]:
    """Step 5a: the step-time model's inputs (:mod:`workbook.model.step_time`)."""
    spec = m.spec
    work = Workload(
        n_gpus=cfg.n_gpus,
        n_params=cfg.n_params,
        n_layers=shape.n_layers,
        d_model=shape.d_model,
        seq_len=cfg.seq_len,
        global_batch_tokens=shape.global_batch_tokens,
        flops_per_token=shape.flops_per_token,
        method=cfg.method,
        state_bytes=state_bytes_per_param(cfg.names("optimizer")),
        activation_coefficient=shape.activation_coefficient,
    )
    hw = Hardware(
        memory_gb=spec.floats("memory_gb"),
        peak_tflops=m.peak_tflops,
        memory_bw_tbps=spec.floats("memory_bw_tbps"),
        scale_up_bw_gbps=spec.floats("scale_up_bw_gbps"),
        scale_up_domain_gpus=spec.floats("scale_up_domain_gpus"),
        gpus_per_node=spec.floats("gpus_per_node"),
        pcie_bw_gbps=per_accelerator(cat, "pcie_bw_gbps", spec, a["pcie_bw_gbps"]),
        fabric_bw_gbps_per_gpu=m.fabric.floats("bw_gbps_per_gpu"),
        fabric_efficiency=m.fabric.floats("efficiency"),
    )
    eff = Efficiencies(
        gemm=a["gemm_efficiency"]
        * per_accelerator(cat, "mamf_efficiency", spec, a["mamf_efficiency"]),
        precision_ratio=np.select(
            [cfg.is_("precision", "fp8"), cfg.is_("precision", "fp4")],
            [a["fp8_gemm_efficiency_ratio"], a["fp4_gemm_efficiency_ratio"]],
            1.0,
        ),
        memory_bw=a["memory_bw_efficiency"],
        memory_traffic=np.where(  # tuned: a fused stack's own (calibrate.fit_tuned_traffic)
            cfg.is_("software_stack", "tuned"),
            a["memory_traffic_tuned_bytes_per_token_layer_dmodel"],
            a["memory_traffic_bytes_per_token_layer_dmodel"],
        ),
        scale_up=a["scale_up_efficiency"],
        dp_overlap=a["dp_overlap_fraction"],
        tp_overlap=a["tp_overlap_fraction"],
        virtual_stages=a["pipeline_virtual_stages"],
        selective_recompute_overhead=a["selective_recompute_overhead"],
        full_recompute_overhead=a["full_recompute_overhead"],
        derate=derates.total,
    )
    return work, hw, eff


def _layout(cat, cfg, m, shape, derates, a) -> tuple[Layout, dict[str, np.ndarray]]:
    """Step 5: the fastest layout that fits, and its step time [s] by component."""
    work, hw, eff = _step_inputs(cat, cfg, m, shape, derates, a)
    return best_layout(
        work,
        hw,
        eff,
        tp_max=a["tp_max"],
        usable_fraction=a["memory_usable_fraction"],
        lora_fraction=a["lora_trainable_fraction"],
    )


def _run_goodput(cfg: Configs, a: dict[str, float]) -> np.ndarray:
    """Step 6: whole-run goodput of the job's size (:func:`workbook.model.goodput.goodput`)."""
    return goodput(
        cfg.n_gpus,
        failure_rate_per_gpu_hour=a["failure_rate_per_gpu_hour"],
        checkpoint_hours=a["checkpoint_write_hours"],
        restart_hours=a["restart_hours"],
    )


def _inputs_frame(cfg: Configs, m: Machines, shape: Shape) -> dict[str, Any]:
    """The configuration columns of the result (defaults and derived shape filled in)."""
    return {
        "accelerator": cfg.accelerator,
        "n_gpus": cfg.n_gpus.astype(int),
        "n_params": cfg.n_params,
        "n_active_params": cfg.n_active_params,
        "n_tokens": cfg.n_tokens,
        "seq_len": cfg.seq_len.astype(int),
        "precision": cfg.precision,
        "method": cfg.method,
        "fabric": cfg.fabric,
        "cooling": m.cooling,
        "attention": cfg.attention,
        "input_pipeline": cfg.input_pipeline,
        "stack_level": cfg.software_stack,
        "n_layers": shape.n_layers,
        "d_model": shape.d_model,
        "global_batch_tokens": shape.global_batch_tokens,
        "supported": m.supported,
        "flops_per_token": shape.flops_per_token,
        "flops_total": shape.flops_total,
    }


def _frame(cfg, m, shape, derates, layout, step, gp, band: TimeBand) -> pd.DataFrame:
    """Step 7: the result frame at the software stack's level, with its band (times NaN where the
    precision is unsupported)."""
    tokens_per_s = shape.global_batch_tokens / step["step_s"] * band.speedup
    wall_hours = cfg.n_tokens / tokens_per_s / SECONDS_PER_HOUR / gp
    gpu_seconds = cfg.n_gpus * wall_hours * SECONDS_PER_HOUR
    q = band.columns(wall_hours, cfg.n_gpus)
    every = bool(m.supported.all())

    def nan_if(x):
        return x if every else np.where(m.supported, x, np.nan)

    out = pd.DataFrame(
        {
            **_inputs_frame(cfg, m, shape),
            "wall_hours": nan_if(wall_hours),
            "wall_days": nan_if(wall_hours / HOURS_PER_DAY),
            "wall_days_p10": nan_if(q["wall_days_p10"]),
            "wall_days_p90": nan_if(q["wall_days_p90"]),
            "gpu_hours": nan_if(wall_hours * cfg.n_gpus),
            "gpu_hours_p10": nan_if(q["gpu_hours_p10"]),
            "gpu_hours_p90": nan_if(q["gpu_hours_p90"]),
            "tokens_per_s": nan_if(tokens_per_s * gp),
            "tokens_per_s_per_gpu": nan_if(tokens_per_s * gp / cfg.n_gpus),
            "steady_tokens_per_s_per_gpu": nan_if(tokens_per_s / cfg.n_gpus),
            "mfu": nan_if(shape.flops_total / (gpu_seconds * m.peak_tflops * TERA)),
            "mfu_bf16_peak": nan_if(shape.flops_total / (gpu_seconds * m.peak_bf16_tflops * TERA)),
            "memory_per_gpu_gb": layout.memory_per_gpu_gb,
            "memory_gb_available": m.spec.floats("memory_gb"),
            "fits_in_memory": layout.fits_in_memory,
            "tp": layout.tp.astype(int),
            "pp": layout.pp.astype(int),
            "dp": layout.dp.astype(int),
            "n_gpus_used": layout.n_used.astype(int),
            "zero_stage": layout.zero_stage.astype(int),
            "recompute": np.where(layout.recompute == 1, "full", "selective"),
            "goodput": gp,
            "software_maturity": derates.software_maturity,
            "thermal_factor": derates.thermal_factor,
            "input_pipeline_factor": derates.input_pipeline_factor,
            "moe_factor": derates.moe_factor,
            "qlora_factor": derates.qlora_factor,
            "step_overhead_factor": derates.step_overhead_factor,
            "throttled": derates.throttled,
            "stack_speedup": band.speedup,
            "time_sigma_below": band.sigma_below,
            "time_sigma_above": band.sigma_above,
            "time_band_widened": band.widened,
        }
    )
    for k, v in step.items():
        out[k] = nan_if(v)
    return out


def estimate_frame(
    configs: pd.DataFrame,
    *,
    catalog: Catalog | None = None,
    assumptions: dict[str, float] | None = None,
) -> pd.DataFrame:
    """Estimate every configuration (one per row) at once; returns a DataFrame of results.

    Input columns: see :data:`CONFIG_DEFAULTS` (``n_params``, ``n_tokens``, ``accelerator``,
    ``n_gpus`` required). Output: the inputs plus ``flops_total``, ``gpu_hours``, ``wall_days``,
    ``mfu``, ``tokens_per_s`` (whole run, goodput included), ``steady_tokens_per_s_per_gpu``
    (between failures: global batch / step time / GPUs, what a benchmark or a short pilot
    measures), ``memory_per_gpu_gb``, ``fits_in_memory``, the layout (``tp``, ``pp``, ``dp``,
    ``zero_stage``, ``recompute``), the step components and the derating factors; the software
    stack's level (``stack_level``, config column ``software_stack``: typical, tuned or engine,
    :mod:`workbook.model.uncertainty`; ``gpu_hours`` and ``wall_days`` are its median) with
    ``gpu_hours_p10`` / ``_p90``, ``wall_days_p10`` / ``_p90``, the band's log spreads
    ``time_sigma_below`` / ``_above`` and ``time_band_widened`` (no evidence on the part).
    A configuration whose precision the accelerator lacks gets ``supported = False`` and NaN times.

    The steps: read and check the configurations, look up their accelerators and fabrics, shape
    and FLOPs, the named derates, the best layout and its step time, goodput, the frame.
    """
    cat = resolve_catalog(catalog)
    a = assumption_values(cat, assumptions)
    cfg = read_configs(configs)
    machines = look_up_machines(cat, cfg)
    shape = _shape(cfg, a)
    derates = _derates(cat, cfg, machines, shape, a)
    layout, step = _layout(cat, cfg, machines, shape, derates, a)
    gp = _run_goodput(cfg, a)
    band = time_band(cat, cfg.software_stack, cfg.accelerator, cfg.precision, a, derates.moe)
    return _frame(cfg, machines, shape, derates, layout, step, gp, band)


@dataclass
class TrainingEstimate:
    """The result of :func:`estimate_training`; ``breakdown`` names every factor.

    ``gpu_hours`` and ``wall_days`` are the median at the software stack's level; ``_p10`` and
    ``_p90`` the band around them (:mod:`workbook.model.uncertainty`) [GPU-h, days]."""

    gpu_hours: float
    wall_days: float
    gpu_hours_p10: float
    gpu_hours_p90: float
    wall_days_p10: float
    wall_days_p90: float
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
            f"{b['n_gpus']} x {b['accelerator']} ({b['precision']}): "
            f"{self.wall_days:,.1f} days (p10-p90 {self.wall_days_p10:,.1f}-"
            f"{self.wall_days_p90:,.1f}), {self.gpu_hours:,.0f} GPU-hours, MFU {self.mfu:.0%}, "
            f"{self.memory_per_gpu_gb:,.1f} GB/GPU "
            f"({'fits' if self.fits_in_memory else 'does NOT fit'} "
            f"in {b['memory_gb_available']:g} GB)"
        )


def _training_estimate(r: pd.Series, cat: Catalog) -> TrainingEstimate:
    """The frame's one row as a :class:`TrainingEstimate`; an unsupported precision raises."""
    if not r["supported"]:
        spec = cat.accelerator(r["accelerator"])
        have = [p for p in PRECISIONS if pd.notna(spec[f"tflops_dense_{p}"])]
        raise ValueError(
            f"precision={r['precision']!r} is not supported by {r['accelerator']}; "
            f"allowed: {', '.join(have)}"
        )
    return TrainingEstimate(
        gpu_hours=float(r["gpu_hours"]),
        wall_days=float(r["wall_days"]),
        gpu_hours_p10=float(r["gpu_hours_p10"]),
        gpu_hours_p90=float(r["gpu_hours_p90"]),
        wall_days_p10=float(r["wall_days_p10"]),
        wall_days_p90=float(r["wall_days_p90"]),
        mfu=float(r["mfu"]),
        flops_total=float(r["flops_total"]),
        memory_per_gpu_gb=float(r["memory_per_gpu_gb"]),
        fits_in_memory=bool(r["fits_in_memory"]),
        tokens_per_s=float(r["tokens_per_s"]),
        breakdown={k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()},
        snapshot=cat.snapshot(),
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
    software_stack="typical",
    shape: ModelShape | None = None,
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
    software_stack : {"typical", "tuned", "engine"}
        The level the time is planned at (:mod:`workbook.model.uncertainty`): ``"typical"``
        (default) what published whole runs realized; ``"tuned"`` a vendor's reference recipe
        (steady-state throughput calibrated on the published benchmarks); ``"engine"`` the
        step-time model as fitted. ``gpu_hours`` / ``wall_days`` are the level's median, with
        ``_p10`` / ``_p90`` around them.
    shape : ModelShape, optional
        The exact shape (:class:`workbook.model.shape.ModelShape`, e.g. ``ModelShape.
        from_hf_config(path)``): FLOPs from its active matmul parameters (GQA, SwiGLU, the LM head,
        the routed experts) and activations from its KV heads and FFN width. ``n_params`` and
        ``n_active_params`` may then be None (the shape's counts) or must agree with them within
        1 %; ``n_layers`` / ``d_model`` must be None or the shape's.
    catalog, assumptions
        Data with overrides; assumption overrides by name (``{"gemm_efficiency": 0.6}``).
    """
    given = {
        "n_params": n_params,
        "n_tokens": n_tokens,
        "accelerator": accelerator,
        "n_gpus": n_gpus,
        "n_active_params": n_active_params,
        "seq_len": seq_len,
        "n_layers": n_layers,
        "d_model": d_model,
        "precision": precision,
        "method": method,
        "fabric": fabric,
        "cooling": cooling,
        "attention": attention,
        "input_pipeline": input_pipeline,
        "optimizer": optimizer,
        "global_batch_tokens": global_batch_tokens,
        "software_stack": software_stack,
    }
    given = with_shape(given, shape)
    cat = check_training_args(catalog, given)
    row = {k: np.nan if v is None and k in _OPTIONAL_NUMBERS else v for k, v in given.items()}
    frame = estimate_frame(pd.DataFrame([row]), catalog=cat, assumptions=assumptions)
    return _training_estimate(frame.iloc[0], cat)
