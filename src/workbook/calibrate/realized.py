"""The realized-run level by what a user knows before the run: the software class of the training
framework (``software`` in data/published_runs.csv, classed by
:data:`workbook.catalog.schema.SOFTWARE_CLASS`) and the model's scale; and the band conditioned on
either, checked by the rule declared in CHANGELOG.md (issue 19) before any of it was computed.

- :func:`realized_by_class`: published / tuned-predicted GPU-hours of the held-out full runs, per
  software class and per scale group (count, p10, median, p90);
- :func:`conditioned_coverage`: how often a band conditioned on a grouping held for a held-out run
  it had not seen (leave-one-out and forward in time, as :func:`.bands.band_coverage` does for the
  pooled band, which ``by=None`` reproduces), and its median width;
- :func:`chosen_conditioning`: the declared rule applied to :data:`CONDITIONINGS`;
- :func:`realized_summary`: all of it, as ``python -m workbook validate`` prints it.

A run's conditioned band is the split-conformal p10-p90 of the conditioning runs of its group when
there are at least :data:`MIN_GROUP_RUNS`, else of all the conditioning runs (the pooled band); a
run with no group (software class ``unknown``) always gets the pooled band, as a user who does not
say which framework they will use does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..catalog.schema import SOFTWARE_CLASS
from .bands import BAND_HIGH, BAND_LOW, conformal_quantiles, holdout_ratios
from .runs import entry_batch, predict_hours

#: The fewest conditioning runs a group's own band is measured on: the smallest n whose
#: split-conformal order statistics (the floor((n+1) 0.1)-th and ceil((n+1) 0.9)-th of n) cover a
#: new draw with the nominal 80 % ((hi - lo) / (n + 1) >= 0.8 from n = 9 on; Vovk et al. 2005).
MIN_GROUP_RUNS = 9
#: The groupings the declared rule tries (CHANGELOG.md, issue 19), in the order declared.
CONDITIONINGS = ("software_class", "scale")
#: The coverage the band must hold, leave-one-out and forward in time (issue 19) [probability].
COVERAGE_TARGET = (0.75, 0.85)
#: The software class that never conditions a band: the source does not say.
UNGROUPED_CLASS = "unknown"


def software_class(rows: pd.DataFrame) -> np.ndarray:
    """Each row's software class (:data:`workbook.catalog.schema.SOFTWARE_CLASS`)."""
    return rows["software"].map(SOFTWARE_CLASS).to_numpy(object)


def scale_threshold(hold: pd.DataFrame) -> float:
    """The scale split [parameters]: the median ``params_total`` of the held-out runs (a
    covariate-only threshold: no outcome enters it)."""
    return float(hold["params_total"].median())


def scale_group(rows: pd.DataFrame, threshold: float) -> np.ndarray:
    """``">= <threshold>"`` or ``"< <threshold>"`` parameters, e.g. ``">= 7B"``."""
    label = f"{threshold / 1e9:g}B"
    big = rows["params_total"].to_numpy(float) >= threshold
    return np.where(big, f">= {label}", f"< {label}").astype(object)


def run_groups(hold: pd.DataFrame, by: str | None) -> np.ndarray:
    """The group each held-out run's band is conditioned on under ``by`` (one of
    :data:`CONDITIONINGS`, or None: pooled); None where a run has no group."""
    if by is None:
        return np.full(len(hold), None, object)
    if by == "software_class":
        cls = software_class(hold)
        return np.where(cls == UNGROUPED_CLASS, None, cls)
    if by == "scale":
        return scale_group(hold, scale_threshold(hold))
    raise ValueError(f"by={str(by)[:40]!r} is not a grouping; allowed: {', '.join(CONDITIONINGS)}")


def _band_of(
    r: np.ndarray, groups: np.ndarray, pool: np.ndarray, group
) -> tuple[float, float, bool]:
    """(p10, p90, conditioned) of the runs in ``pool`` (a mask): of those in ``group`` when there
    are at least :data:`MIN_GROUP_RUNS`, else of all of them."""
    if group is not None:
        same = pool & (groups == group)
        if same.sum() >= MIN_GROUP_RUNS:
            return (*conformal_quantiles(r[same]), True)
    return (*conformal_quantiles(r[pool]), False)


