"""The model shape (workbook.model.shape): parameter counts against the published ones, and the
config.json reader's refusals."""

import json

import pytest
from hf_configs import LLAMA3_8B, LLAMA3_70B, MIXTRAL_8X7B, QWEN3_30B_A3B, QWEN3_235B_A22B

from workbook.model.shape import ModelShape


def write(tmp_path, data, name="config.json"):
    p = tmp_path / name
    p.write_text(json.dumps(data), encoding="utf-8")
    return p


def test_llama3_8b_has_8_03b_parameters(tmp_path):
    """Embeddings + head 2 x 128256 x 4096 = 1,050,673,152; per layer attention
    2 x 4096^2 + 2 x 4096 x 1024 = 41,943,040, SwiGLU 3 x 4096 x 14336 = 176,160,768, norms 8,192:
    218,112,000 x 32 = 6,979,584,000; final norm 4,096. Total 8,030,261,248 (model card: 8.03B)."""
    s = ModelShape.from_hf_config(write(tmp_path, LLAMA3_8B))
    assert (s.n_layers, s.d_model, s.n_heads, s.n_kv_heads) == (32, 4096, 32, 8)
    assert s.n_params == 8_030_261_248
    assert s.n_active_params == s.n_params
    assert s.n_params == pytest.approx(8.03e9, abs=0.005e9)


def test_llama3_70b_has_70_6b_parameters(tmp_path):
    """2 x 128256 x 8192 = 2,101,346,304; per layer 2 x 8192^2 + 2 x 8192 x 1024 = 150,994,944,
    3 x 8192 x 28672 = 704,643,072, norms 16,384: 855,654,400 x 80 = 68,452,352,000; + 8,192.
    Total 70,553,706,496 (model card: 70.6B)."""
    s = ModelShape.from_hf_config(write(tmp_path, LLAMA3_70B))
    assert s.n_params == 70_553_706_496
    assert s.n_params == pytest.approx(70.6e9, abs=0.05e9)


def test_mixtral_total_46_7b_active_12_9b(tmp_path):
    """Embeddings 2 x 32000 x 4096 = 262,144,000; per layer attention 41,943,040, router
    4096 x 8 = 32,768, norms 8,192, experts 176,160,768 each. Total: 32 x (41,943,040 +
    8 x 176,160,768 + 32,768 + 8,192) + 262,144,000 + 4,096 = 46,702,792,704 (paper: 46.7B);
    active with 2 experts: 32 x (41,943,040 + 2 x 176,160,768 + 40,960) + 262,148,096 =
    12,879,925,248 (paper: 12.9B)."""
    s = ModelShape.from_hf_config(write(tmp_path, MIXTRAL_8X7B))
    assert (s.n_experts, s.experts_per_token) == (8, 2)
    assert s.n_params == 46_702_792_704
    assert s.n_active_params == 12_879_925_248
    assert s.n_active_params == pytest.approx(12.9e9, abs=0.05e9)


def test_qwen3_30b_a3b_counts_its_128_wide_heads(tmp_path):
    """Q and O 2 x 2048 x (32 x 128) = 16,777,216, K and V 2 x 2048 x (4 x 128) = 2,097,152:
    attention 18,874,368 per layer (not 9,437,184 as if heads were 2048 / 32 = 64 wide); expert
    3 x 2048 x 768 = 4,718,592, router 2048 x 128 = 262,144, norms 4,096. Total 48 x (18,874,368 +
    128 x 4,718,592 + 266,240) + 2 x 151936 x 2048 + 2048 = 30,532,110,336 (model card: 30.5B);
    active 48 x (18,874,368 + 8 x 4,718,592 + 266,240) + 622,331,904 = 3,353,020,416 (card: 3.3B;
    without the head size it would be 2.90B, 12 % short)."""
    s = ModelShape.from_hf_config(write(tmp_path, QWEN3_30B_A3B))
    assert (s.head_dim, s.n_experts, s.experts_per_token) == (128, 128, 8)
    assert s.n_params == 30_532_110_336
    assert s.n_active_params == 3_353_020_416
    assert s.n_active_params == pytest.approx(3.3e9, rel=0.02)


def test_qwen3_235b_a22b_is_235b_total_22b_active(tmp_path):
    """Attention 2 x 4096 x 8192 + 2 x 4096 x 512 = 71,303,168; expert 3 x 4096 x 1536 =
    18,874,368; router 524,288; norms 8,192. Total 94 x (71,303,168 + 128 x 18,874,368 + 532,480)
    + 2 x 151936 x 4096 + 4096 = 235,093,610,496 (card: 235B); active 94 x (71,303,168 +
    8 x 18,874,368 + 532,480) + 1,244,663,808 = 22,190,739,456 (card: 22B)."""
    s = ModelShape.from_hf_config(write(tmp_path, QWEN3_235B_A22B))
    assert s.n_params == 235_093_610_496
    assert s.n_active_params == 22_190_739_456


def test_head_size_of_d_over_heads_changes_nothing(tmp_path):
    """A config.json that states Llama 3 8B's head_dim (128 = 4096 / 32) is the same shape."""
    stated = ModelShape.from_hf_config(write(tmp_path, {**LLAMA3_8B, "head_dim": 128}))
    assert stated == ModelShape.from_hf_config(write(tmp_path, LLAMA3_8B, "b.json"))
    assert stated.activation_coefficient == 36.0  # 14 + 4 x 8/32 + 6 x 14336/4096


