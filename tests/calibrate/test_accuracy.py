"""The accuracy tables (:mod:`workbook.calibrate.accuracy`): published vs predicted GPU-hours,
the summary, the prospective holdout, the bias per accelerator and the recalibration floor.

Values are hand-computed or taken from the published rows in data/published_runs.csv.
"""

import io

import numpy as np
import pytest

from workbook import calibrate
from workbook.cli import validate as cli_validate


def test_accuracy_table_one_row_per_usable_full_run(cat):
    runs = cat.tables["published_runs"]
    usable = runs[(runs["row_type"] == "full_run") & (runs["split"] != "excluded")]
    t = calibrate.accuracy_table(cat)
    assert len(t) == len(usable) == len(calibrate.full_runs(cat))
    assert list(t["run_id"]) == list(usable["run_id"])
    np.testing.assert_allclose(
        t["predicted_gpu_hours"], calibrate.predict_hours(calibrate.full_runs(cat), cat)
    )
    np.testing.assert_allclose(t["error"], t["predicted_gpu_hours"] / t["published_gpu_hours"] - 1)
    assert set(t["split"]) == {"calibration", "holdout"}


def test_accuracy_summary_matches_validate_report(cat):
    s = calibrate.accuracy_summary(calibrate.accuracy_table(cat)).set_index(["model", "runs"])
    figures = cli_validate.report(cat, out=io.StringIO(), cv=False)
    assert s.loc[("engine", "all"), "mdape"] == pytest.approx(figures["mdape"])
    assert s.loc[("engine", "holdout"), "within_25pct"] == pytest.approx(
        figures["holdout_within_25pct"]
    )
    assert s.loc[("constant-MFU baseline", "all"), "mdape"] == pytest.approx(
        figures["baseline_mdape"]
    )
    assert s.loc[("engine", "all"), "n"] == figures["runs_used"]


def test_prospective_holdout_is_the_runs_entered_after_the_freeze(cat):
    """The 35 runs entered after the constants were frozen (2026-11-30 and 2026-12-07) are held out
    and marked."""
    t = calibrate.accuracy_table(cat)
    prosp = t[t["prospective"]]
    assert sorted(prosp["run_id"]) == sorted(
        [
            "llama2-13b",
            "llama31-70b",
            "falcon-180b",
            "phi3-small-7b",
            "phi3-medium-14b",
            "phi35-moe",
            "smollm3-3b",
            "granite3-8b",
            "deepseek-v3",
            "deepseek-v2-per-1t",
            "phi2-2.7b",
            "phi4-mini-3.8b",
            "falcon-7b",
            "falcon2-11b",
            "nemotron4-15b",
            "stablelm-3b-4e1t",
            "stablelm2-1.6b",
            "jetmoe-8b",
            "biomedlm-2.7b",
            "mobilellm-125m",
            "mobilellm-350m",
            "mobilellm-600m",
            "mobilellm-1b",
            "mobilellm-1.5b",
            "lucie-7b",
            "sea-lion-3b",
            "sea-lion-7b",
            "smollm-135m",
            "cosmo-1b",
            "pleias-3b",
            "starcoderbase-15.5b",
            "llama4-maverick",
            "smollm2-1.7b",
            "smollm2-360m",
            "smollm2-135m",
        ]
    )
    assert (prosp["split"] == "holdout").all()
    s = calibrate.accuracy_summary(t).set_index(["model", "runs"])
    figures = cli_validate.report(cat, out=io.StringIO(), cv=False)
    assert s.loc[("engine", "prospective holdout"), "n"] == figures["runs_prospective"] == 35
    assert s.loc[("engine", "prospective holdout"), "mdape"] == pytest.approx(
        figures["prospective_mdape"]
    )
    # Hand check: the median of the 35 absolute errors is the 18th smallest.
    assert figures["prospective_mdape"] == pytest.approx(sorted(abs(prosp["error"]))[17])
    # The 30 dense ones (the MoE shape fix was found on the DeepSeek rows): the mean of the 15th
    # and 16th smallest.
    dense = sorted(abs(prosp.loc[prosp["group"] != "MoE (any)", "error"]))
    assert figures["runs_prospective_dense"] == len(dense) == 30
    assert figures["prospective_dense_mdape"] == pytest.approx(np.mean(dense[14:16]))


def test_accuracy_bias_is_the_median_signed_error_per_group(cat):
    t = calibrate.accuracy_table(cat)
    b = calibrate.accuracy_bias(t).set_index("group")
    h100 = t[(t["accelerator"] == "h100-sxm") & (t["group"] != "MoE (any)")]["error"]
    assert b.loc["h100-sxm", "runs"] == len(h100) == 19
    assert b.loc["h100-sxm", "median_error"] == pytest.approx(np.median(h100))
    assert set(t.loc[t["group"] == "MoE (any)", "run_id"]) == {
        "llama4-scout",
        "phi35-moe",
        "deepseek-v3",
        "deepseek-v2-per-1t",
        "jetmoe-8b",
        "llama4-maverick",
    }
    assert b["runs"].sum() == len(t)


def test_floor_of_the_published_runs(cat):
    """On the shipped runs the floor is what validate prints, and per-accelerator recalibration
    alone
    cannot reach the +-25 % and 2x targets (issue 3): the engine's own figures are worse than the
    floor."""
    t = calibrate.accuracy_table(cat)
    f = calibrate.recalibration_floor(
        t["group"], t["published_gpu_hours"], t["predicted_gpu_hours"]
    )
    figures = cli_validate.report(cat, out=io.StringIO(), cv=False)
    assert (
        figures["floor_mdape"],
        figures["floor_within_25pct"],
        figures["floor_max_ratio_off"],
    ) == (
        pytest.approx(f["mdape"]),
        pytest.approx(f["within_25pct"]),
        pytest.approx(f["max_ratio_off"]),
    )
    assert f["mdape"] <= figures["mdape"] and f["within_25pct"] >= figures["within_25pct"]
    assert f["max_ratio_off"] <= figures["max_ratio_off"]
    floor = calibrate.accuracy_floor(t).set_index("metric")
    assert floor.loc["within_25pct", "best_recalibration"] == pytest.approx(f["within_25pct"])
    assert f["within_25pct"] < 0.75 and not floor.loc["within_25pct", "reachable_by_recalibration"]
    assert f["max_ratio_off"] > 2.0 and not floor.loc["max_ratio_off", "reachable_by_recalibration"]
    assert floor.loc["mdape", "target"] == "at most 0.15" and floor.loc[
        "mdape", "engine"
    ] == pytest.approx(figures["mdape"])
    with pytest.raises(ValueError, match=r"table.*group"):
        calibrate.accuracy_floor(t.drop(columns="group"))


def test_accuracy_summary_has_leave_one_out_rows_when_asked(cat):
    t = calibrate.accuracy_table(cat, out_of_sample=True)
    s = calibrate.accuracy_summary(t).set_index(["model", "runs"])
    loo = s.loc[("engine", "leave-one-out")]
    assert loo["n"] == len(t)
    assert loo["mdape"] == pytest.approx(np.median(np.abs(t["loo_error"])))
    assert ("constant-MFU baseline", "leave-one-out") in s.index
    assert "leave-one-out" not in set(
        calibrate.accuracy_summary(calibrate.accuracy_table(cat))["runs"]
    )
