"""Error metrics (:mod:`workbook.calibrate.metrics`): the empirical range, its forward
check, the recalibration floor, the bias per group and the twin runs.

Values are hand-computed or taken from the published rows in data/published_runs.csv.
"""

import io
import math

import numpy as np
import pandas as pd
import pytest

from workbook import calibrate
from workbook.cli import validate as cli_validate


def test_bias_by_group_hand_made():
    """Two groups, the median of each."""
    small = calibrate.bias_by_group(["a", "b", "a", "a"], [0.1, -0.2, 0.3, -0.5])
    assert small.loc["a", "median_error"] == pytest.approx(0.1) and small.loc["b", "runs"] == 1


def test_time_range_hand_computed():
    """published / predicted = 1..11: 10th / 50th / 90th percentiles (linear interpolation) 2, 6,
    10.
    Leave-one-out: 1, 2, 10 and 11 fall outside the range of the other ten (e.g. without 2 the 10th
    percentile of 1,3,...,11 is 1 + 0.9 x 2 = 2.8 > 2), 3..9 inside: coverage 7/11."""
    r = calibrate.time_range(np.arange(1.0, 12.0) * 1000.0, np.full(11, 1000.0))
    assert (r["low"], r["median"], r["high"], r["n"]) == (
        pytest.approx(2.0),
        pytest.approx(6.0),
        pytest.approx(10.0),
        11,
    )
    assert r["loo_coverage"] == pytest.approx(7 / 11)
    assert np.isnan(
        calibrate.time_range([1.0, 2.0], [1.0, 1.0])["loo_coverage"]
    )  # too few runs to leave one out
    for bad in (([1.0, -2.0], [1.0, 1.0]), ([1.0, np.nan], [1.0, 1.0]), ([], [])):
        with pytest.raises(
            ValueError,
            match=r"published/predicted .* allowed: at least one pair of positive GPU-hours",
        ):
            calibrate.time_range(*bad)


def test_forward_range_check_hand_computed():
    """published / predicted = 1, 2, 3 (first split) | 1.5, 5 (batch 1) | 2.5 (batch 2). Batch 1
    against
    the range of 1, 2, 3 (1.2x-2.8x): 1.5 inside, 5 outside. Batch 2 against 1, 1.5, 2, 3, 5 (10th
    percentile 1 + 0.4 x 0.5 = 1.2, 90th 3 + 0.6 x 2 = 4.2): 2.5 inside. 2 of 3 in all."""
    fw = calibrate.forward_range_check(
        [0, 0, 0, 1, 1, 2], [True] * 6, [1.0, 2.0, 3.0, 1.5, 5.0, 2.5], [1.0] * 6
    )
    assert list(fw["batch"]) == list(calibrate.ENTRY_BATCHES[:2])
    assert (
        list(fw["runs_before"]) == [3, 5]
        and list(fw["runs"]) == [2, 1]
        and list(fw["inside"]) == [1, 1]
    )
    np.testing.assert_allclose(fw[["low", "high"]].to_numpy(), [[1.2, 2.8], [1.2, 4.2]])
    # Calibration rows (holdout False) never set the range: batch 1 then has nothing before it.
    assert calibrate.forward_range_check([0, 1], [False, True], [1.0, 1.0], [1.0, 1.0]).empty


