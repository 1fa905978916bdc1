"""The time model against published runs: accuracy tables, the range to plan with, the
recalibration floor, twin runs, benchmark throughput, the fitter, and the trust paragraph.

Values are hand-computed or taken from the published rows in data/published_runs.csv.
"""

import io
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbook import (
    load_catalog,
)
from workbook.calibrate import validate
from workbook.cli import validate as cli_validate
from workbook import calibrate as A
from workbook.guides.speed import pilot_time_factor

ROOT = Path(__file__).resolve().parents[2]



# --- 07 accuracy ----------------------------------------------------------------------------------


def test_accuracy_table_one_row_per_usable_full_run(cat):
    runs = cat.tables["published_runs"]
    usable = runs[(runs["row_type"] == "full_run") & (runs["split"] != "excluded")]
    t = A.accuracy_table(cat)
    assert len(t) == len(usable) == len(validate.full_runs(cat))
    assert list(t["run_id"]) == list(usable["run_id"])
    np.testing.assert_allclose(
        t["predicted_gpu_hours"], validate.predict_hours(validate.full_runs(cat), cat)
    )
    np.testing.assert_allclose(t["error"], t["predicted_gpu_hours"] / t["published_gpu_hours"] - 1)
    assert set(t["split"]) == {"calibration", "holdout"}


def test_accuracy_summary_matches_validate_report(cat):
    s = A.accuracy_summary(A.accuracy_table(cat)).set_index(["model", "runs"])
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
    """The 30 runs entered on 2026-11-30 after the constants were frozen are held out and marked."""
    t = A.accuracy_table(cat)
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
        ]
    )
    assert (prosp["split"] == "holdout").all()
    s = A.accuracy_summary(t).set_index(["model", "runs"])
    figures = cli_validate.report(cat, out=io.StringIO(), cv=False)
    assert s.loc[("engine", "prospective holdout"), "n"] == figures["runs_prospective"] == 30
    assert s.loc[("engine", "prospective holdout"), "mdape"] == pytest.approx(
        figures["prospective_mdape"]
    )
    # Hand check: the median of the 30 absolute errors is the mean of the 15th and 16th smallest.
    assert figures["prospective_mdape"] == pytest.approx(
        np.mean(sorted(abs(prosp["error"]))[14:16])
    )
    # The 26 dense ones (the MoE shape fix was found on the DeepSeek rows): mean of the 13th and 14th smallest.
    dense = sorted(abs(prosp.loc[prosp["group"] != "MoE (any)", "error"]))
    assert figures["runs_prospective_dense"] == len(dense) == 26
    assert figures["prospective_dense_mdape"] == pytest.approx(np.mean(dense[12:14]))


def test_accuracy_bias_is_the_median_signed_error_per_group(cat):
    t = A.accuracy_table(cat)
    b = A.accuracy_bias(t).set_index("group")
    h100 = t[(t["accelerator"] == "h100-sxm") & (t["group"] != "MoE (any)")]["error"]
    assert b.loc["h100-sxm", "runs"] == len(h100) == 16
    assert b.loc["h100-sxm", "median_error"] == pytest.approx(np.median(h100))
    assert set(t.loc[t["group"] == "MoE (any)", "run_id"]) == {
        "llama4-scout",
        "phi35-moe",
        "deepseek-v3",
        "deepseek-v2-per-1t",
        "jetmoe-8b",
    }
    assert b["runs"].sum() == len(t)
    # Hand-made case: two groups, the median of each.
    small = validate.bias_by_group(["a", "b", "a", "a"], [0.1, -0.2, 0.3, -0.5])
    assert small.loc["a", "median_error"] == pytest.approx(0.1) and small.loc["b", "runs"] == 1


