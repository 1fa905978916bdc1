"""The trust paragraph (:mod:`workbook.calibrate.trust`): the held-out error, the band to plan
with, the twin runs, the time factor and the accelerator bias, and its cache per catalog."""

import io

import numpy as np
import pytest

from workbook import calibrate, load_catalog
from workbook.calibrate import trust
from workbook.cli import validate as cli_validate


def test_time_model_trust_quotes_the_holdout_error_and_the_accelerator_bias(cat):
    t = calibrate.accuracy_table(cat)
    hold = t[t["split"] == "holdout"]
    m = calibrate.metrics(hold["published_gpu_hours"], hold["predicted_gpu_hours"])
    h100 = calibrate.time_model_trust("h100-sxm", cat)
    assert f"on the {m['n']} held-out runs" in h100 and f"a median {m['mdape']:.0%}" in h100
    med = float(np.median(t[t["group"] == "h100-sxm"]["error"]))
    assert med < -0.1  # the dense H100 runs took longer than predicted (README, Accuracy)
    assert (
        "On the 19 published dense runs on the NVIDIA H100 SXM5 80GB the runs took longer than "
        "predicted by a "
        f"median {-med:.0%}" in h100
    )
    assert h100.endswith("optimistic.")
    gb200 = calibrate.time_model_trust("gb200-nvl72", cat, wall_days=40.0)
    assert "No published dense run on the NVIDIA GB200 NVL72" in gb200
    # No published run at all on GB200: its band is widened, said once, in its own sentence.
    assert gb200.count("widened 1.5x") == 1 and gb200.endswith("so its band is widened 1.5x.")
    assert h100.count("widened 1.5x") == 1  # the general rule, on a part runs check
    assert "No published dense run on xpu-9 checks" in calibrate.time_model_trust("xpu-9", cat)
    # An override of a fitted constant shows: a lower GEMM efficiency makes every prediction slower.
    slow = load_catalog(
        overrides=[
            {
                "table": "assumptions",
                "key": "gemm_efficiency",
                "column": "value",
                "value": "0.5",
                "source": "test",
            }
        ]
    )
    assert calibrate.time_model_trust("h100-sxm", slow) != h100


def test_time_model_trust_names_the_twin_runs_and_the_time_factor(cat):
    """60 planned days at a time factor of 1.5 are 40 predicted: the band applies to the 40."""
    band = calibrate.realized_band(cat)
    text = calibrate.time_model_trust("h100-sxm", cat, wall_days=60.0, time_factor=1.5)
    lo, hi = 40 * band["p10"] / band["p50"], 40 * band["p90"] / band["p50"]
    assert f"For the predicted 40 days (the median), plan for {lo:.0f} to {hi:.0f} days" in text
    assert (
        "You set a time factor of 1.5x, so the recommendation plans for 60 days where the engine "
        "predicts 40 days." in text
    )
    assert (
        "reached 4.3x less of the NVIDIA H100 SXM5 80GB's peak than SmolLM3 3B, a model of its "
        "size (192 GPUs and 2,048-token sequences against 384 and 4,096, where every physical "
        "model expects the first to be at least as fast)"
    ) in text
    assert "time factor" in calibrate.time_model_trust(
        "h100-sxm", cat, wall_days=40.0
    )  # the advice, without a factor set
    assert "You set a time factor" not in calibrate.time_model_trust(
        "h100-sxm", cat, wall_days=40.0
    )
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match=r"time_factor"):
            calibrate.time_model_trust("h100-sxm", cat, wall_days=40.0, time_factor=bad)


