"""Power and racks (workbook.model.power): node power is not TDP x GPUs."""

import pytest

from workbook.model.power import cluster_power, node_power_kw


def test_node_power_is_not_tdp_times_gpus():
    """DGX B200: 8 x 1.0 kW GPUs + 6.3 kW host = 14.3 kW (docs.nvidia.com)."""
    assert node_power_kw(8, 1000, 6.3) == pytest.approx(14.3)


def test_cluster_power_racks_and_facility():
    """48 B200 in 20 kW air racks: 6 nodes of 14.3 kW, one node per rack -> 6 racks, 85.8 kW IT,
    132.1 kW at PUE 1.54 (the article's table says 48 kW)."""
    p = cluster_power(
        48,
        gpus_per_node=8,
        tdp_w=1000,
        host_overhead_kw=6.3,
        rack_limit_kw=20,
        nodes_per_rack_max=3,
        pue=1.54,
    )
    assert p["it_kw"] == pytest.approx(85.8)
    assert p["racks"] == 6
    assert p["facility_kw"] == pytest.approx(85.8 * 1.54)


def test_nvl72_rack_does_not_fit_an_air_rack():
    p = cluster_power(
        72,
        gpus_per_node=4,
        tdp_w=1400,
        host_overhead_kw=1.9,
        rack_limit_kw=20,
        nodes_per_rack_max=18,
        pue=1.5,
        scale_up_domain_gpus=72,
    )
    assert p["block_exceeds_rack"] and p["block_kw"] == pytest.approx(18 * (5.6 + 1.9))
