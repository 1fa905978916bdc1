"""The shipped tables match their documented schema; broken copies fail with a clear error."""

import csv
import io
import math

import pandas as pd
import pytest

import workbook
from workbook.catalog import DATA_DIR, CatalogError, Override, UnknownIdError, load_catalog
from workbook.catalog.lookup import load_table, parse_table
from workbook.catalog.schema import TABLES

REQUIRED_ACCELERATORS = [
    "a100-40gb-sxm",
    "a100-80gb-sxm",
    "h100-sxm",
    "h800-sxm",
    "h100-pcie",
    "h200-sxm",
    "b200-hgx",
    "gb200-nvl72",
    "b300-hgx",
    "gb300-nvl72",
    "rtx-pro-6000-server",
    "l40s",
    "rtx-a6000",
    "rtx-6000-ada",
    "mi250x",
    "mi300x",
    "mi325x",
    "mi350x",
    "mi355x",
    "gaudi3",
]


@pytest.mark.parametrize("name", list(TABLES))
def test_every_shipped_table_loads_and_validates(name):
    df = load_table(name)
    assert len(df) > 0
    assert list(df.columns) == TABLES[name].column_names


@pytest.mark.parametrize("name", list(TABLES))
def test_every_row_has_a_source_and_a_date(name):
    df = load_table(name)
    src = "source" if "source" in df.columns else "source_url"
    assert df[src].str.len().min() > 3
    assert df["accessed"].notna().all()


@pytest.mark.parametrize("name", list(TABLES))
def test_every_empty_number_is_explained_in_notes(name):
    """Every numeric cell has a value, or the row's notes say something (why it is empty)."""
    df = load_table(name)
    numeric = [
        c.name for c in TABLES[name].columns if c.type in ("int", "float") and not c.required
    ]
    for _, row in df.iterrows():
        if any(pd.isna(row[c]) for c in numeric) and name not in ("published_runs",):
            assert isinstance(row["notes"], str) and len(row["notes"]) > 10, row.iloc[0]


def test_data_readme_documents_every_column():
    text = (DATA_DIR / "README.md").read_text()
    for t in TABLES.values():
        assert f"`{t.name}.csv`" in text
        for c in t.columns:
            assert f"`{c.name}`" in text, f"{t.name}.{c.name} is not documented in data/README.md"


def test_key_value_defaults_lie_within_their_ranges():
    for name in ("facility", "assumptions"):
        df = load_table(name)
        for _, r in df.dropna(subset=["low", "high"]).iterrows():
            assert r["low"] <= r["value"] <= r["high"], (
                f"{name}: {r['parameter']} {r['accelerator_id']}"
            )


def test_accelerator_table_has_the_required_ids_and_context_rows():
    acc = workbook.accelerators()
    assert "accelerator_id" in acc.columns
    assert set(REQUIRED_ACCELERATORS) <= set(acc["accelerator_id"])
    context = acc[acc["availability"] == "rent-only"]["accelerator_id"].tolist()
    assert {"tpu-v5p", "tpu-v6e", "trainium2"} <= set(context)


def test_flops_are_dense_not_the_sparse_headlines():
    """accelerators_sourced.md §1: H100 BF16 989 dense (1,979 sparse); B200 FP8 4,500 dense (9,000 sparse)."""
    acc = workbook.accelerators().set_index("accelerator_id")
    assert acc.loc["h100-sxm", "tflops_dense_bf16"] == 989
    assert acc.loc["b200-hgx", "tflops_dense_fp8"] == 4500
    assert (
        acc.loc["b300-hgx", "tflops_dense_fp8"] == acc.loc["b200-hgx", "tflops_dense_fp8"]
    )  # not "doubled"
    assert acc.loc["mi350x", "tdp_w"] == 1000  # not the article's 750 W


def test_article_price_rows_are_present_and_sourced_to_the_article():
    p = load_table("prices")
    art = p[p["source_kind"] == "article"].set_index(["accelerator_id", "kind"])
    assert art.loc[("h100-sxm", "rent-spot"), "price_usd_per_gpu_hour"] == 2.85
    assert art.loc[("h200-sxm", "rent-spot"), "price_usd_per_gpu_hour"] == 3.40
    assert art.loc[("h100-sxm", "buy-used"), "price_usd_per_gpu"] == 18000


