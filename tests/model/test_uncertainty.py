"""The software stack's level and the time band (issue 19): hand arithmetic on the constants of
data/assumptions.csv, the normal CDF against the standard library, errors that name the field."""

from statistics import NormalDist

import numpy as np
import pytest

from workbook import estimate_training, load_catalog
from workbook.model import (
    Z90,
    assumption_values,
    estimate_frame,
    normal_cdf,
    probability_within,
    quantile_multiplier,
    tuned_stack_factor,
)


@pytest.fixture(scope="module")
def a():
    return assumption_values(load_catalog())


TRAFFIC = "memory_traffic_bytes_per_token_layer_dmodel"
TUNED_TRAFFIC = "memory_traffic_tuned_bytes_per_token_layer_dmodel"


def _engine_at_tuned_traffic(a, *args, **kw):
    """The engine level with the tuned level's HBM traffic and per-step overhead: what the tuned
    speedups multiply."""
    tuned = {TRAFFIC: a[TUNED_TRAFFIC], "step_overhead_tokens": a["step_overhead_tuned_tokens"]}
    return estimate_training(*args, software_stack="engine", assumptions=tuned, **kw)


def test_normal_cdf_matches_the_standard_library_within_2e_7():
    x = np.linspace(-5, 5, 101)
    exact = np.array([NormalDist().cdf(v) for v in x])
    assert np.max(np.abs(normal_cdf(x) - exact)) < 2e-7


def test_quantile_and_probability_are_inverse_on_both_sides():
    lo, hi = np.array([0.2, 0.5]), np.array([0.4, 0.3])
    for p in (0.1, 0.3, 0.5, 0.8, 0.9, 0.97):
        m = quantile_multiplier(p, lo, hi)
        np.testing.assert_allclose(probability_within(m, lo, hi), p, atol=2e-7)
    assert quantile_multiplier(0.9, 0.2, 0.4) == pytest.approx(np.exp(Z90 * 0.4))
    assert list(probability_within([0.0, -1.0, np.nan, np.inf], 0.2, 0.4)) == [0, 0, 0, 1]


def test_typical_is_the_engine_times_the_held_out_runs_quantiles(a):
    """H100 has published runs: p10 / p50 / p90 = engine x realized_time_ratio_p10/p50/p90."""
    args = (70e9, 2e12, "h100-sxm", 1024)
    engine = estimate_training(*args, software_stack="engine")
    typical = estimate_training(*args)  # the default
    assert typical.gpu_hours == pytest.approx(engine.gpu_hours * a["realized_time_ratio_p50"])
    assert typical.gpu_hours_p10 == pytest.approx(engine.gpu_hours * a["realized_time_ratio_p10"])
    assert typical.gpu_hours_p90 == pytest.approx(engine.gpu_hours * a["realized_time_ratio_p90"])
    assert typical.wall_days_p90 / typical.wall_days == pytest.approx(
        a["realized_time_ratio_p90"] / a["realized_time_ratio_p50"]
    )
    assert typical.mfu == pytest.approx(engine.mfu / a["realized_time_ratio_p50"])


def test_tuned_divides_the_engines_time_by_its_precisions_speedup(a):
    """Tuned = the engine's steady throughput at the tuned HBM traffic x
    tuned_stack_speedup_<precision>, goodput as the engine's; its band is tuned_time_ratio_p10 /
    _p90 around that."""
    for precision in ("bf16", "fp8"):
        args = (8e9, 1e12, "h100-sxm", 64)
        engine = _engine_at_tuned_traffic(a, *args, precision=precision)
        tuned = estimate_training(*args, precision=precision, software_stack="tuned")
        k = a[f"tuned_stack_speedup_{precision}"]
        assert tuned.gpu_hours == pytest.approx(engine.gpu_hours / k)
        assert tuned.gpu_hours_p90 == pytest.approx(tuned.gpu_hours * a["tuned_time_ratio_p90"])
        assert tuned.breakdown["steady_tokens_per_s_per_gpu"] == pytest.approx(
            engine.breakdown["steady_tokens_per_s_per_gpu"] * k
        )


