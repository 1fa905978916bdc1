"""Serving throughput and $ per million tokens (enough to test the article's inference advice).

Decode is memory-bandwidth bound: every step reads the weights once plus each sequence's KV cache
(Pope et al. 2022, "Efficiently Scaling Transformer Inference", arXiv 2211.05102). Per replica of
``g`` GPUs (tensor parallel, the fewest that hold the weights with room for KV cache)::

    step_s    = max((W + B * kv_bytes(ctx)) / (g * HBM_bw * eff_bw), 2 N B / (g * peak * eff_c))
    tokens/s  = B / step_s
    prefill   = 2 N per prompt token at peak * eff_c (compute bound)

with the batch ``B`` capped by memory: ``(g * usable - W) / kv_bytes(ctx)``.
KV bytes per token = 2 (K and V) x layers x d_model x kv_heads_ratio x bytes per value.

Mixture of experts (``n_active_params`` < ``n_params``): every expert must be resident, so ``W`` and
the GPUs per replica follow the total; the KV cache follows the active path's shape (attention is
not routed; the shape rule of :func:`workbook.model.flops.model_shape`, as in training); compute is
``2 N_active`` per token; and a decode step reads only the weights its batch routes to. With a share
``a = N_active / N`` of the weights used per token and balanced routing (the design goal of the
load-balancing loss, Fedus et al. 2021, arXiv 2101.03961), the expected share read by ``B`` tokens
is ``1 - (1 - a)^B``: ``a`` at batch 1 (the active weights), all of them at large batches. Dense:
``a = 1``, the formula above.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..checks import check_choice, check_number
from ..units import GB, HOURS_PER_YEAR, KILO, SECONDS_PER_HOUR, TERA, TOKENS_PER_MILLION
from . import flops as compute
from .configs import assumption_values

#: Bytes per weight at each serving precision.
WEIGHT_BYTES = {"bf16": 2.0, "fp8": 1.0, "fp4": 0.5}
#: How a GPU-hour is priced: a rental kind of prices.csv, or "owned" (amortized purchase + energy).
PRICE_BASES = ("rent-on-demand", "rent-spot", "rent-reserved-1y", "owned")


def _check_inference_args(
    n_params, n_active_params, precision, context_tokens, max_batch, prompt_share, price_basis
) -> float:
    """The argument checks of :func:`inference_frame`, in order; returns the active parameters."""
    check_number("n_params", n_params, positive=True)
    active = (
        float(n_params)
        if n_active_params is None
        else float(check_number("n_active_params", n_active_params, positive=True))
    )
    if active > float(n_params) * (1 + 1e-9):
        raise ValueError(
            f"n_active_params={n_active_params!r} exceeds n_params={n_params!r}; allowed: "
            "0 < n_active_params <= n_params"
        )
    check_choice("precision", precision, WEIGHT_BYTES)
    check_number("context_tokens", context_tokens, positive=True, integer=True)
    check_number("max_batch", max_batch, positive=True, integer=True)
    check_number("prompt_share", prompt_share, minimum=0, maximum=0.99)
    check_choice("price_basis", price_basis, PRICE_BASES)
    return active


def _serving_rates(spec, peak, a, *, n_params, active, precision, context_tokens, max_batch):
    """Per accelerator: GPUs per replica, decode batch, weights read per step [B] and decode /
    prefill tokens per second per GPU (the equations of the module docstring)."""
    L, d = compute.model_shape(active)
    W = float(n_params) * WEIGHT_BYTES[precision]
    kv_per_seq = 2.0 * float(L) * float(d) * a["kv_heads_ratio"] * 2.0 * context_tokens
    usable = spec["memory_gb"].to_numpy(float) * GB * a["memory_usable_fraction"]
    # Fewest GPUs (a power of two) that hold W plus one sequence's KV cache.
    g = 2.0 ** np.ceil(np.log2(np.maximum(1.0, (W + kv_per_seq) / usable)))
    batch = np.clip(np.floor((g * usable - W) / kv_per_seq), 1, max_batch)
    bw = spec["memory_bw_tbps"].to_numpy(float) * TERA * a["inference_bw_efficiency"]
    rate = peak * TERA * a["inference_compute_efficiency"]
    weights_read = W * (1.0 - (1.0 - active / float(n_params)) ** batch)
    step = np.maximum(
        (weights_read + batch * kv_per_seq) / (g * bw), 2.0 * active * batch / (g * rate)
    )
    return g, batch, weights_read, batch / step / g, rate / (2.0 * active)


def inference_frame(
    n_params,
    accelerators=None,
    *,
    n_active_params=None,
    precision="bf16",
    context_tokens=4096,
    max_batch=256,
    prompt_share=0.5,
    price_basis="rent-on-demand",
    catalog: Catalog | None = None,
    assumptions=None,
) -> pd.DataFrame:
    """Serving estimate for a model on each accelerator (one row per accelerator).

    Parameters
    ----------
    n_params : float
        Parameters [count] (all experts of a mixture of experts).
    n_active_params : float, optional
        Mixture of experts: parameters used per token [count] (default: dense, ``n_params``).
    accelerators : list of str, optional
        Catalog ids (default: all with the precision).
    precision : {"bf16", "fp8", "fp4"}
        Weight and compute precision.
    context_tokens : int
        Tokens held in the KV cache per sequence (prompt + output) [tokens].
    max_batch : int
        Largest decode batch the server runs [sequences].
    prompt_share : float
        Share of processed tokens that are prompt (prefill) tokens; the rest are generated.
    price_basis : {"rent-on-demand", "rent-spot", "rent-reserved-1y", "owned"}
        "owned": buy-new price amortized over hardware_life_years at full utilization plus energy.
    """
    cat = resolve_catalog(catalog)
    a = assumption_values(cat, assumptions)
    active = _check_inference_args(
        n_params, n_active_params, precision, context_tokens, max_batch, prompt_share, price_basis
    )
    accs = cat.tables["accelerators"].set_index("accelerator_id")
    ids = list(accs.index) if accelerators is None else list(accelerators)
    for i in ids:
        cat.accelerator(i)
    spec = accs.loc[ids]
    peak = spec[f"tflops_dense_{precision}"].to_numpy(float)
    ok = np.isfinite(peak)
    spec, peak, ids = spec[ok], peak[ok], [i for i, k in zip(ids, ok) if k]
    g, batch, weights_read, decode, prefill = _serving_rates(
        spec,
        peak,
        a,
        n_params=n_params,
        active=active,
        precision=precision,
        context_tokens=context_tokens,
        max_batch=max_batch,
    )
    blended = 1.0 / (prompt_share / prefill + (1.0 - prompt_share) / decode)
    price = _price_per_gpu_hour(cat, a, ids, price_basis)
    usd_per_m = price / (blended * SECONDS_PER_HOUR) * TOKENS_PER_MILLION
    out = pd.DataFrame(
        {
            "accelerator": ids,
            "gpus_per_replica": g.astype(int),
            "batch": batch.astype(int),
            "weights_read_gb_per_step": weights_read / GB,
            "decode_tokens_per_s_per_gpu": decode,
            "prefill_tokens_per_s_per_gpu": prefill,
            "blended_tokens_per_s_per_gpu": blended,
            "price_usd_per_gpu_hour": price,
            "usd_per_million_tokens": usd_per_m,
            "price_basis": price_basis,
        }
    )
    return out.sort_values("usd_per_million_tokens", na_position="last").reset_index(drop=True)


def _price_per_gpu_hour(cat: Catalog, a: dict, ids, basis: str) -> np.ndarray:
    if basis != "owned":
        return np.array([cat.price(i, basis) for i in ids], float)
    life = cat.param("facility", "hardware_life_years")
    kwh = cat.param("facility", "electricity_usd_per_kwh")
    pue = cat.param("facility", "pue_air")
    spec = cat.tables["accelerators"].set_index("accelerator_id")
    out = []
    for i in ids:
        price = cat.price(i, "buy-new")
        tdp = spec.loc[i, "tdp_w"]
        energy = (tdp / KILO if np.isfinite(tdp) else np.nan) * pue * kwh
        out.append(price / (life * HOURS_PER_YEAR) + energy)
    return np.array(out, float)
