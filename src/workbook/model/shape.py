"""The exact shape of a decoder-only transformer (Llama family: grouped-query attention, SwiGLU
feed-forward, optional mixture of experts) and its parameter counts, read from the arguments or
from a Hugging Face ``config.json``.

Parameter counts (biases are absent in this family; norms are ``d`` weights each):

- embeddings ``V d``, and an LM head ``V d`` unless ``tie_word_embeddings``;
- attention per layer ``2 d (heads x hd) + 2 d (kv x hd)`` with head size ``hd`` (default
  ``d / heads``, which makes it ``2 d^2 + 2 d (kv d / heads)``): Q and O are ``d x (heads x hd)``,
  K and V ``d x (kv heads x hd)`` (GQA, Ainslie et al. 2023, arXiv 2305.13245). Qwen3's MoE
  models set ``head_dim`` = 128 with d = 2048 and 32 heads: their Q is twice as wide as d;
- SwiGLU feed-forward per layer and expert ``3 d f`` (gate, up, down: Shazeer 2020, arXiv
  2002.05202; Touvron et al. 2023, arXiv 2302.13971);
- mixture of experts: ``E`` experts per layer and a router ``d E``; a token passes through
  ``k`` of them (Jiang et al. 2024, "Mixtral of Experts", arXiv 2401.04088), so the active count
  has ``k`` feed-forward blocks and the total ``E``;
- two norms per layer and a final norm ``d`` each.

Checked in tests against the published counts: Llama 3 8B 8.03B, Llama 3 70B 70.6B, Mixtral
8x7B 46.7B total and 12.9B active, Qwen3-30B-A3B 30.5B and 3.3B, Qwen3-235B-A22B 235B and 22B.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..checks import check_number
from ..text import shown
from .flops import flops_per_token

#: The largest config.json read [bytes]: published ones are 1-3 kB.
MAX_CONFIG_BYTES = 1_000_000

#: Shape field -> the Hugging Face config.json keys that give it, first found wins.
HF_KEYS = {
    "n_layers": ("num_hidden_layers",),
    "d_model": ("hidden_size",),
    "n_heads": ("num_attention_heads",),
    "n_kv_heads": ("num_key_value_heads",),
    "ffn_hidden": ("moe_intermediate_size", "intermediate_size"),
    "vocab_size": ("vocab_size",),
    "n_experts": ("num_local_experts", "n_routed_experts", "num_experts"),
    "experts_per_token": ("num_experts_per_tok",),
    "head_dim": ("head_dim",),
}
#: Keys of architectures this shape does not describe, with the reason (refused, not ignored).
HF_UNSUPPORTED = {
    "kv_lora_rank": "multi-head latent attention (DeepSeek-V2/V3) is not modelled",
    "n_shared_experts": "shared experts are not modelled",
    "shared_expert_intermediate_size": "shared experts are not modelled",
    "first_k_dense_replace": "dense layers mixed with expert layers are not modelled",
    "mlp_only_layers": "dense layers mixed with expert layers are not modelled",
}
#: The upper bounds of the shape's numbers: far beyond any published model (Llama 3.1 405B: 126
#: layers, d = 16,384, 128 heads, FFN 53,248; vocabularies up to ~256k; DeepSeek-V3 256 experts).
SHAPE_LIMITS = {
    "n_layers": 10_000,
    "d_model": 1_000_000,
    "n_heads": 100_000,
    "n_kv_heads": 100_000,
    "ffn_hidden": 10_000_000,
    "vocab_size": 100_000_000,
    "n_experts": 100_000,
    "experts_per_token": 100_000,
    "head_dim": 100_000,
}


@dataclass(frozen=True)
class ModelShape:
    """A decoder-only transformer's shape (all counts) and its parameter counts.

    ``ffn_hidden`` is the feed-forward width of one expert (of the dense block when
    ``n_experts`` is 1); ``n_kv_heads`` < ``n_heads`` is grouped-query attention; ``head_dim``
    (None: ``d_model / n_heads``) the size of one attention head.
    """

    n_layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    ffn_hidden: int
    vocab_size: int
    n_experts: int = 1
    experts_per_token: int = 1
    tie_embeddings: bool = False
    head_dim: int | None = None

    def __post_init__(self):
        if self.head_dim is None:
            check_number("n_heads", self.n_heads, positive=True, integer=True)
            if self.d_model % self.n_heads:
                raise ValueError(
                    f"d_model={self.d_model} is not a multiple of n_heads={self.n_heads}; "
                    "allowed: heads of equal size (d_model = n_heads x head size), or a "
                    "head_dim"
                )
            object.__setattr__(self, "head_dim", int(self.d_model // self.n_heads))
        for name, top in SHAPE_LIMITS.items():
            v = getattr(self, name)
            check_number(name, v, positive=True, integer=True, maximum=top)
            object.__setattr__(self, name, int(v))
        if self.n_heads % self.n_kv_heads:
            raise ValueError(
                f"n_kv_heads={self.n_kv_heads} does not divide n_heads={self.n_heads}; "
                "allowed: a divisor of n_heads (grouped-query attention)"
            )
        if self.experts_per_token > self.n_experts:
            raise ValueError(
                f"experts_per_token={self.experts_per_token} exceeds n_experts={self.n_experts}; "
                "allowed: 1 <= experts_per_token <= n_experts"
            )

    # --- parameter counts [count] ----------------------------------------------------------
    @property
    def _counts(self) -> dict[str, float]:
        return shape_params(**{k: getattr(self, k) for k in SHAPE_LIMITS})

    @property
    def n_params(self) -> int:
        """Every parameter (all experts)."""
        tied = self.vocab_size * self.d_model if self.tie_embeddings else 0
        return int(self._counts["n_params"]) - tied

    @property
    def n_active_params(self) -> int:
        """The parameters one token uses (``experts_per_token`` experts)."""
        tied = self.vocab_size * self.d_model if self.tie_embeddings else 0
        return int(self._counts["n_active_params"]) - tied

    @property
    def matmul_params(self) -> int:
        """The active parameters a token multiplies with: attention, the active experts, the
        router and the LM head ``V d`` (the embedding lookup and the norms are not matmuls)."""
        return int(self._counts["matmul_params"])

    @property
    def activation_coefficient(self) -> float:
        """Stored activations per token, layer and unit of d_model (:func:`shape_params`)."""
        return float(self._counts["activation_coefficient"])

    def flops_per_token(self, seq_len, attention: str = "causal", method: str = "full"):
        """Training FLOPs per token as the engine counts them for this shape: ``k`` x the
        matmul parameters (:attr:`matmul_params`) + attention over a score width of heads x
        head size (:func:`workbook.model.flops_per_token`, ``attention`` its convention) [FLOP]."""
        return flops_per_token(
            self.matmul_params,
            seq_len=seq_len,
            n_layers=self.n_layers,
            d_model=self._counts["attention_width"],
            attention=attention,
            method=method,
        )

    def columns(self) -> dict[str, int]:
        """The shape as configuration columns of :func:`workbook.model.estimate_frame`."""
        return {k: getattr(self, k) for k in SHAPE_LIMITS}

    # --- reading ---------------------------------------------------------------------------
    @classmethod
    def from_hf_config(cls, path) -> "ModelShape":
        """The shape of a Hugging Face ``config.json`` (read offline, at most 1 MB).

        Keys: see :data:`HF_KEYS`; ``num_key_value_heads`` absent means multi-head attention
        (the transformers default), the expert keys absent (or 0) a dense model, ``head_dim``
        absent (or null) heads of ``hidden_size / num_attention_heads``. A missing,
        unreadable, oversized or non-JSON file, a missing or bad key, or an architecture of
        :data:`HF_UNSUPPORTED` raises one ``ValueError`` naming the key and the file.
        """
        data = _read_json(path)
        for key, why in HF_UNSUPPORTED.items():
            if data.get(key):
                raise ValueError(f"{shown(str(path))}: {key}={shown(data[key])}: {why}")
        if data.get("decoder_sparse_step") not in (None, 0, 1):  # Qwen MoE: experts every k-th
            raise ValueError(
                f"{shown(str(path))}: decoder_sparse_step={shown(data['decoder_sparse_step'])}: "
                "dense layers mixed with expert layers are not modelled; allowed: 1"
            )
        values = {}
        for name, keys in HF_KEYS.items():
            expert = name in ("n_experts", "experts_per_token")
            found = [k for k in keys if data.get(k) is not None and not (expert and not data[k])]
            if found:
                try:
                    check_number(found[0], data[found[0]], positive=True, integer=True)
                except ValueError as e:
                    raise ValueError(f"{shown(str(path))}: {e}") from None
                values[name] = data[found[0]]
            elif name == "n_kv_heads":
                values[name] = values["n_heads"]
            elif name in ("n_experts", "experts_per_token"):
                values[name] = 1
            elif name == "head_dim":
                values[name] = None
            else:
                raise ValueError(
                    f"{shown(str(path))} has no {' or '.join(keys)}; allowed: a Hugging Face "
                    "config.json of a decoder-only model (Llama, Mistral, Mixtral, Qwen)"
                )
        values["tie_embeddings"] = bool(data.get("tie_word_embeddings", False))
        try:
            return cls(**values)
        except ValueError as e:
            raise ValueError(f"{shown(str(path))}: {e}") from None


#: The expert width a mixture of experts' tuned factors are referred to [units]: DeepSeek-V3's and
#: Kimi K2's ``moe_intermediate_size`` (2,048; their Hugging Face config.json), the median expert
#: width of the MoE benchmark rows (data/published_runs.csv, data/model_shapes.csv; the rows
#: without a modelled shape, DeepSeek-V3 and Kimi K2, are 2,048 wide). A MoE without an exact
#: shape is taken at it (:func:`moe_routing_factor` = 1).
MOE_REFERENCE_EXPERT_WIDTH = 2048.0


def moe_routing_factor(ffn_hidden, n_experts, routing_width):
    """The throughput multiplier of a mixture of experts' expert width against
    :data:`MOE_REFERENCE_EXPERT_WIDTH` [ratio]: ``(1 + c / 2048) / (1 + c / f)``.

    Every routed token pays for dispatch and combine (router, permutation, all-to-all and back):
    work that grows with d_model but not with the expert width ``f``, written as a matmul of width
    ``c`` (``routing_width``, ``moe_routing_width`` in data/assumptions.csv, fitted on the MoE
    benchmark rows: :func:`workbook.calibrate.fit_moe_routing`). An expert of width ``f`` then runs
    at ``f / (f + c)`` of its matmul rate, so a fine-grained MoE (768 wide: Qwen3-30B-A3B) is
    slower per FLOP than DeepSeek-V3 and a coarse one (2,880: gpt-oss) faster. ``f`` is
    ``ffn_hidden`` of an exact shape with more than one expert, else the reference (factor 1:
    a dense model, or a MoE known only by its size)."""
    f = np.asarray(ffn_hidden, float)
    moe = ~np.isnan(f) & (np.nan_to_num(np.asarray(n_experts, float)) > 1)
    f = np.where(moe, f, MOE_REFERENCE_EXPERT_WIDTH)
    c = float(routing_width)
    return (1.0 + c / MOE_REFERENCE_EXPERT_WIDTH) / (1.0 + c / f)


#: How far a given size may be from the exact shape's count [ratio]: a rounded published size
#: passes (8e9 for Llama 3 8B's 8.03B is 0.4 % off), another model's does not (7e9: 13 %).
SHAPE_COUNT_TOLERANCE = 0.01


def with_shape(given: dict, shape: ModelShape | None) -> dict:
    """The arguments of :func:`workbook.model.estimate_training` with the shape's counts and
    columns filled in (a disagreeing size, layer count or width refused)."""
    if shape is None:
        return given
    if not isinstance(shape, ModelShape):
        raise ValueError(
            f"shape={shown(shape)} is not a ModelShape; allowed: ModelShape(...) or "
            "ModelShape.from_hf_config(path)"
        )
    out = dict(given)
    counts = {"n_params": shape.n_params, "n_active_params": shape.n_active_params}
    for name, count in counts.items():
        v = given[name]
        if v is not None:
            check_number(name, v, positive=True)
            if abs(v / count - 1.0) > SHAPE_COUNT_TOLERANCE:
                raise ValueError(
                    f"{name}={shown(v)} disagrees with the shape's {count:,}; allowed: None "
                    f"(the shape's count) or within {SHAPE_COUNT_TOLERANCE:.0%} of it"
                )
        out[name] = count
    for name in ("n_layers", "d_model"):
        if given[name] is not None and given[name] != getattr(shape, name):
            raise ValueError(
                f"{name}={shown(given[name])} disagrees with the shape's {getattr(shape, name)}; "
                "allowed: None (the shape's)"
            )
    return {**out, **shape.columns()}


def shape_params(
    n_layers,
    d_model,
    n_heads,
    n_kv_heads,
    ffn_hidden,
    vocab_size,
    n_experts,
    experts_per_token,
    head_dim=None,
) -> dict:
    """Parameter counts of untied shapes [count] (scalars or arrays, one per row; module
    docstring): ``n_params``, ``n_active_params``, ``matmul_params`` (the active parameters a
    token multiplies with: attention, active experts, router, LM head ``V d``; not the embedding
    lookup nor the norms), ``attention_width`` (``heads x head_dim``: the width of the score
    products QK^T and AV, d_model unless ``head_dim`` says otherwise), and
    ``activation_coefficient``.

    ``activation_coefficient``: stored activations per token, layer and unit of d_model with
    selective recompute (2-byte values), Korthikanti et al. 2022 (arXiv 2205.05198) Sec. 4 redone
    for the shape: attention ``7 + 4 r`` (inputs of QKV 2, Q 2, K and V 2 r each with
    ``r = kv/heads``, input of O 2, dropout mask 1), MLP ``3 + 6 k f / d`` (input 2, gate, up and
    their product 2 f/d each per active expert, dropout mask 1), two norms 4:
    ``14 + 4 r + 6 k f / d``. The paper's 34 is the MHA (r = 1), non-gated 4d MLP case (3 + 16).
    With a head size other than ``d / heads``, Q and O's input scale by ``q = heads hd / d`` and
    K, V by ``kv hd / d``: ``10 + 4 q + 4 kv hd / d + 6 k f / d`` (the same at ``q = 1``).
    """
    d, f = d_model, ffn_hidden
    hd = d / n_heads if head_dim is None else np.where(np.isnan(head_dim), d / n_heads, head_dim)
    q_width, kv_width = n_heads * hd, n_kv_heads * hd
    attention = 2 * d * q_width + 2 * d * kv_width
    expert = 3 * d * f
    router = d * n_experts * (n_experts > 1)
    lm_head = vocab_size * d

    def total(experts):
        return n_layers * (attention + experts * expert + router + 2 * d) + 2 * lm_head + d

    return {
        "n_params": total(n_experts),
        "n_active_params": total(experts_per_token),
        "matmul_params": n_layers * (attention + experts_per_token * expert + router) + lm_head,
        "attention_width": q_width,
        "activation_coefficient": 10.0
        + 4.0 * q_width / d
        + 4.0 * kv_width / d
        + 6.0 * experts_per_token * f / d,
    }


def _read_json(path) -> dict:
    """The JSON object of a file; every failure one ``ValueError`` naming the file."""
    if not isinstance(path, (str, Path)):
        raise ValueError(f"model config={shown(path)} is not a path; allowed: a config.json path")
    p = Path(path)
    try:
        size = p.stat().st_size
        if not p.is_file():
            raise ValueError(f"model config {shown(str(path))} is not a file")
        if size > MAX_CONFIG_BYTES:
            raise ValueError(
                f"model config {shown(str(path))} is {size:,} bytes; allowed: at most "
                f"{MAX_CONFIG_BYTES:,} bytes (a config.json is a few kB)"
            )
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise ValueError(f"model config {shown(str(path))} cannot be read: {e.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ValueError(
            f"model config {shown(str(path))} is not JSON text; allowed: a config.json file"
        ) from None
    if not isinstance(data, dict):
        raise ValueError(f"model config {shown(str(path))} is not a JSON object of key: value")
    return data
