"""Argument helpers of workbook.checks."""

import numpy as np

from workbook.checks import by_name


def test_by_name_maps_every_row_in_order():
    """Each row gets its own name's value (looked up once per distinct name), in row order."""
    table = {"bf16": 1.0, "fp8": 0.5, "fp4": 0.25}
    names = np.array(["fp8", "bf16", "fp8", "fp4", "bf16"], dtype=object)
    assert by_name(table, names).tolist() == [0.5, 1.0, 0.5, 0.25, 1.0]
    assert by_name(table, names).dtype == float
