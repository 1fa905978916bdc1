"""Notebook 04's table (workbook.guides.power): servers' power against TDP x GPUs, racks.

Values are checked by hand calculation from the catalog (data/*.csv) or against the engine
function each table wraps, so a table can never drift from the engine it claims to show.
"""

import pandas as pd
import pytest

from workbook.guides.power import power_table


def test_power_table_reproduces_dgx_b200_not_tdp_x_48(cat):
    """48 B200 = 6 DGX B200 x (8 x 1.0 kW + 6.3 kW host) = 6 x 14.3 = 85.8 kW vs the article's
    48 kW. Racks: one 14.3 kW node per 20 kW rack (6 racks), two per 40 kW (3), three per 135 kW
    (space: 3)."""
    t = power_table(catalog=cat).set_index("accelerator")
    b = t.loc["b200-hgx"]
    assert b["node_kw"] == pytest.approx(14.3) and b["nodes"] == 6
    assert b["it_kw"] == pytest.approx(85.8) and b["article_kw"] == 48.0
    assert b["it_over_article"] == pytest.approx(85.8 / 48)
    assert (b["racks_20kw"], b["racks_40kw"], b["racks_135kw"]) == (6, 3, 2)
    assert b["facility_kw"] == pytest.approx(85.8 * 1.54)
    assert t.loc["h100-sxm", "it_kw"] == pytest.approx(
        6 * (8 * 0.7 + 4.6)
    )  # 61.2 vs the article's 33.6
    assert t.loc["b300-hgx", "it_kw"] == pytest.approx(6 * (8 * 1.1 + 5.7))  # 87.0 vs 57.6
    assert t.loc["mi350x", "article_tdp_w"] == 750 and t.loc["mi350x", "tdp_w"] == 1000
    assert (t["tdp_x_gpus_kw"] == t["tdp_w"] * 48 / 1000).all()


def test_nvl72_rack_needs_a_liquid_rack(cat):
    """GB300 NVL72: 18 trays x (4 x 1.4 kW + 1.9 kW) = 135 kW, one whole rack; no 20 or 40 kW rack
    holds it."""
    t = power_table(["gb300-nvl72"], n_gpus=72, cooling="liquid", catalog=cat).iloc[0]
    assert t["it_kw"] == pytest.approx(135.0)
    assert pd.isna(t["racks_20kw"]) and pd.isna(t["racks_40kw"]) and t["racks_135kw"] == 1
    assert t["facility_kw"] == pytest.approx(135.0 * 1.15)


def test_power_bad_input():
    with pytest.raises(ValueError, match=r"accelerators contains 'tpu-v5p', which has no TDP"):
        power_table(["tpu-v5p"])
    with pytest.raises(ValueError, match=r"rack_limits_kw has 1 invalid value"):
        power_table(rack_limits_kw=[20, 0])
    with pytest.raises(ValueError, match=r"n_gpus=4.5"):
        power_table(n_gpus=4.5)
    with pytest.raises(ValueError, match=r"cooling='immersion' is not allowed"):
        power_table(cooling="immersion")
