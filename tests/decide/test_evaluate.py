"""Times, costs and the moving constraints as arrays; finding an option; ranking; break-even."""

import math

import numpy as np
import pandas as pd
import pytest

from workbook import ScenarioError, presets, recommend
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
from workbook.model import probability_within


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


def test_deadline_and_budget_hold_at_the_scenarios_confidence(rec):
    """deadline_ok <=> p_deadline >= confidence, budget_ok <=> p_budget >= confidence (away from
    the boundary, where the budget's line through two points and the CDF's 1.5e-7 error meet)."""
    o, c = rec.options, rec.scenario.confidence
    timed = np.isfinite(o["wall_days"])
    far = timed & (np.abs(o["p_deadline"] - c) > 1e-4)
    assert (o.loc[far, "deadline_ok"] == (o.loc[far, "p_deadline"] >= c)).all()
    costed = np.isfinite(o["first_year_cost_usd"]) & (np.abs(o["p_budget"] - c) > 1e-4)
    assert (o.loc[costed, "budget_ok"] == (o.loc[costed, "p_budget"] >= c)).all()
    assert ((o["p_deadline"] >= 0) & (o["p_deadline"] <= 1)).all()


def test_p_budget_of_a_rental_is_the_probability_of_its_run_time_by_hand(rec):
    """On-demand rent is GPU-hours x price: within the budget while the run takes at most
    budget / median first-year cost times its median."""
    o = rec.options
    r = o[(o["acquisition"] == "rent-on-demand") & np.isfinite(o["first_year_cost_usd"])].iloc[0]
    ratio = rec.scenario.budget_usd / r["first_year_cost_usd"]
    expected = probability_within(ratio, r["time_sigma_below"], r["time_sigma_above"])
    assert r["p_budget"] == pytest.approx(float(expected), abs=1e-9)


def test_a_higher_confidence_never_adds_an_option():
    s = presets["band-70b-to-400b"]
    feasible = {
        c: recommend(s.replace(confidence=c), sensitivity=False).options["feasible"].to_numpy()
        for c in (0.5, 0.8, 0.95)
    }
    assert feasible[0.5].sum() >= feasible[0.8].sum() >= feasible[0.95].sum()
    assert not (feasible[0.95] & ~feasible[0.8]).any()


def test_a_confidence_outside_its_range_names_the_field():
    with pytest.raises(ScenarioError, match="confidence=0.3"):
        presets["band-70b-to-400b"].replace(confidence=0.3)
