"""The estimation engine (workbook.model.estimate): hand-calculated values, vectorised == scalar,
bad input, invariants."""

import numpy as np
import pandas as pd
import pytest
from frame_capture import read_fixture
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbook import estimate_frame, estimate_training, load_catalog
from workbook.model import ModelShape

ACCS = [
    "a100-80gb-sxm",
    "h100-sxm",
    "h200-sxm",
    "b200-hgx",
    "mi300x",
    "rtx-pro-6000-server",
    "gb200-nvl72",
]


def test_flops_total_is_6nd_plus_causal_attention():
    """70B, 2T tokens, L=80, d=8192, s=4096: (6 x 70e9 + 6 x 80 x 4096 x 8192) x 2e12."""
    r = estimate_training(70e9, 2e12, "a100-80gb-sxm", 2048, n_layers=80, d_model=8192)
    assert r.flops_total == pytest.approx((6 * 70e9 + 6 * 80 * 4096 * 8192) * 2e12, rel=1e-12)


def test_gpu_hours_wall_days_and_mfu_are_consistent():
    r = estimate_training(7e9, 1e12, "h100-sxm", 256)
    assert r.gpu_hours == pytest.approx(r.wall_days * 24 * 256)
    assert r.mfu == pytest.approx(r.flops_total / (256 * r.wall_days * 86400 * 989e12))


def test_llama2_70b_within_25pct_of_published():
    """Llama 2 model card: 70B, 2T tokens, 1,720,320 A100-80GB GPU-hours (calibration row)."""
    r = estimate_training(68.977e9, 2e12, "a100-80gb-sxm", 2048)
    assert r.gpu_hours == pytest.approx(1_720_320, rel=0.25)


def test_falcon_40b_holdout_within_25pct():
    """Falcon-40B (held out from calibration): 384 A100-40GB for ~2 months = 552,960 GPU-hours."""
    r = estimate_training(40e9, 1e12, "a100-40gb-sxm", 384, seq_len=2048)
    assert r.gpu_hours == pytest.approx(552_960, rel=0.25)


def test_deepseek_v3_prospective_run_within_25pct_and_shaped_by_its_active_path():
    """DeepSeek-V3 (arXiv 2412.19437, Table 1): 671B total / 37B active, 14.8T tokens, FP8, 2,048
    H800, 2,664K GPU-hours of pre-training; entered after the dense constants were frozen. With the
    shape taken from the total count the engine predicted 6.57M GPU-hours (2.47x); the active path's
    shape fixes it."""
    r = estimate_training(
        671e9,
        14.8e12,
        "h800-sxm",
        2048,
        n_active_params=37e9,
        precision="fp8",
        software_stack="engine",  # the fitted step-time model, before the typical level
    )
    assert r.gpu_hours == pytest.approx(2_664_000, rel=0.25)
    assert r.breakdown["n_layers"] * r.breakdown["d_model"] == pytest.approx(
        61 * 7168, rel=0.05
    )  # config_671B.json


def test_fp8_is_faster_but_not_2x():
    bf16 = estimate_training(70e9, 1e12, "h100-sxm", 512, precision="bf16")
    fp8 = estimate_training(70e9, 1e12, "h100-sxm", 512, precision="fp8")
    speedup = bf16.wall_days / fp8.wall_days
    assert 1.1 < speedup < 1.8


def test_fp8_on_a100_is_a_clear_error():
    with pytest.raises(
        ValueError, match=r"precision='fp8' is not supported by a100-80gb-sxm; allowed: bf16"
    ):
        estimate_training(7e9, 1e11, "a100-80gb-sxm", 8, precision="fp8")


def test_memory_fit_70b_on_one_a100_is_false_and_names_the_need():
    r = estimate_training(70e9, 1e11, "a100-80gb-sxm", 1)
    assert not r.fits_in_memory
    assert r.memory_per_gpu_gb > 16 * 70  # 16 B/param unsharded is 1,120 GB


def test_qlora_fits_where_full_training_does_not():
    full = estimate_training(70e9, 1e9, "h200-sxm", 4)
    q = estimate_training(70e9, 1e9, "h200-sxm", 4, method="qlora")
    assert not full.fits_in_memory and q.fits_in_memory


def test_article_throttle_factor_applies_to_liquid_parts_in_air():
    liquid = estimate_training(70e9, 1e12, "gb200-nvl72", 72)
    air = estimate_training(70e9, 1e12, "gb200-nvl72", 72, cooling="air")
    assert air.breakdown["thermal_factor"] == pytest.approx(0.65)
    assert air.wall_days == pytest.approx(liquid.wall_days / 0.65, rel=1e-6)


