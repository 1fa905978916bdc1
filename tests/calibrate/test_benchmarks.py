"""Steady-state throughput against the published benchmarks
(:mod:`workbook.calibrate.benchmarks`)."""

import io

import numpy as np
import pytest

from workbook import calibrate
from workbook.calibrate.benchmarks import BENCHMARK_RUN_TOKENS
from workbook.calibrate.runs import run_configs, shape_columns
from workbook.cli import validate as cli_validate
from workbook.model import estimate_frame


def test_benchmark_throughput_is_the_steady_state_prediction(cat):
    b = calibrate.benchmark_table(cat).set_index("run")
    runs = cat.tables["published_runs"]
    assert (
        len(b)
        == (
            (runs["row_type"] == "throughput_benchmark") & runs["tokens_per_s_per_gpu"].notna()
        ).sum()
        == 139  # 118 + NeMo 25.09's 17 + AMD Primus v26.1's 4
    )
    rows = runs[runs["run_id"] == "mpt-7b-bench-h100"].assign(n_gpus=8)
    # the benchmark is predicted with MPT-7B's exact shape (shape_id, data/model_shapes.csv)
    shape = shape_columns(rows, cat.tables["model_shapes"])
    assert shape.iloc[0][["n_layers", "d_model", "ffn_hidden"]].tolist() == [32, 4096, 10923]
    typical = run_configs(
        rows, np.array([BENCHMARK_RUN_TOKENS]), "typical", cat.tables["model_shapes"]
    )
    typical["global_batch_tokens"] = rows["global_batch_tokens"].to_numpy(float)
    steady = estimate_frame(typical, catalog=cat)["steady_tokens_per_s_per_gpu"].iloc[0]
    # The benchmarks are predicted by the engine as fitted; the typical level (the scenario's
    # default, what a pilot is compared with) is the engine's steady rate / realized_time_ratio_p50.
    p50 = cat.param("assumptions", "realized_time_ratio_p50")
    assert b.loc["mpt-7b-bench-h100", "predicted_tok_s_gpu"] == pytest.approx(steady * p50)
    np.testing.assert_allclose(
        b["error"], b["predicted_tok_s_gpu"] / b["published_tok_s_gpu"] - 1.0
    )
    assert (
        b.loc["nemo-llama3-8b-h100", "source"] == "NeMo (NVIDIA)"
        and b.loc["mtnlg-530b-2240gpu", "source"] == "papers"
        and b.loc["primus-mlperf-llama31-8b-mi355x-8", "source"] == "Primus (AMD)"
        and b.loc["mlperf-v60-lora-mi355x-8", "source"] == "MLPerf (vendor submissions)"
    )
    assert b.loc["mpt-70b-bench-h100", "source"] == "llm-foundry (MosaicML)"
    # MoE rows are predicted on their active parameters: DeepSeek-V3 (37B active of 671B) is within
    # 25 %.
    assert abs(b.loc["nemo-deepseek-v3-gb200", "error"]) < 0.25
    out = io.StringIO()
    figures = cli_validate.report(cat, out=out, cv=False)
    m = calibrate.metrics(b["published_tok_s_gpu"], b["predicted_tok_s_gpu"])
    assert (figures["benchmark_runs"], figures["benchmark_mdape"]) == (
        139,
        pytest.approx(m["mdape"]),
    )
    # The tuned per-step overhead, and its factor by hand: 16M tokens on 16,384 GPUs is 976.6
    # tokens per GPU per step, 1 / (1 + 150 / 976.6) = 0.867.
    assert figures["tuned_step_overhead_tokens"] == 150.0
    assert "x 0.87 at 977 (16M tokens on 16,384 GPUs)" in out.getvalue()


