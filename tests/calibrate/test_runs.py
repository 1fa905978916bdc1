"""The published runs (:mod:`workbook.calibrate.runs`): the entry batches read from
``split_reason``. Values are taken from the published rows in data/published_runs.csv."""

import io

import numpy as np
import pytest

from workbook import calibrate
from workbook.cli import validate as cli_validate


def test_entry_batches_are_read_from_split_reason(cat):
    rows = calibrate.full_runs(cat)
    b = calibrate.entry_batch(rows)
    assert (b >= 1).sum() == calibrate.is_prospective(rows).sum() == 35
    assert np.bincount(b).tolist() == [
        25,
        8,
        9,
        7,
        6,
        2,
        3,
    ]  # first split; third session; fourth; fifth; fifth, second search; sixth; seventh
    assert rows.loc[b == 4, "run_id"].tolist()[:2] == ["lucie-7b", "sea-lion-3b"]
    bad = rows.head(1).assign(
        split_reason="usable; added 2026-12-08 (eighth session) after the constants were frozen"
    )
    with pytest.raises(
        ValueError, match=r"entry batch 'eighth session' is unknown; allowed: third session"
    ):
        calibrate.entry_batch(bad)
    with pytest.raises(ValueError, match=r"names no batch"):
        calibrate.entry_batch(bad.assign(split_reason="usable; after the constants were frozen"))
    figures = cli_validate.report(cat, out=io.StringIO(), cv=False)
    t = calibrate.accuracy_table(cat)
    fw = calibrate.forward_range_check(
        t["entry_batch"],
        t["split"] == "holdout",
        t["published_gpu_hours"],
        t["predicted_gpu_hours"],
    )
    assert (figures["range_forward_runs"], figures["range_forward_inside"]) == (
        35,
        fw["inside"].sum(),
    )
    # The trust paragraph quotes the forward check of the band it plans with, over the same 35.
    cov = calibrate.band_coverage(cat)
    assert cov["forward_runs"] == 35
    assert f"for {cov['forward_inside']} of 35 (" in calibrate.time_model_trust("h100-sxm", cat)