def test_recalibration_floor_hand_computed():
    """published / predicted: group a 1, 1.5, 3; group b 2, 2.2. Within +-25 % a window spans 1.25
    / 0.75 =
    1.67x: 1 and 1.5 fit (a), 2 and 2.2 fit (b), 4 of 5. MdAPE: 3 of 5 runs must fit within +-x;
    one per
    group is free, a third needs b's pair, (1 + x) / (1 - x) = 1.1, x = 1/21. Worst: a's multiplier
    at
    sqrt(3) leaves 1 and 3 off by sqrt(3) either way."""
    f = calibrate.recalibration_floor(
        ["a", "a", "a", "b", "b"], [1.0, 1.5, 3.0, 2.0, 2.2], [1.0] * 5
    )
    assert (f["n"], f["groups"], f["within_25pct"]) == (5, 2, 0.8)
    assert f["mdape"] == pytest.approx(1 / 21, abs=1e-9)
    assert f["max_ratio_off"] == pytest.approx(math.sqrt(3.0))
    # One group: the same runs need one multiplier; 1.5, 2, 2.2 fit in 1.67x (3 of 5), worst sqrt(3
    # / 1).
    g = calibrate.recalibration_floor(["a"] * 5, [1.0, 1.5, 3.0, 2.0, 2.2], [1.0] * 5)
    assert g["within_25pct"] == 0.6 and g["max_ratio_off"] == pytest.approx(math.sqrt(3.0))
    # 3 of 5 within +-x needs 1.5..2.2 (ratio 2.2 / 1.5 = (1 + x) / (1 - x): x = 0.7 / 3.7).
    assert g["mdape"] == pytest.approx(0.7 / 3.7, abs=1e-9)
    with pytest.raises(
        ValueError,
        match=r"published/predicted has 2 values for 1 groups.*allowed: one group per run",
    ):
        calibrate.recalibration_floor(["a"], [1.0, 2.0], [1.0, 1.0])
    with pytest.raises(ValueError, match=r"some not finite and positive"):
        calibrate.recalibration_floor(["a", "a"], [1.0, 0.0], [1.0, 1.0])


def test_twin_pairs_from_published_numbers(cat):
    """Pleias-3B (192 H100, 2,048-token sequences, 1,086,324,736,000 tokens in 92,160 GPU-h) and
    SmolLM3-3B
    (384 H100, 4,096, 11.2T tokens in 221,184 GPU-h): both 3B dense BF16. Implied MFU ratio by hand
    =
    (11.2e12 / 221,184) / (1.086324736e12 / 92,160) = 4.296 > 4: no predictor that expects Pleias
    at least
    as fast can put both within 2x (one is off by >= sqrt(4.296) = 2.07x)."""
    twins = calibrate.twin_pair_table(cat)
    top = twins.iloc[0]
    assert (top["slower"], top["faster"], top["accelerator"]) == (
        "pleias-3b",
        "smollm3-3b",
        "h100-sxm",
    )
    assert top["ratio"] == pytest.approx((11.2e12 / 221184) / (1.086324736e12 / 92160), rel=1e-9)
    assert top["ratio"] == pytest.approx(4.296, abs=1e-3) and top["min_worst_off"] == pytest.approx(
        2.0726, abs=1e-4
    )
    assert (
        top["slower_gpus"],
        top["faster_gpus"],
        top["slower_seq_len"],
        top["faster_seq_len"],
    ) == (192, 384, 2048, 4096)
    # Every pair obeys its definition, and the engine expects each slower run to be at least as
    # fast per token.
    rows = calibrate.full_runs(cat).set_index("run_id")
    pred = pd.Series(calibrate.predict_hours(rows.reset_index(), cat), index=rows.index)
    per_nd = pred / (rows["params_total"] * rows["tokens"])
    for _, p in twins.iterrows():
        a, b = rows.loc[p["slower"]], rows.loc[p["faster"]]
        assert a["accelerator_id"] == b["accelerator_id"] and a["precision"] == b["precision"]
        assert max(a["params_total"], b["params_total"]) <= 1.10 * min(
            a["params_total"], b["params_total"]
        )
        assert (
            a["gpu_count"] <= b["gpu_count"] and a["seq_len"] <= b["seq_len"] and p["ratio"] > 1.0
        )
        # (equal up to rounding for twins on the same GPU count and sequence length: SmolLM 135M
        # v1 and v2, 64 H100 at 2,048 tokens)
        assert per_nd[p["slower"]] <= per_nd[p["faster"]] * (1 + 1e-12)
    figures = cli_validate.report(cat, out=io.StringIO(), cv=False)
    assert figures["twin_pairs_beyond_2x"] == (twins["ratio"] > 4).sum() == 1
    assert figures["twin_pairs_beyond_25pct"] == (twins["ratio"] > 1.25 / 0.75).sum() == 2