def test_mlperf_lora_rows_are_read_as_published_and_predicted_as_lora(cat):
    """The MLPerf Training v5.0 Llama 2 70B LoRA rows: tokens/s per GPU = the log's samples/s x
    8192 tokens / 8 GPUs (hand calculation in their notes), and the engine predicts them as LoRA
    (4 N FLOPs per token, not 6 N): as a full fine-tune the same row would be slower."""
    runs = cat.tables["published_runs"].set_index("run_id")
    for run, samples_per_s in (
        ("mlperf-v50-lora-mi300x-8", 2.0280),
        ("mlperf-v50-lora-mi325x-8", 2.7306),
        ("mlperf-v50-lora-b200-8", 5.190),
        ("mlperf-v50-lora-gb200-8", 5.4399),
    ):
        assert runs.loc[run, "tokens_per_s_per_gpu"] == pytest.approx(
            samples_per_s * 8192 / 8, abs=1
        )
        assert runs.loc[run, "method"] == "lora"
    rows = runs.loc[["mlperf-v50-lora-b200-8"]].reset_index()
    lora = run_configs(rows.assign(n_gpus=8), np.array([1e11]))
    assert lora["method"].tolist() == ["lora"]
    full = run_configs(rows.assign(n_gpus=8, method=None), np.array([1e11]))
    assert full["method"].tolist() == ["full"]
    fast, slow = (
        estimate_frame(c, catalog=cat)["steady_tokens_per_s_per_gpu"].iloc[0] for c in (lora, full)
    )
    assert fast > slow


def test_cross_vendor_ratios_use_the_tuned_level(cat):
    """The MLPerf LoRA pairs: published ratio = the rows' tokens/s per GPU; predicted = the
    tuned-level steady rates, MI300X with the ROCm stack factor, so the calibration pair MI300X /
    B200 is exact by construction (the factor was measured on it)."""
    r = calibrate.throughput_ratios(cat).set_index("pair")
    pair = r.loc["MLPerf v5.0 LoRA MI300X / B200"]
    assert pair["published_ratio"] == pytest.approx(2077 / 5314)
    assert pair["predicted_ratio"] == pytest.approx(pair["published_ratio"], rel=1e-3)


def test_benchmarks_are_predicted_at_their_own_global_batch(cat):
    """``global_batch_tokens`` (data/published_runs.csv): the MLPerf LoRA rows run 8 sequences of
    8192 tokens a step (65,536; their notes), NeMo 25.11 Llama 3 8B GBS 128 x 8192 = 1,048,576,
    llm-foundry MPT-7B on 8 H100 48 x 2048 = 98,304 (its README row); the benchmark prediction
    uses that batch, and a row with no batch (NeMo DeepSeek-V3) is predicted at the default."""
    runs = cat.tables["published_runs"].set_index("run_id")
    assert runs.loc["mlperf-v50-lora-mi325x-8", "global_batch_tokens"] == 8 * 8192
    assert runs.loc["nemo-llama3-8b-h100", "global_batch_tokens"] == 128 * 8192
    assert runs.loc["mpt-7b-bench-h100", "global_batch_tokens"] == 48 * 2048
    assert np.isnan(runs.loc["nemo-deepseek-v3-gb200", "global_batch_tokens"])
    b = calibrate.benchmark_table(cat).set_index("run")
    for run in ("mlperf-v50-lora-b200-8", "mpt-7b-bench-h100", "nemo-deepseek-v3-gb200"):
        rows = runs.loc[[run]].reset_index().assign(n_gpus=lambda d: d["gpu_count"].astype(int))
        cfg = run_configs(rows, np.array([BENCHMARK_RUN_TOKENS]), shapes=cat.tables["model_shapes"])
        batch = rows["global_batch_tokens"].iloc[0]
        own = estimate_frame(cfg.assign(global_batch_tokens=batch), catalog=cat)
        default = estimate_frame(cfg, catalog=cat)
        predicted = b.loc[run, "predicted_tok_s_gpu"]
        assert predicted == pytest.approx(own["steady_tokens_per_s_per_gpu"].iloc[0])
        if np.isnan(batch):
            assert predicted == pytest.approx(default["steady_tokens_per_s_per_gpu"].iloc[0])
        else:
            assert predicted != pytest.approx(default["steady_tokens_per_s_per_gpu"].iloc[0])


