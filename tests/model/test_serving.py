"""Serving throughput and price (workbook.model.serving): decode is bandwidth bound."""

import math

import pytest

from workbook import inference_frame


def test_inference_decode_is_bandwidth_bound_and_priced():
    df = inference_frame(70e9, ["h200-sxm", "l40s", "b300-hgx", "mi350x"], precision="fp8")
    assert set(df["accelerator"]) == {"h200-sxm", "l40s", "b300-hgx", "mi350x"}
    h200 = df.set_index("accelerator").loc["h200-sxm"]
    assert h200["decode_tokens_per_s_per_gpu"] > 0 and math.isfinite(h200["usd_per_million_tokens"])
    # A 70B FP8 model (70 GB) needs 2 L40S (48 GB each) but fits one H200.
    assert df.set_index("accelerator").loc["l40s", "gpus_per_replica"] >= 2
    assert h200["gpus_per_replica"] == 1


def test_inference_moe_keeps_every_expert_resident_but_reads_only_the_routed_weights():
    """100B total / 10B active, BF16 on H200: 200 GB of weights stay resident (same GPUs per replica
    as a dense 100B); at batch 1 a decode step reads the active 20 GB (200 x (1 - 0.9^1)); at batch
    B the expected 200 x (1 - 0.9^B) GB; prefill costs 2 x 10B FLOPs per token, a tenth of the dense
    100B's."""
    moe1 = inference_frame(100e9, ["h200-sxm"], n_active_params=10e9, max_batch=1).iloc[0]
    assert moe1["weights_read_gb_per_step"] == pytest.approx(20.0)
    moe = inference_frame(100e9, ["h200-sxm"], n_active_params=10e9).iloc[0]
    dense = inference_frame(100e9, ["h200-sxm"]).iloc[0]
    assert moe["weights_read_gb_per_step"] == pytest.approx(200.0 * (1 - 0.9 ** moe["batch"]))
    assert dense["weights_read_gb_per_step"] == pytest.approx(200.0)
    assert (
        moe["gpus_per_replica"] == dense["gpus_per_replica"] == 2
    )  # 200 GB does not fit one 141 GB H200
    assert moe["prefill_tokens_per_s_per_gpu"] == pytest.approx(
        10 * dense["prefill_tokens_per_s_per_gpu"]
    )
    assert moe["decode_tokens_per_s_per_gpu"] > dense["decode_tokens_per_s_per_gpu"]
    assert moe["usd_per_million_tokens"] < dense["usd_per_million_tokens"]
    # n_active_params = n_params is the dense model.
    same = inference_frame(100e9, ["h200-sxm"], n_active_params=100e9).iloc[0]
    assert same["decode_tokens_per_s_per_gpu"] == pytest.approx(
        dense["decode_tokens_per_s_per_gpu"]
    )
    with pytest.raises(
        ValueError,
        match=r"n_active_params=200000000000.0 exceeds n_params=100000000000.0; "
        r"allowed: 0 < n_active_params <= n_params",
    ):
        inference_frame(100e9, ["h200-sxm"], n_active_params=200e9)
    with pytest.raises(ValueError, match=r"n_active_params"):
        inference_frame(100e9, ["h200-sxm"], n_active_params=-1)
