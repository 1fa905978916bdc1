"""Time per optimizer step over arrays of configurations, and the parallel layout that minimises it.

Step time per optimizer step (global batch ``G`` tokens), per GPU::

    matmul      = F_step (1 + recompute) / (n_used * peak[precision] * gemm_eff * precision_ratio)
    memory      = k_bw * G * L * d_model / (n_used * HBM_bw * bw_eff)   (norms, activations, casts)
    optimizer   = 2 * state_bytes_per_gpu / (HBM_bw * bw_eff)
    dp_comm     = ring all-reduce (x1.5 for ZeRO-3) of the gradient shard: inside the scale-up
                  domain over NVLink/IF, across domains over the scale-out fabric; exposed beyond
                  what the backward pass hides (dp_overlap_fraction)
    tp_comm     = 4 all-reduces of 2 h bytes per token per layer over the scale-up link
                  (Megatron-LM, Shoeybi et al. 2019, arXiv 1909.08053)
    bubble      = (p - 1) / (v m) of the compute (interleaved 1F1B with v chunks per GPU;
                  Narayanan et al. 2021, arXiv 2104.04473)

    step = (matmul + memory + optimizer + exposed dp + exposed tp + bubble)
           / (software maturity * thermal throttle * input pipeline * MoE efficiency)

All inputs are numpy arrays of equal length (one element per configuration), grouped in
:class:`Workload`, :class:`Hardware` and :class:`Efficiencies`; the layout choice (tensor /
pipeline / data parallel degrees, ZeRO stage, recompute) is vectorised too (:class:`Layout`).
Whole-run goodput is :mod:`workbook.model.goodput`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Iterable, Iterator

import numpy as np

from ..units import BITS_PER_BYTE, GB, GIGA, TERA
from .memory import (
    activation_memory_gb,
    adapter_state_gb,
    frozen_base_bytes,
    sharded_state_gb,
)

TP_CHOICES = (1, 2, 4, 8, 16)
PP_CHOICES = (1, 2, 4, 8, 16, 32, 64)
#: Tensor-parallel traffic per token, layer and unit of d_model [B] (times (t - 1) / t): 4
#: all-reduces (2 forward, 2 backward; Shoeybi et al. 2019, Megatron-LM, arXiv 1909.08053, Sec. 3)
#: of 2-byte activations, each moving 2 (t - 1) / t of its size in a ring.
TP_BYTES_PER_TOKEN_LAYER_DMODEL = 4 * 2.0 * 2.0
#: ZeRO-3 moves 1.5x the data of an all-reduce (Rajbhandari et al. 2019, arXiv 1910.02054,
#: Sec. 7: all-gathers of the weights in forward and backward plus a reduce-scatter, 3 vs 2 Psi).
ZERO3_COMM_VOLUME = 1.5
#: The backward pass is 2/3 of the matmul work (4N of 6N FLOPs per token, Kaplan et al. 2020):
#: the window in which the data-parallel gradient reduction can hide.
BACKWARD_SHARE = 2.0 / 3.0
#: Score of a valid layout that does not fit, plus its memory [GB] (:func:`pick_layout`): any
#: layout that fits beats it. The memory term is below the float resolution at 1e30 (about 1e14),
#: so among layouts that do not fit the first valid one in search order is kept (tp = pp = 1).
_NO_FIT_SCORE = 1e30


@dataclass(frozen=True)
class Workload:
    """What a run computes, one element per configuration."""

    n_gpus: np.ndarray  #: GPUs in the job [count]
    n_params: np.ndarray  #: total parameters [count]
    n_layers: np.ndarray  #: transformer layers [count]
    d_model: np.ndarray  #: hidden size [count]
    seq_len: np.ndarray  #: sequence length [tokens]
    global_batch_tokens: np.ndarray  #: tokens per optimizer step [tokens]
    flops_per_token: np.ndarray  #: training FLOPs per token [FLOP]
    method: np.ndarray  #: training method per row: full, lora or qlora
    state_bytes: dict[str, np.ndarray]  #: bytes/param by model-state term (memory.STATE_BYTES)
    #: activations per token, layer and d_model (34, or the exact shape's: shape.shape_params)
    activation_coefficient: np.ndarray | float = 34.0


@dataclass(frozen=True)
class Hardware:
    """The accelerator and network of each configuration (catalog rows)."""

    memory_gb: np.ndarray  #: HBM per GPU [GB]
    peak_tflops: np.ndarray  #: dense peak at the run's precision [TFLOP/s]
    memory_bw_tbps: np.ndarray  #: HBM bandwidth per GPU [TB/s]
    scale_up_bw_gbps: np.ndarray  #: NVLink / Infinity Fabric per GPU [GB/s] (NaN: none)
    scale_up_domain_gpus: np.ndarray  #: GPUs in one scale-up domain [count]
    gpus_per_node: np.ndarray  #: [count]
    pcie_bw_gbps: np.ndarray  #: PCIe per GPU where there is no scale-up link [GB/s]
    fabric_bw_gbps_per_gpu: np.ndarray  #: scale-out line rate per GPU [Gb/s]
    fabric_efficiency: np.ndarray  #: achieved / line rate of the fabric [ratio]


@dataclass(frozen=True)
class Efficiencies:
    """Model constants of the step time (``data/assumptions.csv``); scalars or per-row arrays."""

    gemm: np.ndarray  #: achieved / peak matmul rate (gemm_efficiency x mamf_efficiency)
    precision_ratio: np.ndarray  #: FP8 / FP4 GEMM efficiency relative to BF16
    memory_bw: float  #: achieved / peak HBM bandwidth
    memory_traffic: float  #: HBM bytes per token, layer and d_model outside the matmuls [B]
    scale_up: float  #: achieved / peak scale-up (and PCIe) bandwidth
    dp_overlap: float  #: share of the backward pass that hides data-parallel traffic
    tp_overlap: float  #: share of tensor-parallel traffic hidden behind compute
    virtual_stages: float  #: interleaved pipeline chunks per GPU (at most)
    selective_recompute_overhead: float  #: extra matmul work of selective recompute [ratio]
    full_recompute_overhead: float  #: extra matmul work of full recompute [ratio]
    derate: np.ndarray  #: product of the named derates (software, thermal, input, MoE, QLoRA)


@dataclass(frozen=True)
class Layout:
    """One parallel layout per configuration (arrays of equal length)."""

    tp: np.ndarray  #: tensor-parallel degree [GPUs]
    pp: np.ndarray  #: pipeline-parallel degree [GPUs]
    dp: np.ndarray  #: data-parallel replicas [count]
    n_used: np.ndarray  #: GPUs the layout occupies, tp x pp x dp [count]
    zero_stage: np.ndarray  #: 0, 1 or 3
    recompute: np.ndarray  #: 0 selective, 1 full activation recompute
    state_gb: np.ndarray  #: model states per GPU [GB]
    activation_gb: np.ndarray  #: activations per GPU [GB]
    memory_per_gpu_gb: np.ndarray  #: states + activations [GB]
    fits_in_memory: np.ndarray  #: valid and within the usable memory
    valid: np.ndarray  #: the layout exists for the row (enough GPUs, layers, sequences)
    micro_batches: np.ndarray  #: sequences per replica per step [count]


def _model_states_gb(work: Workload, mp: float, dp, act_sel, usable, adapter_gb):
    """ZeRO stage and model states per GPU [GB] of one (tp, pp) layout: the lowest stage whose
    states fit beside the selective-recompute activations (ZeRO-1, else ZeRO-3 / FSDP; ZeRO-0 for
    a single replica); adapter fine-tunes keep ``adapter_gb``."""
    n_params = work.n_params

    def states(stage: float):
        terms = sharded_state_gb(n_params, work.state_bytes, zero_stage=stage, dp=dp, mp=mp)
        return terms["weights"] + terms["grads"] + terms["optimizer"]

    z1 = states(1.0)
    zero_stage = np.where(dp <= 1, 0.0, np.where(z1 + act_sel <= usable, 1.0, 3.0))
    full_states = np.where(zero_stage == 3, states(3.0), np.where(zero_stage == 1, z1, states(0.0)))
    return zero_stage, np.where(work.method == "full", full_states, adapter_gb)


def candidate_layouts(
    work: Workload, hw: Hardware, *, tp_max: float, usable_fraction: float, lora_fraction: float
) -> Iterator[Layout]:
    """Yield every (tensor, pipeline, data)-parallel layout worth trying.

    For each tensor-parallel degree ``t`` (inside the scale-up domain, at most ``tp_max``) and
    pipeline degree ``p``: ``dp = floor(n / (t p))`` replicas (at most one sequence each per step,
    ``dp <= G / seq_len``), the lowest ZeRO stage whose model states fit (ZeRO-1, else ZeRO-3 /
    FSDP), and selective recompute, else full recompute. ``valid`` marks layouts that exist for a
    row, ``fits_in_memory`` those that also fit. :func:`pick_layout` keeps the fastest.
    ``usable_fraction``: share of HBM a job can use; ``lora_fraction``: trainable share of an
    adapter fine-tune's parameters.
    """
    n = work.n_gpus.astype(float)
    usable = hw.memory_gb * usable_fraction
    domain = hw.scale_up_domain_gpus
    tp_cap = np.maximum(1.0, np.minimum(tp_max, np.where(domain > 1, domain, 1.0)))
    seqs = np.maximum(1.0, np.floor(work.global_batch_tokens / work.seq_len))
    base_bytes = frozen_base_bytes(work.method)
    act = {
        (t, rc): activation_memory_gb(
            work.seq_len,
            1.0,
            work.d_model,
            work.n_layers,
            tp=float(t),
            recompute=rc,
            coefficient=work.activation_coefficient,
        )
        for rc in ("selective", "full")
        for t in TP_CHOICES
    }
    for t in TP_CHOICES:
        for p in PP_CHOICES:
            mp = float(t * p)
            dp = np.minimum(np.floor(n / mp), seqs)
            valid = (t <= tp_cap) & (dp >= 1) & (p <= np.maximum(1.0, np.floor(work.n_layers)))
            dp = np.maximum(dp, 1.0)
            n_used = np.minimum(n, mp * dp)
            act_sel = act[t, "selective"]
            adapter = adapter_state_gb(
                work.n_params, base_bytes, trainable_fraction=lora_fraction, shard=n_used
            )
            zero_stage, states = _model_states_gb(work, mp, dp, act_sel, usable, adapter)
            recompute = np.where(states + act_sel <= usable, 0.0, 1.0)
            activations = np.where(recompute == 1, act[t, "full"], act_sel)
            mem = states + activations
            yield Layout(
                tp=np.full(n.shape, float(t)),
                pp=np.full(n.shape, float(p)),
                dp=dp,
                n_used=n_used,
                zero_stage=zero_stage,
                recompute=recompute,
                state_gb=states,
                activation_gb=activations,
                memory_per_gpu_gb=mem,
                fits_in_memory=valid & (mem <= usable),
                valid=valid,
                micro_batches=np.maximum(1.0, seqs / dp),
            )


def _choose(better, new: Layout, old: Layout) -> Layout:
    return Layout(
        **{
            f.name: np.where(better, getattr(new, f.name), getattr(old, f.name))
            for f in fields(Layout)
        }
    )


def pick_layout(
    layouts_and_steps: Iterable[tuple[Layout, dict[str, np.ndarray]]],
) -> tuple[Layout, dict[str, np.ndarray]]:
    """Keep, per row, the fastest layout that fits in memory; where none fits, a valid layout (the
    first in search order, see :data:`_NO_FIT_SCORE`)."""
    best_layout, best_step = None, None
    for layout, step in layouts_and_steps:
        score = np.where(layout.fits_in_memory, step["step_s"], np.inf)
        fallback = np.where(layout.valid, _NO_FIT_SCORE + layout.memory_per_gpu_gb, np.inf)
        score = np.where(np.isfinite(score), score, fallback)
        if best_layout is None:
            best_layout, best_step, best_score = layout, dict(step), score
            continue
        better = score < best_score
        best_layout = _choose(better, layout, best_layout)
        for k in best_step:
            best_step[k] = np.where(better, step[k], best_step[k])
        best_score = np.where(better, score, best_score)
    return best_layout, best_step


def _local_links(hw: Hardware, eff: Efficiencies):
    """Bandwidth per GPU [B/s] inside the local group (NVLink / Infinity Fabric inside the
    scale-up domain, else PCIe inside the node), the group's size [GPUs], and the fabric's
    bandwidth per GPU [B/s]."""
    has_su = (hw.scale_up_domain_gpus > 1) & np.isfinite(hw.scale_up_bw_gbps)
    local_bw = (
        np.where(
            has_su,
            np.nan_to_num(hw.scale_up_bw_gbps) / 2.0 * eff.scale_up,
            hw.pcie_bw_gbps * eff.scale_up,
        )
        * GIGA
    )
    local_group = np.where(has_su, hw.scale_up_domain_gpus, hw.gpus_per_node)
    fabric_bw = hw.fabric_bw_gbps_per_gpu * GIGA / BITS_PER_BYTE * hw.fabric_efficiency
    return local_bw, local_group, fabric_bw


def _dp_comm_s(work: Workload, layout: Layout, local_bw, local_group, fabric_bw):
    """Data-parallel gradient reduction [s], hierarchical: reduce-scatter inside the local group,
    all-reduce of the 1/g slice across groups over each GPU's share of the fabric."""
    t, p, dp = layout.tp, layout.pp, layout.dp
    full = work.method == "full"
    grad_bytes = work.state_bytes["grads"]
    shard_bytes = np.where(full, work.n_params * grad_bytes / (t * p), work.n_params * 0.0)
    volume = np.where(layout.zero_stage >= 3, ZERO3_COMM_VOLUME, 1.0)
    g = np.maximum(1.0, np.minimum(dp, np.floor(local_group / t)))
    groups = np.maximum(1.0, dp / g)
    intra = np.where(g > 1, 2.0 * shard_bytes * (g - 1) / g / local_bw, 0.0)
    inter = np.where(groups > 1, 2.0 * (shard_bytes / g) * (groups - 1) / groups / fabric_bw, 0.0)
    return volume * (intra + inter)