def test_fp4_at_the_tuned_level_takes_its_vendors_own_speedup_else_fp8s(a):
    """At FP4 an NVIDIA part takes its keyed tuned_stack_speedup_fp4 (data/assumptions.csv,
    NVIDIA's NVFP4 benchmarks: 1.1964 on GB300, B300, B200, GB200, RTX PRO 6000), an AMD part
    FP8's speedup x its stack factor (AMD has no FP4 calibration row); the typical level does
    not move. Tuned GB300 FP4 / FP8 steady throughput is then 1.1964 / 1.4949 of the engine's
    ratio (NVIDIA published 1.35-1.36x on Llama 3 70B / 3.1 405B, NeMo 26.02)."""
    cat = load_catalog()
    own = cat.own_values("assumptions", "tuned_stack_speedup_fp4")
    assert own == pytest.approx(dict.fromkeys(
        ["b200-hgx", "b300-hgx", "gb200-nvl72", "gb300-nvl72", "rtx-pro-6000-server"], 1.1964
    ))  # fmt: skip
    args = (70e9, 1e12, "gb300-nvl72", 64)
    tuned, engine = {}, {}
    for p in ("fp8", "fp4"):
        engine[p] = _engine_at_tuned_traffic(a, *args, precision=p)
        tuned[p] = estimate_training(*args, precision=p, software_stack="tuned")
    k = {"fp8": a["tuned_stack_speedup_fp8"], "fp4": 1.1964}
    for p in ("fp8", "fp4"):
        assert tuned[p].breakdown["stack_speedup"] == pytest.approx(k[p])
        assert tuned[p].gpu_hours == pytest.approx(engine[p].gpu_hours / k[p])
    steady = {p: tuned[p].breakdown["steady_tokens_per_s_per_gpu"] for p in tuned}
    assert 1.3 < steady["fp4"] / steady["fp8"] < 1.6
    amd = estimate_training(70e9, 1e12, "mi355x", 64, precision="fp4", software_stack="tuned")
    cdna4 = cat.param("assumptions", "software_maturity_tuned_rocm", "mi355x") / 0.7
    assert amd.breakdown["stack_speedup"] == pytest.approx(a["tuned_stack_speedup_fp8"] * cdna4)
    typical = estimate_training(*args, precision="fp4")
    assert typical.breakdown["stack_speedup"] == pytest.approx(1 / a["realized_time_ratio_p50"])


def test_a_part_with_no_published_run_has_its_band_widened(a):
    """MI355X has no published full run: both log spreads x time_band_widening_no_evidence."""
    r = estimate_training(70e9, 2e12, "mi355x", 1024)
    w = a["time_band_widening_no_evidence"]
    assert r.breakdown["time_band_widened"]
    expected = (a["realized_time_ratio_p90"] / a["realized_time_ratio_p50"]) ** w
    assert r.wall_days_p90 / r.wall_days == pytest.approx(expected)
    assert not estimate_training(70e9, 2e12, "h100-sxm", 1024).breakdown["time_band_widened"]
    assert "p10-p90" in r.summary()


def test_the_frame_takes_a_software_stack_column_and_refuses_an_unknown_one():
    cfg = {"n_params": 7e9, "n_tokens": 1e11, "accelerator": "h100-sxm", "n_gpus": 8}
    import pandas as pd

    df = estimate_frame(pd.DataFrame([{**cfg, "software_stack": s} for s in ("typical", "tuned")]))
    assert list(df["stack_level"]) == ["typical", "tuned"]
    assert (df["gpu_hours_p10"] < df["gpu_hours"]).all()
    assert (df["gpu_hours"] < df["gpu_hours_p90"]).all()
    with pytest.raises(ValueError, match="software_stack.*allowed: typical, tuned, engine"):
        estimate_training(7e9, 1e11, "h100-sxm", 8, software_stack="vendor")


def test_tuned_rocm_takes_the_reference_recipes_stack_factor_not_the_typical_derate(a):
    """On a ROCm part the tuned level is the engine x tuned_stack_speedup x
    software_maturity_tuned_rocm / software_maturity_rocm; on CUDA the factor is 1, and the
    typical and engine levels do not move."""
    k = (
        a["tuned_stack_speedup_fp8"]
        * a["software_maturity_tuned_rocm"]
        / a["software_maturity_rocm"]
    )
    args = (70e9, 1e12, "mi300x", 64)
    engine = _engine_at_tuned_traffic(a, *args, precision="fp8")
    tuned = estimate_training(*args, precision="fp8", software_stack="tuned")
    assert tuned.breakdown["steady_tokens_per_s_per_gpu"] == pytest.approx(
        engine.breakdown["steady_tokens_per_s_per_gpu"] * k
    )
    cat = load_catalog()
    f = tuned_stack_factor(cat, ["mi300x", "h100-sxm", "gaudi3"], a)
    assert f.tolist() == pytest.approx([a["software_maturity_tuned_rocm"] / 0.7, 1.0, 1.0])


