"""The tornado (one assumption at a time over its range) and the Monte Carlo (all at once)."""

import pandas as pd
import pytest

from workbook import presets, recommend
from workbook.decide.sensitivity import factors


@pytest.fixture(scope="module")
def rec():
    return recommend(presets["funded-startup-30b-domain"], monte_carlo_samples=200)


def test_tornado_and_monte_carlo(rec):
    t = rec.sensitivity
    assert {
        "assumption",
        "low",
        "high",
        "cost_per_run_at_low",
        "cost_per_run_at_high",
        "flips",
        "flips_at",
    } <= set(t.columns)
    assert len(t) >= 6
    assert (t["swing_usd"].diff().dropna() <= 0).all()  # sorted like a tornado
    mc = rec.monte_carlo
    assert mc["share"].sum() == pytest.approx(1.0)
    assert mc["share"].iloc[0] > 0


def test_every_factor_is_a_row_of_the_tornado(rec, cat):
    fs = factors(rec, cat)
    assert sorted(f.parameter for f in fs) == sorted(rec.sensitivity["parameter"])
    assert all(f.at_low.keys() == f.at_high.keys() for f in fs)


def test_sensitivity_added_later_equals_recommend_with_it():
    """The app shows the conclusion first and adds the tornado and Monte Carlo afterwards."""
    s = presets["funded-startup-30b-domain"]
    full = recommend(s, monte_carlo_samples=200)
    later = recommend(s, sensitivity=False)
    assert later.sensitivity.empty and later.monte_carlo.empty and later.headline == full.headline
    later.add_sensitivity(samples=0)
    assert later.monte_carlo.empty
    pd.testing.assert_frame_equal(later.sensitivity, full.sensitivity)
    later.add_sensitivity(samples=200, tornado=False)
    pd.testing.assert_frame_equal(later.monte_carlo, full.monte_carlo)


def test_add_sensitivity_uses_the_recommendations_own_catalog_by_default():
    """A recommendation computed with overrides moves its assumptions over the overridden ranges:
    add_sensitivity() without a catalog used to fall back to the shipped tables."""
    from workbook import load_catalog
    from workbook.decide import presets, recommend

    wide = load_catalog(
        [{"table": "assumptions", "key": "gemm_efficiency", "column": "low", "value": "0.3"}]
    )
    rec = recommend(presets["band-7b-to-70b"], catalog=wide, sensitivity=False)
    default = rec.add_sensitivity(samples=0).sensitivity.set_index("parameter")
    shipped = rec.add_sensitivity(load_catalog(), samples=0).sensitivity.set_index("parameter")
    assert default.loc["gemm_efficiency", "low"] == 0.3
    assert shipped.loc["gemm_efficiency", "low"] != 0.3


def test_engineer_cost_moves_an_owned_picks_staff_line():
    """band-400b-plus buys 1,536 B200 (192 nodes: ceil(192 / 16) = 12 engineers, $3.6M a year, 1
    run a year). Engineer cost $190K-$450K (data/assumptions.csv) around $300K moves its cost
    per run by 12 x ($190K - $300K) = -$1.32M and 12 x ($450K - $300K) = +$1.8M. (Owning only:
    with its support, spares and network lines the purchase now loses to a 1-year reservation.)"""
    owned = presets["band-400b-plus"].replace(acquisition_modes=["buy-new"])
    r = recommend(owned, monte_carlo_samples=0)
    assert (r.top.accelerator, r.top.n_gpus, r.top.acquisition) == ("b200-hgx", 1536, "buy-new")
    assert r.top.staff_usd_per_year == 12 * 300_000
    row = r.sensitivity.set_index("parameter").loc["engineer_cost_usd_per_year"]
    assert row["cost_per_run_at_low"] - r.top.cost_per_run_usd == pytest.approx(-1_320_000)
    assert row["cost_per_run_at_high"] - r.top.cost_per_run_usd == pytest.approx(1_800_000)
