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
           / (software maturity * thermal throttle * input pipeline * MoE efficiency
              * per-step overhead)

The per-step overhead is 1 / (1 + k / t), t = G / n tokens per GPU per step: k more tokens of each
GPU's work per step (the tuned level's ``step_overhead_tuned_tokens``, fitted on the benchmarks;
0 at the whole-run levels).

All inputs are numpy arrays of equal length (one element per configuration), grouped in
:class:`Workload`, :class:`Hardware` and :class:`Efficiencies`; the layout choice (tensor /
pipeline / data parallel degrees, ZeRO stage, recompute) is vectorised too (:class:`Layout`).
Whole-run goodput is :mod:`workbook.model.goodput`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Iterable, Iterator

import numpy as np

from ..units import BITS_PER_BYTE, GB, GIGA, TERA
from .memory import (
    ZERO_SHARDED_FROM,
    activation_gb,
    adapter_state_gb,
    frozen_base_bytes,
    states_by_stage_gb,
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
    memory_traffic: np.ndarray  #: HBM bytes per token, layer and d_model outside the matmuls [B]
    scale_up: float  #: achieved / peak scale-up (and PCIe) bandwidth
    dp_overlap: float  #: share of the backward pass that hides data-parallel traffic
    tp_overlap: float  #: share of tensor-parallel traffic hidden behind compute
    virtual_stages: float  #: interleaved pipeline chunks per GPU (at most)
    selective_recompute_overhead: float  #: extra matmul work of selective recompute [ratio]
    full_recompute_overhead: float  #: extra matmul work of full recompute [ratio]
    derate: np.ndarray  #: product of the named derates (software, thermal, input, MoE, QLoRA, step)


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


def _model_states_gb(r: "_Rows", mp: float, dp, act_sel, n_used):
    """ZeRO stage and model states per GPU [GB] of one (tp, pp) layout: the lowest stage whose
    states fit beside the selective-recompute activations (ZeRO-1, else ZeRO-3 / FSDP; ZeRO-0 for
    a single replica); adapter fine-tunes (method not ``full``) keep their adapter ledger
    (:func:`workbook.model.memory.adapter_state_gb`). A stage no row takes is not computed."""
    single, cache = dp <= 1, {}
    states1 = states_by_stage_gb(r.term_bytes, stages=(1,), dp=dp, mp=mp, cache=cache)[1]
    fit1 = states1 + act_sel <= r.usable
    zero_stage = np.where(single, 0.0, np.where(fit1, 1.0, 3.0))
    three = ~(single | fit1)
    need = [stage for stage, rows in ((0, single), (3, three)) if rows.any()]
    by_stage = states_by_stage_gb(r.term_bytes, stages=need, dp=dp, mp=mp, cache=cache)
    full_states = states1
    if 0 in by_stage:
        full_states = np.where(single, by_stage[0], full_states)
    if 3 in by_stage:
        full_states = np.where(three, by_stage[3], full_states)
    if r.full.all():
        return zero_stage, full_states
    adapter = adapter_state_gb(
        r.work.n_params, r.base_bytes, trainable_fraction=r.lora_fraction, shard=n_used
    )
    return zero_stage, np.where(r.full, full_states, adapter)


@dataclass(frozen=True)
class _Rows:
    """What the layout search needs per configuration and no layout changes, computed once
    (:func:`_search_rows`); :func:`_take` cuts it to the rows a layout exists for."""

    work: Workload
    eff: Efficiencies
    n: np.ndarray  #: GPUs in the job [count]
    usable: np.ndarray  #: usable HBM per GPU [GB]
    tp_cap: np.ndarray  #: largest tensor-parallel degree (the scale-up domain, tp_max) [GPUs]
    layer_cap: np.ndarray  #: largest pipeline degree (the layers, at least 1) [stages]
    seqs: np.ndarray  #: sequences per optimizer step [count]
    base_bytes: np.ndarray  #: frozen-base bytes per parameter (0 for a full fine-tune) [B]
    full: np.ndarray  #: the row trains every weight (method "full")
    act: dict  #: activations per GPU [GB] by (tp, "selective" / "full")
    local_bw: np.ndarray  #: scale-up (or PCIe) bandwidth per GPU [B/s] (:func:`_local_links`)
    local_group: np.ndarray  #: GPUs sharing it [count]
    fabric_bw: np.ndarray  #: scale-out bandwidth per GPU [B/s]
    rate: np.ndarray  #: achieved matmul rate per GPU [FLOP/s]
    bw: np.ndarray  #: achieved HBM bandwidth per GPU [B/s]
    step_flops: np.ndarray  #: FLOPs per token x tokens per step (before recompute) [FLOP]
    step_traffic: np.ndarray  #: HBM bytes per step outside the matmuls [B]
    #: n_params x bytes per parameter by model-state term [B] (``grads``: all the gradients)
    term_bytes: dict
    lora_fraction: float  #: trainable share of an adapter fine-tune's parameters


def _search_rows(
    work: Workload, hw: Hardware, eff: Efficiencies, usable_fraction, tp_max, lora_fraction
) -> _Rows:
    """The layout-independent inputs of :func:`candidate_layouts` and :func:`step_time` (the same
    expressions, in the same order, as per layout before: the results are bit-identical)."""
    domain = hw.scale_up_domain_gpus
    s, h, L = (np.asarray(x, float) for x in (work.seq_len, work.d_model, work.n_layers))
    c = np.asarray(work.activation_coefficient, float)
    one = np.asarray(1.0)  # one sequence per micro-batch
    act = {  # memory.activation_memory_gb (sequence parallel), its checks done by the estimate
        (t, rc): activation_gb(s, one, h, L, np.asarray(float(t)), None, c, True, rc)
        for rc in ("selective", "full")
        for t in TP_CHOICES
    }
    G = work.global_batch_tokens
    n = work.n_gpus.astype(float)
    term_bytes = {t: work.n_params * work.state_bytes[t] for t in ZERO_SHARDED_FROM}
    full = np.asarray(work.method == "full", bool)
    return _Rows(
        # what the search reads of them (the rest is folded into the arrays below, so that
        # best_layout's reordering of the rows does not copy it)
        work=replace(
            work,
            method=None,
            flops_per_token=None,
            seq_len=None,
            n_gpus=None,
            state_bytes=None,
            activation_coefficient=None,
            n_params=work.n_params if not full.all() else None,  # (the adapters' ledger)
        ),
        eff=replace(eff, gemm=None, precision_ratio=None),
        n=n,
        usable=hw.memory_gb * usable_fraction,
        tp_cap=np.maximum(1.0, np.minimum(tp_max, np.where(domain > 1, domain, 1.0))),
        layer_cap=np.maximum(1.0, np.floor(work.n_layers)),
        seqs=np.maximum(1.0, np.floor(G / work.seq_len)),
        base_bytes=np.asarray(frozen_base_bytes(work.method), float),
        full=full,
        act=act,
        **dict(zip(("local_bw", "local_group", "fabric_bw"), _local_links(hw, eff))),
        rate=hw.peak_tflops * TERA * eff.gemm * eff.precision_ratio,
        bw=hw.memory_bw_tbps * TERA * eff.memory_bw,
        step_flops=work.flops_per_token * G,
        step_traffic=eff.memory_traffic * G * work.n_layers * work.d_model,
        term_bytes=term_bytes,
        lora_fraction=lora_fraction,
    )


def _take(obj, rows, n: int):
    """``obj`` (a dataclass of per-row arrays, dicts of them and scalars, nested) at ``rows`` (an
    index array or a slice)."""
    if isinstance(obj, dict):
        return {k: _take(v, rows, n) for k, v in obj.items()}
    if isinstance(obj, np.ndarray):
        return obj[rows] if obj.shape == (n,) else obj
    if is_dataclass(obj):
        return replace(obj, **{f.name: _take(getattr(obj, f.name), rows, n) for f in fields(obj)})
    return obj


def _layout_of(r: _Rows, t: int, p: int, dp, valid) -> Layout:
    """The (``t``, ``p``) layout of the rows of ``r``: ZeRO stage, recompute and memory (``tp``
    and ``pp`` as scalars: :func:`pick_layout` broadcasts them)."""
    mp = float(t * p)
    dp = np.maximum(dp, 1.0)
    n_used = np.minimum(r.n, mp * dp)
    act_sel = r.act[t, "selective"]
    zero_stage, states = _model_states_gb(r, mp, dp, act_sel, n_used)
    selective = states + act_sel <= r.usable
    recompute = np.where(selective, 0.0, 1.0)
    activations = np.where(selective, act_sel, r.act[t, "full"])
    mem = states + activations
    return Layout(
        tp=float(t),
        pp=float(p),
        dp=dp,
        n_used=n_used,
        zero_stage=zero_stage,
        recompute=recompute,
        state_gb=states,
        activation_gb=activations,
        memory_per_gpu_gb=mem,
        fits_in_memory=valid & (mem <= r.usable),
        valid=valid,
        micro_batches=np.maximum(1.0, r.seqs / dp),
    )


def candidate_layouts(r: _Rows) -> Iterator[tuple[Layout, _Rows, int | np.ndarray | None]]:
    """Yield every (tensor, pipeline, data)-parallel layout worth trying, with the rows it is
    computed on (``None``: all; an int ``k``: the first ``k``; an index array: those rows).

    For each tensor-parallel degree ``t`` (inside the scale-up domain, at most ``tp_max``) and
    pipeline degree ``p``: ``dp = floor(n / (t p))`` replicas (at most one sequence each per step,
    ``dp <= G / seq_len``), the lowest ZeRO stage whose model states fit (ZeRO-1, else ZeRO-3 /
    FSDP), and selective recompute, else full recompute. ``valid`` marks layouts that exist for a
    row, ``fits_in_memory`` those that also fit. :func:`pick_layout` keeps the fastest.
    With the rows of ``r`` in descending GPU count (:func:`best_layout`), a layout of ``t p`` GPUs
    exists only in the first ``k`` rows (``n >= t p``): the rest are skipped, not computed; where
    fewer than half of those can host it (a tensor degree beyond most parts' scale-up domain),
    it is computed on the rows that can only.
    """
    size = r.n.shape[0]
    descending = bool(np.all(r.n[:-1] >= r.n[1:]))
    for t in TP_CHOICES:
        for p in PP_CHOICES:
            k = int(np.count_nonzero(r.n >= t * p)) if descending else size
            if k == 0:
                continue
            sub = r if k == size else _take(r, slice(0, k), size)
            dp = np.minimum(np.floor(sub.n / float(t * p)), sub.seqs)
            valid = (t <= sub.tp_cap) & (dp >= 1) & (p <= sub.layer_cap)
            rows = None if k == size else k
            if t * p > 1 and np.count_nonzero(valid) < k // 2:  # few rows host it: only those
                rows = np.flatnonzero(valid)
                if rows.size == 0:
                    continue
                sub, dp, valid = _take(sub, rows, k), dp[rows], valid[rows]
            yield _layout_of(sub, t, p, dp, valid), sub, rows


def _keep_better(best: list, layout: Layout, step: dict, rows) -> None:
    """Fold one layout (computed on the first ``rows`` rows when an int, the rows ``rows`` when an
    index array, all when None) into ``best`` = [layout, step, score] in place (the first layout
    starts it and must cover every row)."""
    score = np.where(layout.fits_in_memory, step["step_s"], np.inf)
    fallback = np.where(layout.valid, _NO_FIT_SCORE + layout.memory_per_gpu_gb, np.inf)
    score = np.where(np.isfinite(score), score, fallback)
    if best[0] is None:
        if rows is not None:
            raise ValueError("the first layout must cover every configuration")

        def own(x):  # a writable copy, one element per row (a scalar broadcast)
            return np.array(np.broadcast_to(x, score.shape))

        copied = {f.name: own(getattr(layout, f.name)) for f in fields(Layout)}
        best[:] = [Layout(**copied), {k: own(v) for k, v in step.items()}, score]
        return
    pairs = [(getattr(best[0], f.name), getattr(layout, f.name)) for f in fields(Layout)]
    pairs += [(best[1][k], step[k]) for k in best[1]] + [(best[2], score)]
    if rows is None or isinstance(rows, (int, np.integer)):
        cut = slice(None) if rows is None else slice(0, int(rows))
        better = score < best[2][cut]  # the rows of cut (a prefix) it wins
        for dest, new in pairs:
            np.copyto(dest[cut], new, where=better)
        return
    better = np.flatnonzero(score < best[2][rows])  # rows: an index array
    at = rows[better]
    for dest, new in pairs:
        dest[at] = np.broadcast_to(new, score.shape)[better]


def pick_layout(
    layouts_and_steps: Iterable[tuple],
) -> tuple[Layout, dict[str, np.ndarray]]:
    """Keep, per row, the fastest layout that fits in memory; where none fits, a valid layout (the
    first in search order, see :data:`_NO_FIT_SCORE`). Items: ``(layout, step)`` over every row,
    or ``(layout, step, rows)`` computed on the rows ``rows`` only."""
    best = [None, None, None]
    for layout, step, *rows in layouts_and_steps:
        _keep_better(best, layout, step, rows[0] if rows else None)
    return best[0], best[1]


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


def _dp_comm_s(r: _Rows, layout: Layout):
    """Data-parallel gradient reduction [s], hierarchical: reduce-scatter inside the local group,
    all-reduce of the 1/g slice across groups over each GPU's share of the fabric."""
    t, p, dp = layout.tp, layout.pp, layout.dp
    shard_bytes = r.term_bytes["grads"] / (t * p)
    if not r.full.all():
        shard_bytes = np.where(r.full, shard_bytes, 0.0)
    volume = np.where(layout.zero_stage >= 3, ZERO3_COMM_VOLUME, 1.0)
    g = np.maximum(1.0, np.minimum(dp, np.floor(r.local_group / t)))
    groups = np.maximum(1.0, dp / g)
    intra = np.where(g > 1, 2.0 * shard_bytes * (g - 1) / g / r.local_bw, 0.0)
    inter = np.where(groups > 1, 2.0 * (shard_bytes / g) * (groups - 1) / groups / r.fabric_bw, 0.0)
    return volume * (intra + inter)


def _tp_comm_s(r: _Rows, layout: Layout):
    """Tensor-parallel all-reduces [s] of one replica's share of the step, over the local link
    when the tensor-parallel group fits in the local group, else over the fabric (a layout of
    :func:`candidate_layouts`: ``tp`` and ``pp`` scalars; 0 without tensor parallelism)."""
    t, p, dp = layout.tp, layout.pp, layout.dp
    if t <= 1:
        return 0.0
    tp_link = np.where(t <= r.local_group, r.local_bw, r.fabric_bw)
    tokens_layers = (r.work.global_batch_tokens / dp) * (r.work.n_layers / p)
    return tokens_layers * TP_BYTES_PER_TOKEN_LAYER_DMODEL * r.work.d_model * (t - 1) / t / tp_link


def step_overhead_factor(overhead_tokens, tokens_per_gpu):
    """Throughput multiplier of a per-step overhead of ``overhead_tokens`` more tokens of each
    GPU's work per step, at ``tokens_per_gpu`` tokens per GPU per step: 1 / (1 + k / t)."""
    return 1.0 / (1.0 + overhead_tokens / tokens_per_gpu)


#: The components of :func:`step_time` that add up to ``step_s`` [s per optimizer step], in stacking
#: order: ``derate_s`` is the time lost to the named derates (software maturity, throttling, input
#: pipeline, MoE, QLoRA, per-step overhead). ``dp_comm_s`` (data-parallel traffic before overlap)
#: is not one of them.
STEP_COLUMNS = (
    "matmul_s",
    "memory_s",
    "optimizer_s",
    "dp_exposed_s",
    "tp_exposed_s",
    "bubble_s",
    "derate_s",
)


def step_time(r: _Rows, layout: Layout) -> dict[str, np.ndarray]:
    """Seconds per optimizer step and its components [s] (dict of arrays, in column order, but
    ``derate_s``: :func:`best_layout` adds it for the winners) of the rows of ``r``
    (:func:`_search_rows`) in ``layout`` (one of :func:`candidate_layouts`: scalar tp and pp).
    Terms that are 0 for the layout (no tensor parallelism) are not added: x + 0 is x."""
    eff, n_used, p = r.eff, layout.n_used, layout.pp
    factor = np.where(
        layout.recompute == 1,
        1.0 + eff.full_recompute_overhead,
        1.0 + eff.selective_recompute_overhead,
    )
    matmul = r.step_flops * factor / (n_used * r.rate)
    memory = r.step_traffic / (n_used * r.bw)
    optimizer = 2.0 * layout.state_gb * GB / r.bw
    compute = matmul + memory

    dp_comm = _dp_comm_s(r, layout)
    dp_exposed = np.maximum(0.0, dp_comm - eff.dp_overlap * (BACKWARD_SHARE * compute))
    tp_exposed = (1.0 - eff.tp_overlap) * _tp_comm_s(r, layout)
    if layout.tp > 1:
        compute_tp = compute + tp_exposed
        total = compute + optimizer + dp_exposed + tp_exposed
    else:  # tp_exposed is 0: the sums are those without it
        compute_tp, total = compute, compute + optimizer + dp_exposed
    if p > 1:
        v = np.maximum(1.0, np.minimum(eff.virtual_stages, np.floor(r.work.n_layers / p)))
        bubble = (p - 1.0) / (v * layout.micro_batches) * compute_tp
    else:  # (p - 1) / (v m) is 0: 0 x the compute (NaN where it is not finite)
        bubble = compute_tp * 0.0
    total = (total + bubble) / eff.derate
    return {
        "step_s": total,
        "matmul_s": matmul,
        "memory_s": memory,
        "optimizer_s": optimizer,
        "dp_comm_s": dp_comm,
        "dp_exposed_s": dp_exposed,
        "tp_exposed_s": tp_exposed,
        "bubble_s": bubble,
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
    :func:`candidate_layouts`) and its step time. ``usable_fraction``: share of HBM a job can
    use; ``lora_fraction``: trainable share of an adapter fine-tune's parameters."""
    r = _search_rows(work, hw, eff, usable_fraction, tp_max, lora_fraction)
    size = r.n.shape[0]
    order = np.argsort(-r.n, kind="stable")  # descending GPU count: candidate_layouts skips rows
    r = _take(r, order, size)
    steps = ((lay, step_time(sub, lay), rows) for lay, sub, rows in candidate_layouts(r))
    layout, step = pick_layout(steps)
    step["derate_s"] = step["step_s"] - step["step_s"] * r.eff.derate
    back = np.empty_like(order)
    back[order] = np.arange(size)
    return _take(layout, back, size), _take(step, back, size)