def test_a_cdna4_part_takes_its_own_tuned_rocm_row_and_cdna3_the_global_one(a):
    """software_maturity_tuned_rocm keyed by accelerator (data/assumptions.csv: 0.8834 for
    MI355X and MI350X) replaces the global 0.7611 for those parts only; ``keyed`` overrides the
    stored rows (the live measurement); each factor is over software_maturity_rocm 0.7."""
    cat = load_catalog()
    parts = ["mi355x", "mi300x", "mi350x", "mi325x", "b200-hgx", "mi355x"]
    f = tuned_stack_factor(cat, parts, a)
    cdna4, cdna3 = 0.8834 / 0.7, a["software_maturity_tuned_rocm"] / 0.7
    assert a["software_maturity_tuned_rocm"] == pytest.approx(0.7611)
    assert f.tolist() == pytest.approx([cdna4, cdna3, cdna4, cdna3, 1.0, cdna4])
    g = tuned_stack_factor(cat, parts, a, keyed={"mi355x": 0.77})
    assert g.tolist() == pytest.approx([1.1, cdna3, cdna4, cdna3, 1.0, 1.1])
    # At the tuned level MI355X's steady throughput is its engine's (at the tuned HBM traffic)
    # x 1.25 x the FP8 speedup.
    args = (70e9, 1e12, "mi355x", 64)
    engine = _engine_at_tuned_traffic(a, *args, precision="fp8")
    tuned = estimate_training(*args, precision="fp8", software_stack="tuned")
    assert tuned.breakdown["steady_tokens_per_s_per_gpu"] == pytest.approx(
        engine.breakdown["steady_tokens_per_s_per_gpu"] * cdna4 * a["tuned_stack_speedup_fp8"]
    )


def test_the_tuned_level_moves_its_own_hbm_bytes(a):
    """The non-matmul HBM term is traffic x G x L x d_model / (n x HBM bandwidth x efficiency):
    by hand for Llama 3 8B on 8 B200 (G = 128 x 8192 tokens, L = 32, d = 4096, 8 TB/s), 800 B at
    the engine and typical levels, the tuned level's own (fitted on the dense benchmarks with
    their exact shapes: 750 B until 2026-12-03, 800 B since, with the per-step overhead), here
    set to 750 B to show it is its own."""
    import pandas as pd

    cfg = {
        "n_params": 8.03e9,
        "n_tokens": 1e10,
        "accelerator": "b200-hgx",
        "n_gpus": 8,
        "precision": "fp8",
        "seq_len": 8192,
        "global_batch_tokens": 128 * 8192,
        "n_layers": 32,
        "d_model": 4096,
    }
    df = estimate_frame(
        pd.DataFrame([{**cfg, "software_stack": s} for s in ("engine", "typical", "tuned")]),
        assumptions={TUNED_TRAFFIC: 750.0},
    )
    assert a[TRAFFIC] == 800.0 and a[TUNED_TRAFFIC] == 800.0
    by_hand = 128 * 8192 * 32 * 4096 / (8 * 8e12 * a["memory_bw_efficiency"])
    assert df["memory_s"].tolist() == pytest.approx([800 * by_hand, 800 * by_hand, 750 * by_hand])


#: A mixture of experts (issue 19's 1.2T / 100B-active preset, band-400b-plus) on 2,048 GPUs.
MOE = dict(n_params=1.2e12, n_tokens=2e13, n_gpus=2048, n_active_params=1e11)


def _moe(part, stack):
    return estimate_training(accelerator=part, software_stack=stack, **MOE).breakdown


def test_the_typical_moe_factor_carries_hoppers_whole_runs_by_the_parts_own_benchmarks(a):
    """Hand arithmetic on data/assumptions.csv: typical = moe_efficiency x the part's tuned
    factor / H100's (0.7 x 0.3233 / 0.5022 = 0.4506 on B200); H100 itself keeps 0.7; the engine
    level keeps 0.7 everywhere (what the fits compare); the tuned level takes the part's own row,
    else its class's at its compute (MI300X: 0.4479, below)."""
    cat = load_catalog()
    own = cat.own_values("assumptions", "moe_efficiency_tuned")
    b200 = a["moe_efficiency"] * own["b200-hgx"] / own["h100-sxm"]
    assert b200 == pytest.approx(0.7 * 0.3233 / 0.5022)
    assert _moe("b200-hgx", "typical")["moe_factor"] == pytest.approx(b200)
    assert _moe("h100-sxm", "typical")["moe_factor"] == pytest.approx(a["moe_efficiency"])
    assert _moe("mi300x", "typical")["moe_factor"] == pytest.approx(0.7 * 0.4479 / 0.5022, abs=1e-4)
    assert _moe("b200-hgx", "engine")["moe_factor"] == pytest.approx(a["moe_efficiency"])
    assert _moe("b200-hgx", "tuned")["moe_factor"] == pytest.approx(own["b200-hgx"])
    assert _moe("mi300x", "tuned")["moe_factor"] == pytest.approx(0.4479, abs=1e-4)


