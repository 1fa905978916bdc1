"""The bill line by line: an owned option's staff, storage, network and support lines sum with the
rest to its capex, first year, steady year and cost per year (by hand on one option, and as an
identity on every option)."""

import math

import numpy as np
import pytest

from workbook import presets, recommend
from workbook.decide import option_row

CAPEX_LINES = ("gpu_usd", "server_usd", "network_usd", "spares_usd", "retrofit_usd", "setup_usd")
OPEX_OWNED = (
    "energy_usd_per_year",
    "colocation_usd_per_year",
    "staff_usd_per_year",
    "software_usd_per_year",
    "storage_usd_per_year",
    "support_usd_per_year",
)
OPEX_RENTED = (
    "rent_usd_per_year",
    "porting_usd",
    "staff_usd_per_year",
    "software_usd_per_year",
    "storage_usd_per_year",
    "egress_usd_per_year",
)


@pytest.fixture(scope="module")
def rec():
    return recommend(presets["funded-startup-30b-domain"], sensitivity=False)


def test_an_owned_h200_clusters_bill_by_hand(rec):
    """funded-startup-30b-domain (30B params, 100B tokens, 6 runs a year, air site), buy new
    24 x H200 (3 nodes of 8): data/prices.csv 29,500 a GPU, data/facility.csv 66,600 a server,
    10.2 kW a node, PUE 1.54, $0.0826/kWh, $195/kW-month colocation, 5-year life, 15 % resale,
    9 % cost of capital; data/fabrics.csv ib-ndr-400 $5,000 a GPU; data/assumptions.csv:
    3 nodes <= 64 is one switch layer (0.675 x), 2 % spares, 14 days of burn-in, 10 % support,
    1 engineer ($300,000), 2.5 TB stored ((100e9 x 4 + 5 x 30e9 x 14) / 1e12) at $20/TB-month.
    """
    r = option_row(rec.options, "h200-sxm", 24, "buy-new")
    assert r["fabric_cost_usd_per_gpu"] == 5_000 and r["network_tiers"] == 1
    gpu, server = 24 * 29_500, 3 * 66_600
    network = 24 * 5_000 * 0.675  # 81,000
    spares = 0.02 * (gpu + server)  # 18,156
    kw = 3 * 10.2
    setup = kw * 1.54 * 24 * 14 * 0.0826  # the burn-in at full power: $1,307.86
    capex = gpu + server + network + spares + setup
    support = 0.10 * (gpu + server + network + spares)  # $100,695.60 a year
    storage = 2.5 * 20 * 12  # $600 a year
    colocation = kw * 12 * 195  # $71,604 a year
    busy = r["wall_days"] * 24 * 6
    energy = kw * 1.54 * 0.0826 * (busy + (8760 - busy) * 0.25)
    for column, value in (
        ("gpu_usd", gpu),
        ("server_usd", server),
        ("network_usd", network),
        ("spares_usd", spares),
        ("setup_usd", setup),
        ("capex_usd", capex),
        ("support_usd_per_year", support),
        ("storage_usd_per_year", storage),
        ("staff_usd_per_year", 300_000),
        ("colocation_usd_per_year", colocation),
        ("energy_usd_per_year", energy),
        ("depreciation_usd_per_year", capex * 0.85 / 5),
        ("capital_usd_per_year", capex * 1.15 / 2 * 0.09),
    ):
        assert r[column] == pytest.approx(value, rel=1e-9), column
    opex = energy + colocation + 300_000 + storage + support
    assert r["opex_usd_per_year"] == pytest.approx(opex)
    assert r["steady_year_cost_usd"] == pytest.approx(opex)
    assert r["first_year_cost_usd"] == pytest.approx(capex + opex)
    per_year = capex * 0.85 / 5 + capex * 1.15 / 2 * 0.09 + opex
    assert r["cost_per_year_usd"] == pytest.approx(per_year)
    assert r["cost_per_run_usd"] == pytest.approx(per_year / 6)
    assert r["lead_time_days"] == pytest.approx(r["lead_time_weeks_new"] * 7 + 14)


def test_every_owned_options_lines_sum_to_its_totals(rec):
    o = rec.options
    own = o[o["is_buy"] & np.isfinite(o["cost_per_run_usd"])]
    assert len(own) > 100
    capex = own[list(CAPEX_LINES)].sum(axis=1)
    opex = own[list(OPEX_OWNED)].sum(axis=1)
    np.testing.assert_allclose(own["capex_usd"], capex, rtol=1e-12)
    np.testing.assert_allclose(own["opex_usd_per_year"], opex, rtol=1e-12)
    np.testing.assert_allclose(own["first_year_cost_usd"], capex + opex, rtol=1e-12)
    spread = own["depreciation_usd_per_year"] + own["capital_usd_per_year"]
    np.testing.assert_allclose(own["cost_per_year_usd"], spread + opex, rtol=1e-12)
    np.testing.assert_allclose(own["steady_year_cost_usd"], opex, rtol=1e-12)
    multi = own["nodes"] > 1
    for line in ("staff_usd_per_year", "network_usd", "spares_usd", "support_usd_per_year"):
        assert (own.loc[multi, line] > 0).all(), line
    assert (own["storage_usd_per_year"] > 0).all()


def test_every_rentals_lines_sum_to_its_totals_and_it_buys_nothing(rec):
    o = rec.options
    rent = o[~o["is_buy"] & np.isfinite(o["cost_per_run_usd"])]
    total = rent[list(OPEX_RENTED)].sum(axis=1)
    np.testing.assert_allclose(rent["cost_per_year_usd"], total, rtol=1e-12)
    np.testing.assert_allclose(rent["first_year_cost_usd"], total, rtol=1e-12)
    np.testing.assert_allclose(rent["steady_year_cost_usd"], total - rent["porting_usd"])
    for line in ("capex_usd", "network_usd", "support_usd_per_year"):
        assert (rent[line] == 0).all(), line
    # Platform engineers only above rented_staff_above_nodes (16) nodes.
    assert (rent.loc[rent["nodes"] <= 16, "staff_usd_per_year"] == 0).all()
    assert (rent.loc[rent["nodes"] > 16, "staff_usd_per_year"] > 0).all()


def test_a_larger_cluster_pays_more_per_gpu_for_its_network(rec):
    """Owned GB200 NVL72 (four-GPU trays are nodes): up to 64 trays one switch layer, to 2,048
    two, beyond three; the network per GPU is 0.675, 1 and 1.325 x the fabric's $5,000 and never
    falls as the cluster grows."""
    o = rec.options
    g = o[(o["accelerator"] == "gb200-nvl72") & (o["acquisition"] == "buy-new")]
    g = g[g["nodes"] > 1].sort_values("n_gpus")
    per_gpu = (g["network_usd"] / g["n_gpus"]).to_numpy()
    assert set(g["network_tiers"]) == {1.0, 2.0, 3.0}
    assert (np.diff(per_gpu) >= -1e-9).all()
    by_tier = dict(zip(g["network_tiers"], per_gpu))
    fabric = float(g["fabric_cost_usd_per_gpu"].iloc[0])
    assert [by_tier[t] / fabric for t in (1.0, 2.0, 3.0)] == pytest.approx([0.675, 1.0, 1.325])
    assert by_tier[1.0] < by_tier[2.0] < by_tier[3.0]
    assert math.isclose(g[g["nodes"] <= 64]["network_tiers"].max(), 1.0)
