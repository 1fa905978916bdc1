"""The bands' constants are what the published runs say (split-conformal quantiles, measured live),
and the band's coverage is measured as the validator reports it."""

import numpy as np
import pytest

from workbook import load_catalog
from workbook.calibrate import (
    band_constants,
    band_coverage,
    benchmark_throughput,
    conformal_quantiles,
    fit_moe_tuned,
    fit_tuned_traffic,
    full_runs,
    level_summary,
    predict_hours,
    realized_band,
    tuned_base_throughput,
    tuned_loo_ratios,
    tuned_part_maturity,
    tuned_stack_maturity,
    validation_summary,
)
from workbook.calibrate.bands import TUNED_TRAFFIC_GRID, _speedups


def test_conformal_quantiles_take_the_declared_order_statistics():
    """n = 39: the floor(40 x 0.1) = 4th and the ceil(40 x 0.9) = 36th smallest; n = 9: the
    1st and the 9th (the sample's ends)."""
    r = np.arange(1, 40, dtype=float)[::-1]
    assert conformal_quantiles(r) == (4.0, 36.0)
    assert conformal_quantiles(np.arange(1, 10, dtype=float)) == (1.0, 9.0)


def test_stored_band_constants_are_the_live_measurement():
    """data/assumptions.csv holds what workbook.calibrate measures (refit with python -m workbook
    validate --fit --write when data/published_runs.csv or the engine's constants change)."""
    cat = load_catalog()
    for name, value in band_constants(cat).items():
        assert cat.param("assumptions", name) == pytest.approx(value, abs=1e-4), name


def test_the_tuned_band_is_measured_per_kind_and_a_moe_plan_takes_the_moe_band():
    """tuned_time_ratio_p10 / _p90 are the split-conformal quantiles of the dense rows'
    leave-one-out time ratios only, tuned_time_ratio_moe_p10 / _p90 those of the MoE rows (the
    rule declared in CHANGELOG.md, 2026-12-02), by hand. A tuned MoE plan's p90 / median is the
    MoE band's; a dense plan's the dense band's (a part with benchmarks: no widening)."""
    from workbook import estimate_training

    cat = load_catalog()
    loo = tuned_loo_ratios(cat)
    dense = conformal_quantiles(loo.loc[~loo["moe"], "time_ratio"])
    moe = conformal_quantiles(loo.loc[loo["moe"], "time_ratio"])
    stored = {k: cat.param("assumptions", f"tuned_time_ratio_{k}") for k in ("p10", "p90")}
    stored_moe = {k: cat.param("assumptions", f"tuned_time_ratio_moe_{k}") for k in ("p10", "p90")}
    assert (stored["p10"], stored["p90"]) == pytest.approx(dense, abs=1e-4)
    assert (stored_moe["p10"], stored_moe["p90"]) == pytest.approx(moe, abs=1e-4)
    # The MoE recipes spread wider: 50 rows against 89 dense ones (52 + MLPerf v5.0's 10 at scale
    # and its second batch of 13, torchtitan's 2 on H200, NeMo 25.09's 8 dense, AMD Primus v26.1's
    # 4 on MI325X; NeMo 25.09's 9 MoE rows are among the 50).
    assert (loo["moe"].sum(), (~loo["moe"]).sum()) == (50, 89)
    assert stored_moe["p90"] / stored_moe["p10"] > 1.5 * stored["p90"] / stored["p10"]
    args = dict(n_tokens=1e12, accelerator="h100-sxm", n_gpus=256, software_stack="tuned")
    d = estimate_training(n_params=30e9, **args)
    m = estimate_training(n_params=30e9, n_active_params=3e9, **args)
    assert d.wall_days_p90 / d.wall_days == pytest.approx(stored["p90"], rel=1e-9)
    assert m.wall_days_p90 / m.wall_days == pytest.approx(stored_moe["p90"], rel=1e-9)
    assert m.wall_days_p10 / m.wall_days == pytest.approx(stored_moe["p10"], rel=1e-9)