def test_article_claims_cover_the_impossible_headline():
    c = load_table("article_claims")
    assert (c["verdict"] == "physically-impossible").any()
    assert set(c["verdict"]) <= {
        "holds",
        "wrong",
        "contradicts-itself",
        "physically-impossible",
        "unverifiable",
    }


# --- corrupted copies --------------------------------------------------------------------------


def _corrupt(name: str, edit) -> str:
    rows = list(csv.reader(io.StringIO((DATA_DIR / f"{name}.csv").read_text())))
    edit(rows)
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    return buf.getvalue()


def test_missing_column_names_file_and_column():
    def drop_bw(rows):
        i = rows[0].index("memory_bw_tbps")
        for r in rows:
            del r[i]

    with pytest.raises(
        CatalogError,
        match=r"accelerators\.csv, line 1, column 'memory_bw_tbps': required column is missing",
    ):
        parse_table(TABLES["accelerators"], _corrupt("accelerators", drop_bw), "accelerators.csv")


def test_text_in_a_number_column_names_line_and_value():
    def text(rows):
        rows[3][rows[0].index("tflops_dense_bf16")] = "about 989"

    with pytest.raises(
        CatalogError, match=r"line 4, column 'tflops_dense_bf16': 'about 989' is not a number"
    ):
        parse_table(TABLES["accelerators"], _corrupt("accelerators", text), "accelerators.csv")


def test_negative_bandwidth_is_below_minimum():
    def neg(rows):
        rows[2][rows[0].index("memory_bw_tbps")] = "-3.35"

    with pytest.raises(
        CatalogError, match=r"line 3, column 'memory_bw_tbps': -3.35 is below the allowed minimum"
    ):
        parse_table(TABLES["accelerators"], _corrupt("accelerators", neg), "accelerators.csv")


def test_duplicate_id_is_reported_with_both_lines():
    def dup(rows):
        rows[3][0] = rows[2][0]

    with pytest.raises(
        CatalogError, match=r"line 4, column 'accelerator_id': duplicate id .* \(first on line 3\)"
    ):
        parse_table(TABLES["accelerators"], _corrupt("accelerators", dup), "accelerators.csv")


def test_bad_enum_lists_allowed_values():
    def bad(rows):
        rows[2][rows[0].index("cooling_options")] = "water"

    with pytest.raises(
        CatalogError, match=r"'water' is not allowed; allowed: air, liquid, air\|liquid, cloud"
    ):
        parse_table(TABLES["accelerators"], _corrupt("accelerators", bad), "accelerators.csv")


def test_corrupted_file_on_disk_through_load_table(tmp_path):
    p = tmp_path / "prices.csv"
    p.write_text(
        _corrupt("prices", lambda rows: rows[1].__setitem__(rows[0].index("accessed"), "last week"))
    )
    with pytest.raises(
        CatalogError,
        match=r"prices\.csv, line 2, column 'accessed': 'last week' is not an ISO date",
    ):
        load_table("prices", p)


# --- lookups and overrides ----------------------------------------------------------------------


def test_unknown_id_lists_valid_ids():
    with pytest.raises(
        UnknownIdError, match=r"accelerator 'h300' is unknown; valid ids: a100-40gb-sxm, .*h100-sxm"
    ):
        load_catalog().accelerator("h300")


def test_data_is_read_relative_to_the_package_not_the_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_table("accelerators").shape[0] >= 23


def test_override_price_and_report_it_in_the_snapshot(tmp_path):
    f = tmp_path / "quotes.csv"
    f.write_text(
        "table,key,column,value,source,notes\nprices,h100-sxm:rent-on-demand,price_usd_per_gpu_hour,1.99,our Q4 quote,\n"
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


def test_default_prices_cover_every_buyable_part():
    wide = load_catalog().default_prices()
    acc = workbook.accelerators().set_index("accelerator_id")
    for a in acc.index[acc["availability"] == "buy-and-rent"]:
        assert not math.isnan(wide.loc[a, "buy-new"]), a
        assert not math.isnan(wide.loc[a, "rent-on-demand"]), a
