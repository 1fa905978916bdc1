"""Notebook 02's tables (workbook.guides.speed): speed, the network claim, bandwidth, pilot runs.

Values are checked by hand calculation from the catalog (data/*.csv) or against the engine
function each table wraps, so a table can never drift from the engine it claims to show.
"""

import numpy as np
import pandas as pd
import pytest

from workbook import estimate_frame, estimate_training, presets
from workbook.guides.speed import (
    bandwidth_vs_flops,
    network_comparison,
    network_verdict,
    pilot_time_factor,
    speed_table,
)
from workbook.model import STEP_COLUMNS


def test_speed_table_is_estimate_frame(cat):
    configs = [
        {"accelerator": "h100-sxm", "n_gpus": 64},
        {"accelerator": "b200-hgx", "n_gpus": 64, "fabric": "eth-200-shared"},
    ]
    t = speed_table(70e9, 1e12, configs, catalog=cat)
    e = estimate_frame(pd.DataFrame(configs).assign(n_params=70e9, n_tokens=1e12), catalog=cat)
    np.testing.assert_allclose(t["wall_days"], e["wall_days"])
    np.testing.assert_allclose(t["step_s"], e["step_s"])
    assert list(t["label"]) == ["64 x h100-sxm (ib-ndr-400)", "64 x b200-hgx (eth-200-shared)"]
    np.testing.assert_allclose(t[list(STEP_COLUMNS)].sum(axis=1), t["step_s"], rtol=1e-9)


def test_python_input_pipeline_shows_the_articles_22_percent(cat):
    t = speed_table(
        7e9,
        1e11,
        [
            {"accelerator": "h100-sxm", "n_gpus": 8},
            {"accelerator": "h100-sxm", "n_gpus": 8, "input_pipeline": "python"},
        ],
        catalog=cat,
    )
    assert t["wall_days"].iloc[1] / t["wall_days"].iloc[0] == pytest.approx(1 / 0.82)
    assert t["derate_s"].iloc[0] == 0 and t["derate_s"].iloc[1] == pytest.approx(
        t["step_s"].iloc[1] * 0.18
    )


@pytest.mark.parametrize(
    "configs, match",
    [
        ("h100-sxm", r"configs='h100-sxm' is not a list of dicts"),
        ([], r"configs is empty"),
        ([{"accelerator": "h100-sxm"}], r"configs\[0\] lacks 'n_gpus'"),
        (
            [{"accelerator": "h100-sxm", "n_gpus": 8, "gpus": 8}],
            r"configs\[0\] has the unknown key 'gpus'",
        ),
        ([{"accelerator": "nope", "n_gpus": 8}], r"configs\[0\]\['accelerator'\]='nope'"),
        (
            [{"accelerator": "h100-sxm", "n_gpus": 8, "fabric": "carrier-pigeon"}],
            r"fabric='carrier-pigeon' is unknown",
        ),
    ],
)
def test_speed_table_bad_configs(configs, match):
    with pytest.raises(ValueError, match=match):
        speed_table(7e9, 1e11, configs)


@pytest.fixture(scope="module")
def network(cat):
    return network_comparison(catalog=cat)


def test_network_comparison_numbers_come_from_the_engine(network, cat):
    for _, r in network.iterrows():
        e = estimate_training(
            r["n_params"], 1e12, r["accelerator"], int(r["n_gpus"]), fabric=r["fabric"], catalog=cat
        )
        assert r["wall_days"] == pytest.approx(e.wall_days)
        for c in ("matmul_s", "memory_s", "dp_exposed_s", "tp_exposed_s", "bubble_s"):
            assert r[c] == pytest.approx(e.breakdown[c])
    assert set(network["fabric"]) == {"eth-200-shared", "ib-ndr-400"}
    assert (network.loc[network["accelerator"] == "a100-80gb-sxm", "speed_vs_a100"] == 1.0).all()