def test_python_input_pipeline_costs_the_articles_22_percent():
    a = estimate_training(7e9, 1e11, "h100-sxm", 8)
    b = estimate_training(7e9, 1e11, "h100-sxm", 8, input_pipeline="python")
    assert b.wall_days / a.wall_days == pytest.approx(1.22, rel=0.01)


def test_frame_equals_scalar_calls():
    cfg = pd.DataFrame(
        {
            "n_params": [7e9, 70e9, 13e9],
            "n_tokens": [1e12, 2e12, 5e11],
            "accelerator": ["h100-sxm", "a100-80gb-sxm", "mi300x"],
            "n_gpus": [64, 2048, 16],
        }
    )
    df = estimate_frame(cfg)
    for i, row in cfg.iterrows():
        r = estimate_training(row.n_params, row.n_tokens, row.accelerator, int(row.n_gpus))
        assert df.loc[i, "gpu_hours"] == pytest.approx(r.gpu_hours)
        assert df.loc[i, "memory_per_gpu_gb"] == pytest.approx(r.memory_per_gpu_gb)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n_params=-7e9), r"n_params=-7000000000\.0 .*allowed"),
        (dict(n_params=0), r"n_params=0 must be greater than 0"),
        (dict(n_tokens=float("nan")), r"n_tokens=nan is not a finite number"),
        (dict(n_tokens=float("inf")), r"n_tokens=inf is not a finite number"),
        (dict(n_gpus=7.5), r"n_gpus=7\.5 is not a whole number"),
        (dict(n_gpus="8"), r"n_gpus='8' is not a number"),
        (dict(accelerator="h300"), r"accelerator 'h300' is unknown; valid ids: .*h100-sxm"),
        (dict(accelerator=None), r"accelerator=None is not an accelerator id"),
        (dict(precision="fp16"), r"precision='fp16' is not allowed; allowed: bf16, fp8, fp4"),
        (dict(method="dpo"), r"method='dpo' is not allowed; allowed: full, lora, qlora"),
        (
            dict(fabric="carrier-pigeon"),
            r"fabric 'carrier-pigeon' is unknown; valid ids: ib-ndr-400",
        ),
        (dict(cooling="water"), r"cooling='water' is not allowed; allowed: air, liquid"),
    ],
)
def test_bad_input_names_argument_value_and_what_is_allowed(kwargs, match):
    args = dict(n_params=7e9, n_tokens=1e11, accelerator="h100-sxm", n_gpus=8)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        estimate_training(**args)


# --- invariants (hypothesis) ---------------------------------------------------------------------

params = st.floats(1e8, 5e11)


tokens = st.floats(1e9, 2e13)


gpus = st.sampled_from([8, 16, 64, 256, 1024])


accs = st.sampled_from(ACCS)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(params, tokens, accs, gpus, st.floats(1.01, 10))
def test_more_tokens_never_take_less_time(n, d, acc, g, k):
    a = estimate_training(n, d, acc, g)
    b = estimate_training(n, d * k, acc, g)
    assert b.wall_days >= a.wall_days


@settings(max_examples=40, deadline=None)
@given(params, accs, gpus)
def test_more_memory_per_gpu_never_needs_more_gpus(n, acc, g):
    """Raising a part's memory (an override) never turns a fit into a misfit."""
    cat = load_catalog()
    bigger = cat.with_overrides(
        [
            {
                "table": "accelerators",
                "key": acc,
                "column": "memory_gb",
                "value": str(float(cat.accelerator(acc)["memory_gb"]) * 1.5),
            }
        ]
    )
    a = estimate_training(n, 1e11, acc, g, catalog=cat)
    b = estimate_training(n, 1e11, acc, g, catalog=bigger)
    assert b.fits_in_memory or not a.fits_in_memory


LLAMA3_8B = dict(
    n_layers=32, d_model=4096, n_heads=32, n_kv_heads=8, ffn_hidden=14336, vocab_size=128256
)


def test_exact_shape_flops_are_6_matmul_params_plus_attention():
    """Llama 3 8B, s = 4096, causal: active matmul parameters 32 x (41,943,040 + 176,160,768) +
    128256 x 4096 (LM head) = 7,504,658,432; 6 x that = 45,027,950,592, plus 6 x 32 x 4096 x 4096
    = 3,221,225,472: 48,249,176,064 FLOP per token (the size-only path gives 6 x 8.03e9 + ... =
    5.19e10). n_params is the shape's 8,030,261,248."""
    shape = ModelShape(**LLAMA3_8B)
    r = estimate_training(None, 15e12, "h100-sxm", 1024, shape=shape)
    assert r.breakdown["flops_per_token"] == pytest.approx(48_249_176_064, rel=1e-12)
    assert r.flops_total == pytest.approx(48_249_176_064 * 15e12, rel=1e-12)
    assert r.breakdown["n_params"] == 8_030_261_248
    assert (r.breakdown["n_layers"], r.breakdown["d_model"]) == (32, 4096)
    lora = estimate_training(None, 1e9, "h100-sxm", 8, shape=shape, method="lora")
    # LoRA: 4 x 7,504,658,432 + 3,221,225,472 = 33,239,859,200
    assert lora.breakdown["flops_per_token"] == pytest.approx(33_239_859_200, rel=1e-12)