def test_realized_band_is_the_held_out_runs_against_the_engine():
    cat = load_catalog()
    rows = full_runs(cat)
    hold = rows[rows["split"] == "holdout"]
    r = hold["gpu_hours"].to_numpy(float) / predict_hours(hold, cat)
    band = realized_band(cat)
    assert band["n"] == len(hold) and band["p50"] == pytest.approx(np.median(r))
    assert (band["p10"], band["p90"]) == conformal_quantiles(r)


def test_band_coverage_counts_each_run_against_the_others():
    cov = band_coverage()
    assert 0 < cov["loo_coverage"] <= 1 and 0 < cov["forward_coverage"] <= 1
    assert cov["forward_inside"] <= cov["forward_runs"] == 35
    assert cov["width"] == pytest.approx(realized_band()["p90"] / realized_band()["p10"], rel=1e-12)


def test_level_summary_agrees_with_its_parts_and_with_the_prospective_holdout():
    """The tuned leave-one-out MdAPE is that of tuned_loo_ratios by hand; the blind baseline is
    the validator's dense prospective baseline (the same 26 runs, the same constant MFU)."""

    cat = load_catalog()
    lv = level_summary(cat)
    loo = tuned_loo_ratios(cat)
    err = np.abs(loo["loo_tok_s_gpu"] / loo["published_tok_s_gpu"] - 1)
    assert lv.tuned_loo["mdape"] == pytest.approx(float(np.median(err)))
    assert lv.tuned["mdape"] < lv.tuned_loo["mdape"]  # in sample is the easier test
    p = validation_summary(cat, cv=False).prospective
    assert lv.realized_blind_baseline == p.dense_baseline
    assert lv.realized_blind["n"] == p.dense["n"] == 30
    # the held-out rows per table and kind add up to the kinds, and each group's MdAPE is its
    # rows' median absolute error
    by = lv.tuned_holdout_by_source
    for kind, m in lv.tuned_holdout_by_kind.items():
        assert by.loc[by["kind"] == kind, "runs"].sum() == m["n"]
    auto = lv.tuned_holdout[lv.tuned_holdout["source"] == "NeMo AutoModel (NVIDIA)"]
    assert sorted(auto["moe"]) == [False] + [True] * 6  # the declared 7 rows
    moe = by[(by["source"] == "NeMo AutoModel (NVIDIA)") & (by["kind"] == "MoE")].iloc[0]
    assert moe["mdape"] == pytest.approx(float(np.median(np.abs(auto[auto["moe"]]["error"]))))


def test_the_rocm_tuned_factor_puts_amds_recipe_where_cudas_is_on_one_benchmark():
    """software_maturity_tuned_rocm = software_maturity_rocm x (published / engine of the MI300X
    LoRA row) / (published / engine of the B200 LoRA row), by hand from the two rows, the engine
    at the tuned level's HBM traffic."""
    cat = load_catalog()
    bench = tuned_base_throughput(cat).set_index("run")
    amd, nv = bench.loc["mlperf-v50-lora-mi300x-8"], bench.loc["mlperf-v50-lora-b200-8"]
    assert (amd["published_tok_s_gpu"], nv["published_tok_s_gpu"]) == (2077, 5314)
    by_hand = 0.7 * (2077 / amd["predicted_tok_s_gpu"]) / (5314 / nv["predicted_tok_s_gpu"])
    assert tuned_stack_maturity(cat)["rocm"] == pytest.approx(by_hand)
    assert cat.param("assumptions", "software_maturity_rocm") == 0.7
    assert amd["stack_factor"] == pytest.approx(
        cat.param("assumptions", "software_maturity_tuned_rocm") / 0.7
    )
    assert nv["stack_factor"] == 1.0


