"""Training FLOPs: golden values from the papers and hand calculation."""

import numpy as np
import pandas as pd
import pytest

from workbook.model.flops import (
    CHINCHILLA_TOKENS_PER_PARAM,
    attention_flops_per_token,
    chinchilla_tokens,
    flops_per_token,
    model_shape,
    training_flops,
)


def test_6nd_without_attention_is_kaplan():
    """Kaplan et al. 2020 (arXiv 2001.08361) C = 6 N D: 70B x 5T = 2.1e24 FLOP (the article's
    run)."""
    assert training_flops(70e9, 5e12, attention="none") == pytest.approx(2.1e24, rel=1e-12)


def test_palm_attention_term_full():
    """PaLM (arXiv 2204.02311) App. B: 6N + 12 L H Q T per token. GPT-3 shape L=96, d=12288, T=2048:
    12 * 96 * 2048 * 12288 = 2.899e10 FLOP per token on top of 6 * 175e9 = 1.05e12."""
    per_tok = flops_per_token(175e9, n_layers=96, d_model=12288, seq_len=2048, attention="full")
    assert per_tok == pytest.approx(1.05e12 + 12 * 96 * 2048 * 12288, rel=1e-12)


def test_causal_is_half_the_full_attention_term():
    full = attention_flops_per_token(32, 4096, 4096, "full")
    causal = attention_flops_per_token(32, 4096, 4096, "causal")
    assert causal == pytest.approx(full / 2)
    # peer_tools.md finding 2: for a LLaMA-2-7B shape at 4k the convention moves total FLOPs by ~8%.
    six_n = 6 * 6.74e9
    assert (six_n + full) / (six_n + causal) - 1 == pytest.approx(0.08, abs=0.01)


def test_moe_uses_active_parameters():
    """DeepSeek-V3-like: 671B total, 37B active -> 6 x 37e9 per token (no attention term)."""
    assert flops_per_token(671e9, n_active_params=37e9, attention="none") == pytest.approx(6 * 37e9)


def test_lora_is_two_thirds_of_full():
    full = flops_per_token(17e9, attention="none")
    lora = flops_per_token(17e9, attention="none", method="lora")
    assert lora / full == pytest.approx(4 / 6)


def test_model_shape_recovers_gpt3():
    """12 L d^2 with d = 128 L: 175B -> L ~ 96, d ~ 12288 (GPT-3 Table 2.1: 96 layers, 12288)."""
    L, d = model_shape(175e9)
    assert L == pytest.approx(96, rel=0.03)
    assert d == pytest.approx(12288, rel=0.03)


def test_moe_shape_is_its_active_path():
    """DeepSeek-V3, 37B active of 671B: 61 layers x d_model 7168 (deepseek-ai/DeepSeek-V3
    config_671B.json).

    The shape derived from the active count is within 5 % of the published L x d = 437,248; the
    total count would give 6.6x too much (the memory term and attention FLOPs both scale with L x
    d)."""
    L, d = model_shape(37e9)
    assert L * d == pytest.approx(61 * 7168, rel=0.05)
    Lt, dt = model_shape(671e9)
    assert Lt * dt / (61 * 7168) > 6
    # Hand value: 6 x 37e9 + 6 x s x L x d with L = cbrt(37e9 / (12 x 128^2)) = 57.30,
    # d = sqrt(37e9 / (12 L)) = 7,336.
    assert flops_per_token(671e9, n_active_params=37e9, seq_len=4096) == pytest.approx(
        6 * 37e9 + 6 * 4096 * 57.30 * 7336, rel=1e-3
    )
    # A dense model of the active size has the same attention term.
    assert flops_per_token(671e9, n_active_params=37e9) == pytest.approx(flops_per_token(37e9))


def test_chinchilla_20_tokens_per_param():
    assert chinchilla_tokens(70e9) == pytest.approx(1.4e12)


def test_scalar_array_series_give_same_numbers():
    xs = [7e9, 70e9, 405e9]
    arr = flops_per_token(np.array(xs))
    ser = flops_per_token(pd.Series(xs))
    for i, x in enumerate(xs):
        assert flops_per_token(x) == pytest.approx(arr[i])
        assert np.asarray(ser)[i] == pytest.approx(arr[i])


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "70B", None, True])
def test_bad_n_params_names_argument_value_and_rule(bad):
    with pytest.raises(ValueError, match=r"n_params.*allowed"):
        training_flops(bad, 1e12)


def test_unknown_attention_convention_lists_valid_ones():
    with pytest.raises(
        ValueError,
        match="attention='sparse'.*causal, full, none|attention='sparse'.*full, causal, none",
    ):
        flops_per_token(7e9, attention="sparse")


def test_active_above_total_is_rejected():
    with pytest.raises(ValueError, match="n_active_params"):
        flops_per_token(7e9, n_active_params=8e9)


def test_method_and_attention_arrays_give_the_scalar_numbers():
    """One call over rows of different methods and conventions (what estimate_frame does) equals
    the scalar calls row by row."""
    methods = np.array(["full", "lora", "qlora", "full"], dtype=object)
    attention = np.array(["causal", "full", "none", "full"], dtype=object)
    n = np.array([7e9, 13e9, 70e9, 1e9])
    got = flops_per_token(n, seq_len=2048, attention=attention, method=methods)
    want = [
        flops_per_token(x, seq_len=2048, attention=a, method=m)
        for x, a, m in zip(n, attention, methods)
    ]
    assert got == pytest.approx(np.array(want, float), rel=1e-15)


def test_unknown_method_in_an_array_is_named():
    with pytest.raises(
        ValueError, match=r"method='dpo' is not allowed; allowed: full, lora, qlora"
    ):
        flops_per_token(np.array([7e9, 7e9]), method=np.array(["full", "dpo"], dtype=object))


def test_chinchilla_constant_is_the_papers_20():
    assert CHINCHILLA_TOKENS_PER_PARAM == 20.0
    assert chinchilla_tokens(1e9) == pytest.approx(CHINCHILLA_TOKENS_PER_PARAM * 1e9)
