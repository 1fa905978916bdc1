"""Lookups of the catalog (workbook.catalog.lookup): ids, prices and the cached shipped copy."""

import math

import pytest

import workbook
from workbook.catalog import UnknownIdError, clear_cache, load_catalog, lookup

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


def test_accelerator_table_has_the_required_ids_and_context_rows():
    acc = workbook.accelerators()
    assert "accelerator_id" in acc.columns
    assert set(REQUIRED_ACCELERATORS) <= set(acc["accelerator_id"])
    context = acc[acc["availability"] == "rent-only"]["accelerator_id"].tolist()
    assert {"tpu-v5p", "tpu-v6e", "trainium2"} <= set(context)


def test_flops_are_dense_not_the_sparse_headlines():
    """accelerators_sourced.md §1: H100 BF16 989 dense (1,979 sparse); B200 FP8 4,500 dense
    (9,000 sparse)."""
    acc = workbook.accelerators().set_index("accelerator_id")
    assert acc.loc["h100-sxm", "tflops_dense_bf16"] == 989
    assert acc.loc["b200-hgx", "tflops_dense_fp8"] == 4500
    assert (
        acc.loc["b300-hgx", "tflops_dense_fp8"] == acc.loc["b200-hgx", "tflops_dense_fp8"]
    )  # not "doubled"
    assert acc.loc["mi350x", "tdp_w"] == 1000  # not the article's 750 W


def test_unknown_id_lists_valid_ids():
    with pytest.raises(
        UnknownIdError, match=r"accelerator 'h300' is unknown; valid ids: a100-40gb-sxm, .*h100-sxm"
    ):
        load_catalog().accelerator("h300")


def test_default_prices_cover_every_buyable_part():
    wide = load_catalog().default_prices()
    acc = workbook.accelerators().set_index("accelerator_id")
    for a in acc.index[acc["availability"] == "buy-and-rent"]:
        assert not math.isnan(wide.loc[a, "buy-new"]), a
        assert not math.isnan(wide.loc[a, "rent-on-demand"]), a


def test_clear_cache_re_reads_the_shipped_tables():
    """`validate --fit --write` rewrites assumptions.csv and must see the new values."""
    first = load_catalog()
    assert load_catalog() is first  # cached
    clear_cache()
    second = load_catalog()
    assert second is not first and second.data_hash == first.data_hash
    lookup._shipped.cache_clear()  # the older spelling, still used by the validate command
    assert load_catalog() is not second