def test_held_out_benchmark_rows_fit_no_speedup_and_held_out_moe_rows_fit_the_moe_factor():
    """The tuned speedups are the medians over the dense rows not held out: doubling a held-out
    row's published throughput moves no speedup. Every MoE row fits the MoE factor since the rule
    declared in CHANGELOG.md (2026-12-02), held out or not: doubling the held-out rows moves it
    as the by-hand median over all MoE rows says."""
    cat = load_catalog()
    bench = tuned_base_throughput(cat)
    base = _speedups(bench)
    hold = bench["split"] == "holdout"
    # Declared in CHANGELOG.md before their errors were computed: MI325X and GB200 LoRA, then
    # every benchmark row entered in the tenth session (amd2), then the MLPerf v6.0 CDNA 4 LoRA
    # rows (amd3), then the NeMo 25.11 GPT-OSS-120B and Qwen3-30B-A3B MoE rows (2026-12-02),
    # then every row of NeMo AutoModel's H100 table and of NeMo 26.02's (thirteenth session), then
    # MLPerf v5.0's multi-node and other-submitter rows (2026-12-03, sixteenth session).
    automodel = ("deepseek-v3-h100-1024", "deepseek-v3-h100-256", "kimi-k2-h100",
                 "qwen3-30b-h100", "gpt-oss-20b-h100", "gpt-oss-120b-h100",
                 "llama33-70b-lora-h100")  # fmt: skip
    # 26.02's table, all 33 but its 4 NVFP4 rows (calibration of NVIDIA's FP4 speedup since the
    # rule declared in CHANGELOG.md on 2026-12-02, fifteenth session)
    nemo2602 = {r for r in bench["run"] if r.startswith("nemo2602-") and "nvfp4" not in r}
    assert len(nemo2602) == 29
    # NeMo 25.09's tables, every main figure (declared 2026-12-05, twenty-second session)
    nemo2509 = {
        f"nemo2509-{m}-{p}"
        for p, models in (
            ("gb200", ("llama3-8b", "llama3-70b", "llama31-405b")),
            ("b200", ("llama3-8b", "llama31-405b")),
            ("h100", ("llama3-8b", "llama3-70b", "llama31-405b")),
        )
        for m in (*models, "deepseek-v3", "qwen3-30b", "qwen3-235b")
    }
    assert len(nemo2509) == 17
    assert set(bench.loc[hold, "run"]) == {
        *nemo2602,
        *nemo2509,
        *(f"automodel-{r}" for r in automodel),
        *(f"nemo-gpt-oss-120b-{p}" for p in ("gb300", "gb200", "b200", "h100")),
        *(f"nemo-qwen3-30b-{p}" for p in ("gb300", "gb200", "b200", "h100")),
        "mlperf-v60-lora-mi355x-8",
        "mlperf-v60-lora-mi350x-8",
        "mlperf-v50-lora-mi325x-8",
        "mlperf-v50-lora-gb200-8",
        "mlperf-v50-lora-mi300x-8-mangoboost",
        "nemo2412-llama2-7b-h100",
        "nemo2412-llama3-8b-h100",
        "nemo2412-llama3-70b-h100",
        "nemo2412-gpt3-175b-h100-512",
        "nemo2412-llama2-70b-lora-h100",
        *(f"mlperf-v50-405b-h100-{n}" for n in (512, 2048, 2432, 8192)),
        *(f"mlperf-v50-405b-gb200-{n}" for n in (256, 512, 2496)),
        "mlperf-v50-lora-gb200-72",
        "mlperf-v50-lora-gb200-512",
        "mlperf-v50-lora-h200-8-hpe",
        # the second batch (declared 2026-12-03)
        *(f"mlperf-v50-405b-gb200-{n}-carina" for n in (512, 1024, 1536, 2048)),
        "mlperf-v50-405b-h200-512-nebius",
        "mlperf-v50-lora-gb200-144",
        "mlperf-v50-lora-h200-16-hpe",
        "mlperf-v50-lora-h200-32-hpe",
        # torchtitan's H200 table (declared 2026-12-04, twenty-first session)
        "torchtitan-llama31-8b-h200-32",
        "torchtitan-llama31-8b-h200-64",
        "mlperf-v50-lora-h200-8-dell",
        "mlperf-v50-lora-h200-16-dell",
        "mlperf-v50-lora-h200-32-lenovo",
        "mlperf-v50-lora-b200-8-dell",
        "mlperf-v50-lora-mi300x-16-mangoboost",
        # AMD Primus v26.1 on MI325X (declared 2026-12-07)
        "primus2601-llama31-8b-mi325x-8",
        "primus2601-llama31-8b-mi325x-64",
        "primus2601-llama31-70b-mi325x-64-fp8",
        "primus2601-llama31-70b-mi325x-64-bf16",
    }
    doubled = bench.assign(published_tok_s_gpu=np.where(hold, 2, 1) * bench["published_tok_s_gpu"])
    assert _speedups(doubled) == base
    assert _moe_ratio_median(doubled, base) > 1.2 * _moe_ratio_median(bench, base)
    loo = tuned_loo_ratios(cat).set_index("run")
    for run, p in bench.loc[hold, ["run", "precision"]].itertuples(index=False):
        assert loo.loc[run, "loo_speedup"] == pytest.approx(base["bf16" if p == "bf16" else "fp8"])