def test_time_model_trust_quotes_the_holdout_error_and_the_accelerator_bias(cat):
    t = A.accuracy_table(cat)
    hold = t[t["split"] == "holdout"]
    m = validate.metrics(hold["published_gpu_hours"], hold["predicted_gpu_hours"])
    h100 = A.time_model_trust("h100-sxm", cat)
    assert f"on the {m['n']} held-out runs" in h100 and f"a median {m['mdape']:.0%}" in h100
    med = float(np.median(t[t["group"] == "h100-sxm"]["error"]))
    assert med < -0.1  # the dense H100 runs took longer than predicted (README, Accuracy)
    assert (
        f"On the 16 published dense runs on h100-sxm the runs took longer than predicted by a median {-med:.0%}"
        in h100
    )
    assert h100.endswith("optimistic.")
    assert "No published dense run on gb200-nvl72" in A.time_model_trust("gb200-nvl72", cat)
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
    assert A.time_model_trust("h100-sxm", slow) != h100


def test_time_range_hand_computed():
    """published / predicted = 1..11: 10th / 50th / 90th percentiles (linear interpolation) 2, 6, 10.
    Leave-one-out: 1, 2, 10 and 11 fall outside the range of the other ten (e.g. without 2 the 10th
    percentile of 1,3,...,11 is 1 + 0.9 x 2 = 2.8 > 2), 3..9 inside: coverage 7/11."""
    r = validate.time_range(np.arange(1.0, 12.0) * 1000.0, np.full(11, 1000.0))
    assert (r["low"], r["median"], r["high"], r["n"]) == (
        pytest.approx(2.0),
        pytest.approx(6.0),
        pytest.approx(10.0),
        11,
    )
    assert r["loo_coverage"] == pytest.approx(7 / 11)
    assert np.isnan(
        validate.time_range([1.0, 2.0], [1.0, 1.0])["loo_coverage"]
    )  # too few runs to leave one out
    for bad in (([1.0, -2.0], [1.0, 1.0]), ([1.0, np.nan], [1.0, 1.0]), ([], [])):
        with pytest.raises(
            ValueError,
            match=r"published/predicted .* allowed: at least one pair of positive GPU-hours",
        ):
            validate.time_range(*bad)


def test_forward_range_check_hand_computed():
    """published / predicted = 1, 2, 3 (first split) | 1.5, 5 (batch 1) | 2.5 (batch 2). Batch 1 against
    the range of 1, 2, 3 (1.2x-2.8x): 1.5 inside, 5 outside. Batch 2 against 1, 1.5, 2, 3, 5 (10th
    percentile 1 + 0.4 x 0.5 = 1.2, 90th 3 + 0.6 x 2 = 4.2): 2.5 inside. 2 of 3 in all."""
    fw = validate.forward_range_check(
        [0, 0, 0, 1, 1, 2], [True] * 6, [1.0, 2.0, 3.0, 1.5, 5.0, 2.5], [1.0] * 6
    )
    assert list(fw["batch"]) == list(validate.ENTRY_BATCHES[:2])
    assert (
        list(fw["runs_before"]) == [3, 5]
        and list(fw["runs"]) == [2, 1]
        and list(fw["inside"]) == [1, 1]
    )
    np.testing.assert_allclose(fw[["low", "high"]].to_numpy(), [[1.2, 2.8], [1.2, 4.2]])
    # Calibration rows (holdout False) never set the range: batch 1 then has nothing before it.
    assert validate.forward_range_check([0, 1], [False, True], [1.0, 1.0], [1.0, 1.0]).empty


def test_entry_batches_are_read_from_split_reason(cat):
    rows = validate.full_runs(cat)
    b = validate.entry_batch(rows)
    assert (b >= 1).sum() == validate.is_prospective(rows).sum() == 30
    assert np.bincount(b).tolist() == [
        25,
        8,
        9,
        7,
        6,
    ]  # first split; third session; fourth; fifth; fifth, second search
    assert rows.loc[b == 4, "run_id"].tolist()[:2] == ["lucie-7b", "sea-lion-3b"]
    bad = rows.head(1).assign(
        split_reason="usable; added 2026-12-01 (sixth session) after the constants were frozen"
    )
    with pytest.raises(
        ValueError, match=r"entry batch 'sixth session' is unknown; allowed: third session"
    ):
        validate.entry_batch(bad)
    with pytest.raises(ValueError, match=r"names no batch"):
        validate.entry_batch(bad.assign(split_reason="usable; after the constants were frozen"))
    figures = cli_validate.report(cat, out=io.StringIO(), cv=False)
    t = A.accuracy_table(cat)
    fw = validate.forward_range_check(
        t["entry_batch"],
        t["split"] == "holdout",
        t["published_gpu_hours"],
        t["predicted_gpu_hours"],
    )
    assert (figures["range_forward_runs"], figures["range_forward_inside"]) == (
        30,
        fw["inside"].sum(),
    )
    assert f"for {fw['inside'].sum()} of 30 (" in A.time_model_trust("h100-sxm", cat)


