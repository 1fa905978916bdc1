"""Steady-state throughput against the published benchmarks
(:mod:`workbook.calibrate.benchmarks`)."""

import io

import numpy as np
import pytest

from workbook import calibrate
from workbook.calibrate.runs import run_configs
from workbook.cli import validate as cli_validate
from workbook.guides.speed import pilot_time_factor
from workbook.model import estimate_frame


def test_benchmark_throughput_is_the_steady_state_prediction(cat):
    b = calibrate.benchmark_table(cat).set_index("run")
    runs = cat.tables["published_runs"]
    assert (
        len(b)
        == (
            (runs["row_type"] == "throughput_benchmark") & runs["tokens_per_s_per_gpu"].notna()
        ).sum()
        == 29
    )
    row = runs.set_index("run_id").loc["mpt-7b-bench-h100"]
    pilot = pilot_time_factor(
        row["tokens_per_s_per_gpu"],
        row["params_total"],
        {"accelerator": "h100-sxm", "n_gpus": 8},
        seq_len=2048,
        catalog=cat,
    )
    # The benchmarks are predicted by the engine as fitted; a pilot is compared with the typical
    # level (the scenario's default), whose steady rate is the engine's / realized_time_ratio_p50.
    p50 = cat.param("assumptions", "realized_time_ratio_p50")
    assert b.loc["mpt-7b-bench-h100", "predicted_tok_s_gpu"] == pytest.approx(
        pilot["predicted_tokens_per_s_per_gpu"] * p50
    )
    np.testing.assert_allclose(
        b["error"], b["predicted_tok_s_gpu"] / b["published_tok_s_gpu"] - 1.0
    )
    assert (
        b.loc["nemo-llama3-8b-h100", "source"] == "NeMo (NVIDIA)"
        and b.loc["mtnlg-530b-2240gpu", "source"] == "papers"
    )
    assert b.loc["mpt-70b-bench-h100", "source"] == "llm-foundry (MosaicML)"
    # MoE rows are predicted on their active parameters: DeepSeek-V3 (37B active of 671B) is within
    # 25 %.
    assert abs(b.loc["nemo-deepseek-v3-gb200", "error"]) < 0.25
    figures = cli_validate.report(cat, out=io.StringIO(), cv=False)
    m = calibrate.metrics(b["published_tok_s_gpu"], b["predicted_tok_s_gpu"])
    assert (figures["benchmark_runs"], figures["benchmark_mdape"]) == (
        29,
        pytest.approx(m["mdape"]),
    )


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
