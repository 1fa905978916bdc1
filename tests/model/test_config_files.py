"""Model shapes from training-framework config files (workbook.model.config_files): the published
torchtitan TOML and NeMo YAML files of Llama 3 8B / 3.1 8B and Mixtral 8x7B give the published
parameter counts, and bad files one clear error."""

import json

import pytest
from framework_configs import (
    NEMO_LLAMA31_8B,
    NEMO_MIXTRAL_8X7B,
    NEMO_QWEN3_30B_A3B,
    TORCHTITAN_LLAMA3_8B,
)
from hf_configs import LLAMA3_8B, QWEN3_30B_A3B

from workbook.model import ModelShape, read_model_config
from workbook.model.config_files import torchtitan_ffn


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_torchtitan_llama3_8b_is_the_published_8_03b(tmp_path):
    """Llama 3 8B: 8,030,261,248 parameters (Meta's model card: 8.03B); torchtitan's FFN rule
    gives 14,336 (int(2 x 16,384 / 3) = 10,922, x 1.3 = 14,198, up to a multiple of 1,024)."""
    cfg = read_model_config(_write(tmp_path, "llama3_8b.toml", TORCHTITAN_LLAMA3_8B))
    assert torchtitan_ffn(4096, 1024, 1.3) == 14_336
    assert cfg.shape.n_params == 8_030_261_248
    assert (cfg.shape.n_layers, cfg.shape.n_kv_heads, cfg.shape.vocab_size) == (32, 8, 128_256)
    assert cfg.seq_len == 8192 and cfg.global_batch_tokens is None  # local batch x DP degree
    assert cfg.source == "torchtitan"


@pytest.mark.parametrize(
    "flavor, ffn, n_params",
    # Llama 3 70B: 70,553,706,496 (70.6B, tests/model/test_shape.py from its config.json);
    # Llama 3.1 405B: FFN 53,248 (its config.json intermediate_size), 405,853,388,800 (405B).
    [("70B", 28_672, 70_553_706_496), ("405B", 53_248, 405_853_388_800)],
)
def test_torchtitan_70b_and_405b_flavors_match_the_published_counts(
    tmp_path, flavor, ffn, n_params
):
    text = TORCHTITAN_LLAMA3_8B.replace('flavor = "8B"', f'flavor = "{flavor}"')
    shape = read_model_config(_write(tmp_path, "t.toml", text)).shape
    assert shape.ffn_hidden == ffn and shape.n_params == n_params


def test_nemo_llama31_8b_yaml(tmp_path):
    """The NeMo launcher's Llama 3.1 8B: the same 8.03B shape, 8,192-token sequences, a global
    batch of 2,048 sequences = 16,777,216 tokens; the vocabulary from the tokenizer it names."""
    cfg = read_model_config(_write(tmp_path, "llama3_1_8b.yaml", NEMO_LLAMA31_8B))
    assert cfg.shape.n_params == 8_030_261_248
    assert cfg.seq_len == 8192 and cfg.global_batch_tokens == 2048 * 8192
    assert cfg.source == "Megatron/NeMo"


def test_nemo_mixtral_yaml_is_46_7b_total_12_9b_active(tmp_path):
    """Mixtral 8x7B (Jiang et al. 2024: 46.7B total, 12.9B active)."""
    shape = read_model_config(_write(tmp_path, "mixtral_8x7b.yml", NEMO_MIXTRAL_8X7B)).shape
    assert shape.n_params == pytest.approx(46.70e9, rel=1e-3)
    assert shape.n_active_params == pytest.approx(12.88e9, rel=1e-3)
    assert (shape.n_experts, shape.experts_per_token) == (8, 2)


def test_megatron_kv_channels_is_the_head_size(tmp_path):
    """Qwen3-30B-A3B as a Megatron YAML (kv_channels 128) is its config.json's shape: 30.5B total,
    3.35B active (tests/model/test_shape.py has the arithmetic)."""
    yml = read_model_config(_write(tmp_path, "qwen3.yaml", NEMO_QWEN3_30B_A3B)).shape
    hf = ModelShape.from_hf_config(_write(tmp_path, "config.json", json.dumps(QWEN3_30B_A3B)))
    assert yml == hf
    assert (yml.head_dim, yml.n_params, yml.n_active_params) == (128, 30_532_110_336, 3_353_020_416)


def test_yaml_and_json_of_one_model_agree(tmp_path):
    """The NeMo YAML and the Hugging Face config.json of Llama 3 8B give the same shape."""
    hf = _write(tmp_path, "config.json", json.dumps(LLAMA3_8B))
    yml = read_model_config(_write(tmp_path, "m.yaml", NEMO_LLAMA31_8B)).shape
    assert ModelShape.from_hf_config(hf) == yml == read_model_config(hf).shape


@pytest.mark.parametrize(
    "name, text, words",
    [
        ("a.yaml", "x: &a [1]\ny: *a\n", "aliases"),
        ("a.yaml", "model:\n  num_layers: 2\n  num_layers: 3\n", "appears twice"),
        ("a.yaml", "- 1\n- 2\n", "mapping"),
        ("a.yaml", "model:\n  lr: 1\n", "num_layers and hidden_size"),
        ("a.yaml", NEMO_LLAMA31_8B.replace("fast-swiglu", "gelu"), "gated"),
        ("a.yaml", NEMO_LLAMA31_8B.replace("num_layers: 32", "num_layers: -3"), "num_layers"),
        ("a.yaml", NEMO_LLAMA31_8B.replace("Meta-Llama-3.1-8B", "my/tok"), "vocab_size"),
        ("a.yaml", "a: [[[[[[[[[1]]]]]]]]]\n", "nested deeper"),
        ("a.toml", "[model\nname=1", "not valid TOML"),
        ("a.toml", TORCHTITAN_LLAMA3_8B.replace('"8B"', '"9B"'), "flavor='9B'"),
        ("a.toml", TORCHTITAN_LLAMA3_8B.replace('"llama3"', '"gpt"'), "allowed: llama3"),
        ("a.toml", "[training]\nseq_len = 8\n", "[model]"),
    ],
)
def test_bad_files_are_one_clear_error(tmp_path, name, text, words):
    path = _write(tmp_path, name, text)
    with pytest.raises(ValueError) as e:
        read_model_config(path)
    assert words in str(e.value) and name in str(e.value)
    assert "\n" not in str(e.value)


def test_oversized_missing_and_binary_files(tmp_path):
    big = _write(tmp_path, "big.yaml", "a: 1\n" * 300_000)
    with pytest.raises(ValueError, match="at most 1,000,000 bytes"):
        read_model_config(big)
    with pytest.raises(ValueError, match="not a file"):
        read_model_config(tmp_path / "none.toml")
    binary = tmp_path / "b.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ValueError, match="not UTF-8"):
        read_model_config(binary)
