"""Steady-state throughput against the published benchmarks
(:mod:`workbook.calibrate.benchmarks`)."""

import io

import numpy as np
import pytest

from workbook import calibrate
from workbook.cli import validate as cli_validate
from workbook.guides.speed import pilot_time_factor


def test_benchmark_throughput_is_the_steady_state_prediction(cat):
    b = calibrate.benchmark_table(cat).set_index("run")
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
        25,
        pytest.approx(m["mdape"]),
    )