def test_time_model_trust_gives_the_range_to_plan_for(cat):
    t = calibrate.accuracy_table(cat)
    hold = t[t["split"] == "holdout"]
    r = calibrate.time_range(hold["published_gpu_hours"], hold["predicted_gpu_hours"])
    figures = cli_validate.report(cat, out=io.StringIO(), cv=False)
    assert (figures["range_low"], figures["range_high"]) == (
        pytest.approx(r["low"]),
        pytest.approx(r["high"]),
    )
    # Holdout runs took longer than predicted more often than not (median ratio > 1), and the range
    # is wide.
    assert 0.5 < r["low"] < 1.0 < r["median"] < r["high"] < 2.5
    text = calibrate.time_model_trust("a100-80gb-sxm", cat, wall_days=40.0)
    band = calibrate.realized_band(cat)  # the decision's band: split-conformal, around p50
    lo, hi = 40 * band["p10"] / band["p50"], 40 * band["p90"] / band["p50"]
    assert f"For the predicted 40 days (the median), plan for {lo:,.0f} to {hi:,.0f} days" in text
    cov = calibrate.band_coverage(cat)
    assert (
        f"It held for {cov['loo_coverage']:.0%} of the held-out runs left out one at a time and "
        f"for {cov['forward_inside']} of {cov['forward_runs']} ({cov['forward_coverage']:.0%}) "
        "checked forward in time" in text
    )
    # One range only: the empirical range (python -m workbook validate) is not the one planned
    # with, so neither its bounds nor its coverage are quoted beside the band's.
    assert f"between {r['low']:.2f}x and {r['high']:.2f}x" not in text
    assert "That range held" not in text
    # The band held for 77 % forward, within 10 points of its nominal 80 %: not called a floor.
    assert cov["forward_coverage"] >= 0.7 and "floor" not in text
    assert "For the predicted" not in calibrate.time_model_trust("a100-80gb-sxm", cat)
    with pytest.raises(ValueError, match=r"wall_days"):
        calibrate.time_model_trust("a100-80gb-sxm", cat, wall_days=-3)


def test_time_model_trust_without_holdout_runs_says_the_error_is_unknown(cat, monkeypatch):
    t = calibrate.accuracy_table(cat)
    monkeypatch.setattr(trust, "accuracy_table", lambda catalog=None: t.assign(split="calibration"))
    trust.trust_basis.cache_clear()  # an earlier test may have measured the shipped catalog
    try:
        text = calibrate.time_model_trust("a100-80gb-sxm", cat)
    finally:
        trust.trust_basis.cache_clear()  # later tests must not see the table without a holdout
    assert (
        "out-of-sample error is unknown" in text
        and "On the 16 published dense runs on the NVIDIA A100" in text
    )


def test_the_measurement_is_made_once_per_catalog_object(cat):
    """The pick-free part is cached per catalog object: the same catalog reuses it, a catalog with
    other overrides gets its own, and a catalog that is gone leaves no entry behind."""
    assert trust.trust_basis(cat) is trust.trust_basis(cat)
    slow = load_catalog(
        overrides=[
            {
                "table": "assumptions",
                "key": "gemm_efficiency",
                "column": "value",
                "value": "0.5",
                "source": "test",
            }
        ]
    )
    assert trust.trust_basis(slow) is not trust.trust_basis(cat)
    assert trust.trust_basis(slow).holdout_text != trust.trust_basis(cat).holdout_text
    key = id(slow)
    assert key in trust.trust_basis._entries
    del slow
    assert key not in trust.trust_basis._entries


def test_the_cached_paragraph_is_the_one_measured_afresh(cat):
    cached = calibrate.time_model_trust("h100-sxm", cat, wall_days=60.0, time_factor=1.5)
    trust.trust_basis.cache_clear()
    assert calibrate.time_model_trust("h100-sxm", cat, wall_days=60.0, time_factor=1.5) == cached


def test_a_band_that_held_well_under_80_percent_forward_is_called_a_floor(cat, monkeypatch):
    """18 of 30 (60 %) forward is 20 points under the nominal 80 %: the paragraph says the band is
    a floor on the uncertainty; 24 of 30 (80 %) does not."""
    cov = calibrate.band_coverage(cat)
    low = {**cov, "forward_inside": 18, "forward_runs": 30, "forward_coverage": 18 / 30}
    monkeypatch.setattr(trust, "band_coverage", lambda catalog=None: low)
    trust.trust_basis.cache_clear()
    try:
        text = calibrate.time_model_trust("h100-sxm", cat, wall_days=40.0)
    finally:
        trust.trust_basis.cache_clear()
    assert "for 18 of 30 (60%) checked forward in time" in text
    assert "Forward in time it held for well under 80%: treat it as a floor" in text
    assert "floor" not in trust._floor_text({**cov, "forward_coverage": 0.8})


def test_a_run_under_a_day_is_planned_in_hours(cat):
    """0.05 days are 1.2 hours; the band's ends are hours too, with the unit on both, or minutes
    under an hour (1.2 hours x the band's p10 / p50)."""
    band = calibrate.realized_band(cat)
    lo, hi = 1.2 * band["p10"] / band["p50"], 1.2 * band["p90"] / band["p50"]
    low = f"{round(lo * 60)} minutes" if lo < 1 else f"{lo:.1f} hours"
    text = calibrate.time_model_trust("h100-sxm", cat, wall_days=0.05)
    assert f"For the predicted 1.2 hours (the median), plan for {low} to {hi:.1f} hours" in text
    assert "0.0" not in text