def _moe_ratio_median(bench, speed) -> float:
    """Median published / tuned-predicted throughput of every MoE row, by hand."""
    rows = bench[bench["moe"]]
    sp = [round(speed["bf16" if p == "bf16" else "fp8"], 4) for p in rows["precision"]]
    pred = rows["predicted_tok_s_gpu"] * rows["stack_factor"] * sp
    return float(np.median(rows["published_tok_s_gpu"] / pred))


def test_the_tuned_moe_factor_is_the_declared_median_over_every_moe_row():
    """moe_efficiency_tuned = moe_efficiency x the median published / tuned-predicted throughput of
    the 50 MoE benchmark rows (NeMo 25.09, 25.11 and 26.02, NeMo AutoModel; the rule declared in
    CHANGELOG.md on 2026-12-02, before it the 8 not held out): stored as the live value. The
    dense speedups do not see the MoE rows: doubling every MoE row's throughput moves no speedup
    but doubles the factor. The tuned prediction of a MoE row is the engine's x its speedup x
    (moe_efficiency_tuned of its part / moe_efficiency)."""
    cat = load_catalog()
    bench = tuned_base_throughput(cat)
    cal = bench[bench["moe"]]
    assert len(cal) == 50 and {
        "nemo-deepseek-v3-gb200",
        *(f"nemo-deepseek-v3-{p}-fp8" for p in ("gb300", "gb200", "b200")),
        "nemo-deepseek-v3-gb300-bf16",
        *(f"nemo-qwen3-235b-{p}" for p in ("gb300", "gb200", "b200")),
        "nemo-qwen3-30b-b200",
        "automodel-kimi-k2-h100",
        "nemo2602-qwen3-235b-b300-mxfp8",
        "nemo2509-qwen3-30b-h100",
    } < set(cal["run"])
    speed = _speedups(bench)
    moe = cat.param("assumptions", "moe_efficiency")
    by_hand = moe * _moe_ratio_median(bench, speed)
    assert fit_moe_tuned(cat) == pytest.approx(by_hand)
    assert cat.param("assumptions", "moe_efficiency_tuned") == pytest.approx(by_hand, abs=1e-4)
    doubled = bench.assign(
        published_tok_s_gpu=np.where(bench["moe"], 2, 1) * bench["published_tok_s_gpu"]
    )
    assert _speedups(doubled) == speed
    assert _moe_ratio_median(doubled, speed) == pytest.approx(2 * _moe_ratio_median(bench, speed))
    tuned = benchmark_throughput(cat, "tuned").set_index("run")
    base = bench.set_index("run")
    for run, p, part in cal[["run", "precision", "accelerator"]].itertuples(index=False):
        sp = cat.param("assumptions", f"tuned_stack_speedup_{p}")
        # the part's own factor where it has one (every part of these rows: >= 4 MoE rows each)
        own = cat.param("assumptions", "moe_efficiency_tuned", part)
        expect = base.loc[run, "predicted_tok_s_gpu"] * sp * own / moe
        assert tuned.loc[run, "predicted_tok_s_gpu"] == pytest.approx(expect, rel=1e-9), run