def test_benchmark_throughput_is_the_steady_state_prediction(cat):
    b = A.benchmark_table(cat).set_index("run")
    runs = cat.tables["published_runs"]
    assert (
        len(b)
        == (
            (runs["row_type"] == "throughput_benchmark") & runs["tokens_per_s_per_gpu"].notna()
        ).sum()
        == 25
    )
    row = runs.set_index("run_id").loc["mpt-7b-bench-h100"]
    pilot = pilot_time_factor(
        row["tokens_per_s_per_gpu"],
        row["params_total"],
        {"accelerator": "h100-sxm", "n_gpus": 8},
        seq_len=2048,
        catalog=cat,
    )
    assert b.loc["mpt-7b-bench-h100", "predicted_tok_s_gpu"] == pytest.approx(
        pilot["predicted_tokens_per_s_per_gpu"]
    )
    np.testing.assert_allclose(
        b["error"], b["predicted_tok_s_gpu"] / b["published_tok_s_gpu"] - 1.0
    )
    assert (
        b.loc["nemo-llama3-8b-h100", "source"] == "NeMo (NVIDIA)"
        and b.loc["mtnlg-530b-2240gpu", "source"] == "papers"
    )
    assert b.loc["mpt-70b-bench-h100", "source"] == "llm-foundry (MosaicML)"
    # MoE rows are predicted on their active parameters: DeepSeek-V3 (37B active of 671B) is within 25 %.
    assert abs(b.loc["nemo-deepseek-v3-gb200", "error"]) < 0.25
    figures = cli_validate.report(cat, out=io.StringIO(), cv=False)
    m = validate.metrics(b["published_tok_s_gpu"], b["predicted_tok_s_gpu"])
    assert (figures["benchmark_runs"], figures["benchmark_mdape"]) == (
        25,
        pytest.approx(m["mdape"]),
    )


def test_recalibration_floor_hand_computed():
    """published / predicted: group a 1, 1.5, 3; group b 2, 2.2. Within +-25 % a window spans 1.25 / 0.75 =
    1.67x: 1 and 1.5 fit (a), 2 and 2.2 fit (b), 4 of 5. MdAPE: 3 of 5 runs must fit within +-x; one per
    group is free, a third needs b's pair, (1 + x) / (1 - x) = 1.1, x = 1/21. Worst: a's multiplier at
    sqrt(3) leaves 1 and 3 off by sqrt(3) either way."""
    f = validate.recalibration_floor(
        ["a", "a", "a", "b", "b"], [1.0, 1.5, 3.0, 2.0, 2.2], [1.0] * 5
    )
    assert (f["n"], f["groups"], f["within_25pct"]) == (5, 2, 0.8)
    assert f["mdape"] == pytest.approx(1 / 21, abs=1e-9)
    assert f["max_ratio_off"] == pytest.approx(math.sqrt(3.0))
    # One group: the same runs need one multiplier; 1.5, 2, 2.2 fit in 1.67x (3 of 5), worst sqrt(3 / 1).
    g = validate.recalibration_floor(["a"] * 5, [1.0, 1.5, 3.0, 2.0, 2.2], [1.0] * 5)
    assert g["within_25pct"] == 0.6 and g["max_ratio_off"] == pytest.approx(math.sqrt(3.0))
    # 3 of 5 within +-x needs 1.5..2.2 (ratio 2.2 / 1.5 = (1 + x) / (1 - x): x = 0.7 / 3.7).
    assert g["mdape"] == pytest.approx(0.7 / 3.7, abs=1e-9)
    with pytest.raises(
        ValueError,
        match=r"published/predicted has 2 values for 1 groups.*allowed: one group per run",
    ):
        validate.recalibration_floor(["a"], [1.0, 2.0], [1.0, 1.0])
    with pytest.raises(ValueError, match=r"some not finite and positive"):
        validate.recalibration_floor(["a", "a"], [1.0, 0.0], [1.0, 1.0])


