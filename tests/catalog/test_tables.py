"""The shipped tables match their documented schema (workbook.catalog.tables); broken copies fail
with an error naming file, line and column."""

import csv
import io

import pandas as pd
import pytest

from workbook.catalog import DATA_DIR, TABLES, CatalogError, load_catalog, load_table, parse_table
from workbook.catalog.tables import BUYABLE_FACILITY_ROWS, check_references, load_shipped_tables


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


def test_key_value_defaults_lie_within_their_ranges():
    for name in ("facility", "assumptions"):
        df = load_table(name)
        for _, r in df.dropna(subset=["low", "high"]).iterrows():
            assert r["low"] <= r["value"] <= r["high"], (
                f"{name}: {r['parameter']} {r['accelerator_id']}"
            )


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


def test_data_is_read_relative_to_the_package_not_the_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_table("accelerators").shape[0] >= 23


def test_a_new_accelerator_without_its_facility_and_price_rows_is_refused_by_name():
    """An accelerator row added without the facility rows and default prices the engine needs
    would price its servers at $0, power its hosts at 0 kW and wait 3.5 days for delivery (the
    rental wait): refused, naming every missing row."""
    tables = load_shipped_tables()
    accs = tables["accelerators"]
    new = accs[accs["accelerator_id"] == "h100-sxm"].copy()
    new["accelerator_id"] = "my-new-gpu"
    tables["accelerators"] = pd.concat([accs, new], ignore_index=True)
    with pytest.raises(CatalogError) as e:
        check_references(tables)
    msg = str(e.value)
    assert "'my-new-gpu' lacks the rows the engine needs" in msg
    for row in BUYABLE_FACILITY_ROWS:
        assert f"facility.csv:{row}:my-new-gpu" in msg
    assert "prices.csv:my-new-gpu:buy-new" in msg and "prices.csv:my-new-gpu:rent-on-demand" in msg


def test_a_new_cloud_only_accelerator_needs_only_a_rental_price():
    """A rent-only part (like a TPU) is never bought: no facility rows, but a rental price."""
    tables = load_shipped_tables()
    accs = tables["accelerators"]
    new = accs[accs["accelerator_id"] == "tpu-v5p"].copy()
    new["accelerator_id"] = "my-cloud-chip"
    tables["accelerators"] = pd.concat([accs, new], ignore_index=True)
    with pytest.raises(CatalogError, match=r"my-cloud-chip:rent-on-demand") as e:
        check_references(tables)
    assert "facility.csv" not in str(e.value)


def test_h100_default_rental_prices_are_dated_2025_or_later():
    """Issue 15: the H100's default rental prices are from 2025-2026 sources (the 1-year contract
    2.35 from SemiAnalysis's March 2026 index)."""
    p = load_catalog().tables["prices"]
    rent = p[
        (p["accelerator_id"] == "h100-sxm") & p["is_default"] & p["kind"].str.startswith("rent")
    ]
    assert len(rent) == 4
    assert (pd.to_datetime(rent["price_date"]) >= "2025-01-01").all()
    one_year = rent[rent["kind"] == "rent-reserved-1y"].iloc[0]
    assert one_year["price_usd_per_gpu_hour"] == 2.35 and one_year["source_kind"] == "aggregator"


def test_an_estimated_default_price_says_there_is_no_public_price():
    p = load_catalog().tables["prices"]
    est = p[p["is_default"] & (p["source_kind"] == "estimate")]
    assert len(est) >= 5
    assert est["provider"].str.startswith("no public price").all(), list(est["provider"])


def test_the_grid_tables_world_row_is_the_engines_default():
    cat = load_catalog()
    grid = cat.tables["grid_intensity"].set_index("region_id")["kg_co2e_per_kwh"]
    assert grid["world"] == cat.param("assumptions", "grid_kg_co2e_per_kwh") == 0.473
    assert grid["france"] < grid["germany"] < grid["india"]
