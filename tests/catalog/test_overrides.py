"""User overrides (workbook.catalog.overrides): applied, re-validated and reported."""

import pytest
from pandas import testing as pd_testing

from workbook.catalog import TABLES, CatalogError, Override, load_catalog, load_table, parse_table
from workbook.catalog.overrides import table_to_csv


def test_override_price_and_report_it_in_the_snapshot(tmp_path):
    f = tmp_path / "quotes.csv"
    f.write_text(
        "table,key,column,value,source,notes\n"
        "prices,h100-sxm:rent-on-demand,price_usd_per_gpu_hour,1.99,our Q4 quote,\n"
        "accelerators,h100-sxm,tdp_w,650,power-capped,\n"
    )
    base = load_catalog()
    cat = load_catalog(overrides=f)
    assert cat.price("h100-sxm", "rent-on-demand") == 1.99
    assert cat.accelerator("h100-sxm")["tdp_w"] == 650
    assert base.price("h100-sxm", "rent-on-demand") != 1.99  # shipped tables untouched
    snap = cat.snapshot()
    assert snap["data_hash"] == base.snapshot()["data_hash"]
    assert [o["key"] for o in snap["overrides"]] == ["h100-sxm:rent-on-demand", "h100-sxm"]


def test_override_adds_a_missing_default_price():
    cat = load_catalog().with_overrides(
        [Override("prices", "b300-hgx:rent-spot", "price_usd_per_gpu_hour", "3.1")]
    )
    assert cat.price("b300-hgx", "rent-spot") == 3.1


def test_override_with_a_bad_value_is_rejected_by_the_schema():
    with pytest.raises(CatalogError, match="below the allowed minimum"):
        load_catalog().with_overrides(
            [Override("accelerators", "h100-sxm", "memory_bw_tbps", "-1")]
        )


def test_override_of_unknown_row_lists_valid_keys():
    with pytest.raises(CatalogError, match="no accelerators row with accelerator_id 'h999'"):
        load_catalog().with_overrides([Override("accelerators", "h999", "tdp_w", "700")])


@pytest.mark.parametrize("name", list(TABLES))
def test_table_to_csv_round_trips_every_shipped_table(name):
    """An override re-validates its table through CSV: the round trip must change nothing."""
    df = load_table(name)
    again = parse_table(TABLES[name], table_to_csv(df, TABLES[name]), f"{name}.csv")
    pd_testing.assert_frame_equal(again, df)
