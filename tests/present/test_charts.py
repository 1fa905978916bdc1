"""The numbers behind the recommendation's charts (workbook.present.charts), and the SVG export."""

import math

import numpy as np
import pytest

from workbook import presets, recommend
from workbook.present import charts


@pytest.fixture(scope="module")
def rec():
    return recommend(presets["funded-startup-30b-domain"], monte_carlo_samples=100)


def test_frontier_contains_the_pick(rec):
    d = charts.frontier_data(rec)
    assert d["pick"].sum() == 1
    pick = d[d["pick"]].iloc[0]
    assert pick["cost_per_run_usd"] == pytest.approx(rec.top.cost_per_run_usd)


def test_rent_vs_buy_lines_cross_at_the_break_even(rec):
    d = charts.rent_vs_buy_data(rec).pivot(
        index="runs_per_year", columns="acquisition", values="cost_per_year_usd"
    )
    diff = (d["buy-new"] - d["rent-on-demand"]).to_numpy()
    runs = d.index.to_numpy()
    cross = runs[np.flatnonzero(np.diff(np.sign(diff)))[0]]
    assert math.isfinite(rec.breakeven_runs_per_year)
    assert abs(cross - rec.breakeven_runs_per_year) < (runs[1] - runs[0]) * 1.5


def test_power_chart_flags_nvl72_against_a_40kw_rack(rec):
    d = charts.power_data(rec).set_index("accelerator")
    assert not d.loc["gb300-nvl72", "fits"] and d.loc["gb300-nvl72", "rack_kw_needed"] > 100
    assert d.loc["h200-sxm", "fits"]


def test_every_chart_renders_to_svg_with_marks(rec):
    for name, chart in charts.all_charts(rec).items():
        svg = charts.to_svg(chart)
        assert svg.startswith("<svg") and svg.count("<path") > 3, name


def test_rent_vs_buy_data_is_the_decision_curve(rec):
    """The chart reshapes workbook.decide.cost_per_year_curve; it computes no cost itself."""
    from workbook.decide import cost_per_year_curve

    d = charts.rent_vs_buy_data(rec)
    assert list(d.columns) == ["runs_per_year", "acquisition", "cost_per_year_usd"]
    o = rec.options
    same = o[
        (o["accelerator"] == rec.top.accelerator)
        & (o["n_gpus"] == rec.top.n_gpus)
        & np.isfinite(o["price"])
    ]
    curve = cost_per_year_curve(rec.scenario, same, np.unique(d["runs_per_year"]))
    assert np.allclose(d["cost_per_year_usd"], curve["cost_per_year_usd"])


def test_power_data_uses_the_recommendations_rack_limit(rec):
    from workbook.decide import site_defaults

    limit = site_defaults(rec.scenario, rec.catalog)["rack_limit_kw"]
    assert (charts.power_data(rec)["rack_limit_kw"] == limit).all()


def test_tornado_data_has_both_ends_of_every_assumption(rec):
    d = charts.tornado_data(rec)
    assert len(d) == 2 * len(rec.sensitivity)
    assert set(d["end"]) == {"low", "high"}


def test_chart_data_names_every_chart():
    assert list(charts.CHART_DATA) == list(charts.CHARTS)


# --- risk as pictures ----------------------------------------------------------------------------
def _layers(chart) -> list[dict]:
    """The layers of a layered chart's spec, each with its data rows."""
    spec = chart.to_dict()
    return [
        {**layer, "rows": spec["datasets"].get(layer.get("data", {}).get("name"), [])}
        for layer in spec["layer"]
    ]


