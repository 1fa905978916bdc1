"""Time to train: a step-time model over arrays of configurations, then whole-run goodput.

Step time per optimizer step (global batch ``G`` tokens), per GPU::

    matmul      = F_step (1 + recompute) / (n_used * peak[precision] * gemm_eff * precision_ratio)
    memory      = k_bw * G * L * d_model / (n_used * HBM_bw * bw_eff)   (norms, activations, casts)
    optimizer   = 2 * state_bytes_per_gpu / (HBM_bw * bw_eff)
    dp_comm     = ring all-reduce (x1.5 for ZeRO-3) of the gradient shard: inside the scale-up domain
                  over NVLink/IF, across domains over the scale-out fabric; exposed beyond what the
                  backward pass hides (dp_overlap_fraction)
    tp_comm     = 4 all-reduces of 2 h bytes per token per layer over the scale-up link (Korthikanti)
    bubble      = (p - 1) / (v m) of the compute (interleaved 1F1B with v chunks per GPU;
                  Narayanan et al. 2021, arXiv 2104.04473)

    step = (matmul + memory + optimizer + exposed dp + exposed tp + bubble)
           / (software maturity * thermal throttle * input pipeline * MoE efficiency)

Whole-run goodput follows Young (1974) / Daly (2006): with job MTBF ``M = 1 / (rate * n)``,
checkpoint write time ``delta`` and optimal interval ``tau = sqrt(2 delta M)``, the lost fraction
is ``delta / tau + (tau / 2 + restart) / M``.

All inputs are numpy arrays of equal length (one element per configuration); the layout choice
(tensor / pipeline / data parallel degrees, ZeRO stage, recompute) is vectorised too.
"""

from __future__ import annotations

import numpy as np

from .memory import FROZEN_BASE_BYTES, GB, activation_memory_gb

TP_CHOICES = (1, 2, 4, 8, 16)
PP_CHOICES = (1, 2, 4, 8, 16, 32, 64)


def candidate_layouts(
    *,
    n_gpus,
    n_params,
    n_layers,
    d_model,
    seq_len,
    global_batch_tokens,
    memory_gb,
    domain,
    tp_max,
    method_code,
    optimizer_bytes,
    usable_fraction,
    lora_fraction,
):
    """Yield every (tensor, pipeline, data)-parallel layout worth trying, as dicts of arrays.

    For each tensor-parallel degree ``t`` (inside the scale-up domain, at most ``tp_max``) and
    pipeline degree ``p``: ``dp = floor(n / (t p))`` replicas (at most one sequence each per step,
    ``dp <= G / seq_len``), the lowest ZeRO stage whose model states fit (ZeRO-1, else ZeRO-3 /
    FSDP), and selective recompute, else full recompute. ``valid`` marks layouts that exist for a
    row, ``fits_in_memory`` those that also fit. :func:`pick_layout` keeps the fastest.
    """
    n = n_gpus.astype(float)
    usable = memory_gb * usable_fraction
    tp_cap = np.maximum(1.0, np.minimum(tp_max, np.where(domain > 1, domain, 1.0)))
    full = method_code == 0
    base_bytes = np.select(
        [method_code == 1, method_code == 2],
        [FROZEN_BASE_BYTES["lora"], FROZEN_BASE_BYTES["qlora"]],
        0.0,
    )
    seqs = np.maximum(1.0, np.floor(global_batch_tokens / seq_len))
    act_sel = {
        t: activation_memory_gb(seq_len, 1.0, d_model, n_layers, tp=float(t), recompute="selective")
        for t in TP_CHOICES
    }
    act_full = {
        t: activation_memory_gb(seq_len, 1.0, d_model, n_layers, tp=float(t), recompute="full")
        for t in TP_CHOICES
    }
    for t in TP_CHOICES:
        for p in PP_CHOICES:
            mp = float(t * p)
            dp = np.minimum(np.floor(n / mp), seqs)
            valid = (t <= tp_cap) & (dp >= 1) & (p <= np.maximum(1.0, np.floor(n_layers)))
            dp = np.maximum(dp, 1.0)
            n_used = np.minimum(n, mp * dp)
            z1 = n_params * (4.0 / mp + (optimizer_bytes - 4.0) / n_used) / GB
            z3 = n_params * optimizer_bytes / n_used / GB
            adapter = n_params * (base_bytes / n_used + lora_fraction * 16.0) / GB
            zero_stage = np.where(dp <= 1, 0.0, np.where(z1 + act_sel[t] <= usable, 1.0, 3.0))
            states = np.where(
                full,
                np.where(
                    zero_stage == 3,
                    z3,
                    np.where(zero_stage == 1, z1, n_params * optimizer_bytes / mp / GB),
                ),
                adapter,
            )
            recompute = np.where(states + act_sel[t] <= usable, 0.0, 1.0)
            act = np.where(recompute == 1, act_full[t], act_sel[t])
            mem = states + act
            yield {
                "tp": np.full(n.shape, float(t)),
                "pp": np.full(n.shape, float(p)),
                "dp": dp,
                "n_used": n_used,
                "zero_stage": zero_stage,
                "recompute": recompute,
                "state_gb": states,
                "activation_gb": act,
                "memory_per_gpu_gb": mem,
                "fits_in_memory": valid & (mem <= usable),
                "valid": valid,
                "micro_batches": np.maximum(1.0, seqs / dp),
            }


