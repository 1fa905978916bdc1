"""Rent and ownership cost (workbook.model.cost), by hand."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbook.model import cost
from workbook.model.cost import (
    breakeven_runs_per_year,
    capex,
    ownership_per_year,
    rent_cost_per_run,
)


@settings(max_examples=60, deadline=None)
@given(st.floats(1, 1e7), st.floats(0.01, 50), st.floats(1.0, 3.0))
def test_rent_cost_rises_with_price(hours, price, k):
    assert rent_cost_per_run(hours, price * k) >= rent_cost_per_run(hours, price)


def test_ownership_cost_by_hand():
    """$1M capex, 5 years, 15% resale, 9% capital: amortization 170,000 + capital 51,750 +
    colocation 10 kW x 12 x 195 = 23,400; energy 10 kW x 1.5 x $0.10 x (4,380 + 4,380 x 0.25)."""
    own = ownership_per_year(
        1e6,
        life_years=5,
        resale_fraction=0.15,
        cost_of_capital=0.09,
        it_kw=10,
        pue=1.5,
        electricity_usd_per_kwh=0.10,
        busy_hours_per_year=4380,
        idle_power_fraction=0.25,
        colocation_usd_per_kw_month=195,
    )
    assert own["amortization"] == pytest.approx(170_000)
    assert own["capital"] == pytest.approx(51_750)
    assert own["colocation"] == pytest.approx(23_400)
    assert own["energy_busy"] + own["energy_idle"] == pytest.approx(
        10 * 1.5 * 0.10 * (4380 + 4380 * 0.25)
    )


def test_capex_counts_servers_and_network():
    assert capex(
        16,
        gpu_price_usd=30000,
        server_cost_usd_per_node=66600,
        gpus_per_node=8,
        fabric_cost_usd_per_gpu=5000,
    ) == pytest.approx(16 * 30000 + 2 * 66600 + 16 * 5000)


def test_breakeven_runs_by_hand():
    """Fixed $300k/yr + idle energy $20k/yr; renting a run costs $100k, owning's marginal energy
    $10k x (1 - 0.25): 320,000 / (100,000 - 7,500) = 3.46 runs a year."""
    assert breakeven_runs_per_year(300_000, 20_000, 100_000, 10_000, 0.25) == pytest.approx(
        320_000 / 92_500
    )


def test_network_tiers_by_radix():
    """64-port switches, one per rail: 64 nodes on one layer, 64^2 / 2 = 2,048 on two."""
    tiers = cost.network_tiers(
        np.array([1, 2, 64, 65, 2048, 2049]), one_tier_max_nodes=64, two_tier_max_nodes=2048
    )
    np.testing.assert_array_equal(tiers, [0, 1, 1, 2, 2, 3])
    factor = cost.network_cost_factor(tiers, one_tier_factor=0.675, three_tier_factor=1.325)
    np.testing.assert_allclose(factor, [0, 0.675, 0.675, 1, 1, 1.325])
    with pytest.raises(ValueError, match="nodes"):
        cost.network_tiers(0, one_tier_max_nodes=64, two_tier_max_nodes=2048)


def test_capex_lines_sum_to_the_capex():
    """16 GPUs at $30,000 in 2 servers of $60,000, network $80,000, 2 % spares of (480,000 +
    120,000) = $12,000, setup $1,000: $673,000; without spares and setup it is capex()."""
    lines = cost.capex_lines(
        16,
        gpu_price_usd=30_000,
        server_cost_usd_per_node=60_000,
        gpus_per_node=8,
        network_usd=80_000,
        spare_fraction=0.02,
        setup_usd=1_000,
    )
    assert lines["spares"] == pytest.approx(12_000)
    assert lines["total"] == pytest.approx(480_000 + 120_000 + 80_000 + 12_000 + 1_000)
    plain = cost.capex(
        16,
        gpu_price_usd=30_000,
        server_cost_usd_per_node=60_000,
        gpus_per_node=8,
        fabric_cost_usd_per_gpu=5_000,
    )
    assert plain == pytest.approx(480_000 + 120_000 + 80_000)


def test_storage_tb_by_hand():
    """Llama 3 405B on 15.6T tokens: 15.6e12 x 4 bytes = 62.4 TB of tokens plus 5 checkpoints of
    405e9 x 14 bytes = 28.35 TB: 90.75 TB."""
    tb = cost.storage_tb(
        15.6e12, 405e9, bytes_per_token=4, checkpoints_kept=5, checkpoint_bytes_per_param=14
    )
    assert tb == pytest.approx(90.75)