def test_b200_200gbe_gradient_traffic_by_hand(network):
    """70B on 2 x 8 B200, ZeRO-3 (x1.5 volume): gradient shard 70e9 x 2 B = 140 GB.
    Inside a node (ring over 8, NVLink 1,800/2 x 0.7 = 630 GB/s): 2 x 140e9 x 7/8 / 630e9 = 0.389 s.
    Across the 2 nodes (25 Gb/s per GPU x 0.6 = 1.875 GB/s): 2 x 140e9/8 x 1/2 / 1.875e9 = 9.333 s.
    (0.389 + 9.333) x 1.5 = 14.58 s per step."""
    r = network[(network["model"] == "70B") & (network["accelerator"] == "b200-hgx")].iloc[0]
    assert r["dp_comm_s"] == pytest.approx(
        (2 * 140e9 * 7 / 8 / 630e9 + 2 * 140e9 / 8 / 2 / 1.875e9) * 1.5, rel=1e-9
    )


def test_network_verdict_peak_ratio_and_engine_finding(network, cat):
    """Peak: 16 x 2,250 / (64 x 312) = 36,000 / 19,968 = 1.80. The engine finds the B200 cluster
    faster at every size (the article's claim does not hold), and still faster with no overlap."""
    v = network_verdict(network, cat)
    assert v["peak_ratio"].iloc[0] == pytest.approx(36000 / 19968)
    assert list(v["model"]) == ["1B", "7B", "13B", "30B", "70B"]
    np.testing.assert_allclose(v["b200_speedup"], network["speed_vs_a100"].to_numpy()[::2])
    assert not v["claim_holds"].any() and (v["b200_speedup"] > 1).all()
    stressed = network_comparison(catalog=cat, assumptions={"dp_overlap_fraction": 0.0})
    np.testing.assert_allclose(stressed["dp_exposed_s"], stressed["dp_comm_s"])
    assert (network_verdict(stressed, cat)["b200_speedup"] > 1).all()


def test_network_bad_input():
    with pytest.raises(ValueError, match=r"model_sizes has 1 invalid value"):
        network_comparison([7e9, -1])
    with pytest.raises(ValueError, match=r"model_sizes is empty"):
        network_comparison([])
    with pytest.raises(ValueError, match=r"global_batch_tokens=0"):
        network_comparison(global_batch_tokens=0)
    with pytest.raises(ValueError, match=r"assumption 'nope' is unknown"):
        network_comparison(assumptions={"nope": 1.0})


def test_bandwidth_vs_flops(cat):
    t = bandwidth_vs_flops(
        7e9, 8, ["h100-sxm", "b200-hgx", "a100-80gb-sxm"], catalog=cat
    ).set_index("accelerator")
    assert t.loc["h100-sxm", "flop_per_byte"] == pytest.approx(989 / 3.35)
    assert t.loc["b200-hgx", "flop_per_byte"] == pytest.approx(2250 / 8)
    assert t.loc["h100-sxm", "mfu"] == pytest.approx(
        estimate_training(7e9, 1e12, "h100-sxm", 8, catalog=cat).mfu
    )
    assert list(t.index) == ["a100-80gb-sxm", "b200-hgx", "h100-sxm"]  # sorted by FLOP per byte
    fp8 = bandwidth_vs_flops(7e9, 8, ["h100-sxm", "a100-80gb-sxm"], precision="fp8", catalog=cat)
    assert list(fp8["accelerator"]) == ["h100-sxm"]  # Ampere has no FP8
    with pytest.raises(ValueError, match=r"precision='fp16' is not allowed"):
        bandwidth_vs_flops(precision="fp16")
    with pytest.raises(ValueError, match=r"none of the accelerators has a dense fp8 peak"):
        bandwidth_vs_flops(accelerators=["a100-80gb-sxm"], precision="fp8")