def test_floor_of_the_published_runs(cat):
    """On the shipped runs the floor is what validate prints, and per-accelerator recalibration alone
    cannot reach the +-25 % and 2x targets (issue 3): the engine's own figures are worse than the floor."""
    t = A.accuracy_table(cat)
    f = validate.recalibration_floor(t["group"], t["published_gpu_hours"], t["predicted_gpu_hours"])
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
    floor = A.accuracy_floor(t).set_index("metric")
    assert floor.loc["within_25pct", "best_recalibration"] == pytest.approx(f["within_25pct"])
    assert f["within_25pct"] < 0.75 and not floor.loc["within_25pct", "reachable_by_recalibration"]
    assert f["max_ratio_off"] > 2.0 and not floor.loc["max_ratio_off", "reachable_by_recalibration"]
    assert floor.loc["mdape", "target"] == "at most 0.15" and floor.loc[
        "mdape", "engine"
    ] == pytest.approx(figures["mdape"])
    with pytest.raises(ValueError, match=r"table.*group"):
        A.accuracy_floor(t.drop(columns="group"))


def test_twin_pairs_from_published_numbers(cat):
    """Pleias-3B (192 H100, 2,048-token sequences, 1,086,324,736,000 tokens in 92,160 GPU-h) and SmolLM3-3B
    (384 H100, 4,096, 11.2T tokens in 221,184 GPU-h): both 3B dense BF16. Implied MFU ratio by hand =
    (11.2e12 / 221,184) / (1.086324736e12 / 92,160) = 4.296 > 4: no predictor that expects Pleias at least
    as fast can put both within 2x (one is off by >= sqrt(4.296) = 2.07x)."""
    twins = A.twin_pair_table(cat)
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
    # Every pair obeys its definition, and the engine expects each slower run to be at least as fast per token.
    rows = validate.full_runs(cat).set_index("run_id")
    pred = pd.Series(validate.predict_hours(rows.reset_index(), cat), index=rows.index)
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
        assert per_nd[p["slower"]] <= per_nd[p["faster"]]
    figures = cli_validate.report(cat, out=io.StringIO(), cv=False)
    assert figures["twin_pairs_beyond_2x"] == (twins["ratio"] > 4).sum() == 1
    assert figures["twin_pairs_beyond_25pct"] == (twins["ratio"] > 1.25 / 0.75).sum() == 2


def test_time_model_trust_names_the_twin_runs_and_the_time_factor(cat):
    """60 planned days at a time factor of 1.5 are 40 predicted: the range applies to the 40."""
    t = A.accuracy_table(cat)
    hold = t[t["split"] == "holdout"]
    r = validate.time_range(hold["published_gpu_hours"], hold["predicted_gpu_hours"])
    text = A.time_model_trust("h100-sxm", cat, wall_days=60.0, time_factor=1.5)
    assert (
        f"For the predicted 40 days, plan for {40 * r['low']:.0f} to {40 * r['high']:.0f} days."
        in text
    )
    assert (
        "You set a time factor of 1.5x, so the recommendation plans for 60 days where the engine predicts 40 days."
        in text
    )
    assert (
        "reached 4.3x less of the NVIDIA H100 SXM5 80GB's peak than SmolLM3 3B, a model of its size (192 GPUs and "
        "2,048-token sequences against 384 and 4,096, where every physical model expects the first to be at least "
        "as fast)"
    ) in text
    assert "time factor" in A.time_model_trust(
        "h100-sxm", cat, wall_days=40.0
    )  # the advice, without a factor set
    assert "You set a time factor" not in A.time_model_trust("h100-sxm", cat, wall_days=40.0)
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match=r"time_factor"):
            A.time_model_trust("h100-sxm", cat, wall_days=40.0, time_factor=bad)