def test_a_part_with_four_moe_benchmarks_has_its_own_tuned_moe_factor():
    """moe_efficiency_tuned keyed by accelerator (the rule declared in CHANGELOG.md, 2026-12-02):
    each part with >= 4 MoE benchmark rows gets moe_efficiency x the median published /
    tuned-predicted throughput of its own MoE rows, by hand; stored = live. A tuned MoE estimate
    on such a part uses it, one on another part its class's at its compute (since 2026-12-04:
    MI355X is held at B200 and B300's mean, tests/model/test_uncertainty.py); the leave-one-out
    factor of a row is its part's others'. NeMo's 8-GPU HGX recipes run slower than NVL72's:
    B200's factor is below GB200's."""
    from workbook import estimate_training
    from workbook.calibrate import tuned_part_moe

    cat = load_catalog()
    live = tuned_part_moe(cat)
    assert sorted(live) == ["b200-hgx", "b300-hgx", "gb200-nvl72", "gb300-nvl72", "h100-sxm"]
    bench = tuned_base_throughput(cat)
    speed = _speedups(bench)
    moe = cat.param("assumptions", "moe_efficiency")
    b200 = bench[bench["moe"] & (bench["accelerator"] == "b200-hgx")]
    assert len(b200) == 11  # NeMo 25.09 (3), 25.11 (4), 26.02 (4)
    assert live["b200-hgx"] == pytest.approx(moe * _moe_ratio_median(b200, speed))
    for part, value in live.items():
        assert cat.param("assumptions", "moe_efficiency_tuned", part) == pytest.approx(
            value, abs=1e-4
        ), part
    assert live["b200-hgx"] < 0.8 * live["gb200-nvl72"]
    args = dict(n_params=30e9, n_active_params=3e9, n_tokens=1e12, n_gpus=64)
    held = (live["b200-hgx"] + live["b300-hgx"]) / 2
    for part, factor in (("b200-hgx", live["b200-hgx"]), ("mi355x", held)):
        tuned = estimate_training(accelerator=part, software_stack="tuned", **args)
        assert tuned.breakdown["moe_factor"] == pytest.approx(factor, abs=1e-4), part
    loo = tuned_loo_ratios(cat).set_index("run")
    first = b200["run"].iloc[0]
    others = b200[b200["run"] != first]
    assert loo.loc[first, "loo_moe"] == pytest.approx(_moe_ratio_median(others, speed))


def test_nvidias_fp4_speedup_is_the_median_over_its_four_nvfp4_rows_and_amd_keeps_fp8s():
    """tuned_stack_speedup_fp4 (the rule declared in CHANGELOG.md, 2026-12-02): NVIDIA has 4 dense
    FP4 rows not held out (NeMo 26.02 Llama 3 70B and 3.1 405B NVFP4 on GB200 and GB300), so its
    parts with an FP4 peak get the median published / predicted throughput of those 4, by hand;
    AMD's 2 FP4 rows (MLPerf v6.0 MXFP4 LoRA) are held out, so AMD parts keep FP8's; stored =
    live. Leave-one-out, an NVFP4 row takes the median of the other 3, a held-out MXFP4 row FP8's
    speedup. The FP4 rows do not move the BF16 / FP8 speedups."""
    from workbook.calibrate import tuned_part_fp4

    cat = load_catalog()
    bench = tuned_base_throughput(cat)
    fp4 = bench[bench["precision"] == "fp4"]
    nv = fp4[fp4["split"] != "holdout"]
    assert set(nv["run"]) == {
        f"nemo2602-llama3{m}-{p}-nvfp4" for m in ("-70b", "1-405b") for p in ("gb300", "gb200")
    }
    assert set(nv["vendor"]) == {"NVIDIA"} and set(fp4.loc[fp4["split"] == "holdout", "run"]) == {
        "mlperf-v60-lora-mi355x-8", "mlperf-v60-lora-mi350x-8"
    }  # fmt: skip
    pred = nv["predicted_tok_s_gpu"] * nv["stack_factor"]
    ratio = (nv["published_tok_s_gpu"] / pred).to_numpy()
    by_hand = float(np.median(ratio))
    speed = _speedups(bench)
    assert speed["fp4"] == pytest.approx({"NVIDIA": by_hand})
    assert _speedups(bench[bench["precision"] != "fp4"])["fp8"] == speed["fp8"]
    live = tuned_part_fp4(cat)
    assert sorted(live) == ["b200-hgx", "b300-hgx", "gb200-nvl72", "gb300-nvl72",
                            "rtx-pro-6000-server"]  # fmt: skip
    for part, value in live.items():
        assert value == pytest.approx(by_hand)
        assert cat.param("assumptions", "tuned_stack_speedup_fp4", part) == pytest.approx(
            value, abs=1e-4
        ), part
    loo = tuned_loo_ratios(cat).set_index("run")
    for i, run in enumerate(nv["run"]):
        assert loo.loc[run, "loo_speedup"] == pytest.approx(float(np.median(np.delete(ratio, i))))
    for run in ("mlperf-v60-lora-mi355x-8", "mlperf-v60-lora-mi350x-8"):
        assert loo.loc[run, "loo_speedup"] == pytest.approx(speed["fp8"])


