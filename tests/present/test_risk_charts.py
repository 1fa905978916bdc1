"""The risk pictures (workbook.present.risk_charts): p10 - p50 - p90 bars of days against the
deadline and of first-year cost against the budget, and the Monte Carlo's wins per accelerator."""

import pytest

from workbook import presets, recommend
from workbook.present import risk_charts
from workbook.present.chart_style import PICK_COLOUR


@pytest.fixture(scope="module")
def rec():
    return recommend(presets["funded-startup-30b-domain"])


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

    d = risk_charts.risk_data(rec)
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
    bar, tick, rule = _layers(risk_charts.risk_days_chart(rec))
    assert bar["mark"]["type"] == "bar" and bar["encoding"]["x"]["field"] == "days_p10"
    assert bar["encoding"]["x2"]["field"] == "days_p90"
    assert tick["encoding"]["x"]["field"] == "days_p50"
    assert [r["x"] for r in rule["rows"]] == [120.0]
    assert bar["encoding"]["color"]["scale"]["range"][0] == PICK_COLOUR


def test_risk_cost_bars_are_the_first_year_against_the_budget(rec):
    """The budget holds the first year, so the cost bars are first-year costs: for the on-demand
    pick, 6 runs x its cost per run at p10 and p90 ($9,349 and $50,397 a run in the golden
    recommendation: $56,096 and $302,385). A budget within 3x of the highest p90 is drawn as a
    dashed rule where it is."""
    import dataclasses

    d = risk_charts.risk_data(rec).iloc[0]
    assert d["first_year_usd_p10"] == pytest.approx(6 * d["cost_per_run_usd_p10"])
    assert d["first_year_usd_p90"] == pytest.approx(6 * d["cost_per_run_usd_p90"])
    highest = risk_charts.risk_data(rec)["first_year_usd_p90"].max()
    near = dataclasses.replace(rec, scenario=rec.scenario.replace(budget_usd=1e6))
    assert 1e6 <= risk_charts.OFF_SCALE * highest
    bar, _tick, rule = _layers(risk_charts.risk_cost_chart(near))
    assert bar["encoding"]["x"]["field"] == "first_year_usd_p10"
    assert [r["x"] for r in rule["rows"]] == [1e6]
    assert "domain" not in bar["encoding"]["x"]["scale"]
    subtitle = risk_charts.risk_cost_chart(near).to_dict()["title"]["subtitle"]
    assert subtitle == "dashed: the $1M budget; red: the pick"


def test_a_budget_far_beyond_the_bars_is_named_not_drawn(rec):
    """funded-startup's $3M budget is more than 3x the highest first-year p90 of its options
    (the chart drew every bar in its first eighth): no rule, the axis ends 5 % past that p90, and
    the subtitle says where the budget is, 3e6 / p90 times it, rounded."""
    d = risk_charts.risk_data(rec)
    highest = d["first_year_usd_p90"].max()
    assert 3e6 > risk_charts.OFF_SCALE * highest
    layers = _layers(risk_charts.risk_cost_chart(rec))
    assert [layer["mark"]["type"] for layer in layers] == ["bar", "tick"]
    assert layers[0]["encoding"]["x"]["scale"]["domain"] == [0, pytest.approx(1.05 * highest)]
    subtitle = risk_charts.risk_cost_chart(rec).to_dict()["title"]["subtitle"]
    times = f"{3e6 / highest:,.0f}x"
    assert subtitle == f"the $3M budget is off the scale, {times} the highest p90; red: the pick"


def test_dollar_axes_write_short_amounts(rec):
    """The tick labels of every dollar axis are $40M / $1.5B / $300K / $20, as the sentences
    write amounts, in the memo's SVG too (d3's default wrote 40,000,000)."""
    from workbook.present import charts

    svg = charts.to_svg(charts.tornado_chart(rec))
    assert ">$" in svg and ",000<" not in svg
    svg = charts.to_svg(charts.frontier_chart(rec))
    assert ">$1M<" in svg or ">$100K<" in svg or ">$10K<" in svg


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
    d = risk_charts.wins_data(dataclasses.replace(rec, monte_carlo=mc))
    assert list(d["accelerator"]) == ["mi355x", "b200-hgx"]
    assert d["share"].tolist() == pytest.approx([0.7, 0.3])
    assert d["pick"].tolist() == [True, False]
    assert d["options"].iloc[0] == "rent-on-demand 192 x mi355x, rent-on-demand 256 x mi355x"
    assert d["name"].iloc[0] == "AMD Instinct MI355X"


def test_wins_chart_names_the_draw_count(rec):
    from workbook.decide import monte_carlo_draws

    title = risk_charts.wins_chart(rec).to_dict()["title"]
    assert f"{monte_carlo_draws(rec.catalog):,} Monte Carlo draws" in title["subtitle"]
