"""Memory per GPU: model states (weights, gradients, optimizer) and activations.

One ledger, each term cited (peer_tools.md finding 1: tools disagree by 2x because they hide it).
"""

from __future__ import annotations

import numpy as np

from ..checks import by_name, check_choice, check_number
from ..units import BITS_PER_BYTE, GB

#: Bytes per parameter of each model-state term, by optimizer scheme.
STATE_BYTES = {
    # Mixed-precision Adam: fp16/bf16 weights 2 + gradients 2 + fp32 master 4 + momentum 4 +
    # variance 4 = 16 bytes/param. ZeRO, Rajbhandari et al. 2019 (arXiv 1910.02054) Sec. 3.1.
    "adam-mixed": {"weights": 2.0, "grads": 2.0, "optimizer": 12.0},
    # Same with fp32 gradients (llm-analysis, Megatron's accumulate-in-fp32): 18 bytes/param.
    "adam-mixed-fp32-grads": {"weights": 2.0, "grads": 4.0, "optimizer": 12.0},
    # FP8-LM (Peng et al. 2023, arXiv 2310.18313, Sec. 2.3): fp16 master weights with a scaling
    # factor 2 + fp8 gradients 1 + fp8 first moment 1 + fp16 second moment 2 = 6 bytes/param; the
    # fp8 compute copy of the weights is cast from the master per layer.
    "adam-fp8": {"weights": 0.0, "grads": 1.0, "optimizer": 5.0},
}

#: Bytes per parameter of the frozen base model in adapter fine-tuning.
FROZEN_BASE_BYTES = {
    "lora": 2.0,  # bf16 base weights (Hu et al. 2021, arXiv 2106.09685)
    # NF4 4-bit base with double quantization: 4 + 0.127 bits/param (Dettmers et al. 2023,
    # arXiv 2305.14314, Sec. 3 "Double Quantization") = 0.516 bytes/param.
    "qlora": (4.0 + 0.127) / BITS_PER_BYTE,
}

#: The ZeRO stage from which each model-state term is split over the data-parallel degree
#: (Rajbhandari et al. 2019, arXiv 1910.02054, Fig. 1: P_os = 1, P_os+g = 2, P_os+g+p = 3).
ZERO_SHARDED_FROM = {"weights": 3, "grads": 2, "optimizer": 1}

ZERO_STAGES = (0, 1, 2, 3)
RECOMPUTE = ("none", "selective", "full")
#: Adapter weights train with full mixed-precision Adam states (16 B/param, ZeRO Sec. 3.1).
_ADAPTER_STATE_BYTES = float(sum(STATE_BYTES["adam-mixed"].values()))


def model_state_bytes_per_param(optimizer: str = "adam-mixed") -> float:
    """Bytes per parameter of weights + gradients + optimizer states (16 for mixed Adam)."""
    check_choice("optimizer", optimizer, STATE_BYTES)
    return float(sum(STATE_BYTES[optimizer].values()))


def state_bytes_per_param(optimizer) -> dict[str, float | np.ndarray]:
    """Bytes per parameter of each model-state term (``weights``, ``grads``, ``optimizer``) of a
    scheme of :data:`STATE_BYTES`: floats for one name, arrays for an array of names (one per row).
    """
    check_choice("optimizer", optimizer, STATE_BYTES)
    if isinstance(optimizer, str):
        return dict(STATE_BYTES[optimizer])
    return {
        term: by_name({o: b[term] for o, b in STATE_BYTES.items()}, optimizer)
        for term in ZERO_SHARDED_FROM
    }


def sharded_state_gb(n_params, state_bytes, *, zero_stage, dp, mp) -> dict[str, np.ndarray]:
    """The ZeRO split of :func:`model_state_terms_gb` on checked arrays (the layout search calls it
    for every candidate layout, so it checks nothing).

    ``state_bytes``: bytes per parameter by term (:func:`state_bytes_per_param`); ``mp``: model
    parallel degree ``tp x pp`` [GPUs]. Returns GB per GPU by term.
    """
    if np.ndim(zero_stage) == 0:  # one stage for every row (the layout search): no np.where
        return {
            term: (
                n_params * state_bytes[term] / dp / mp / GB
                if zero_stage >= stage
                else n_params * state_bytes[term] / mp / GB  # (x / 1.0 is x exactly)
            )
            for term, stage in ZERO_SHARDED_FROM.items()
        }
    return {
        term: n_params * state_bytes[term] / np.where(zero_stage >= stage, dp, 1.0) / mp / GB
        for term, stage in ZERO_SHARDED_FROM.items()
    }