def test_rows_entered_in_the_tenth_session_are_as_published(cat):
    """The hand calculations in the new rows' notes: MangoBoost's MI300X LoRA log, median of its
    five tracked_stats blocks 2.0274 samples/s x 8192 tokens / 8 GPUs = 2,076; the NeMo 24.12
    table's tokens/s/GPU as printed, with global batch = GBS x sequence length."""
    runs = cat.tables["published_runs"].set_index("run_id")
    mango = runs.loc["mlperf-v50-lora-mi300x-8-mangoboost"]
    assert mango["tokens_per_s_per_gpu"] == pytest.approx(2.0274 * 8192 / 8, abs=1)
    assert (mango["method"], mango["precision"], mango["global_batch_tokens"]) == (
        "lora",
        "fp8",
        65536,
    )
    for run, tok, gbs, seq in (
        ("nemo2412-llama2-7b-h100", 16934, 128, 4096),
        ("nemo2412-llama3-8b-h100", 12273, 128, 8192),
        ("nemo2412-llama3-70b-h100", 1524, 128, 8192),
        ("nemo2412-gpt3-175b-h100-512", 825, 2048, 2048),
        ("nemo2412-llama2-70b-lora-h100", 2621, 32, 4096),
    ):
        row = runs.loc[run]
        assert (row["tokens_per_s_per_gpu"], row["seq_len"]) == (tok, seq)
        assert row["global_batch_tokens"] == gbs * seq
        assert row["split"] == "holdout"
    # GPT-3 175B: 96 layers x (12 d^2 + 13 d) + embeddings (50,257 + 2,048) x d + final norm 2 d.
    d = 12288
    assert runs.loc["nemo2412-gpt3-175b-h100-512", "params_total"] == (
        96 * (12 * d * d + 13 * d) + (50257 + 2048) * d + 2 * d
    )


def test_mi325x_mamf_is_the_mi300x_value_times_amds_maf_ratio(cat):
    """MI325X and MI300X share the CDNA 3 compute; the 1000 W part holds a higher clock under dense
    GEMM. AMD's MAF (rocm-blogs, Measuring Max-Achievable FLOPs Part 2, Table 1): BF16 843 vs 708
    TFLOPs at 1447 vs 1207 MHz; the catalog's MI300X value x 843 / 708."""
    mi300x = cat.param("assumptions", "mamf_efficiency", "mi300x")
    assert cat.param("assumptions", "mamf_efficiency", "mi325x") == pytest.approx(
        mi300x * 843 / 708, abs=5e-4
    )
    r = calibrate.throughput_ratios(cat).set_index("pair")
    # The held-out MI325X / MI300X LoRA ratio (published 2796 / 2077 = 1.35) now comes within 11 %.
    pair = r.loc["MLPerf v5.0 LoRA MI325X / MI300X"]
    assert pair["published_ratio"] == pytest.approx(2796 / 2077)
    assert abs(pair["error"]) < 0.11


def test_cdna4_rows_are_the_hand_calculation_in_their_notes(cat):
    """tokens/s per GPU = samples/s x 8192 tokens / 8 GPUs: AMD Primus pull 656 (172,032 samples
    in 5877.2 s); MLPerf v6.0 LoRA, the median of the three whole MXFP4 blocks (384 samples each,
    block_start to block_stop in seconds) of each result_0 log."""
    runs = cat.tables["published_runs"].set_index("run_id")
    primus = 172032 / 5877.2 * 8192 / 8
    assert runs.loc["primus-mlperf-llama31-8b-mi355x-8", "tokens_per_s_per_gpu"] == round(primus)
    for run, blocks in (
        ("mlperf-v60-lora-mi355x-8", (50.221, 50.782, 50.167)),
        ("mlperf-v60-lora-mi350x-8", (62.659, 63.238, 62.759)),
    ):
        by_hand = np.median([384 / t for t in blocks]) * 8192 / 8
        row = runs.loc[run]
        assert row["tokens_per_s_per_gpu"] == round(by_hand)
        assert (row["precision"], row["method"], row["global_batch_tokens"]) == (
            "fp4",
            "lora",
            65536,
        )


