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
    assert p is not None and p.engine["n"] == 30 and p.dense is not None and p.dense["n"] == 26
