"""The width of a mixture of experts' dispatch and combine (``moe_routing_width`` in
data/assumptions.csv; :func:`workbook.model.shape.moe_routing_factor` applies it).

Rule, declared in CHANGELOG.md on 2026-12-07 (after the MoE rows' leave-one-out residuals were
seen to line up with expert width, so the form was chosen on these rows and the check that it
carries to a row it did not see is the nested one): the width is the point of
:data:`ROUTING_GRID` with the lowest leave-one-out MdAPE of the tuned level over every MoE
benchmark row (:func:`.bands.tuned_loo_ratios`, the per-part MoE factors refitted without each
row and at each width); a tie goes to the smaller width (the narrower correction). Nested: each
row is predicted at the width the same rule chooses on the other MoE rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..model import benchmark_rows, moe_rows
from ..model.estimate import ROUTING
from ..model.shape import MOE_REFERENCE_EXPERT_WIDTH
from .bands import tuned_loo_ratios, with_assumption
from .cache import PerCatalog
from .metrics import WITHIN_25PCT
from .runs import shape_columns

#: The widths :func:`fit_moe_routing` chooses among [units of width] (declared with the rule).
ROUTING_GRID = (0.0, 64.0, 128.0, 192.0, 256.0, 384.0, 512.0, 768.0, 1024.0, 1536.0, 2048.0)


def with_routing(cat: Catalog, width: float) -> Catalog:
    """``cat`` with ``moe_routing_width`` set to ``width``."""
    return with_assumption(cat, ROUTING, width)


def _moe_errors(cat: Catalog) -> pd.DataFrame:
    """Each width of :data:`ROUTING_GRID` (columns) against every MoE benchmark row (rows, by
    run): the absolute leave-one-out error of its tuned throughput [share]."""
    out = {}
    for width in ROUTING_GRID:
        loo = tuned_loo_ratios(with_routing(cat, width))
        rows = loo[loo["moe"]].set_index("run")
        out[width] = (rows["loo_tok_s_gpu"] / rows["published_tok_s_gpu"] - 1).abs()
    return pd.DataFrame(out)


def _least(errors: pd.DataFrame) -> float:
    """The width (column) of the lowest median error; a tie the smallest (columns ascending)."""
    med = errors.median(axis=0)
    return float(med.index[int(np.argmin(med.to_numpy(float)))])


def _summary(err) -> dict:
    """MdAPE and the share within +-25 % of absolute errors ``err``."""
    e = np.asarray(err, float)
    return {
        "mdape": float(np.median(e)),
        "within_25pct": float(np.mean(e <= WITHIN_25PCT)),
        "n": e.size,
    }


def routing_fit(catalog: Catalog | None = None) -> dict:
    """The rule's width and what it does over the MoE benchmark rows (leave-one-out, the MoE
    factors refitted without each row): ``width``; ``none`` (width 0: the factor x 1 for every
    expert width), ``at_width`` (every row at the chosen width) and ``nested`` (each row at the
    width chosen without it), each MdAPE, ``within_25pct`` and ``n``; None keys without MoE rows."""
    errors = _moe_errors(resolve_catalog(catalog))
    if errors.empty:
        return {"width": 0.0, "none": None, "at_width": None, "nested": None}
    width = _least(errors)
    nested = [errors.loc[run, _least(errors.drop(index=run))] for run in errors.index]
    return {
        "width": width,
        "none": _summary(errors[0.0]),
        "at_width": _summary(errors[width]),
        "nested": _summary(nested),
    }


#: :func:`routing_fit` once per catalog object (validate and its summary both read it).
routing_fit_cached = PerCatalog(routing_fit)


def routing_width_range(catalog: Catalog | None = None) -> tuple[float, float]:
    """The narrowest and widest expert of the MoE benchmark rows the routing width is fitted on
    [units]: their exact shapes' ``ffn_hidden`` (data/model_shapes.csv), a row without one at
    :data:`~workbook.model.shape.MOE_REFERENCE_EXPERT_WIDTH` (the width it is taken at)."""
    cat = resolve_catalog(catalog)
    runs = cat.tables["published_runs"]
    rows = runs[benchmark_rows(runs) & moe_rows(runs)]
    f = shape_columns(rows, cat.tables["model_shapes"])["ffn_hidden"]
    f = f.fillna(MOE_REFERENCE_EXPERT_WIDTH)
    return (float(f.min()), float(f.max())) if len(f) else (MOE_REFERENCE_EXPERT_WIDTH,) * 2


def fit_moe_routing(catalog: Catalog | None = None) -> float:
    """``moe_routing_width`` by the rule of the module docstring."""
    return routing_fit(resolve_catalog(catalog))["width"]


__all__ = [
    "ROUTING_GRID",
    "fit_moe_routing",
    "routing_fit",
    "routing_fit_cached",
    "routing_width_range",
    "with_routing",
]
