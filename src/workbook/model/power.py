"""Power and cooling: node kW, rack kW and racks needed, facility kW, and whether a site can host
it.

Rack power is not TDP x GPUs (the article's power-table method): a node draws its GPUs' board power
plus the host (CPUs, DRAM, NICs, NVSwitch, fans, PSU losses), ``host_overhead_kw_per_node`` in
``data/facility.csv`` (DGX B200: 14.3 kW for 8 x 1.0 kW GPUs). Arrays in, arrays out.
"""

from __future__ import annotations

import numpy as np

from ..checks import check_number
from ..units import KILO


def node_power_kw(gpus_per_node, tdp_w, host_overhead_kw):
    """Full-load power of one node [kW] = GPUs x board power + host overhead."""
    check_number("gpus_per_node", gpus_per_node, positive=True)
    check_number("tdp_w", tdp_w, positive=True)
    check_number("host_overhead_kw", host_overhead_kw, minimum=0)
    return np.asarray(gpus_per_node, float) * np.asarray(tdp_w, float) / KILO + np.asarray(
        host_overhead_kw, float
    )


def cluster_power(
    n_gpus,
    *,
    gpus_per_node,
    tdp_w,
    host_overhead_kw,
    rack_limit_kw,
    nodes_per_rack_max,
    pue,
    scale_up_domain_gpus=None,
):
    """Nodes, IT kW, racks and facility kW of a cluster (dict of arrays).

    Parameters
    ----------
    n_gpus : array
        GPUs [count]; nodes = ceil(n_gpus / gpus_per_node). IT power counts the GPUs installed
        (a part-filled node draws its cards' power, not a full node's) plus each node's host.
    gpus_per_node, tdp_w, host_overhead_kw
        Node shape and power (see :func:`node_power_kw`).
    rack_limit_kw : array
        Power (and heat) one rack may carry [kW].
    nodes_per_rack_max : array
        Nodes that physically fit in one rack [count].
    pue : array
        Facility power / IT power [ratio].
    scale_up_domain_gpus : array, optional
        A rack-scale NVLink domain (NVL72) must sit in one rack: its whole block counts.

    Returns
    -------
    dict with ``nodes``, ``node_kw``, ``it_kw``, ``racks``, ``rack_kw`` (heaviest rack),
    ``facility_kw``, ``block_kw`` (smallest unit that must share a rack) and ``block_exceeds_rack``.
    """
    n = np.asarray(check_number("n_gpus", n_gpus, positive=True), float)
    gpn = np.asarray(gpus_per_node, float)
    node_kw = node_power_kw(gpus_per_node, tdp_w, host_overhead_kw)
    nodes = np.ceil(n / gpn)
    # The GPUs installed draw power, not the node's empty slots (one card in an 8-slot server is
    # one card's board power plus the host).
    it_kw = n * np.asarray(tdp_w, float) / KILO + nodes * np.asarray(host_overhead_kw, float)
    limit = np.asarray(check_number("rack_limit_kw", rack_limit_kw, positive=True), float)
    per_rack_space = np.asarray(nodes_per_rack_max, float)
    domain = gpn if scale_up_domain_gpus is None else np.asarray(scale_up_domain_gpus, float)
    rack_scale = domain > gpn
    block_nodes = np.where(rack_scale, np.ceil(domain / gpn), 1.0)
    block_kw = block_nodes * node_kw
    exceeds = block_kw > limit + 1e-9
    by_power = np.maximum(1.0, np.floor(limit / node_kw))
    per_rack = np.where(rack_scale, block_nodes, np.minimum(by_power, per_rack_space))
    per_rack = np.maximum(per_rack, 1.0)
    racks = np.ceil(nodes / per_rack)
    rack_kw = np.minimum(it_kw, np.minimum(nodes, per_rack) * node_kw)
    return {
        "nodes": nodes,
        "node_kw": node_kw,
        "it_kw": it_kw,
        "racks": racks,
        "rack_kw": rack_kw,
        "facility_kw": it_kw * np.asarray(check_number("pue", pue, minimum=1.0), float),
        "block_kw": block_kw,
        "block_exceeds_rack": exceeds,
    }
