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


def test_tornado_labels_are_in_the_readers_units(rec):
    labels = set(charts.tornado_data(rec)["label"])
    assert "Runs per year (utilization): 3 - 12 runs a year" in labels
    assert any(x.startswith("Rental prices: $") and x.endswith(" per GPU-hour") for x in labels)
    assert any(x.startswith("Matmul efficiency (MFU): 0.") and x.endswith(" MFU") for x in labels)
    assert "Electricity price: $0.060 - $0.190 per kWh" in labels


def test_the_memos_tornado_labels_are_whole_and_its_ids_on_one_line(rec):
    """The memo's SVGs drew every y label at Vega's default 180 px (the 260 px limit was never
    applied: ``not Undefined`` is False), so "Weeks lost to an immature stack: 2 - 12 weeks a
    year per engineer on ROCm" ended in an ellipsis. A label longer than 260 px at 5.4 px a
    character is drawn in lines instead, its name on the first."""
    tornado = charts.to_svg(charts.tornado_chart(rec))
    assert "<tspan>Weeks lost to an immature stack</tspan>" in tornado
    assert "…" not in tornado
    power = charts.to_svg(charts.power_chart(rec))
    assert "<tspan" not in power and ">gb200-nvl72</text>" in power