def states_by_stage_gb(
    term_bytes, *, stages, dp, mp: float, cache: dict | None = None
) -> dict[int, np.ndarray]:
    """Weights + gradients + optimizer states per GPU [GB] at each ZeRO stage of ``stages``, for
    one model-parallel degree ``mp`` (the layout search): :func:`sharded_state_gb`'s terms and
    sum, in its order, with each split term (and the weights + gradients of stages that split
    them alike) computed once, across calls that pass the same ``cache`` dict too.
    ``term_bytes``: parameters x bytes per parameter by term [B]."""
    cache = {} if cache is None else cache
    out = {}
    for stage in stages:
        on = {term: stage >= first for term, first in ZERO_SHARDED_FROM.items()}
        for term, sharded in on.items():
            if (term, sharded) not in cache:
                x = term_bytes[term]
                cache[term, sharded] = x / dp / mp / GB if sharded else x / mp / GB
        pair = ("weights+grads", on["weights"], on["grads"])
        if pair not in cache:
            cache[pair] = cache["weights", on["weights"]] + cache["grads", on["grads"]]
        out[stage] = cache[pair] + cache["optimizer", on["optimizer"]]
    return out


def model_state_terms_gb(
    n_params, *, zero_stage=0, dp=1, tp=1, pp=1, optimizer="adam-mixed"
) -> dict[str, np.ndarray]:
    """Weights, gradients and optimizer states per GPU [GB], term by term, under ZeRO / FSDP.

    Each term is ``n_params x bytes/param / (tp pp)``, further divided by ``dp`` from the ZeRO stage
    that shards it (:data:`ZERO_SHARDED_FROM`: ZeRO-1 the optimizer states, ZeRO-2 also the
    gradients, ZeRO-3 / FSDP FULL_SHARD also the weights; Rajbhandari et al. 2019, arXiv
    1910.02054, Fig. 1).

    Parameters
    ----------
    n_params : float or array
        Parameters [count].
    zero_stage : int or array
        ZeRO stage 0-3.
    dp, tp, pp : float or array
        Data-, tensor- and pipeline-parallel degrees [count].
    optimizer : str or array of str
        Scheme of :data:`STATE_BYTES` (one name, or one per row).

    Returns
    -------
    dict with ``weights``, ``grads`` and ``optimizer`` [GB per GPU].
    """
    state_bytes = state_bytes_per_param(optimizer)
    n = np.asarray(check_number("n_params", n_params, positive=True), float)
    z = np.asarray(
        check_number("zero_stage", zero_stage, minimum=0, maximum=3, integer=True), float
    )
    dp = np.asarray(check_number("dp", dp, minimum=1), float)
    mp = np.asarray(check_number("tp", tp, minimum=1), float) * np.asarray(
        check_number("pp", pp, minimum=1), float
    )
    return sharded_state_gb(n, state_bytes, zero_stage=z, dp=dp, mp=mp)


def model_state_memory_gb(n_params, *, zero_stage=0, dp=1, tp=1, pp=1, optimizer="adam-mixed"):
    """Weights, gradients and optimizer states per GPU [GB] under ZeRO / FSDP sharding: the sum of
    :func:`model_state_terms_gb`.

    Tensor (``tp``) and pipeline (``pp``) parallelism split every term; ZeRO-1 also splits the
    optimizer states over the data-parallel degree ``dp``, ZeRO-2 also the gradients, ZeRO-3 (FSDP
    FULL_SHARD) also the weights (Rajbhandari et al. 2019, arXiv 1910.02054, Fig. 1).

    Golden values (ZeRO Fig. 1, 7.5B params, dp=64): 120 GB, 31.4 GB, 16.6 GB, 1.9 GB for stages
    0-3.
    """
    terms = model_state_terms_gb(
        n_params, zero_stage=zero_stage, dp=dp, tp=tp, pp=pp, optimizer=optimizer
    )
    return terms["weights"] + terms["grads"] + terms["optimizer"]


