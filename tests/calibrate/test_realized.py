"""The realized level by software class and scale, and the conditioned band against the declared
rule (:mod:`workbook.calibrate.realized`)."""

import numpy as np
import pandas as pd
import pytest

from workbook.calibrate import band_coverage, conformal_quantiles, realized
from workbook.calibrate.realized import (
    MIN_GROUP_RUNS,
    chosen_conditioning,
    conditioned_coverage,
    realized_by_class,
    run_groups,
)


def _guarantee(n: int) -> float:
    """The split-conformal coverage guarantee of n values: (hi - lo) / (n + 1) order statistics."""
    lo, hi = conformal_quantiles(np.arange(1.0, n + 1))
    return (hi - lo) / (n + 1)


def test_min_group_runs_is_the_smallest_n_with_the_nominal_80_percent():
    """n = 9 takes the 1st and 9th of 9: 8 of the 10 gaps, 80 %; n = 8 only 7 of 9 (78 %)."""
    assert _guarantee(MIN_GROUP_RUNS) == pytest.approx(0.8)
    assert _guarantee(MIN_GROUP_RUNS - 1) == pytest.approx(7 / 9)


def test_a_group_gets_its_own_band_only_with_enough_conditioning_runs():
    """Nine runs of group a at 1..9 and three of b at 20, 30, 40: a's band is a's 1st..9th
    (1, 9); b's three are too few, so b gets the pooled band of all twelve (the 1st and 12th
    order statistics: floor(13 x 0.1) = 1, ceil(13 x 0.9) = 12 -> 1, 40)."""
    r = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 30, 40], float)
    groups = np.array(["a"] * 9 + ["b"] * 3, object)
    pool = np.ones(12, bool)
    assert realized._band_of(r, groups, pool, "a") == (1.0, 9.0, True)
    assert realized._band_of(r, groups, pool, "b") == (1.0, 40.0, False)
    assert realized._band_of(r, groups, pool, None) == (1.0, 40.0, False)


def test_unconditioned_coverage_is_the_pooled_band_coverage(cat):
    """by=None reproduces workbook.calibrate.band_coverage, leave-one-out and forward."""
    pooled, mine = band_coverage(cat), conditioned_coverage(cat, None)
    for key in ("n", "loo_coverage", "loo_width_median", "forward_runs", "forward_inside"):
        assert mine[key] == pytest.approx(pooled[key])
    assert mine["loo_conditioned"] == mine["forward_conditioned"] == 0


def test_software_class_groups_and_leaves_unknown_pooled(cat):
    """The held-out in-house runs are the 12 whose sources name Meta's, TII's (Gigatron) or
    DeepSeek's (HAI-LLM) own stack: LLaMA-13B, Llama 2 13B / 34B, Llama 3.1 8B / 70B, Llama 4
    Maverick, Falcon 7B / 40B / 180B, Falcon2-11B, DeepSeek-V2 and V3; an unknown run has no
    group."""
    hold, _ = realized.holdout_ratios(cat)
    groups = run_groups(hold, "software_class")
    in_house = set(hold.loc[groups == "in-house", "run_id"])
    assert in_house == {
        "llama-13b",
        "llama2-13b",
        "llama2-34b",
        "llama31-8b",
        "llama31-70b",
        "llama4-maverick",
        "falcon-7b",
        "falcon-40b",
        "falcon-180b",
        "falcon2-11b",
        "deepseek-v2-per-1t",
        "deepseek-v3",
    }
    assert groups[hold["run_id"].to_numpy() == "phi4-14b"][0] is None
    table = realized_by_class(cat)
    assert table.loc["software class", "runs"].sum() == len(hold)
    assert table.loc[("software class", "in-house"), "runs"] == 12
    assert table.loc["scale", "runs"].sum() == len(hold)
    with pytest.raises(ValueError, match="allowed: software_class, scale"):
        run_groups(hold, "era")


def _candidates(**rows) -> pd.DataFrame:
    cols = ["loo_coverage", "loo_width_median", "forward_coverage"]
    return pd.DataFrame.from_dict(rows, orient="index", columns=cols)


def test_the_declared_rule_chooses_by_leave_one_out_and_gates_forward():
    """Of the candidates within 75-85 % leave-one-out and narrower than pooled, the narrowest;
    adopted only if it also holds 75-85 % forward, with no second try."""
    pooled = (0.85, 3.5, 0.77)
    assert (
        chosen_conditioning(_candidates(pooled=pooled, a=(0.8, 3.0, 0.8), b=(0.8, 2.0, 0.8))) == "b"
    )
    # The narrowest fails forward: pooled stays even though a would pass.
    assert (
        chosen_conditioning(_candidates(pooled=pooled, a=(0.8, 3.0, 0.8), b=(0.8, 2.0, 0.7)))
        is None
    )
    # Too-low leave-one-out coverage, or no narrower than pooled: not a candidate.
    assert (
        chosen_conditioning(_candidates(pooled=pooled, a=(0.7, 2.0, 0.8), b=(0.8, 3.5, 0.8)))
        is None
    )