def test_a_head_size_is_not_d_model_over_the_heads():
    """GPT-OSS-120B: hidden 2880, 64 heads of 64 (Q 4,096 wide; 2880 / 64 = 45 would be the
    head size implied). Without a head size, d_model must be a multiple of the heads."""
    s = ModelShape(36, 2880, 64, 8, 2880, 201088, 128, 4, head_dim=64)
    implied = ModelShape(36, 2880, 64, 8, 2880, 201088, 128, 4)
    assert (s.head_dim, implied.head_dim) == (64, 45)
    # attention per layer 2 x 2880 x 4096 + 2 x 2880 x 512 against 2 x 2880^2 + 2 x 2880 x 360
    diff = 36 * (2 * 2880 * 4096 + 2 * 2880 * 512 - 2 * 2880**2 - 2 * 2880 * 360)
    assert s.n_params - implied.n_params == diff
    ModelShape(1, 100, 3, 1, 64, 10, head_dim=32)  # 3 heads of 32 in a width of 100
    with pytest.raises(ValueError, match="or a head_dim"):
        ModelShape(1, 100, 3, 1, 64, 10)


def test_matmul_params_count_the_lm_head_not_the_embedding_lookup(tmp_path):
    """Llama 3 8B: 32 x (41,943,040 + 176,160,768) + 128256 x 4096 = 6,979,321,856 +
    525,336,576 = 7,504,658,432."""
    s = ModelShape.from_hf_config(write(tmp_path, LLAMA3_8B))
    assert s.matmul_params == 7_504_658_432


def test_tied_embeddings_count_once():
    """d 64, 2 heads, 1 KV head, f 128, V 100, 1 layer, tied: attention 2 x 64^2 + 2 x 64 x 32 =
    12,288, FFN 3 x 64 x 128 = 24,576, norms 128; embeddings 6,400; final norm 64: 43,456."""
    s = ModelShape(1, 64, 2, 1, 128, 100, tie_embeddings=True)
    assert s.n_params == 43_456


def test_activation_coefficient_reduces_to_korthikanti_34_for_mha_4d_mlp():
    """14 + 4 x 1 + 6 x (8/3 d) / d = 34 (a SwiGLU of width 8d/3 stores as much as a 4d MLP);
    Llama 3 8B: 14 + 4 x 8/32 + 6 x 14336/4096 = 14 + 1 + 21 = 36."""
    assert ModelShape(1, 96, 1, 1, 256, 10).activation_coefficient == pytest.approx(34.0)
    s = ModelShape(32, 4096, 32, 8, 14336, 128256)
    assert s.activation_coefficient == pytest.approx(36.0)


def test_missing_kv_heads_means_multi_head_attention(tmp_path):
    data = {k: v for k, v in LLAMA3_8B.items() if k != "num_key_value_heads"}
    assert ModelShape.from_hf_config(write(tmp_path, data)).n_kv_heads == 32
    dense = ModelShape.from_hf_config(write(tmp_path, {**LLAMA3_8B, "num_local_experts": 0}))
    assert (dense.n_experts, dense.n_params) == (1, 8_030_261_248)


@pytest.mark.parametrize(
    "content, match",
    [
        ({k: v for k, v in LLAMA3_8B.items() if k != "hidden_size"}, "hidden_size"),
        ({k: v for k, v in LLAMA3_8B.items() if k != "intermediate_size"}, "intermediate_size"),
        ({**LLAMA3_8B, "num_hidden_layers": 32.5}, "num_hidden_layers=32.5 is not a whole"),
        ({**LLAMA3_8B, "vocab_size": -1}, "vocab_size=-1"),
        ({**LLAMA3_8B, "num_key_value_heads": 5}, "n_kv_heads"),
        ({**LLAMA3_8B, "hidden_size": True}, "hidden_size=True is not a number"),
        ({**LLAMA3_8B, "hidden_size": "4096"}, "hidden_size='4096' is not a number"),
        ({**LLAMA3_8B, "kv_lora_rank": 512}, "latent attention"),
        ({**QWEN3_30B_A3B, "mlp_only_layers": [0, 1]}, "dense layers mixed"),
        ({**QWEN3_30B_A3B, "decoder_sparse_step": 2}, "decoder_sparse_step=2"),
        ({**QWEN3_30B_A3B, "head_dim": 0}, "head_dim=0"),
        ({**LLAMA3_8B, "hidden_size": 4100}, "or a head_dim"),
        ([1, 2, 3], "not a JSON object"),
    ],
)
def test_bad_config_names_the_key_and_the_file(tmp_path, content, match):
    p = write(tmp_path, content, "bad-config.json")
    with pytest.raises(ValueError, match=match) as e:
        ModelShape.from_hf_config(p)
    assert "bad-config.json" in str(e.value)


def test_non_json_oversized_and_missing_files_are_refused(tmp_path):
    text = tmp_path / "notjson.json"
    text.write_text("hidden_size: 4096", encoding="utf-8")
    with pytest.raises(ValueError, match="notjson.json.*not JSON"):
        ModelShape.from_hf_config(text)
    big = tmp_path / "big.json"
    big.write_text(json.dumps({**LLAMA3_8B, "pad": "x" * 1_000_001}), encoding="utf-8")
    with pytest.raises(ValueError, match="big.json.*at most 1,000,000 bytes"):
        ModelShape.from_hf_config(big)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match="bin.json.*not JSON"):
        ModelShape.from_hf_config(binary)
    with pytest.raises(ValueError, match="nothere.json.*cannot be read"):
        ModelShape.from_hf_config(tmp_path / "nothere.json")
    with pytest.raises(ValueError, match="not a file"):
        ModelShape.from_hf_config(tmp_path)