def test_time_model_trust_gives_the_range_to_plan_for(cat):
    t = A.accuracy_table(cat)
    hold = t[t["split"] == "holdout"]
    r = validate.time_range(hold["published_gpu_hours"], hold["predicted_gpu_hours"])
    figures = cli_validate.report(cat, out=io.StringIO(), cv=False)
    assert (figures["range_low"], figures["range_high"]) == (
        pytest.approx(r["low"]),
        pytest.approx(r["high"]),
    )
    # Holdout runs took longer than predicted more often than not (median ratio > 1), and the range is wide.
    assert 0.5 < r["low"] < 1.0 < r["median"] < r["high"] < 2.5
    text = A.time_model_trust("a100-80gb-sxm", cat, wall_days=40.0)
    assert f"between {r['low']:.2f}x and {r['high']:.2f}x the predicted time" in text
    assert (
        f"For the predicted 40 days, plan for {40 * r['low']:,.0f} to {40 * r['high']:,.0f} days."
        in text
    )
    assert f"held for {r['loo_coverage']:.0%} of the held-out runs" in text
    assert "For the predicted" not in A.time_model_trust("a100-80gb-sxm", cat)
    with pytest.raises(ValueError, match=r"wall_days"):
        A.time_model_trust("a100-80gb-sxm", cat, wall_days=-3)


def test_time_model_trust_without_holdout_runs_says_the_error_is_unknown(cat, monkeypatch):
    t = A.accuracy_table(cat)
    from workbook.calibrate import trust

    monkeypatch.setattr(trust, "accuracy_table", lambda catalog=None: t.assign(split="calibration"))
    text = A.time_model_trust("a100-80gb-sxm", cat)
    assert (
        "out-of-sample error is unknown" in text
        and "On the 15 published dense runs on a100-80gb-sxm" in text
    )


# --- out of sample (validate.Fitter) ------------------------------------------------------------------


@pytest.fixture(scope="module")
def fitter(cat):
    return validate.Fitter(validate.full_runs(cat), cat)


def test_fit_on_the_calibration_rows_gives_the_shipped_constants(cat, fitter):
    """data/assumptions.csv holds what `validate --fit --write` found; refitting must find it again."""
    values, pred = fitter.fit((fitter.rows["split"] == "calibration").to_numpy())
    for name in validate.FIT_PARAMS:
        assert values[name] == pytest.approx(cat.param("assumptions", name)), name
    np.testing.assert_allclose(pred, validate.predict_hours(fitter.rows, cat), rtol=1e-9)


def test_leave_one_out_predicts_each_run_with_constants_fitted_without_it(cat, fitter):
    loo = fitter.leave_one_out()
    for i in (
        fitter.rows.index[fitter.rows["run_id"] == rid][0]
        for rid in ("tinyllama-1.1b", "llama4-scout")
    ):
        keep = np.arange(len(fitter.rows)) != i
        values, _ = fitter.fit(keep)
        values.pop("loss")
        direct = validate.predict_hours(fitter.rows.iloc[[i]], cat, values)[0]
        assert loo[i] == pytest.approx(direct, rel=1e-9)
    # Held out, a run is predicted no better than when it helped fit the constants (on the median).
    all_fit = fitter.fit(np.ones(len(fitter.rows), bool))[1]
    pub = fitter.published
    assert validate.metrics(pub, loo)["mdape"] >= validate.metrics(pub, all_fit)["mdape"]


def test_random_splits_hold_out_the_asked_number_and_are_reproducible(fitter):
    a = fitter.random_splits(n_holdout=9, repeats=20, seed=3)
    b = fitter.random_splits(n_holdout=9, repeats=20, seed=3)
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 20 and (a["holdout_mdape"] > 0).all() and (a["calibration_mdape"] > 0).all()


def test_accuracy_summary_has_leave_one_out_rows_when_asked(cat):
    t = A.accuracy_table(cat, out_of_sample=True)
    s = A.accuracy_summary(t).set_index(["model", "runs"])
    loo = s.loc[("engine", "leave-one-out")]
    assert loo["n"] == len(t)
    assert loo["mdape"] == pytest.approx(np.median(np.abs(t["loo_error"])))
    assert ("constant-MFU baseline", "leave-one-out") in s.index
    assert "leave-one-out" not in set(A.accuracy_summary(A.accuracy_table(cat))["runs"])
