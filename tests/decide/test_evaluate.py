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
    # The rent doubles; a port of the team's code (TPU, Trainium) is engineers' time, not rent,
    # and the project's storage is billed by the month, a large rental's engineers and the team's
    # time on an immature stack by the year.
    yearly = o[
        ["porting_usd", "storage_usd_per_year", "staff_usd_per_year", "software_usd_per_year"]
    ].to_numpy(float)
    yearly = yearly.sum(axis=1)
    port = yearly[rented] / s.runs_per_year
    assert (o["porting_usd"].to_numpy(float)[rented] > 0).any()
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
    (budget - the year's storage) / the median rent times its median."""
    o = rec.options
    r = o[(o["acquisition"] == "rent-on-demand") & np.isfinite(o["first_year_cost_usd"])].iloc[0]
    storage = r["storage_usd_per_year"]
    ratio = (rec.scenario.budget_usd - storage) / (r["first_year_cost_usd"] - storage)
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


# --- the whole bill: staff of owned clusters, energy and CO2e per run (issue 15) ---------------


def _row(o, acc, n, mode):
    r = option_row(o, acc, n, mode)
    assert r is not None, (acc, n, mode)
    return r


def test_owned_clusters_pay_one_platform_engineer_per_16_nodes(rec):
    """engineer_cost_usd_per_year $300,000, nodes_per_platform_engineer 16 (data/assumptions.csv):
    3 nodes of H200 -> ceil(3 / 16) = 1 engineer = $300,000 a year; 24 nodes -> ceil(24 / 16) =
    2 = $600,000; one node, or any rental, needs none."""
    o = rec.options
    assert _row(o, "h200-sxm", 24, "buy-new")["staff_usd_per_year"] == 300_000
    assert _row(o, "h200-sxm", 192, "buy-new")["staff_usd_per_year"] == 600_000
    assert _row(o, "h200-sxm", 8, "buy-new")["staff_usd_per_year"] == 0
    assert _row(o, "h200-sxm", 24, "rent-on-demand")["staff_usd_per_year"] == 0


def test_the_staff_line_is_in_the_fixed_costs_the_year_and_the_first_year(rec):
    """Without the staff line (staff_factor=0) the 3-node H200 purchase costs $300,000 less a
    year and in its first year, and $300,000 / 6 runs = $50,000 less per run."""
    s, o = rec.scenario, rec.options
    pos = option_position(o, "h200-sxm", 24, "buy-new")
    with_staff, without = evaluate_arrays(s, o), evaluate_arrays(s, o, staff_factor=0.0)
    for key, delta in (
        ("fixed_usd_per_year", 300_000),
        ("cost_per_year_usd", 300_000),
        ("first_year_cost_usd", 300_000),
        ("cost_per_run_usd", 50_000),
    ):
        assert with_staff[key][pos] - without[key][pos] == pytest.approx(delta), key
    rented = option_position(o, "h200-sxm", 24, "rent-on-demand")
    assert with_staff["cost_per_run_usd"][rented] == without["cost_per_run_usd"][rented]


def test_large_rentals_pay_one_platform_engineer_per_64_nodes_for_the_time_rented(rec):
    """rented_staff_above_nodes 16, nodes_per_platform_engineer_rented 64, engineer_cost
    $300,000 (data/assumptions.csv): a rental of 24 H200 nodes (192 GPUs) -> 24 > 16, ceil(24 /
    64) = 1 engineer = $300,000 for a whole year, 16 nodes (128 GPUs) are not above 16 -> none.
    It pays them for the time it is rented: on demand 6 runs x its wall days x 24 h / 8,760 h of
    the $300,000 (by hand), reserved the whole year. The line is in the rental's cost per year,
    first and steady year (staff_factor 0 takes it out) and in its bill."""
    s, o = rec.scenario, rec.options
    demand = _row(o, "h200-sxm", 192, "rent-on-demand")
    assert demand["staff_full_year_usd"] == 300_000
    assert _row(o, "h200-sxm", 128, "rent-on-demand")["staff_full_year_usd"] == 0
    share = s.runs_per_year * demand["wall_days"] * 24 / 8760
    assert 0 < share < 0.1
    assert demand["staff_usd_per_year"] == pytest.approx(300_000 * share, rel=1e-12)
    assert _row(o, "h200-sxm", 192, "rent-reserved")["staff_usd_per_year"] == 300_000
    pos = option_position(o, "h200-sxm", 192, "rent-on-demand")
    with_staff, without = evaluate_arrays(s, o), evaluate_arrays(s, o, staff_factor=0.0)
    for key in ("cost_per_year_usd", "first_year_cost_usd", "steady_year_cost_usd"):
        assert with_staff[key][pos] - without[key][pos] == pytest.approx(300_000 * share), key
    # The tornado's engineer-cost end ($450,000 / $300,000 = 1.5x) moves it by half as much.
    high = evaluate_arrays(s, o, staff_factor=1.5)
    assert high["cost_per_year_usd"][pos] - with_staff["cost_per_year_usd"][pos] == (
        pytest.approx(150_000 * share)
    )


def test_breakeven_counts_the_staff_line(rec):
    """breakeven = (fixed + idle energy) / (rent per run - marginal energy per run): the staff
    line adds $300,000 / gain runs a year for the 3-node H200 cluster."""
    s, o = rec.scenario, rec.options
    best = _row(o, "h200-sxm", 24, "buy-new")
    no_staff = o.copy()
    no_staff["staff_full_year_usd"] = 0.0
    no_staff.update(evaluate(s, no_staff))
    rent = _row(o, "h200-sxm", 24, "rent-on-demand")
    energy_run = best["it_kw"] * best["pue"] * best["electricity"] * best["wall_days"] * 24
    rent_run = rent["cost_per_run_usd"] - rent["storage_usd_per_year"] / s.runs_per_year
    gain = rent_run - energy_run * (1 - best["idle_power_fraction"])
    assert gain > 0
    assert breakeven_for(s, o, best) - breakeven_for(s, no_staff, best) == pytest.approx(
        300_000 / gain
    )


def test_energy_and_co2e_per_run_by_hand(rec):
    """One node of 8 x H200: IT power 8 x 0.700 kW + 4.6 kW host = 10.2 kW. Rented, its run is
    counted at cloud_pue 1.15: 10.2 x 1.15 = 11.73 kWh an hour; owned in the scenario's air site
    at PUE 1.54: 15.708 kWh an hour; CO2e = kWh x 0.473 kg/kWh (Ember, world 2024)."""
    o = rec.options
    rent, buy = _row(o, "h200-sxm", 8, "rent-on-demand"), _row(o, "h200-sxm", 8, "buy-new")
    hours = rent["wall_days"] * 24
    assert rent["it_kw"] == pytest.approx(10.2)
    assert rent["energy_kwh"] == pytest.approx(11.73 * hours)
    assert buy["energy_kwh"] == pytest.approx(15.708 * hours)
    assert rent["co2e_kg"] == pytest.approx(11.73 * hours * 0.473)
    # Rented by the GPU-hour or owned, the energy is there for every option with a run time.
    ok = np.isfinite(o["wall_days"])
    assert (o.loc[ok, "energy_kwh"] > 0).all() and (o.loc[ok, "co2e_kg"] > 0).all()


def test_energy_scales_with_gpu_hours_and_co2e_with_the_grid(rec):
    """Full H200 nodes on demand: energy / GPU-hour = 10.2 kW / 8 x 1.15 = 1.46625 kWh whatever
    the size; a grid of 0.1 kg/kWh instead of 0.473 scales CO2e by 0.1 / 0.473, not the energy."""
    o = rec.options
    m = (o["accelerator"] == "h200-sxm") & (o["acquisition"] == "rent-on-demand")
    m &= (o["n_gpus"] % 8 == 0) & np.isfinite(o["wall_days"])
    per_gpu_hour = o.loc[m, "energy_kwh"] / (o.loc[m, "wall_days"] * 24 * o.loc[m, "n_gpus"])
    assert m.sum() >= 3
    np.testing.assert_allclose(per_gpu_hour, 10.2 / 8 * 1.15)
    clean = recommend(
        rec.scenario.model_copy(update={"grid_kg_co2e_per_kwh": 0.1}), sensitivity=False
    ).options
    np.testing.assert_allclose(clean["energy_kwh"], o["energy_kwh"])
    np.testing.assert_allclose(clean["co2e_kg"], o["co2e_kg"] * 0.1 / 0.473)