def test_a_pilot_with_its_exact_shape_counts_the_shapes_flops(cat):
    """A pilot of Llama 3 8B (NeMo's Llama 3 8B FP8 row on 8 H100, 14,451 tokens/s per GPU, seq
    8,192) given its shape: FLOPs per token by hand, full attention, 6 x matmul params + 12 L d s
    with d the score width (32 heads x 128 = 4,096). Matmul params: per layer 2 d^2 + 2 d (8 x
    128) = 41,943,040 (attention, GQA) + 3 d 14,336 = 176,160,768 (SwiGLU), x 32 layers =
    6,979,321,856, + the LM head 128,256 x 4,096 = 525,336,576: 7,504,658,432. So 45,027,950,592
    + 12 x 32 x 4,096 x 8,192 = 12,884,901,888: 57,912,852,480 FLOPs per token; x 14,451 / the
    H100's 1,979 TFLOP/s FP8 dense peak = 0.4229. The predicted rate is the engine's for that
    shape (estimate_training with shape=), not the one derived from 8.03e9 parameters (which
    differs by more than 1 %), and n_params may be left to the shape."""
    from workbook import estimate_training
    from workbook.model import ModelShape

    shape = ModelShape(32, 4096, 32, 8, 14336, 128256)
    config = {"accelerator": "h100-sxm", "n_gpus": 8, "precision": "fp8"}
    r = pilot_time_factor(
        14451, None, config, seq_len=8192, attention="full", shape=shape, catalog=cat
    )
    assert shape.matmul_params == 7_504_658_432
    by_hand = 57_912_852_480 * 14451 / 1979e12
    assert r["measured_mfu"] == pytest.approx(by_hand, rel=1e-9)
    assert r["measured_mfu"] == pytest.approx(0.4229, abs=5e-5)
    est = estimate_training(
        n_params=None, n_tokens=1e12, accelerator="h100-sxm", n_gpus=8, precision="fp8",
        seq_len=8192,
        shape=shape, catalog=cat,
    )  # fmt: skip
    steady = est.breakdown["steady_tokens_per_s_per_gpu"]
    assert r["predicted_tokens_per_s_per_gpu"] == pytest.approx(steady, rel=1e-9)
    derived = pilot_time_factor(14451, shape.n_params, config, seq_len=8192, catalog=cat)
    assert abs(derived["predicted_tokens_per_s_per_gpu"] / steady - 1) > 0.01
    same = pilot_time_factor(14451, 8.03e9, config, seq_len=8192, shape=shape, catalog=cat)
    assert same["predicted_tokens_per_s_per_gpu"] == pytest.approx(steady, rel=1e-9)
    with pytest.raises(ValueError, match="n_params=7000000000.0 disagrees with the shape's 8,0"):
        pilot_time_factor(14451, 7e9, config, seq_len=8192, shape=shape, catalog=cat)