def test_exact_moe_shape_counts_the_routed_experts_only():
    """Mixtral 8x7B: 32 x (41,943,040 + 2 x 176,160,768 + 4096 x 8 router) + 32000 x 4096 =
    12,748,587,008 matmul parameters; 6 x = 76,491,522,048 + 3,221,225,472 = 79,712,747,520 FLOP
    per token. n_active_params 12,879,925,248 of 46,702,792,704: the MoE derate applies."""
    shape = ModelShape(**LLAMA3_8B | {"vocab_size": 32000}, n_experts=8, experts_per_token=2)
    r = estimate_training(46.7e9, 1e12, "h100-sxm", 256, shape=shape)
    assert r.breakdown["flops_per_token"] == pytest.approx(79_712_747_520, rel=1e-12)
    assert r.breakdown["n_active_params"] == 12_879_925_248
    assert r.breakdown["moe_factor"] < 1


def test_qwen3_moe_attention_is_as_wide_as_its_heads_not_d_model():
    """Qwen3-30B-A3B (48 layers, d 2048, 32 heads of 128, 4 KV heads, 128 experts of 768, top 8,
    V 151936), s = 4096, causal: matmul parameters 48 x (18,874,368 + 8 x 4,718,592 + 262,144)
    + 151936 x 2048 = 3,041,656,832; 6 x that = 18,249,940,992, plus attention at the heads' width
    6 x 48 x 4096 x (32 x 128) = 4,831,838,208 (not d = 2048's 2,415,919,104): 23,081,779,200 FLOP
    per token. The same shape as frame columns gives the same count."""
    shape = ModelShape(48, 2048, 32, 4, 768, 151936, 128, 8, head_dim=128)
    r = estimate_training(None, 1e11, "h100-sxm", 64, shape=shape)
    assert r.breakdown["flops_per_token"] == pytest.approx(23_081_779_200, rel=1e-12)
    row = dict(
        n_params=shape.n_params,
        n_active_params=shape.n_active_params,
        n_tokens=1e11,
        accelerator="h100-sxm",
        n_gpus=64,
        **shape.columns(),
    )
    frame = estimate_frame(pd.DataFrame([row]))
    assert frame["flops_per_token"].iloc[0] == pytest.approx(23_081_779_200, rel=1e-12)
    with pytest.raises(ValueError, match="head_dim=0|head_dim"):
        estimate_frame(pd.DataFrame([row | {"head_dim": 0}]))
    uneven = row | {"d_model": 2050, "head_dim": np.nan}
    with pytest.raises(ValueError, match="not a multiple of n_heads"):
        estimate_frame(pd.DataFrame([uneven]))


def test_qwen3_moe_flops_match_two_published_tables():
    """Model FLOPs per token as NVIDIA's tables report them (model TFLOP/s per GPU / tokens/s per
    GPU) for Qwen3-30B-A3B at s = 4,096: Megatron-Bridge 25.11, DGX-H100: 121e12 / 5,275 =
    22.94e9; NeMo AutoModel, DGX-H100: 277e12 / 12,040 = 23.01e9. The shape's 23.08e9 is within
    1 % of both; read without its head size (heads of 2048 / 32 = 64) it is 18.0e9, 22 % short."""
    shape = ModelShape(48, 2048, 32, 4, 768, 151936, 128, 8, head_dim=128)
    fpt = estimate_training(None, 1e11, "h100-sxm", 8, shape=shape).breakdown["flops_per_token"]
    for published in (121e12 / 5275, 277e12 / 12040):
        assert fpt == pytest.approx(published, rel=0.01)
    narrow = ModelShape(48, 2048, 32, 4, 768, 151936, 128, 8)
    fpt_narrow = estimate_training(None, 1e11, "h100-sxm", 8, shape=narrow).breakdown[
        "flops_per_token"
    ]
    assert fpt_narrow / (277e12 / 12040) < 0.8