def test_a_part_without_moe_benchmarks_takes_its_class_at_its_compute():
    """moe_by_class by hand (data/accelerators.csv BF16 peaks, data/assumptions.csv own rows):
    server class (<= 8 GPUs a domain): H100 0.5022 at 989 TFLOP/s; B200 0.3233 and B300 0.3615
    both at 2,250, averaged to 0.3424. MI300X at 1,307.4: 0.5022 + ln(1307.4 / 989) /
    ln(2250 / 989) x (0.3424 - 0.5022) = 0.4479. MI355X at 2,500 is past B200's peak: held at
    0.3424, not extrapolated; H200 (989) is H100's. Rack class: GB200 0.4981 and GB300 0.6067,
    both at 2,500, so TPU v5p (459, 8,960 a domain) is held at their mean 0.5524. A part's own
    row is its own; a class with no own row takes the pooled factor."""
    from workbook.model import moe_by_class

    spec = load_catalog().tables["accelerators"]
    own = {"h100-sxm": 0.5022, "b200-hgx": 0.3233, "b300-hgx": 0.3615}
    own |= {"gb200-nvl72": 0.4981, "gb300-nvl72": 0.6067}
    data = load_catalog().own_values("assumptions", "moe_efficiency_tuned")
    assert data == pytest.approx(own)
    got = moe_by_class(spec, own, pooled=0.4942)
    mid = (0.3233 + 0.3615) / 2
    mi300x = 0.5022 + np.log(1307.4 / 989) / np.log(2250 / 989) * (mid - 0.5022)
    assert mi300x == pytest.approx(0.4479, abs=1e-4) and got["mi300x"] == pytest.approx(mi300x)
    assert got["mi355x"] == pytest.approx(mid) and got["h200-sxm"] == pytest.approx(0.5022)
    assert got["tpu-v5p"] == pytest.approx((0.4981 + 0.6067) / 2)
    assert got["b200-hgx"] == 0.3233 and got["a100-80gb-sxm"] == pytest.approx(0.5022)
    servers_only = moe_by_class(spec, {"h100-sxm": 0.5211}, pooled=0.4)
    assert servers_only["gb200-nvl72"] == 0.4 and servers_only["mi355x"] == pytest.approx(0.5211)
    dense = estimate_training(1.2e12, 2e13, "b200-hgx", 2048).breakdown
    assert dense["moe_factor"] == 1.0


def test_the_whole_run_moe_factor_rests_on_hopper_runs_alone():
    """MOE_WHOLE_RUN_PART is what the carried factor is relative to: every usable MoE full run of
    data/published_runs.csv (the calibration run that fits moe_efficiency and the held-out ones)
    is on Hopper, the calibration one on that very part, and the part has its own tuned row."""
    from workbook.model import MOE_WHOLE_RUN_PART, moe_rows, used_full_runs

    cat = load_catalog()
    runs = cat.tables["published_runs"]
    moe = runs[used_full_runs(runs) & moe_rows(runs)]
    assert set(moe["accelerator_id"]) <= {"h100-sxm", "h800-sxm"}
    assert set(moe.loc[moe["split"] == "calibration", "accelerator_id"]) == {MOE_WHOLE_RUN_PART}
    assert MOE_WHOLE_RUN_PART in cat.own_values("assumptions", "moe_efficiency_tuned")


def test_a_moe_plan_needs_moe_evidence_on_its_part_else_its_band_is_widened(a):
    """Tuned: MI355X has dense benchmarks but no MoE one, so a MoE plan's band is widened (a dense
    plan's is not); B200 has MoE benchmarks. Typical: B200 carries its own MoE benchmarks' factor
    and H800 has a MoE whole run (DeepSeek-V3), so neither is widened; A100 80GB has dense whole
    runs only, so its MoE plan is widened and its dense plan is not; the MoE evidence comes on top
    of the level's own (a whole run on the part for the typical level)."""
    w = a["time_band_widening_no_evidence"]
    tuned = _moe("mi355x", "tuned")
    assert tuned["time_band_widened"]
    ratio_p90 = a["tuned_time_ratio_moe_p90"]
    assert tuned["time_sigma_above"] == pytest.approx(np.log(ratio_p90) / Z90 * w)
    dense = estimate_training(70e9, 2e12, "mi355x", 1024, software_stack="tuned")
    assert not dense.breakdown["time_band_widened"]
    assert not _moe("b200-hgx", "tuned")["time_band_widened"]
    assert not _moe("b200-hgx", "typical")["time_band_widened"]
    assert not _moe("h800-sxm", "typical")["time_band_widened"]
    assert _moe("a100-80gb-sxm", "typical")["time_band_widened"]
    # GB200 NVL72: MoE benchmarks (tuned: not widened) but no whole run of any kind (typical).
    assert not _moe("gb200-nvl72", "tuned")["time_band_widened"]
    assert _moe("gb200-nvl72", "typical")["time_band_widened"]
    assert not estimate_training(70e9, 2e12, "a100-80gb-sxm", 1024).breakdown["time_band_widened"]