def test_pilot_time_factor_reproduces_mosaicml_published_mfu(cat):
    """llm-foundry's MPT-7B benchmark on 8 H100 (mpt-7b-bench-h100): 10,643 tokens/s per GPU,
    published as 'MFU 46.44% (incl. attention FLOPs)'. Full-attention FLOPs per token by hand:
    6 N + 12 L d s with the engine's shape for N = 6,658,859,008 (L 32.35, d 4,141.4), s = 2,048:
    4.3246e10; x 10,643 / 989e12 = 0.4654, within 0.002 of the published figure."""
    row = cat.tables["published_runs"].set_index("run_id").loc["mpt-7b-bench-h100"]
    config = {"accelerator": row["accelerator_id"], "n_gpus": int(row["gpu_count"])}
    r = pilot_time_factor(
        row["tokens_per_s_per_gpu"],
        row["params_total"],
        config,
        seq_len=int(row["seq_len"]),
        attention="full",
        catalog=cat,
    )
    L, d = 32.35436480798625, 4141.35869542224
    by_hand = (6 * 6658859008 + 12 * L * d * 2048) * 10643 / 989e12
    assert r["measured_mfu"] == pytest.approx(by_hand, rel=1e-6) and r[
        "measured_mfu"
    ] == pytest.approx(0.4644, abs=0.002)
    # Predicted: the speed table's steady state (global batch / step time / GPUs, before goodput),
    # at the typical stack's level (the engine's rate / realized_time_ratio_p50).
    sp = speed_table(row["params_total"], 1e12, [config], seq_len=2048, catalog=cat).iloc[0]
    p50 = cat.param("assumptions", "realized_time_ratio_p50")
    predicted = sp["global_batch_tokens"] / sp["step_s"] / 8 / p50
    assert r["predicted_tokens_per_s_per_gpu"] == pytest.approx(predicted)
    assert predicted > sp["tokens_per_s_per_gpu"]  # goodput is left out for a short pilot
    assert (
        r["time_factor"] == pytest.approx(predicted / 10643) and r["time_factor"] < 1
    )  # MosaicML beat the engine
    assert (
        r["predicted_mfu"] == pytest.approx(r["measured_mfu"] * r["time_factor"])
        and r["in_scenario_range"]
    )
    # A pilot at two thirds of the predicted rate plans for 1.5x the days; a Scenario takes it.
    slow = pilot_time_factor(
        predicted / 1.5, row["params_total"], config, seq_len=2048, catalog=cat
    )
    assert slow["time_factor"] == pytest.approx(1.5)
    assert presets["band-7b-to-70b"].replace(
        time_factor=slow["time_factor"]
    ).time_factor == pytest.approx(1.5)
    assert not pilot_time_factor(
        predicted / 20, row["params_total"], config, seq_len=2048, catalog=cat
    )["in_scenario_range"]
    for bad in (0, -1.0, float("nan"), "fast"):
        with pytest.raises(ValueError, match=r"measured_tokens_per_s_per_gpu"):
            pilot_time_factor(bad, 7e9, config, catalog=cat)
    with pytest.raises(ValueError, match=r"config=.* is not a dict"):
        pilot_time_factor(1000.0, 7e9, "h100-sxm", catalog=cat)
    with pytest.raises(ValueError, match=r"h200-nvl"):
        pilot_time_factor(1000.0, 7e9, {"accelerator": "h200-nvl", "n_gpus": 8}, catalog=cat)
    with pytest.raises(ValueError, match=r"unsupported on a100-80gb-sxm"):
        pilot_time_factor(
            1000.0,
            7e9,
            {"accelerator": "a100-80gb-sxm", "n_gpus": 8, "precision": "fp8"},
            catalog=cat,
        )


#: llm-foundry's published MFU (incl. attention FLOPs) per benchmark row
#: (scripts/train/benchmarking/README.md, quoted in data/published_runs.csv notes).
LLM_FOUNDRY_MFU = {
    "mpt-70b-bench-h100": 0.4257,
    "mpt-70b-bench-a100-80gb": 0.5333,
    "mpt-30b-bench-h100": 0.3811,
    "mpt-30b-bench-a100-80gb": 0.553,
    "mpt-13b-bench-h100": 0.3979,
    "mpt-13b-bench-a100-80gb": 0.5957,
    "mpt-7b-bench-h100": 0.4644,
    "mpt-7b-bench-a100-80gb": 0.6423,
    "mpt-7b-bench-a100-40gb": 0.5092,
}


@pytest.mark.parametrize("run", list(LLM_FOUNDRY_MFU))
def test_measured_mfu_matches_llm_foundry_for_every_benchmark(cat, run):
    """The FLOP accounting behind measured_mfu (6 N + 12 L d s per token, the engine's shape)
    reproduces every MFU llm-foundry published from its own tokens/s, within half a point."""
    row = cat.tables["published_runs"].set_index("run_id").loc[run]
    r = pilot_time_factor(
        row["tokens_per_s_per_gpu"],
        row["params_total"],
        {"accelerator": row["accelerator_id"], "n_gpus": int(row["gpu_count"])},
        seq_len=int(row["seq_len"]),
        attention="full",
        catalog=cat,
    )
    assert r["measured_mfu"] == pytest.approx(LLM_FOUNDRY_MFU[run], abs=0.005)