def activation_memory_gb(
    seq_len,
    micro_batch,
    d_model,
    n_layers,
    n_heads=None,
    *,
    tp=1,
    sequence_parallel=True,
    recompute: str = "selective",
    bytes_per_value: float = 2.0,
    coefficient=34.0,
):
    """Activation memory per GPU [GB] of a transformer for one micro-batch in flight per layer.

    Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models"
    (arXiv 2205.05198), Sec. 4, per layer (16-bit activations):

    - no recompute, no parallelism: ``s b h (34 + 5 a s / h)``
    - tensor parallel ``t``, no sequence parallel: ``s b h (10 + 24/t + 5 a s / (h t))``
    - tensor + sequence parallel: ``s b h (34/t + 5 a s / (h t))``
    - selective recompute (or FlashAttention, which never stores the s x s scores): drops the
      ``5 a s / h`` term: ``s b h 34/t`` (with SP)
    - full recompute: only the layer input is kept, ``2 s b h`` (``/t`` with SP)

    With 1F1B pipelining the first stage holds ``p`` micro-batches of ``L/p`` layers, i.e. ``L``
    layers' worth (Korthikanti Sec. 4.2.3), so ``pp`` does not divide the total.
    ``bytes_per_value`` scales the 16-bit constants (the paper's 34 assumes 2-byte values).
    ``coefficient`` (a number or one per row) replaces the paper's 34 for an exact shape (GQA,
    SwiGLU, experts: :func:`workbook.model.shape.shape_params`); 10 of it (norm and linear
    inputs, dropout masks) is not split by tensor parallelism without sequence parallelism.
    """
    check_choice("recompute", recompute, RECOMPUTE)
    s = np.asarray(check_number("seq_len", seq_len, positive=True), float)
    b = np.asarray(check_number("micro_batch", micro_batch, positive=True), float)
    h = np.asarray(check_number("d_model", d_model, positive=True), float)
    L = np.asarray(check_number("n_layers", n_layers, positive=True), float)
    t = np.asarray(check_number("tp", tp, minimum=1), float)
    a = (
        h / 128.0
        if n_heads is None
        else np.asarray(check_number("n_heads", n_heads, positive=True), float)
    )
    c = np.asarray(check_number("coefficient", coefficient, positive=True), float)
    return activation_gb(s, b, h, L, t, a, c, bool(sequence_parallel), recompute, bytes_per_value)


def activation_gb(s, b, h, L, t, a, c, sp: bool, recompute: str, bytes_per_value: float = 2.0):
    """The formula of :func:`activation_memory_gb` on checked values (the layout search calls it
    for every tensor degree and recompute mode, so it checks nothing): sequence ``s``, micro-batch
    ``b``, width ``h``, layers ``L``, tensor degree ``t``, heads ``a``, coefficient ``c``,
    sequence parallelism ``sp`` [GB]."""
    kept = c / t if sp else 10.0 + (c - 10.0) / t
    if recompute == "full":
        per_layer = 2.0 * s * b * h / (t if sp else 1.0)
    elif recompute == "selective":
        per_layer = s * b * h * kept
    else:
        per_layer = s * b * h * (kept + 5.0 * a * s / (h * t))
    return per_layer * L * (bytes_per_value / 2.0) / GB


def adapter_state_gb(n_params, base_bytes, *, trainable_fraction, shard):
    """The adapter ledger of :func:`adapter_state_memory_gb` on checked arrays (the layout search
    calls it for every candidate layout): ``base_bytes`` [B/param] of the frozen base sharded over
    ``shard`` GPUs, plus ``trainable_fraction`` of the parameters with mixed-Adam states [GB]."""
    return n_params * (base_bytes / shard + trainable_fraction * _ADAPTER_STATE_BYTES) / GB


def frozen_base_bytes(method) -> float | np.ndarray:
    """Bytes per parameter of the frozen base (:data:`FROZEN_BASE_BYTES`): a float for one method,
    an array for an array of names (0 where a row trains every weight, ``"full"``)."""
    if isinstance(method, str):
        check_choice("method", method, FROZEN_BASE_BYTES)
        return FROZEN_BASE_BYTES[method]
    method = np.asarray(method, object)
    return np.select(
        [method == m for m in FROZEN_BASE_BYTES], list(FROZEN_BASE_BYTES.values()), 0.0
    )


def adapter_state_memory_gb(n_params, *, method="lora", trainable_fraction: float = 0.005, shard=1):
    """Frozen base weights + trainable adapter states per GPU [GB] for LoRA / QLoRA.

    Base: 2 bytes/param (LoRA, bf16) or 0.516 (QLoRA NF4 + double quantization). The adapters
    (``trainable_fraction`` of the parameters) carry full mixed-precision Adam states, 16 B/param.
    ``shard``: GPUs the base is sharded over (FSDP / tensor parallel).
    """
    check_choice("method", method, FROZEN_BASE_BYTES)
    n = np.asarray(check_number("n_params", n_params, positive=True), float)
    f = check_number("trainable_fraction", trainable_fraction, minimum=0, maximum=1)
    shard = np.asarray(check_number("shard", shard, minimum=1), float)
    return adapter_state_gb(n, frozen_base_bytes(method), trainable_fraction=f, shard=shard)
