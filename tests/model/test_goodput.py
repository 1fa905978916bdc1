"""Whole-run goodput (workbook.model.goodput): Young / Daly optimal checkpointing."""

from hypothesis import given, settings
from hypothesis import strategies as st

from workbook.model import goodput
from workbook.model.goodput import GOODPUT_FLOOR


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([8, 64, 1024, 16384]), st.floats(1e-6, 1e-4), st.floats(1.0, 5.0))
def test_goodput_falls_with_failure_rate(n, rate, k):
    g1 = goodput(n, failure_rate_per_gpu_hour=rate, checkpoint_hours=0.02, restart_hours=0.1)
    g2 = goodput(n, failure_rate_per_gpu_hour=rate * k, checkpoint_hours=0.02, restart_hours=0.1)
    assert g2 <= g1


def test_goodput_llama3_scale_is_around_90_percent():
    """Llama 3 (arXiv 2407.21783): >90% effective training time on 16K H100 with 419 interruptions
    in 54 days."""
    g = goodput(
        16384,
        failure_rate_per_gpu_hour=419 / (54 * 24 * 16384),
        checkpoint_hours=0.02,
        restart_hours=0.1,
    )
    assert 0.8 < g < 0.95


def test_goodput_never_falls_below_its_floor():
    g = goodput(16384, failure_rate_per_gpu_hour=1.0, checkpoint_hours=1.0, restart_hours=1.0)
    assert g == GOODPUT_FLOOR
