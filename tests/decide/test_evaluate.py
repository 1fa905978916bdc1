"""Times, costs and the moving constraints as arrays; finding an option; ranking; break-even."""

import math

import numpy as np
import pandas as pd
import pytest

from workbook import presets, recommend
from workbook.decide import (
    TieRule,
    best_index,
    breakeven_for,
    cost_per_year_curve,
    evaluate,
    evaluate_arrays,
    option_position,
    option_row,
    rank_columns,
)


@pytest.fixture(scope="module")
def rec():
    return recommend(presets["funded-startup-30b-domain"], sensitivity=False)


def test_evaluate_at_base_values_reproduces_the_options_table(rec):
    ev = evaluate(rec.scenario, rec.options)
    for c in ev.columns:
        pd.testing.assert_series_equal(ev[c], rec.options[c])


def test_factors_broadcast_over_samples(rec):
    s, o = rec.scenario, rec.options
    ev = evaluate_arrays(s, o, rent_price_factor=np.array([[1.0], [2.0]]))
    assert ev["cost_per_run_usd"].shape == (2, len(o))
    rented = (o["acquisition"] == "rent-on-demand").to_numpy() & np.isfinite(o["price"]).to_numpy()
    # The rent doubles; a port of the team's code (TPU, Trainium) is engineers' time, not rent.
    port = o["porting_usd"].to_numpy(float)[rented] / s.runs_per_year
    assert (port > 0).any() and (port == 0).any()
    np.testing.assert_allclose(
        ev["cost_per_run_usd"][1][rented] - port, 2.0 * (ev["cost_per_run_usd"][0][rented] - port)
    )


def test_option_position_and_row_find_the_pick(rec):
    o, top = rec.options, rec.top
    pos = option_position(o, top.accelerator, top.n_gpus, top.acquisition)
    assert o.iloc[pos]["cost_per_run_usd"] == top.cost_per_run_usd
    assert option_row(o, top.accelerator, top.n_gpus, top.acquisition).name == o.index[pos]
    assert option_position(o, top.accelerator, 3, top.acquisition) is None
    assert option_row(o, "no-such-accelerator", 8, "buy-new") is None


def test_best_index_is_the_pick(rec):
    s, o, top = rec.scenario, rec.options, rec.top
    ev = evaluate_arrays(s, o)
    assert best_index(s, o, ev, TieRule.from_catalog(rec.catalog))[0] == option_position(
        o, top.accelerator, top.n_gpus, top.acquisition
    )


def test_rank_columns_follow_the_objective(rec):
    s = rec.scenario
    assert rank_columns(s) == ("cost_per_run_usd", "time_to_result_days")
    fast = s.replace(objective="fastest-within-budget")
    assert rank_columns(fast) == ("time_to_result_days", "cost_per_run_usd")


def test_cost_per_year_curve_at_the_scenarios_runs_is_the_options_cost(rec):
    s, o = rec.scenario, rec.options
    curve = cost_per_year_curve(s, o, [s.runs_per_year, 2 * s.runs_per_year])
    assert len(curve) == 2 * len(o)
    at_base = curve["cost_per_year_usd"].to_numpy()[: len(o)]
    np.testing.assert_array_equal(at_base, o["cost_per_year_usd"].to_numpy())


def test_breakeven_is_the_recommendations(rec):
    o, top = rec.options, rec.top
    best = option_row(o, top.accelerator, top.n_gpus, top.acquisition)
    assert breakeven_for(rec.scenario, o, best) == rec.breakeven_runs_per_year
    assert math.isfinite(rec.breakeven_runs_per_year)
