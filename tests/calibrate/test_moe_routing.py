"""The MoE routing width (moe_routing_width; the rule declared in CHANGELOG.md 2026-12-07)."""

import numpy as np
import pandas as pd
import pytest

from workbook import estimate_training, load_catalog
from workbook.calibrate import moe_routing
from workbook.calibrate.moe_routing import ROUTING_GRID, _least, routing_fit, with_routing
from workbook.model import ModelShape
from workbook.model.shape import MOE_REFERENCE_EXPERT_WIDTH, moe_routing_factor

#: Qwen3-30B-A3B (its Hugging Face config.json): 48 layers, d 2048, 32 heads of 128, 4 KV heads,
#: 128 experts of 768, top 8, vocabulary 151,936.
QWEN3_30B = ModelShape(48, 2048, 32, 4, 768, 151936, 128, 8, head_dim=128)


def test_the_routing_factor_by_hand():
    """(1 + c / 2048) / (1 + c / f): at c = 256, a 768-wide expert 1.125 / (4 / 3) = 0.84375, a
    2,880-wide one 1.125 / 1.0888... = 1.03316..., the 2,048 reference 1; a dense row (one
    expert) and a row without a shape (NaN) 1 whatever c; at c = 0 every width 1."""
    assert MOE_REFERENCE_EXPERT_WIDTH == 2048.0
    f = np.array([768.0, 2880.0, 2048.0, 14336.0, np.nan])
    experts = np.array([128.0, 32.0, 256.0, 1.0, np.nan])
    got = moe_routing_factor(f, experts, 256.0)
    want = [0.84375, 1.125 / (1 + 256 / 2880), 1.0, 1.0, 1.0]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(moe_routing_factor(f, experts, 0.0), 1.0, rtol=0)


def test_the_engine_divides_an_exact_moe_shapes_time_by_the_routing_factor_only():
    """Qwen3-30B-A3B's exact shape at the stored width 256 against width 0: the MoE factor x
    0.84375 and the steady step time / 0.84375 (the whole plan is one layout: 64 GPUs); the same
    MoE known only by its sizes, and a dense exact shape (Llama 3 8B), do not move."""
    cat = load_catalog()
    assert cat.param("assumptions", "moe_routing_width") == 256.0
    free = with_routing(cat, 0.0)

    def both(**kw):
        return [
            estimate_training(n_tokens=1e11, accelerator="h100-sxm", n_gpus=64, catalog=c, **kw)
            for c in (cat, free)
        ]

    at, none = both(n_params=None, shape=QWEN3_30B)
    assert at.breakdown["moe_factor"] / none.breakdown["moe_factor"] == pytest.approx(0.84375)
    assert at.gpu_hours / none.gpu_hours == pytest.approx(1 / 0.84375, rel=1e-6)
    sized = dict(n_params=QWEN3_30B.n_params, n_active_params=QWEN3_30B.n_active_params)
    at, none = both(**sized)
    assert at.gpu_hours == none.gpu_hours
    dense = ModelShape(32, 4096, 32, 8, 14336, 128256)
    at, none = both(n_params=None, shape=dense)
    assert at.gpu_hours == none.gpu_hours and at.breakdown["moe_factor"] == 1.0


def test_the_rule_takes_the_least_median_error_and_a_tie_the_narrower_width():
    """A hand-made error table: medians 0.30, 0.20, 0.25 -> 128; two equal medians -> the
    smaller width of the two."""
    errors = pd.DataFrame({0.0: [0.3, 0.3, 0.3], 128.0: [0.1, 0.2, 0.4], 256.0: [0.25] * 3})
    assert _least(errors) == 128.0
    tie = pd.DataFrame({0.0: [0.5, 0.5], 64.0: [0.2, 0.2], 128.0: [0.1, 0.3]})
    assert _least(tie) == 64.0


def test_nested_predicts_each_row_at_the_width_chosen_without_it(monkeypatch):
    """Three rows a, b, c at widths 0 and 64 (errors 0.3, 0.3, 0.1 and 0.1, 0.2, 0.9): medians
    0.3 and 0.2, so 64. Without a (or b) the medians are 0.2 and 0.5 (0.55): 0, so a and b are
    nested at 0 (0.3 each); without c, 0.3 and 0.15: 64, c at 0.9. Nested MdAPE 0.3, none within
    25 %, worse than the 0.2 (2 of 3 within) of every row at 64: what a form chosen on its own
    rows hides, by hand."""
    table = pd.DataFrame({0.0: [0.3, 0.3, 0.1], 64.0: [0.1, 0.2, 0.9]}, index=["a", "b", "c"])
    monkeypatch.setattr(moe_routing, "_moe_errors", lambda cat: table)
    fit = routing_fit(load_catalog())
    assert fit["width"] == 64.0
    assert fit["none"] == {
        "mdape": pytest.approx(0.3),
        "within_25pct": pytest.approx(1 / 3),
        "n": 3,
    }
    assert fit["at_width"] == {"mdape": 0.2, "within_25pct": pytest.approx(2 / 3), "n": 3}
    assert fit["nested"] == {"mdape": 0.3, "within_25pct": 0.0, "n": 3}


def test_the_stored_width_is_the_rules_choice_and_helps_the_moe_rows_out_of_sample():
    """moe_routing_width in data/assumptions.csv = routing_fit's choice on the catalog (a point of
    the declared grid); at it the MoE rows' leave-one-out MdAPE is lower than without it (0), and
    the nested check (each row at the width chosen without it) still beats 0: the figures
    validate prints (2026-12-07: 20.8 %, 15.2 %, nested 16.2 %)."""
    cat = load_catalog()
    fit = routing_fit(cat)
    assert fit["width"] == cat.param("assumptions", "moe_routing_width") == 256.0
    assert fit["width"] in ROUTING_GRID and ROUTING_GRID[0] == 0.0
    assert fit["none"]["n"] == fit["at_width"]["n"] == fit["nested"]["n"] == 50
    assert fit["at_width"]["mdape"] < fit["nested"]["mdape"] < fit["none"]["mdape"]
    assert fit["none"]["mdape"] == pytest.approx(0.208, abs=5e-4)
    assert fit["at_width"]["mdape"] == pytest.approx(0.152, abs=5e-4)
    assert fit["nested"]["mdape"] == pytest.approx(0.162, abs=5e-4)


def test_the_fitted_widths_span_the_moe_benchmarks_experts():
    """The MoE benchmark rows' experts (data/model_shapes.csv): Qwen3-30B-A3B 768,
    Qwen3-235B-A22B 1,536, gpt-oss 2,880; DeepSeek-V3 and Kimi K2 have no modelled shape and are
    taken at 2,048: the range is 768 to 2,880."""
    from workbook.calibrate.moe_routing import routing_width_range

    assert routing_width_range(load_catalog()) == (768.0, 2880.0)
