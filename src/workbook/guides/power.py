"""Notebook 04, power and cooling: the power of a set of GPUs as servers (GPUs + host) against the
article's TDP x GPUs, racks at a few rack limits, and facility power at the PUE.

Power is :func:`workbook.model.cluster_power`'s; the chart is
:func:`workbook.present.guide_charts.power_chart`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..checks import check_choice, check_number
from ..model import cluster_power
from ..units import KILO
from .inputs import accelerator_ids, sizes

__all__ = ["ARTICLE_POWER_TABLE", "power_table"]

#: The article's "Power Infrastructure" table: TDP per GPU [W] and "Rack Power (48 GPUs)" [kW].
ARTICLE_POWER_TABLE = {
    "h100-sxm": (700.0, 33.6),
    "h200-sxm": (700.0, 33.6),
    "mi350x": (750.0, 36.0),
    "b200-hgx": (1000.0, 48.0),
    "b300-hgx": (1200.0, 57.6),
}


@dataclass(frozen=True)
class _Servers:
    """The catalog's figures for the servers of each accelerator, aligned with ``ids``."""

    ids: list[str]
    #: GPUs [count] (the same for every accelerator).
    n_gpus: np.ndarray
    gpus_per_node: np.ndarray
    #: Board power per GPU [W].
    tdp_w: np.ndarray
    #: CPUs, memory, NICs, fans and PSU losses per node [kW] (data/facility.csv).
    host_overhead_kw: np.ndarray
    nodes_per_rack_max: np.ndarray
    scale_up_domain_gpus: np.ndarray
    pue: float


def _servers(cat: Catalog, ids: list[str], n_gpus: int, cooling: str) -> _Servers:
    """Read :class:`_Servers` from the catalog; an accelerator without a TDP is refused."""
    spec = cat.tables["accelerators"].set_index("accelerator_id").loc[ids]
    tdp = spec["tdp_w"].astype(float)
    missing = [i for i in ids if not np.isfinite(tdp[i])]
    if missing:
        raise ValueError(
            f"accelerators contains {missing[0]!r}, which has no TDP in the catalog "
            "(a cloud-only part); allowed: accelerators with tdp_w"
        )

    def per_accelerator(parameter: str, default: float) -> np.ndarray:
        by_acc = cat.param_by_accelerator("facility", parameter).reindex(ids)
        return by_acc.fillna(default).to_numpy(float)

    return _Servers(
        ids=ids,
        n_gpus=np.full(len(ids), float(n_gpus)),
        gpus_per_node=spec["gpus_per_node"].to_numpy(float),
        tdp_w=tdp.to_numpy(),
        host_overhead_kw=per_accelerator("host_overhead_kw_per_node", 0.0),
        nodes_per_rack_max=per_accelerator("nodes_per_rack_max", 1.0),
        scale_up_domain_gpus=spec["scale_up_domain_gpus"].to_numpy(float),
        pue=cat.param("facility", f"pue_{cooling}"),
    )


def _power(servers: _Servers, rack_limit_kw: float) -> dict:
    """:func:`workbook.model.cluster_power` of the servers at one rack limit [kW]."""
    return cluster_power(
        servers.n_gpus,
        gpus_per_node=servers.gpus_per_node,
        tdp_w=servers.tdp_w,
        host_overhead_kw=servers.host_overhead_kw,
        rack_limit_kw=rack_limit_kw,
        nodes_per_rack_max=servers.nodes_per_rack_max,
        pue=servers.pue,
        scale_up_domain_gpus=servers.scale_up_domain_gpus,
    )


def power_table(
    accelerators=None,
    *,
    n_gpus: int = 48,
    rack_limits_kw: Sequence[float] = (20.0, 40.0, 135.0),
    cooling: str = "air",
    catalog: Catalog | None = None,
) -> pd.DataFrame:
    """Power of ``n_gpus`` GPUs as servers (GPUs + host) against the article's TDP x GPUs method.

    Node power = GPUs x board power + host overhead (``host_overhead_kw_per_node`` in
    data/facility.csv; DGX B200: 14.3 kW for 8 x 1.0 kW, NVIDIA DGX B200 user guide), from
    :func:`workbook.model.cluster_power`; racks needed at each rack limit (a rack-scale NVL72
    domain must sit in one rack); facility power at the PUE of ``cooling``.

    Parameters
    ----------
    accelerators : list of str, optional
        Catalog ids (default: the five in the article's power table, :data:`ARTICLE_POWER_TABLE`).
    n_gpus : int
        GPUs [count] (the article's table uses 48).
    rack_limits_kw : list of float
        Power one rack may carry [kW]: 20 (the article's air rack), 40, 135 (NVL72 liquid rack).
    cooling : {"air", "liquid"}
        Selects the PUE (data/facility.csv ``pue_air`` / ``pue_liquid``).

    Returns
    -------
    DataFrame, one row per accelerator: ``article_tdp_w``, ``article_kw`` (the article's figures,
    NaN where it has none), ``tdp_w`` (catalog), ``tdp_x_gpus_kw``, ``gpus_per_node``,
    ``host_overhead_kw``, ``node_kw``, ``nodes``, ``it_kw``, ``it_over_article``, ``facility_kw``,
    and ``racks_<L>kw`` per rack limit (<NA> where one node or NVL72 rack exceeds the limit).
    """
    cat = resolve_catalog(catalog)
    ids = accelerator_ids(cat, list(ARTICLE_POWER_TABLE) if accelerators is None else accelerators)
    check_number("n_gpus", n_gpus, positive=True, integer=True)
    limits = sizes("rack_limits_kw", rack_limits_kw)
    check_choice("cooling", cooling, ("air", "liquid"))
    servers = _servers(cat, ids, n_gpus, cooling)
    p = _power(servers, limits[0])
    art = [ARTICLE_POWER_TABLE.get(i, (np.nan, np.nan)) for i in ids]
    out = pd.DataFrame(
        {
            "accelerator": ids,
            "article_tdp_w": [x[0] for x in art],
            "article_kw": [x[1] for x in art],
            "tdp_w": servers.tdp_w,
            "tdp_x_gpus_kw": servers.tdp_w * n_gpus / KILO,
            "gpus_per_node": servers.gpus_per_node.astype(int),
            "host_overhead_kw": servers.host_overhead_kw,
            "node_kw": p["node_kw"],
            "nodes": p["nodes"].astype(int),
            "it_kw": p["it_kw"],
        }
    )
    out["it_over_article"] = out["it_kw"] / out["article_kw"]
    out["facility_kw"] = p["facility_kw"]
    for limit in limits:
        q = _power(servers, limit)
        out[f"racks_{limit:g}kw"] = pd.array(
            np.where(q["block_exceeds_rack"], pd.NA, q["racks"]), dtype="Int64"
        )
    return out
