"""Training-time claims against the hardware's peak (workbook.model.claims)."""

import pytest

from workbook import check_claim


def test_claim_check_article_headline_is_physically_impossible():
    """70B x 5T = 2.1e24 FLOP; 128 H200 x 989 TFLOP/s x 48 days = 5.25e23: 4.0x the BF16 peak."""
    c = check_claim(70e9, 5e12, "h200-sxm", 128, 48)
    assert c.verdict == "physically-impossible"
    assert c.implied_mfu == pytest.approx(2.1e24 / (128 * 989e12 * 48 * 86400), rel=1e-9)
    assert c.implied_mfu == pytest.approx(4.0, abs=0.01)
    assert c.implied_mfu_fp8 == pytest.approx(2.0, abs=0.01)
    assert "4.0x the dense BF16 peak" in c.reason
    assert c.realistic_days > 300  # what it would really take


def test_claim_check_llama2_70b_is_plausible():
    """Llama 2 70B: 2T tokens, 1.72M A100 GPU-hours -> on 2048 GPUs 35 days; implied MFU ~0.43."""
    c = check_claim(68.977e9, 2e12, "a100-80gb-sxm", 2048, 1_720_320 / 2048 / 24)
    assert c.verdict == "plausible"
    assert c.implied_mfu == pytest.approx(0.428, abs=0.01)