def test_exact_shape_activations_use_the_kv_heads_and_ffn():
    """The same 8B job: the shape (coefficient 36 > 34) needs more activation memory than the
    derived one would at the same L and d; memory = states + activations of the chosen layout."""
    kw = dict(n_layers=32, d_model=4096, global_batch_tokens=4096 * 8)
    exact = estimate_training(None, 1e9, "h100-sxm", 8, shape=ModelShape(**LLAMA3_8B))
    plain = estimate_training(8_030_261_248, 1e9, "h100-sxm", 8, **kw)
    e, p = exact.breakdown, plain.breakdown
    assert (e["tp"], e["pp"], e["zero_stage"]) == (p["tp"], p["pp"], p["zero_stage"])
    assert e["recompute"] == p["recompute"] == "selective"
    # activations: 4096 x 4096 x c x 32 / tp [B]; the difference is (36 - 34) of that
    diff = 4096 * 4096 * 2 * 32 / e["tp"] / 1e9
    assert exact.memory_per_gpu_gb - plain.memory_per_gpu_gb == pytest.approx(diff, rel=1e-9)


def test_shape_refuses_a_disagreeing_size_and_partial_frames():
    shape = ModelShape(**LLAMA3_8B)
    with pytest.raises(ValueError, match="n_params=7e9|n_params=7000000000"):
        estimate_training(7e9, 1e9, "h100-sxm", 8, shape=shape)
    with pytest.raises(ValueError, match="n_layers"):
        estimate_training(None, 1e9, "h100-sxm", 8, shape=shape, n_layers=30)
    with pytest.raises(ValueError, match="not a ModelShape"):
        estimate_training(8e9, 1e9, "h100-sxm", 8, shape={"n_layers": 32})
    row = dict(n_params=8e9, n_tokens=1e9, accelerator="h100-sxm", n_gpus=8, **LLAMA3_8B)
    del row["vocab_size"]
    with pytest.raises(ValueError, match="vocab_size"):
        estimate_frame(pd.DataFrame([row]))
    with pytest.raises(ValueError, match="n_kv_heads does not divide"):
        estimate_frame(pd.DataFrame([row | {"vocab_size": 1000, "n_kv_heads": 5}]))


def test_frame_is_bit_identical_to_the_captured_fixture():
    """Every output column of estimate_frame on 600 seeded, varied configurations (every
    accelerator and fabric, 1-16,384 GPUs, MoE, derived and exact shapes, every precision, method,
    optimizer, stack) equals what the engine returned when tests/frame_capture.py wrote the
    fixture: a speed-up must not move an estimate. Every column but the floats exactly; floats to
    1e-12 relative, not bit for bit: numpy's SIMD cbrt and log differ in the last bit between CPUs
    (a fresh clone on an AMD EPYC without AVX-512 read the derived n_layers of a fixture written
    on another machine 1 ulp apart, 2026-12-02), and a real change moves far more."""
    cfg, expected = read_fixture()
    got = estimate_frame(cfg)
    assert list(got.columns) == list(expected.columns)
    expected = expected.astype({c: got[c].dtype for c in got.columns})
    floats = [c for c in got.columns if pd.api.types.is_float_dtype(got[c])]
    others = [c for c in got.columns if c not in floats]
    pd.testing.assert_frame_equal(got[others], expected[others], check_exact=True)
    pd.testing.assert_frame_equal(
        got[floats], expected[floats], check_exact=False, rtol=1e-12, atol=0.0
    )
    # the fixture exercises what it claims to: layouts beyond tp = pp = 1, both recompute modes,
    # ZeRO 0 / 1 / 3, unsupported precisions and configurations that do not fit
    assert set(got["zero_stage"]) == {0, 1, 3} and set(got["recompute"]) == {"full", "selective"}
    assert got["tp"].max() >= 8 and got["pp"].max() >= 16
    assert 0 < got["supported"].mean() < 1 and 0 < got["fits_in_memory"].mean() < 1


def test_frame_rows_do_not_depend_on_their_neighbours():
    """A configuration's estimate is the same alone, in the whole fixture, and with the rows in
    another order (the layout search sorts rows by GPU count and skips the rows a layout cannot
    exist for)."""
    cfg, _ = read_fixture()
    whole = estimate_frame(cfg)
    order = np.random.default_rng(0).permutation(len(cfg))
    shuffled = estimate_frame(cfg.iloc[order]).set_index(pd.Index(order)).sort_index()
    pd.testing.assert_frame_equal(shuffled, whole, check_exact=True)
    for i in (0, 17, 311):
        alone = estimate_frame(cfg.iloc[[i]]).reset_index(drop=True)
        expected = whole.iloc[[i]].reset_index(drop=True)
        pd.testing.assert_frame_equal(alone, expected, check_exact=True)