def pick_layout(layouts_and_steps):
    """Keep, per row, the fastest layout that fits in memory (else the one needing least memory)."""
    best_layout, best_step = None, None
    for layout, step in layouts_and_steps:
        score = np.where(layout["fits_in_memory"], step["step_s"], np.inf)
        fallback = np.where(layout["valid"], 1e30 + layout["memory_per_gpu_gb"], np.inf)
        score = np.where(np.isfinite(score), score, fallback)
        if best_layout is None:
            best_layout, best_step, best_score = dict(layout), dict(step), score
            continue
        better = score < best_score
        for k in best_layout:
            best_layout[k] = np.where(better, layout[k], best_layout[k])
        for k in best_step:
            best_step[k] = np.where(better, step[k], best_step[k])
        best_score = np.where(better, score, best_score)
    return best_layout, best_step


def step_time(
    *,
    flops_per_token,
    global_batch_tokens,
    layout,
    n_layers,
    d_model,
    n_params,
    peak_tflops,
    precision_ratio,
    gemm_eff,
    mem_bw_tbps,
    bw_eff,
    k_bw,
    su_bw_gbps,
    su_eff,
    domain,
    gpus_per_node,
    pcie_bw_gbps,
    fabric_bw_gbps_per_gpu,
    fabric_eff,
    dp_overlap,
    tp_overlap,
    recompute_overhead,
    full_method,
    grad_bytes,
    derate,
    virtual_stages=1.0,
):
    """Seconds per optimizer step and its components (dict of arrays)."""
    n_used, t, p, dp = layout["n_used"], layout["tp"], layout["pp"], layout["dp"]
    G = global_batch_tokens
    rate = peak_tflops * 1e12 * gemm_eff * precision_ratio
    matmul = flops_per_token * G * (1.0 + recompute_overhead) / (n_used * rate)
    bw = mem_bw_tbps * 1e12 * bw_eff
    memory = k_bw * G * n_layers * d_model / (n_used * bw)
    optimizer = 2.0 * layout["state_gb"] * GB / bw

    # Local links: NVLink / Infinity Fabric inside the scale-up domain, else PCIe inside the node.
    has_su = (domain > 1) & np.isfinite(su_bw_gbps)
    local_bw = (
        np.where(has_su, np.nan_to_num(su_bw_gbps) / 2.0 * su_eff, pcie_bw_gbps * su_eff) * 1e9
    )
    local_group = np.where(has_su, domain, gpus_per_node)

    # Data-parallel gradient reduction, hierarchical: reduce-scatter inside the local group,
    # all-reduce of the 1/g slice across groups over each GPU's share of the fabric.
    shard_bytes = np.where(full_method, n_params * grad_bytes / (t * p), n_params * 0.0)
    volume = np.where(layout["zero_stage"] >= 3, 1.5, 1.0)
    g = np.maximum(1.0, np.minimum(dp, np.floor(local_group / t)))
    groups = np.maximum(1.0, dp / g)
    intra = np.where(g > 1, 2.0 * shard_bytes * (g - 1) / g / local_bw, 0.0)
    fabric_bw = fabric_bw_gbps_per_gpu * 1e9 / 8.0 * fabric_eff
    inter = np.where(groups > 1, 2.0 * (shard_bytes / g) * (groups - 1) / groups / fabric_bw, 0.0)
    dp_comm = volume * (intra + inter)
    backward = (2.0 / 3.0) * (matmul + memory)
    dp_exposed = np.maximum(0.0, dp_comm - dp_overlap * backward)

    # Tensor parallel: per token per layer 4 all-reduces of 2h bytes (ring: 2(t-1)/t x size).
    tp_link = np.where(t <= local_group, local_bw, fabric_bw)
    tp_comm = np.where(
        t > 1, (G / dp) * (n_layers / p) * 16.0 * d_model * (t - 1) / t / tp_link, 0.0
    )
    tp_exposed = (1.0 - tp_overlap) * tp_comm

    v = np.maximum(1.0, np.minimum(virtual_stages, np.floor(n_layers / p)))
    bubble = (p - 1.0) / (v * layout["micro_batches"]) * (matmul + memory + tp_exposed)
    total = (matmul + memory + optimizer + dp_exposed + tp_exposed + bubble) / derate
    return {
        "step_s": total,
        "matmul_s": matmul,
        "memory_s": memory,
        "optimizer_s": optimizer,
        "dp_comm_s": dp_comm,
        "dp_exposed_s": dp_exposed,
        "tp_exposed_s": tp_exposed,
        "bubble_s": bubble,
        "derate_s": total - total * derate,
    }


def goodput(n_gpus, *, failure_rate_per_gpu_hour, checkpoint_hours, restart_hours):
    """Fraction of wall time doing useful training (Young 1974 / Daly 2006 optimal checkpointing).

    Parameters
    ----------
    n_gpus : array
        GPUs in the job [count].
    failure_rate_per_gpu_hour : float
        Interruptions per GPU-hour (Llama 3: 1.97e-5).
    checkpoint_hours, restart_hours : float
        Stall per checkpoint and time to recover per interruption [h].

    References
    ----------
    J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM 17(9), 1974.
    J. T. Daly, "A higher order estimate of the optimum checkpoint interval", FGCS 22(3), 2006.
    """
    mtbf = 1.0 / (failure_rate_per_gpu_hour * np.asarray(n_gpus, float))
    tau = np.sqrt(2.0 * checkpoint_hours * mtbf)
    lost = checkpoint_hours / tau + (tau / 2.0 + restart_hours) / mtbf
    return np.clip(1.0 - lost, 0.05, 1.0)