def test_risk_days_bars_run_from_p10_to_p90_against_the_deadline(rec):
    """Hand-checked frame: each bar is the option's own time_to_result_days_p10 .. _p90 with the
    tick at its median, the pick first and red; the dashed rule sits at the scenario's 120 days."""
    from workbook.decide import option_row

    d = charts.risk_data(rec)
    assert list(d["option"].iloc[:1]) == [
        f"{rec.top.acquisition} {rec.top.n_gpus} x {rec.top.accelerator}"
    ]
    row = option_row(rec.options, rec.top.accelerator, rec.top.n_gpus, rec.top.acquisition)
    first = d.iloc[0]
    assert (first["days_p10"], first["days_p50"], first["days_p90"]) == (
        row["time_to_result_days_p10"],
        row["time_to_result_days"],
        row["time_to_result_days_p90"],
    )
    assert (d["deadline_days"] == 120).all() and (d["budget_usd"] == 3e6).all()
    bar, tick, rule = _layers(charts.risk_days_chart(rec))
    assert bar["mark"]["type"] == "bar" and bar["encoding"]["x"]["field"] == "days_p10"
    assert bar["encoding"]["x2"]["field"] == "days_p90"
    assert tick["encoding"]["x"]["field"] == "days_p50"
    assert [r["x"] for r in rule["rows"]] == [120.0]
    assert bar["encoding"]["color"]["scale"]["range"][0] == charts.PICK_COLOUR


def test_risk_cost_bars_are_the_first_year_against_the_budget(rec):
    """The budget holds the first year, so the cost bars are first-year costs: for the on-demand
    pick, 6 runs x its cost per run at p10 and p90 ($9,349 and $50,397 a run in the golden
    recommendation: $56,096 and $302,385)."""
    d = charts.risk_data(rec).iloc[0]
    assert d["first_year_usd_p10"] == pytest.approx(6 * d["cost_per_run_usd_p10"])
    assert d["first_year_usd_p90"] == pytest.approx(6 * d["cost_per_run_usd_p90"])
    bar, _tick, rule = _layers(charts.risk_cost_chart(rec))
    assert bar["encoding"]["x"]["field"] == "first_year_usd_p10"
    assert [r["x"] for r in rule["rows"]] == [3e6]
    assert "$3.0M budget" in charts.risk_cost_chart(rec).to_dict()["title"]


def test_wins_sum_the_monte_carlo_shares_per_accelerator(rec):
    """Hand-made Monte Carlo: two MI355X options (0.5 + 0.2) and one B200 (0.3) -> MI355X 70 %
    first and marked as the pick's, then B200 30 %."""
    import dataclasses

    import pandas as pd

    mc = pd.DataFrame(
        {
            "option": [
                "rent-on-demand 192 x mi355x",
                "rent-reserved 8 x b200-hgx",
                "rent-on-demand 256 x mi355x",
            ],
            "share": [0.5, 0.3, 0.2],
        }
    )
    d = charts.wins_data(dataclasses.replace(rec, monte_carlo=mc))
    assert list(d["accelerator"]) == ["mi355x", "b200-hgx"]
    assert d["share"].tolist() == pytest.approx([0.7, 0.3])
    assert d["pick"].tolist() == [True, False]
    assert d["options"].iloc[0] == "rent-on-demand 192 x mi355x, rent-on-demand 256 x mi355x"
    assert d["name"].iloc[0] == "AMD Instinct MI355X"


def test_wins_chart_names_the_draw_count(rec):
    from workbook.decide import monte_carlo_draws

    title = charts.wins_chart(rec).to_dict()["title"]
    assert f"{monte_carlo_draws(rec.catalog):,} Monte Carlo draws" in title


def test_tornado_labels_are_in_the_readers_units(rec):
    labels = set(charts.tornado_data(rec)["label"])
    assert "Runs per year (utilization): 3 - 12 runs a year" in labels
    assert any(x.startswith("Rental prices: $") and x.endswith(" per GPU-hour") for x in labels)
    assert any(x.startswith("Matmul efficiency (MFU): 0.") and x.endswith(" MFU") for x in labels)
    assert "Electricity price: $0.060 - $0.190 per kWh" in labels