def test_the_cdna4_tuned_factor_is_mi355xs_primus_row_against_b200s_nemo_row():
    """software_maturity_tuned_rocm for MI355X (and, declared, MI350X) = 0.7 x (published /
    engine of the Primus Llama 3.1 8B FP8 row on 8 MI355X) / (published / engine of the NeMo 25.11
    Llama 3 8B FP8 row on 8 B200), by hand (the engine at the tuned level's HBM traffic); stored
    in data/assumptions.csv as the live value."""
    cat = load_catalog()
    bench = tuned_base_throughput(cat).set_index("run")
    amd, nv = bench.loc["primus-mlperf-llama31-8b-mi355x-8"], bench.loc["nemo-llama3-8b-b200"]
    assert (amd["published_tok_s_gpu"], nv["published_tok_s_gpu"]) == (29974, 30624)
    assert (
        amd["split"] == "excluded" and bench.loc["mlperf-v60-lora-mi355x-8", "split"] == "holdout"
    )
    by_hand = 0.7 * (29974 / amd["predicted_tok_s_gpu"]) / (30624 / nv["predicted_tok_s_gpu"])
    live = tuned_part_maturity(cat)
    assert live == pytest.approx({"mi355x": by_hand, "mi350x": by_hand})
    for part, value in live.items():
        stored = cat.param("assumptions", "software_maturity_tuned_rocm", part)
        assert stored == pytest.approx(value, abs=1e-4), part


def _fit_mdape(cat, traffic: float) -> float:
    loo = tuned_loo_ratios(cat, traffic)
    # dense BF16 / FP8 rows: the FP4 rows fit their vendor's speedup on top (declared 2026-12-02)
    rows = loo[(loo["split"] != "holdout") & ~loo["moe"] & loo["precision"].isin(["bf16", "fp8"])]
    return float(np.median(np.abs(rows["loo_tok_s_gpu"] / rows["published_tok_s_gpu"] - 1)))


def test_the_tuned_traffic_is_the_declared_grid_fit_on_rows_not_held_out():
    """memory_traffic_tuned_... is the point of {100, 150, ..., 800} B with the lowest
    leave-one-out MdAPE over the dense benchmark rows not held out (CHANGELOG.md, declared before
    the fit; the MoE rows left it on 2026-12-02), at the stored per-step overhead: stored, and at
    least as good there as every other point; the whole-run constant does not move. With the
    per-step overhead (150 tokens, 2026-12-03) the fit lands on the grid's end, 800 B, the
    whole-run value (at no overhead it was 750 B, strictly better than 800 B there)."""
    from workbook.calibrate.bands import with_step_overhead

    cat = load_catalog()
    assert TUNED_TRAFFIC_GRID == tuple(float(v) for v in range(100, 801, 50))
    chosen = fit_tuned_traffic(cat)
    assert cat.param("assumptions", "memory_traffic_tuned_bytes_per_token_layer_dmodel") == chosen
    assert cat.param("assumptions", "memory_traffic_bytes_per_token_layer_dmodel") == 800.0
    at = {t: _fit_mdape(cat, t) for t in TUNED_TRAFFIC_GRID}
    assert at[chosen] == min(at.values()) and chosen == 800.0
    before = with_step_overhead(cat, 0.0)
    at0 = {t: _fit_mdape(before, t) for t in (700.0, 750.0, 800.0)}
    assert at0[750.0] < min(at0[700.0], at0[800.0])


