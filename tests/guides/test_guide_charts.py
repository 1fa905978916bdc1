"""The guides' charts (workbook.present.guide_charts): they render offline as SVG and refuse a table
without the columns they need."""

import numpy as np
import pandas as pd
import pytest

from workbook.calibrate import accuracy_table
from workbook.guides.memory_fit import memory_fit_table
from workbook.guides.speed import network_comparison
from workbook.present.charts import to_svg
from workbook.present.guide_charts import (
    accuracy_chart,
    bandwidth_chart,
    memory_ledger_chart,
    power_chart,
    rent_vs_buy_chart,
    step_breakdown_chart,
)


@pytest.fixture(scope="module")
def fit70(cat):
    return memory_fit_table(
        70e9, ["h200-sxm", "b200-hgx", "a100-80gb-sxm", "h100-sxm"], catalog=cat
    ).set_index("accelerator")


@pytest.fixture(scope="module")
def network(cat):
    return network_comparison(catalog=cat)


def test_accuracy_chart_has_log_axes_identity_line_and_band(cat):
    t = accuracy_table(cat)
    spec = accuracy_chart(t).to_dict()
    assert len(spec["layer"]) == 3
    assert all(layer["encoding"]["x"]["scale"]["type"] == "log" for layer in spec["layer"])
    band = accuracy_chart(t).data  # the reference lines, hoisted by altair to the layer chart
    np.testing.assert_allclose(band["lo"], 0.75 * band["x"])
    np.testing.assert_allclose(band["hi"], 1.25 * band["x"])
    assert to_svg(accuracy_chart(t)).lstrip().startswith("<svg")


def test_charts_render_offline_and_reject_wrong_tables(cat, network, fit70):
    assert "<svg" in to_svg(step_breakdown_chart(network))[:200]
    assert "<svg" in to_svg(memory_ledger_chart(fit70.reset_index()))[:200]
    for fn in (
        memory_ledger_chart,
        step_breakdown_chart,
        bandwidth_chart,
        power_chart,
        accuracy_chart,
    ):
        with pytest.raises(ValueError, match=r"table lacks the column"):
            fn(pd.DataFrame({"x": [1]}))
    with pytest.raises(ValueError, match=r"curve is a list"):
        rent_vs_buy_chart([1, 2])
