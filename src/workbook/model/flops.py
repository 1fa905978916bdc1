"""Training compute: FLOPs of a run, and the model shape when only the size is known.

Every function takes scalars, numpy arrays or pandas Series and returns the same shape.
"""

from __future__ import annotations

import numpy as np

from ..checks import by_name, check_choice, check_number

#: Attention-FLOP conventions, named by their source.
ATTENTION_CONVENTIONS = {
    # Full (non-causal) s^2 term: PaLM, Chowdhery et al. 2022 (arXiv 2204.02311) Appendix B:
    # model FLOPs per token = 6N + 12 L H Q T, with H Q = d_model and T = sequence length.
    "full": 12.0,
    # Causal masking halves the QK^T and AV work (FlashAttention skips the masked blocks); the
    # convention of NVIDIA Megatron-Bridge / NeMo model-FLOPs (peer_tools.md, finding 2).
    "causal": 6.0,
    # 6ND only: Kaplan et al. 2020 (arXiv 2001.08361) C ~ 6ND; Chinchilla (arXiv 2203.15556).
    "none": 0.0,
}

#: FLOPs per parameter per token by training method (forward 2N, backward 4N).
METHOD_FLOPS_PER_PARAM = {
    # Full training: forward 2N + backward 4N (activation and weight gradients), Kaplan et al. 2020.
    "full": 6.0,
    # LoRA (Hu et al. 2021, arXiv 2106.09685): the frozen base still needs the forward (2N) and
    # the activation gradients (2N); the weight gradients (2N) exist only for the small adapters.
    "lora": 4.0,
    # QLoRA (Dettmers et al. 2023, arXiv 2305.14314): same matmuls as LoRA on a dequantized 4-bit
    # base; the dequantization cost is a time factor (assumptions.csv qlora_dequant_overhead).
    "qlora": 4.0,
}

#: Compute-optimal training tokens per parameter: Hoffmann et al. 2022 ("Chinchilla", arXiv
#: 2203.15556), Table 3: ~20 tokens per parameter at every compute budget they fit.
CHINCHILLA_TOKENS_PER_PARAM = 20.0

#: d_model / n_layers of the shape derived from a parameter count. GPT-3 175B 12288/96 = 128,
#: LLaMA-7B 4096/32 = 128 (Brown et al. 2020 Table 2.1; Touvron et al. 2023 Table 2).
ASPECT_RATIO = 128.0


def model_shape(n_params):
    """Derive (n_layers, d_model) from a parameter count.

    Uses ``N ~ 12 L d^2`` (Kaplan et al. 2020, eq. 2.1, non-embedding parameters) with the aspect
    ratio ``d = 128 L`` of GPT-3 and LLaMA, so ``L = (N / (12 * 128^2))^(1/3)``.

    For a mixture of experts pass the *active* parameters: a token passes through every layer of
    the active path, and the experts only widen the feed-forward blocks. DeepSeek-V3 (37B active of
    671B; 61 layers x d_model 7168, ``config_671B.json`` of deepseek-ai/DeepSeek-V3) gets L x d =
    420k from its active count, 4 % under the published 437k; its total count would give 2.9M, 6.6x
    too many.

    Parameters
    ----------
    n_params : float or array
        Parameters [count].

    Returns
    -------
    n_layers, d_model : arrays of float (not rounded: a derived shape is an approximation)
    """
    n = np.asarray(check_number("n_params", n_params, positive=True), dtype=float)
    n_layers = np.maximum(1.0, np.cbrt(n / (12.0 * ASPECT_RATIO**2)))
    d_model = np.sqrt(n / (12.0 * n_layers))
    return n_layers, d_model


def _per_row(table: dict[str, float], name: str, value):
    """``table[value]``, or an array of them when ``value`` is an array of names (one per row)."""
    check_choice(name, value, table)
    if isinstance(value, str):
        return table[value]
    return by_name(table, value)


def attention_flops_per_token(n_layers, d_model, seq_len, attention="causal"):
    """Training FLOPs per token of the attention score and value products (fwd + bwd).

    ``coef * L * s * d`` with coef 12 for full attention (PaLM App. B), 6 for causal, 0 for none.
    ``attention`` is one convention name or an array of them (one per row).
    """
    coef = _per_row(ATTENTION_CONVENTIONS, "attention", attention)
    check_number("seq_len", seq_len, positive=True)
    return (
        coef * np.asarray(n_layers, float) * np.asarray(seq_len, float) * np.asarray(d_model, float)
    )


def flops_per_token(
    n_params,
    *,
    n_active_params=None,
    seq_len=4096,
    n_layers=None,
    d_model=None,
    attention="causal",
    method="full",
):
    """Training FLOPs per token: ``k N_active + attention term`` (k = 6 full, 4 LoRA/QLoRA).

    Every argument may be an array (one element per configuration), ``attention`` and ``method``
    arrays of names included: :func:`workbook.model.estimate_frame` counts a whole sweep with it.

    Parameters
    ----------
    n_params : float or array
        Total parameters [count]. Sets the derived shape when ``n_layers``/``d_model`` are absent.
    n_active_params : float or array, optional
        Parameters active per token (mixture of experts) [count]; default ``n_params``.
    seq_len : int or array
        Training sequence length [tokens].
    n_layers, d_model : optional
        Transformer shape; derived from the active parameters by :func:`model_shape` when absent.
    attention : {"causal", "full", "none"} or array of them
        Attention FLOP convention (see :data:`ATTENTION_CONVENTIONS`).
    method : {"full", "lora", "qlora"} or array of them
        Training method (see :data:`METHOD_FLOPS_PER_PARAM`).

    References
    ----------
    Kaplan et al. 2020, arXiv 2001.08361; Chowdhery et al. 2022 (PaLM), arXiv 2204.02311, App. B.
    """
    per_param = _per_row(METHOD_FLOPS_PER_PARAM, "method", method)
    n_params = check_number("n_params", n_params, positive=True)
    active = (
        n_params
        if n_active_params is None
        else check_number("n_active_params", n_active_params, positive=True)
    )
    if np.any(np.asarray(active) > np.asarray(n_params) * (1 + 1e-9)):
        raise ValueError(
            f"n_active_params={n_active_params!r} exceeds n_params={n_params!r}; "
            "allowed: 0 < n_active_params <= n_params"
        )
    L, d = _shape(active, n_layers, d_model)
    return per_param * np.asarray(active, float) + attention_flops_per_token(
        L, d, seq_len, attention
    )


def training_flops(n_params, n_tokens, **kwargs):
    """Total training FLOPs = FLOPs per token x tokens (see :func:`flops_per_token`).

    ``n_tokens`` [tokens] is checked to be a finite positive number.
    """
    n_tokens = check_number("n_tokens", n_tokens, positive=True)
    return flops_per_token(n_params, **kwargs) * np.asarray(n_tokens, float)


def chinchilla_tokens(n_params):
    """Compute-optimal tokens [tokens]: :data:`CHINCHILLA_TOKENS_PER_PARAM` (~20) per parameter
    (Hoffmann et al. 2022, arXiv 2203.15556, Table 3)."""
    return CHINCHILLA_TOKENS_PER_PARAM * np.asarray(
        check_number("n_params", n_params, positive=True), float
    )


def _shape(n_params, n_layers, d_model):
    L_derived, d_derived = model_shape(n_params)
    L = (
        L_derived
        if n_layers is None
        else np.asarray(check_number("n_layers", n_layers, positive=True), float)
    )
    d = (
        d_derived
        if d_model is None
        else np.asarray(check_number("d_model", d_model, positive=True), float)
    )
    return L, d