def test_the_engine_level_benchmarks_keep_the_whole_run_traffic():
    """benchmark_throughput (engine level, what validate's steady-state table shows) runs at the
    whole-run 800 B and no per-step overhead; tuned_base_throughput at the tuned level's traffic
    and overhead: the same rows, each x 1 / (1 + 150 GPUs / its global batch) by hand (the tuned
    traffic is 800 B too, since 2026-12-03); at a faster traffic, faster where the HBM term
    weighs (every row: the term is never zero)."""
    from workbook.calibrate.bands import with_step_overhead

    cat = load_catalog()
    engine, base = benchmark_throughput(cat), tuned_base_throughput(cat)
    assert (engine["run"] == base["run"]).all()
    runs = cat.tables["published_runs"].set_index("run_id").loc[base["run"]]
    given = runs["global_batch_tokens"].notna().to_numpy()
    assert given.sum() > 80  # the rows whose source gives the batch
    factor = 1 / (1 + 150 * base["n_gpus"] / runs["global_batch_tokens"].to_numpy(float))
    ratio = base["predicted_tok_s_gpu"] / engine["predicted_tok_s_gpu"]
    np.testing.assert_allclose(ratio[given], factor[given], rtol=1e-9)
    assert (ratio < 1).all()
    free = with_step_overhead(cat, 0.0)
    assert (
        tuned_base_throughput(free, 800.0)["predicted_tok_s_gpu"] == engine["predicted_tok_s_gpu"]
    ).all()
    faster = tuned_base_throughput(free, 750.0)["predicted_tok_s_gpu"]
    assert (faster > engine["predicted_tok_s_gpu"]).all()


def test_the_tuned_per_step_overhead_is_the_declared_fits_choice_and_enters_by_hand():
    """step_overhead_tuned_tokens (the rule declared in CHANGELOG.md, 2026-12-03): the point of
    STEP_OVERHEAD_GRID whose refitted tuned traffic gives the lowest leave-one-out MdAPE over the
    dense BF16 / FP8 rows not held out; checked here against its two neighbours (the whole grid:
    ``python -m workbook validate --fit``), with the stored traffic the one fitted at it. It enters
    a tuned plan as x 1 / (1 + k GPUs / global batch tokens), by hand on MLPerf v5.0's 512-GPU
    Llama 3.1 405B shape (1,152 x 8,192 tokens: t = 18,432 tokens per GPU, x 0.99193); the
    whole-run levels keep 0 (x 1)."""
    import pandas as pd

    from workbook import estimate_frame
    from workbook.calibrate.bands import STEP_OVERHEAD_GRID, _fit_traffic, with_step_overhead

    cat = load_catalog()
    k = cat.param("assumptions", "step_overhead_tuned_tokens")
    assert k == 150.0 and k in STEP_OVERHEAD_GRID
    assert cat.param("assumptions", "step_overhead_tokens") == 0.0
    fits = {t: _fit_traffic(with_step_overhead(cat, t)) for t in (k - 25, k, k + 25)}
    assert fits[k][1] < min(fits[k - 25][1], fits[k + 25][1])
    assert fits[k][0] == cat.param(
        "assumptions", "memory_traffic_tuned_bytes_per_token_layer_dmodel"
    )
    row = {
        "n_params": 405.85e9,
        "n_tokens": 1e11,
        "accelerator": "h100-sxm",
        "n_gpus": 512,
        "seq_len": 8192,
        "precision": "fp8",
        "global_batch_tokens": 1152 * 8192,
    }
    plans = pd.DataFrame([row | {"software_stack": s} for s in ("tuned", "typical", "engine")])
    factor = estimate_frame(plans, catalog=cat)["step_overhead_factor"].tolist()
    assert factor == pytest.approx([1 / (1 + 150 / 18432), 1.0, 1.0])
    assert factor[0] == pytest.approx(0.99193, abs=1e-5)
    none = estimate_frame(plans.iloc[:1], catalog=with_step_overhead(cat, 0.0))
    tuned = estimate_frame(plans.iloc[:1], catalog=cat)
    assert (tuned["steady_tokens_per_s_per_gpu"] / none["steady_tokens_per_s_per_gpu"]).iloc[
        0
    ] == pytest.approx(factor[0])