def _tp_comm_s(work: Workload, layout: Layout, local_bw, local_group, fabric_bw):
    """Tensor-parallel all-reduces [s] of one replica's share of the step, over the local link
    when the tensor-parallel group fits in the local group, else over the fabric."""
    t, p, dp = layout.tp, layout.pp, layout.dp
    tp_link = np.where(t <= local_group, local_bw, fabric_bw)
    tokens_layers = (work.global_batch_tokens / dp) * (work.n_layers / p)
    return np.where(
        t > 1,
        tokens_layers * TP_BYTES_PER_TOKEN_LAYER_DMODEL * work.d_model * (t - 1) / t / tp_link,
        0.0,
    )


#: The components of :func:`step_time` that add up to ``step_s`` [s per optimizer step], in stacking
#: order: ``derate_s`` is the time lost to the named derates (software maturity, throttling, input
#: pipeline, MoE, QLoRA). ``dp_comm_s`` (data-parallel traffic before overlap) is not one of them.
STEP_COLUMNS = (
    "matmul_s",
    "memory_s",
    "optimizer_s",
    "dp_exposed_s",
    "tp_exposed_s",
    "bubble_s",
    "derate_s",
)


def step_time(
    work: Workload, hw: Hardware, eff: Efficiencies, layout: Layout
) -> dict[str, np.ndarray]:
    """Seconds per optimizer step and its components [s] (dict of arrays, in column order)."""
    G, n_used, p = work.global_batch_tokens, layout.n_used, layout.pp
    recompute_overhead = np.where(
        layout.recompute == 1, eff.full_recompute_overhead, eff.selective_recompute_overhead
    )
    rate = hw.peak_tflops * TERA * eff.gemm * eff.precision_ratio
    matmul = work.flops_per_token * G * (1.0 + recompute_overhead) / (n_used * rate)
    bw = hw.memory_bw_tbps * TERA * eff.memory_bw
    memory = eff.memory_traffic * G * work.n_layers * work.d_model / (n_used * bw)
    optimizer = 2.0 * layout.state_gb * GB / bw

    links = _local_links(hw, eff)
    dp_comm = _dp_comm_s(work, layout, *links)
    dp_exposed = np.maximum(0.0, dp_comm - eff.dp_overlap * (BACKWARD_SHARE * (matmul + memory)))
    tp_exposed = (1.0 - eff.tp_overlap) * _tp_comm_s(work, layout, *links)

    v = np.maximum(1.0, np.minimum(eff.virtual_stages, np.floor(work.n_layers / p)))
    bubble = (p - 1.0) / (v * layout.micro_batches) * (matmul + memory + tp_exposed)
    total = (matmul + memory + optimizer + dp_exposed + tp_exposed + bubble) / eff.derate
    return {
        "step_s": total,
        "matmul_s": matmul,
        "memory_s": memory,
        "optimizer_s": optimizer,
        "dp_comm_s": dp_comm,
        "dp_exposed_s": dp_exposed,
        "tp_exposed_s": tp_exposed,
        "bubble_s": bubble,
        "derate_s": total - total * eff.derate,
    }


def best_layout(
    work: Workload,
    hw: Hardware,
    eff: Efficiencies,
    *,
    tp_max: float,
    usable_fraction: float,
    lora_fraction: float,
) -> tuple[Layout, dict[str, np.ndarray]]:
    """The fastest layout of every configuration that fits (:func:`pick_layout` over
    :func:`candidate_layouts`) and its step time."""
    layouts = candidate_layouts(
        work, hw, tp_max=tp_max, usable_fraction=usable_fraction, lora_fraction=lora_fraction
    )
    return pick_layout((lay, step_time(work, hw, eff, lay)) for lay in layouts)