def conditioned_coverage(catalog: Catalog | None = None, by: str | None = None) -> dict:
    """The band conditioned on ``by`` (None: pooled) against the held-out runs it had not seen:
    ``loo_coverage`` and ``loo_width_median`` (each run against the band of the other held-out
    runs), ``loo_conditioned`` (how many of those bands were their group's own), and
    ``forward_runs`` / ``forward_inside`` / ``forward_coverage`` / ``forward_width_median`` /
    ``forward_conditioned`` (each later entry batch against the held-out runs entered before
    it)."""
    hold, r = holdout_ratios(resolve_catalog(catalog))
    groups, n = run_groups(hold, by), r.size
    inside, widths, own = [], [], 0
    for i in range(n):
        others = np.arange(n) != i
        lo, hi, mine = _band_of(r, groups, others, groups[i])
        inside.append(lo <= r[i] <= hi)
        widths.append(hi / lo)
        own += mine
    batch = entry_batch(hold)
    fw_in, fw_widths, fw_own = 0, [], 0
    for k in sorted(set(batch[batch >= 1])):
        before = batch < k
        if before.sum() < 2:
            continue
        for i in np.flatnonzero(batch == k):
            lo, hi, mine = _band_of(r, groups, before, groups[i])
            fw_in, fw_own = fw_in + (lo <= r[i] <= hi), fw_own + mine
            fw_widths.append(hi / lo)
    fw_runs = len(fw_widths)
    return {
        "by": by or "pooled",
        "n": int(n),
        "loo_coverage": float(np.mean(inside)),
        "loo_width_median": float(np.median(widths)),
        "loo_conditioned": int(own),
        "forward_runs": fw_runs,
        "forward_inside": int(fw_in),
        "forward_coverage": fw_in / fw_runs if fw_runs else math.nan,
        "forward_width_median": float(np.median(fw_widths)) if fw_runs else math.nan,
        "forward_conditioned": fw_own,
    }


def _within(x: float) -> bool:
    return COVERAGE_TARGET[0] <= x <= COVERAGE_TARGET[1]


def chosen_conditioning(candidates: pd.DataFrame) -> str | None:
    """The declared rule on :func:`conditioned_coverage` rows (index ``by``, a ``pooled`` row
    among them): of the candidates whose leave-one-out coverage is within
    :data:`COVERAGE_TARGET` and whose median leave-one-out width is below the pooled band's, the
    narrowest (leave-one-out only); it is adopted if it also holds :data:`COVERAGE_TARGET`
    forward in time; else None (the pooled band stays)."""
    pooled = candidates.loc["pooled", "loo_width_median"]
    ok = candidates.drop(index="pooled")
    ok = ok[ok["loo_coverage"].map(_within) & (ok["loo_width_median"] < pooled)]
    if ok.empty:
        return None
    best = ok["loo_width_median"].idxmin()
    return best if _within(ok.loc[best, "forward_coverage"]) else None


def realized_by_class(catalog: Catalog | None = None) -> pd.DataFrame:
    """Published / tuned-predicted GPU-hours of the held-out full runs (which fitted no
    constant), per software class and per scale group: index (``by``, ``group``), ``runs``,
    ``p10``, ``median``, ``p90`` (empirical quantiles)."""
    cat = resolve_catalog(catalog)
    hold, _ = holdout_ratios(cat)
    ratio = hold["gpu_hours"].to_numpy(float) / predict_hours(hold, cat, software_stack="tuned")
    keys = {
        "software class": software_class(hold),
        "scale": scale_group(hold, scale_threshold(hold)),
    }
    parts = []
    for by, group in keys.items():
        table = (
            pd.Series(ratio)
            .groupby(group)
            .agg(
                runs="size",
                p10=lambda x: x.quantile(BAND_LOW),
                median="median",
                p90=lambda x: x.quantile(BAND_HIGH),
            )
        )
        parts.append(table.set_axis(pd.MultiIndex.from_product([[by], table.index])))
    return pd.concat(parts).rename_axis(["by", "group"])


@dataclass
class RealizedSummary:
    """The realized level by what the user knows, and the conditioned bands against the rule."""

    #: :func:`realized_by_class`.
    by_class: pd.DataFrame
    #: :func:`conditioned_coverage` of the pooled band and of each of :data:`CONDITIONINGS`
    #: (index ``by``).
    candidates: pd.DataFrame
    #: :func:`chosen_conditioning`: the grouping adopted, or None (the pooled band stays).
    chosen: str | None


def realized_summary(catalog: Catalog | None = None) -> RealizedSummary:
    """:class:`RealizedSummary` (its ``pooled`` candidate is :func:`.bands.band_coverage`)."""
    cat = resolve_catalog(catalog)
    rows = [conditioned_coverage(cat, by) for by in (None, *CONDITIONINGS)]
    candidates = pd.DataFrame(rows).set_index("by")
    return RealizedSummary(
        by_class=realized_by_class(cat),
        candidates=candidates,
        chosen=chosen_conditioning(candidates),
    )
