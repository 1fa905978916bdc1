"""Everything the validator prints, as one typed result (:mod:`workbook.calibrate.summary`)."""

import io

import numpy as np
import pytest

from workbook import calibrate
from workbook.cli import validate as cli_validate


@pytest.fixture(scope="module")
def summary(cat):
    return calibrate.validation_summary(cat, cv=False)


def test_the_printed_figures_are_the_summary_figures(cat, summary):
    assert cli_validate.report(cat, out=io.StringIO(), cv=False) == summary.figures
    assert summary.out_of_sample is None and "loo_error" not in summary.runs


def test_the_summary_holds_the_metrics_of_its_tables(cat, summary):
    t = calibrate.accuracy_table(cat)
    assert len(summary.runs) == len(t) == summary.engine["n"]
    assert summary.engine == calibrate.metrics(t["published_gpu_hours"], t["predicted_gpu_hours"])
    assert summary.calibration["n"] + summary.holdout["n"] == summary.engine["n"]
    assert summary.time_range == calibrate.holdout_time_range(cat)
    assert list(summary.excluded["split"].unique()) == ["excluded"]
    runs = summary.runs.set_index("run")
    off = np.abs(np.log(runs["predicted_gpu_h"] / runs["published_gpu_h"]))
    assert summary.worst_run == off.idxmax() == "pleias-3b"
    assert summary.worst_error == pytest.approx(runs.loc["pleias-3b", "error"])
    p = summary.prospective
    assert p is not None and p.engine["n"] == 35 and p.dense is not None and p.dense["n"] == 30


def test_held_out_rows_by_scale_and_vendor_are_their_groups_medians():
    """validate's held-out tables by GPU count and vendor (issue 19: the tuned level at scale,
    the median bias per vendor within +-8 %), on a hand-made table: errors -10 %, +20 %, +30 %
    on one node (median +20 %, MdAPE 20 %, 2 of 3 within +-25 %), -50 % beyond 256 GPUs."""
    import pandas as pd

    from workbook.calibrate import levels

    assert list(levels.scale_group([1, 8, 9, 256, 257, 8192])) == [
        "<= 8 GPUs", "<= 8 GPUs", "9-256 GPUs", "9-256 GPUs", "> 256 GPUs", "> 256 GPUs"
    ]  # fmt: skip
    hold = pd.DataFrame(
        {
            "n_gpus": [8, 8, 8, 512],
            "moe": [False] * 4,
            "published_tok_s_gpu": [100.0] * 4,
            "predicted_tok_s_gpu": [90.0, 120.0, 130.0, 50.0],
        }
    )
    t = levels._holdout_by_scale(hold).set_index("gpus")
    assert list(t.index) == ["<= 8 GPUs", "> 256 GPUs"]  # a group with no row is left out
    assert t.loc["<= 8 GPUs", "runs"] == 3
    assert t.loc["<= 8 GPUs", "median_error"] == pytest.approx(0.20)
    assert t.loc["<= 8 GPUs", "mdape"] == pytest.approx(0.20)
    assert t.loc["<= 8 GPUs", "within_25pct"] == pytest.approx(2 / 3)
    assert t.loc["> 256 GPUs", "median_error"] == pytest.approx(-0.50)


def test_the_held_out_vendor_bias_is_in_the_figures(summary):
    """Each vendor's held-out median signed error is a figure, as a ratio - 1."""
    by = summary.levels.tuned_holdout_by_vendor.set_index(["vendor", "kind"])["median_error"]
    assert {"AMD", "NVIDIA"} <= {v for v, _ in by.index}
    for (vendor, kind), err in by.items():
        assert summary.figures[f"tuned_holdout_bias_{vendor.lower()}_{kind.lower()}"] == err
        assert abs(err) < 1


def test_other_stacks_are_the_held_out_rows_of_trainers_that_are_not_a_vendor_recipe():
    """tuned_other_stacks on a hand-made tuned table: torchtitan's two held-out rows +40 % and
    +50 % (median +45 %, MdAPE 45 %) on two parts; its calibration row, and a held-out NeMo row,
    are not counted; with no such row the answer is empty."""
    import pandas as pd

    from workbook.calibrate import levels

    table = pd.DataFrame(
        {
            "source": ["torchtitan (PyTorch)"] * 3 + ["NeMo (NVIDIA)"],
            "split": ["holdout", "holdout", "excluded", "holdout"],
            "accelerator": ["h200-sxm", "h100-sxm", "h100-sxm", "b200-hgx"],
            "published_tok_s_gpu": [100.0] * 4,
            "predicted_tok_s_gpu": [140.0, 150.0, 300.0, 80.0],
        }
    )
    seen = levels.tuned_other_stacks(tuned=table)
    assert list(seen) == ["torchtitan (PyTorch)"]
    t = seen["torchtitan (PyTorch)"]
    assert (t["n"], t["parts"]) == (2, ("h100-sxm", "h200-sxm"))
    assert t["median_error"] == pytest.approx(0.45)
    assert t["mdape"] == pytest.approx(0.45)
    assert levels.tuned_other_stacks(tuned=table[table["source"] == "NeMo (NVIDIA)"]) == {}