def test_a_plan_without_a_shape_gets_the_derived_one_and_validate_says_how_far_it_is(cat):
    """From its parameter count alone Llama 3 8B is shaped from 8.03B, whose 6 N FLOPs include
    the 525M-parameter embedding lookup (128,256 x 4,096) that its exact shape does not multiply
    with: predicted slower than with the exact shape. A row with no shape (DeepSeek-V3) is the
    same either way. validate's two dense figures are these tables' MdAPE."""
    exact = calibrate.benchmark_throughput(cat, "tuned").set_index("run")
    derived = calibrate.benchmark_throughput(cat, "tuned", exact_shapes=False).set_index("run")
    run = "nemo-llama3-8b-b200"
    assert derived.loc[run, "predicted_tok_s_gpu"] < 0.95 * exact.loc[run, "predicted_tok_s_gpu"]
    deepseek = "nemo-deepseek-v3-gb200"
    assert (
        derived.loc[deepseek, "predicted_tok_s_gpu"] == exact.loc[deepseek, "predicted_tok_s_gpu"]
    )
    figures = cli_validate.report(cat, out=io.StringIO(), cv=False)
    for key, table in (("exact", exact), ("derived", derived)):
        dense = table[~table["moe"]]
        m = calibrate.metrics(dense["published_tok_s_gpu"], dense["predicted_tok_s_gpu"])
        assert figures[f"tuned_dense_{key}_mdape"] == pytest.approx(m["mdape"])


def test_mlperf_v50_scale_rows_are_their_logs_median_throughput(cat):
    """MLPerf v5.0's held-out scale rows (declared 2026-12-03): tokens/s per GPU is the median of
    result_0's tracked_stats throughput after the first, x 8192 / GPUs, by hand from the values
    their notes quote (Eos H100 8,192 GPUs: 292.0605 and 292.9101 the middle two of six; Tyche
    GB200 LoRA 72 GPUs: 37.8887 and 37.9155 of four); a log without the stat (Tyche GB200 405B,
    256 GPUs) by its last full block: 46,144 samples in 1,978.650 s."""
    runs = cat.tables["published_runs"].set_index("run_id")
    by_hand = {
        "mlperf-v50-405b-h100-8192": (292.0605 + 292.9101) / 2 * 8192 / 8192,
        "mlperf-v50-lora-gb200-72": (37.8887 + 37.9155) / 2 * 8192 / 72,
        "mlperf-v50-405b-gb200-256": 46144 / 1978.650 * 8192 / 256,
    }
    for run, want in by_hand.items():
        assert runs.loc[run, "tokens_per_s_per_gpu"] == pytest.approx(want, abs=0.06), run
        assert runs.loc[run, "split"] == "holdout"
    assert runs.loc["mlperf-v50-405b-h100-8192", "global_batch_tokens"] == 1536 * 8192
    b = calibrate.benchmark_table(cat).set_index("run")
    assert b.loc["mlperf-v50-lora-h200-8-hpe", "accelerator"] == "h200-sxm"


def test_mlperf_v50_second_batch_rows_are_their_logs_median_throughput(cat):
    """The second batch (declared 2026-12-03, read twice): by hand from the values their notes
    quote. Carina 1,024 GB200: 90.7386 the middle of five after the first; Lenovo's 32 H200
    (its first file result_00): three left, 8.8387 the middle; Nebius's 512 H200 (result_1, no
    result_0): 23.0249 of five; Dell's 16 H200: 4.6024 of five. All held out; GBS from the logs."""
    runs = cat.tables["published_runs"].set_index("run_id")
    by_hand = {
        "mlperf-v50-405b-gb200-1024-carina": (90.7386, 1024, 768),
        "mlperf-v50-lora-h200-32-lenovo": (8.8387, 32, 8),
        "mlperf-v50-405b-h200-512-nebius": (23.0249, 512, 1152),
        "mlperf-v50-lora-h200-16-dell": (4.6024, 16, 8),
    }
    for run, (samples_s, gpus, gbs) in by_hand.items():
        row = runs.loc[run]
        assert row["tokens_per_s_per_gpu"] == pytest.approx(samples_s * 8192 / gpus, abs=0.06)
        assert (row["split"], row["gpu_count"]) == ("holdout", gpus)
        assert row["global_batch_tokens"] == gbs * 8192
    assert "result_00.txt" in runs.loc["mlperf-v50-lora-h200-32-lenovo", "source"]
    assert "result_1.txt" in runs.loc["mlperf-v50-405b-h200-512-nebius", "source"]
    second = runs.index[runs["split_reason"].str.contains("second batch", na=False)]
    assert len(second) == 13


