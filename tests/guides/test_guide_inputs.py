"""What the guides share (workbook.guides.inputs): the data line they print."""

import pytest

from workbook.guides.inputs import about_data


def test_about_data_names_the_snapshot(cat):
    assert cat.snapshot()["data_hash"] in about_data(cat)
    assert about_data(cat).endswith("overrides: none")
    with pytest.raises(ValueError, match=r"catalog='x' is not a workbook Catalog"):
        about_data("x")
