"""A model's shape from the training framework's own configuration file, read offline:

- a Hugging Face ``config.json`` (:meth:`ModelShape.from_hf_config`);
- a Megatron-LM / NeMo YAML (``num_layers``, ``hidden_size``, ``num_attention_heads``,
  ``num_query_groups``, ``ffn_hidden_size``, the vocabulary, ``num_moe_experts``,
  ``moe_router_topk``, ``kv_channels`` (the head size), ``seq_length`` / ``encoder_seq_length``,
  ``global_batch_size``), the keys at the top or in the first mapping that has ``num_layers`` and
  ``hidden_size`` (NeMo's ``model:``);
- a torchtitan TOML (``[model] name`` and ``flavor``: the flavor's arguments are torchtitan's
  own, :data:`TORCHTITAN_FLAVORS`; ``[training] seq_len``, ``global_batch_size``).

Every file is bounded like the rest of the workbook's readers (1 MB: ``shape.MAX_CONFIG_BYTES``,
UTF-8 text, YAML without aliases or duplicate keys, :data:`MAX_CONFIG_NESTING` levels) and every
failure is one ``ValueError`` naming the file and the key. :func:`read_model_config` picks the
reader by the file's suffix.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..catalog import bounded_yaml
from ..checks import check_number
from ..text import shown
from .shape import MAX_CONFIG_BYTES, ModelShape

#: Nesting of collections in a YAML configuration (NeMo: model -> optim -> sched -> a list).
MAX_CONFIG_NESTING = 8
SUFFIXES = {".json": "Hugging Face", ".yaml": "Megatron/NeMo", ".yml": "Megatron/NeMo"}
SUFFIXES[".toml"] = "torchtitan"

#: torchtitan's flavors: ``torchtitan/models/llama3/__init__.py`` (pytorch/torchtitan, 2025:
#: dim, n_layers, n_heads, n_kv_heads, and the FFN's multiple_of and ffn_dim_multiplier) with the
#: default vocabulary of ``TransformerModelArgs`` (``model/args.py``: 128,256, Llama 3's).
TORCHTITAN_FLAVORS = {
    "llama3": {
        "8B": dict(dim=4096, n_layers=32, n_heads=32, n_kv_heads=8, multiple_of=1024, mult=1.3),
        "70B": dict(dim=8192, n_layers=80, n_heads=64, n_kv_heads=8, multiple_of=4096, mult=1.3),
        "405B": dict(
            dim=16384, n_layers=126, n_heads=128, n_kv_heads=8, multiple_of=4096, mult=1.2
        ),
    },
}
TORCHTITAN_VOCAB = 128_256
#: Vocabularies of the tokenizers NeMo configurations name (``tokenizer: type:``), from each
#: model's Hugging Face config.json ``vocab_size``; a file may give ``vocab_size`` itself.
TOKENIZER_VOCAB = {
    "meta-llama/Meta-Llama-3-8B": 128_256,
    "meta-llama/Meta-Llama-3-70B": 128_256,
    "meta-llama/Meta-Llama-3.1-8B": 128_256,
    "meta-llama/Meta-Llama-3.1-70B": 128_256,
    "meta-llama/Meta-Llama-3.1-405B": 128_256,
    "meta-llama/Llama-2-7b-hf": 32_000,
    "meta-llama/Llama-2-70b-hf": 32_000,
    "mistralai/Mixtral-8x7B-v0.1": 32_000,
    "mistralai/Mixtral-8x22B-v0.1": 32_768,
}
#: Megatron keys of architectures the shape does not describe, with the reason (refused).
MEGATRON_UNSUPPORTED = {
    "moe_shared_expert_intermediate_size": "shared experts are not modelled",
    "multi_latent_attention": "multi-head latent attention is not modelled",
    "q_lora_rank": "multi-head latent attention is not modelled",
    "kv_lora_rank": "multi-head latent attention is not modelled",
}


@dataclass(frozen=True)
class ModelConfig:
    """What a configuration file says of the model and its training step."""

    shape: ModelShape
    seq_len: int | None  #: sequence length [tokens] (None: the file does not say)
    global_batch_tokens: float | None  #: tokens per optimizer step (None: not given) [tokens]
    source: str  #: "Hugging Face", "Megatron/NeMo" or "torchtitan"


def read_model_config(path) -> ModelConfig:
    """The model of a configuration file, by its suffix: ``.yaml`` / ``.yml`` (Megatron-LM /
    NeMo), ``.toml`` (torchtitan), else a Hugging Face config.json."""
    if not isinstance(path, (str, Path)):
        raise ValueError(f"model config={shown(path)} is not a path; allowed: a file path")
    suffix = Path(path).suffix.lower()
    if suffix not in (".yaml", ".yml", ".toml"):
        return ModelConfig(ModelShape.from_hf_config(path), None, None, SUFFIXES[".json"])
    text = _read_text(path)
    try:
        if suffix == ".toml":
            return _torchtitan(_toml(text))
        return _megatron(_yaml(text))
    except ValueError as e:
        raise ValueError(f"{shown(str(path))}: {e}") from None


def _read_text(path) -> str:
    """The UTF-8 text of a file of at most :data:`MAX_CONFIG_BYTES`."""
    p = Path(path)
    try:
        if not p.is_file():
            raise ValueError(f"model config {shown(str(path))} is not a file (or does not exist)")
        size = p.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise ValueError(
                f"model config {shown(str(path))} is {size:,} bytes; allowed: at most "
                f"{MAX_CONFIG_BYTES:,} bytes (a training config is a few kB)"
            )
        data = p.read_bytes()
    except OSError as e:
        raise ValueError(f"model config {shown(str(path))} cannot be read: {e.strerror}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"model config {shown(str(path))} is not UTF-8 text") from None


def _toml(text: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"is not valid TOML: {e}") from None


def _yaml(text: str) -> dict:
    data = bounded_yaml(
        text,
        max_nesting=MAX_CONFIG_NESTING,
        what="a model configuration",
        nesting_hint="section: key: value",
    )
    if not isinstance(data, dict):
        raise ValueError("is not a YAML mapping of key: value")
    return data


def _whole(name: str, value, *, optional: bool = False) -> int | None:
    """A positive whole number from the file (``None`` where optional and absent)."""
    if value is None and optional:
        return None
    if value is None:
        raise ValueError(f"has no {name}; allowed: a whole number > 0")
    if isinstance(value, bool):
        raise ValueError(f"{name}={value!r} is true/false; allowed: a whole number > 0")
    check_number(name, value, positive=True, integer=True)
    return int(value)


def _section(data: dict) -> dict:
    """The mapping with the model's keys: the top, else the first (breadth first) that has
    ``num_layers`` and ``hidden_size``."""
    queue = [data]
    while queue:
        d = queue.pop(0)
        if "num_layers" in d and "hidden_size" in d:
            return d
        queue += [v for v in d.values() if isinstance(v, dict)]
    raise ValueError(
        "has no num_layers and hidden_size; allowed: a Megatron-LM or NeMo training YAML"
    )


def _megatron_vocab(m: dict) -> int:
    for key in ("vocab_size", "padded_vocab_size"):
        if m.get(key) is not None:
            return _whole(key, m[key])
    tokenizer = m.get("tokenizer")
    name = tokenizer.get("type") if isinstance(tokenizer, dict) else None
    if name in TOKENIZER_VOCAB:
        return TOKENIZER_VOCAB[name]
    raise ValueError(
        f"has no vocab_size and its tokenizer {shown(name)} is not one of "
        f"{', '.join(TOKENIZER_VOCAB)}; allowed: add vocab_size: N beside num_layers"
    )


def _megatron_checks(m: dict) -> None:
    """Refuse what the shape does not describe: a non-gated feed-forward, shared experts, MLA,
    experts on some layers only."""
    for key, why in MEGATRON_UNSUPPORTED.items():
        if m.get(key):
            raise ValueError(f"{key}={shown(m[key])}: {why}")
    act = str(m.get("activation", "")).lower()
    if not (m.get("swiglu") is True or "swiglu" in act or "geglu" in act):
        raise ValueError(
            f"activation={shown(m.get('activation'))}: only gated feed-forward blocks (SwiGLU, 3 "
            "matrices) are modelled; allowed: activation: swiglu (NeMo) or swiglu: true (Megatron)"
        )
    freq = m.get("moe_layer_freq")
    if freq not in (None, 1):
        raise ValueError(f"moe_layer_freq={shown(freq)}: dense layers mixed with expert layers")


def _megatron(data: dict) -> ModelConfig:
    """The shape, sequence and batch of a Megatron-LM / NeMo YAML."""
    m = _section(data)
    _megatron_checks(m)
    heads = _whole("num_attention_heads", m.get("num_attention_heads"))
    experts = _whole("num_moe_experts", m.get("num_moe_experts"), optional=True) or 1
    ffn_key = "moe_ffn_hidden_size" if experts > 1 and m.get("moe_ffn_hidden_size") else None
    shared = m.get("share_embeddings_and_output_weights")
    if shared is None:  # Megatron-LM: tied unless --untie-embeddings-and-output-weights
        shared = not m.get("untie_embeddings_and_output_weights", False)
    shape = ModelShape(
        n_layers=_whole("num_layers", m.get("num_layers")),
        d_model=_whole("hidden_size", m.get("hidden_size")),
        n_heads=heads,
        n_kv_heads=_whole("num_query_groups", m.get("num_query_groups"), optional=True) or heads,
        ffn_hidden=_whole(ffn_key or "ffn_hidden_size", m.get(ffn_key or "ffn_hidden_size")),
        vocab_size=_megatron_vocab(m),
        n_experts=experts,
        experts_per_token=(
            _whole("moe_router_topk", m.get("moe_router_topk", 2)) if experts > 1 else 1
        ),
        tie_embeddings=bool(shared),
        # Megatron's head size (NeMo's Qwen3 MoE: 128 with hidden 2048 and 32 heads)
        head_dim=_whole("kv_channels", m.get("kv_channels"), optional=True),
    )
    data_section = m.get("data") if isinstance(m.get("data"), dict) else {}
    seq = next(
        (
            d[k]
            for d in (data_section, m, data)
            for k in ("seq_length", "encoder_seq_length")
            if d.get(k) is not None
        ),
        None,
    )
    seq_len = _whole("seq_length", seq, optional=True)
    batch = _whole(
        "global_batch_size",
        m.get("global_batch_size", data.get("global_batch_size")),
        optional=True,
    )
    tokens = float(batch * seq_len) if batch and seq_len else None
    return ModelConfig(shape, seq_len, tokens, "Megatron/NeMo")


def torchtitan_ffn(dim: int, multiple_of: int, mult: float | None) -> int:
    """torchtitan's (and Meta's Llama reference code's) SwiGLU width: ``int(2 (4 dim) / 3)``,
    times ``ffn_dim_multiplier``, rounded up to ``multiple_of``: 14,336 for Llama 3 8B."""
    hidden = int(2 * (4 * dim) / 3)
    if mult is not None:
        hidden = int(mult * hidden)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


def _torchtitan(data: dict) -> ModelConfig:
    """The shape, sequence and batch of a torchtitan train config (``[model]`` name + flavor)."""
    model = data.get("model")
    if not isinstance(model, dict):
        raise ValueError("has no [model] table; allowed: a torchtitan train config")
    name, flavor = model.get("name"), model.get("flavor")
    flavors = TORCHTITAN_FLAVORS.get(name)
    if flavors is None:
        raise ValueError(f"[model] name={shown(name)}; allowed: {', '.join(TORCHTITAN_FLAVORS)}")
    if flavor not in flavors:
        raise ValueError(f"[model] flavor={shown(flavor)}; allowed: {', '.join(flavors)}")
    a = flavors[flavor]
    shape = ModelShape(
        n_layers=a["n_layers"],
        d_model=a["dim"],
        n_heads=a["n_heads"],
        n_kv_heads=a["n_kv_heads"],
        ffn_hidden=torchtitan_ffn(a["dim"], a["multiple_of"], a["mult"]),
        vocab_size=TORCHTITAN_VOCAB,
    )
    training = data.get("training") if isinstance(data.get("training"), dict) else {}
    seq_len = _whole("[training] seq_len", training.get("seq_len"), optional=True)
    batch = _whole("[training] global_batch_size", training.get("global_batch_size"), optional=True)
    if batch is not None and batch < 0:
        batch = None
    tokens = float(batch * seq_len) if batch and seq_len else None
    return ModelConfig(shape, seq_len, tokens, "torchtitan")
