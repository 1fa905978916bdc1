"""Rent and ownership cost (workbook.model.cost), by hand."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
