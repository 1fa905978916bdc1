"""What the money buys (workbook.present.breakdown): an option's bill, whose columns add up."""

import pytest

from workbook import presets, recommend
from workbook.decide import option_row
from workbook.present.breakdown import bill_amounts, bill_frame
from workbook.present.memo import memo


@pytest.fixture(scope="module")
def rec():
    return recommend(presets["funded-startup-30b-domain"], sensitivity=False)


@pytest.mark.parametrize("acquisition", ["buy-new", "rent-on-demand", "rent-reserved"])
def test_the_lines_add_up_to_the_first_steady_and_per_year_totals(rec, acquisition):
    row = option_row(rec.options, "h200-sxm", 24, acquisition)
    a = bill_amounts(row)
    lines, total = a.iloc[:-1], a.iloc[-1]
    assert total["line"] == "Total"
    for key, column in (
        ("first_year", "first_year_cost_usd"),
        ("steady_year", "steady_year_cost_usd"),
        ("per_year", "cost_per_year_usd"),
    ):
        assert lines[key].sum() == pytest.approx(row[column]), key
        assert total[key] == row[column]


def test_an_owned_clusters_bill_names_its_capex_and_opex(rec):
    """3 nodes of H200: GPUs $708,000 (24 x 29,500), a one-layer network $81,000 and a platform
    engineer $300,000 a year; a capex line counts in the first year only."""
    f = bill_frame(option_row(rec.options, "h200-sxm", 24, "buy-new")).set_index("What")
    assert f.loc["GPUs", "First year"] == "$708,000" and f.loc["GPUs", "Steady year"] == ""
    assert f.loc["Scale-out network", "Kind"] == "capex, once"
    assert f.loc["Platform engineers", "Steady year"] == "$300,000"
    for line in ("Support contract", "Storage (data and checkpoints)", "Depreciation (capex less "
                 "resale, over the life)"):  # fmt: skip
        assert line in f.index
    assert list(f.columns) == ["Kind", "First year", "Steady year", "Cost per year"]


def test_the_memo_shows_what_the_money_buys(rec):
    html = memo(rec.scenario, rec=rec).html
    assert "What the money buys" in html and "Steady year" in html