def test_torchtitan_h200_rows_are_its_table_and_a_table_of_their_own(cat):
    """torchtitan's H200 benchmark (Trainy on WhiteFiber, June 2025; declared 2026-12-04): the
    table's TPS/GPU as published (4 nodes 10,938, 8 nodes 10,753), FP8 (torchao Float8), sequence
    8,192, global batch 2 sequences x the GPU count x 8,192 (32 GPUs: 524,288 tokens); held out,
    on the catalog's H200 with Llama 3's exact shape. validate shows them as their own table,
    torchtitan (PyTorch), not as papers."""
    runs = cat.tables["published_runs"].set_index("run_id")
    for gpus, tps in ((32, 10938), (64, 10753)):
        row = runs.loc[f"torchtitan-llama31-8b-h200-{gpus}"]
        assert (row["tokens_per_s_per_gpu"], row["gpu_count"]) == (tps, gpus)
        assert (row["precision"], row["seq_len"], row["split"]) == ("fp8", 8192, "holdout")
        assert row["global_batch_tokens"] == 2 * gpus * 8192
        assert (row["accelerator_id"], row["shape_id"], row["software"]) == (
            "h200-sxm",
            "llama3-8b",
            "torchtitan",
        )
    assert 2 * 32 * 8192 == 524_288
    b = calibrate.benchmark_table(cat).set_index("run")
    assert set(b.loc[b.index.str.startswith("torchtitan-"), "source"]) == {"torchtitan (PyTorch)"}


def test_primus_mi325x_rows_are_amds_table_and_held_out(cat):
    """AMD Primus v26.1's measured MI325X pre-training figures (the ROCm blog "Primus Projection"
    quoting AMD's ROCm Performance Results page; declared 2026-12-07): tokens/s per GPU as
    published (8B FP8 16,224 on one node and 16,186 on 8; 70B FP8 1,726 and BF16 1,174 on 8
    nodes), sequence 8,192, the global batch the micro-batch x 8,192 x the GPU count (a lower
    bound), held out, shown as Primus (AMD). The 70B one-node figure (1,135 for both precisions)
    is not entered."""
    runs = cat.tables["published_runs"].set_index("run_id")
    expected = {
        "primus2601-llama31-8b-mi325x-8": (8, 16224, "fp8", 2, "llama3-8b"),
        "primus2601-llama31-8b-mi325x-64": (64, 16186, "fp8", 2, "llama3-8b"),
        "primus2601-llama31-70b-mi325x-64-fp8": (64, 1726, "fp8", 4, "llama3-70b"),
        "primus2601-llama31-70b-mi325x-64-bf16": (64, 1174, "bf16", 1, "llama3-70b"),
    }
    assert set(runs.index[runs.index.str.startswith("primus2601-")]) == set(expected)
    assert not (runs["tokens_per_s_per_gpu"] == 1135).any()
    for run, (gpus, tps, precision, micro, shape) in expected.items():
        row = runs.loc[run]
        assert (row["gpu_count"], row["tokens_per_s_per_gpu"], row["precision"]) == (
            gpus,
            tps,
            precision,
        )
        assert (row["accelerator_id"], row["shape_id"], row["split"]) == (
            "mi325x",
            shape,
            "holdout",
        )
        assert row["global_batch_tokens"] == micro * 8192 * gpus
        assert "declared 2026-12-07" in row["split_reason"]
    assert 4 * 8192 * 64 == 2_097_152
    b = calibrate.benchmark_table(cat).set_index("run")
    assert set(b.loc[list(expected), "source"]) == {"Primus (AMD)"}
