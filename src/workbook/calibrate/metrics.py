"""Error metrics of predicted against published GPU-hours: MdAPE and the share within +-25 %, the
bias per group, the empirical range (and its check forward in time), the floor under any
recalibration by accelerator, and the twin runs that contradict every physical time model."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..catalog import Catalog, resolve_catalog
from .cache import PerCatalog
from .runs import ENTRY_BATCHES, baseline_hours, full_runs, is_moe, predict_hours

#: The range quoted around a predicted time (app, memo, ``time_model_trust``): these quantiles of
#: published / predicted GPU-hours over the held-out runs, an 80 % range.
RANGE_QUANTILES = (0.10, 0.90)
#: The accuracy band of the ``within_25pct`` metrics: predicted within +-25 % of published.
WITHIN_25PCT = 0.25


def metrics(published, predicted) -> dict:
    """Error of ``predicted`` against ``published`` (same units, e.g. GPU-hours): ``mdape`` (median
    absolute percentage error), ``within_25pct`` (share within +-25 %), ``max_ratio_off`` (worst
    ratio, either direction) over ``n`` values."""
    err = (np.asarray(predicted) - np.asarray(published)) / np.asarray(published)
    ratio = np.asarray(predicted) / np.asarray(published)
    return {
        "mdape": float(np.median(np.abs(err))),
        "within_25pct": float(np.mean(np.abs(err) <= WITHIN_25PCT)),
        "max_ratio_off": float(np.max(np.maximum(ratio, 1 / ratio))),
        "n": int(len(err)),
    }


def bias_by_group(groups, errors) -> pd.DataFrame:
    """Run count and median signed error (predicted / published - 1) per group: a systematic bias
    shows here while the MdAPE hides it."""
    return (
        pd.Series(np.asarray(errors, float))
        .groupby(np.asarray(groups))
        .agg(runs="size", median_error="median")
    )


def _ratios(published, predicted) -> np.ndarray:
    """``published / predicted`` GPU-hours, checked: at least one, all finite and positive."""
    r = np.asarray(published, float) / np.asarray(predicted, float)
    if r.size == 0 or not np.all(np.isfinite(r)) or np.any(r <= 0):
        raise ValueError(
            f"published/predicted has {r.size} values, some not finite and positive; allowed: "
            "at least one pair of positive GPU-hours"
        )
    return r


def time_range(published, predicted) -> dict:
    """Where published runs landed relative to their predictions: the :data:`RANGE_QUANTILES`
    (``low``, ``high``) and the median of ``published / predicted``, over ``n`` runs; and
    ``loo_coverage``, the share of runs inside the range computed from all the *other* runs
    (leave-one-out), an estimate of how often the range holds for a run it has not seen (NaN with
    fewer than 3 runs)."""
    r = _ratios(published, predicted)
    lo, med, hi = np.quantile(r, [RANGE_QUANTILES[0], 0.5, RANGE_QUANTILES[1]])
    coverage = np.nan
    if r.size >= 3:
        inside = []
        for i in range(r.size):
            o_lo, o_hi = np.quantile(np.delete(r, i), RANGE_QUANTILES)
            inside.append(o_lo <= r[i] <= o_hi)
        coverage = float(np.mean(inside))
    return {
        "low": float(lo),
        "median": float(med),
        "high": float(hi),
        "loo_coverage": coverage,
        "n": int(r.size),
    }


def forward_range_check(batch, holdout, published, predicted) -> pd.DataFrame:
    """The range checked forward in time: each batch of runs entered after the first split
    (``batch`` >= 1, :func:`workbook.calibrate.runs.entry_batch`) against :func:`time_range` of the
    held-out runs entered before it. One row per batch: ``batch`` (its name), ``runs_before``,
    ``low``, ``high``, ``runs``, ``inside``. Predictions are the ones passed in (today's
    constants), not those of the day the batch was entered."""
    batch, holdout = np.asarray(batch, int), np.asarray(holdout, bool)
    r = _ratios(published, predicted)
    rows = []
    for k in sorted(set(batch[batch >= 1])):
        before, now = holdout & (batch < k), batch == k
        if not before.any():
            continue
        rng = time_range(np.asarray(published, float)[before], np.asarray(predicted, float)[before])
        rows.append(
            {
                "batch": ENTRY_BATCHES[k - 1],
                "runs_before": int(before.sum()),
                "low": rng["low"],
                "high": rng["high"],
                "runs": int(now.sum()),
                "inside": int(((r[now] >= rng["low"]) & (r[now] <= rng["high"])).sum()),
            }
        )
    return pd.DataFrame(rows, columns=["batch", "runs_before", "low", "high", "runs", "inside"])


def _most_inside(log_r: np.ndarray, width: float) -> int:
    """Most points of ``log_r`` one window ``[a, a + width]`` can hold (a sliding window over the
    sorted points)."""
    x = np.sort(log_r)
    return (
        int(max(np.searchsorted(x, x + width + 1e-12, side="right") - np.arange(x.size)))
        if x.size
        else 0
    )


def recalibration_floor(groups, published, predicted) -> dict:
    """The best these predictions could score if every group (accelerator, or MoE) got its own
    multiplier, chosen in hindsight on the same runs: a floor under any per-accelerator
    recalibration of the engine (an efficiency per part, a software factor per vendor, ...).

    Each metric gets its own best multipliers, so the floor is optimistic for all three at once:

    - ``within_25pct``: the most runs per group whose ``published / predicted`` fit in one window
      ``[c / 1.25, c / 0.75]``, summed, over all runs;
    - ``mdape``: the smallest ``x`` such that at least half the runs can be brought within ``+-x``
      (bisection on the same window count; exact for an odd number of runs, a lower bound for an
      even one);
    - ``max_ratio_off``: the largest ``sqrt(max r / min r)`` of a group (the multiplier at the
      geometric centre of a group's ratios ``r`` is the best for its worst run).

    Returns those with ``n`` (runs) and ``groups``.
    """
    groups = np.asarray(groups)
    r = _ratios(published, predicted)
    if groups.shape != r.shape:
        raise ValueError(
            f"published/predicted has {r.size} values for {groups.size} groups; allowed: one "
            "group per run"
        )
    parts = [np.log(r[groups == g]) for g in np.unique(groups)]

    def inside(x: float) -> int:  # runs brought within +-x by the best multiplier per group
        return sum(_most_inside(lr, np.log((1.0 + x) / (1.0 - x))) for lr in parts)

    need, lo, hi = (r.size + 1) // 2, 0.0, 0.999
    for _ in range(60):
        mid = (lo + hi) / 2.0
        lo, hi = (lo, mid) if inside(mid) >= need else (mid, hi)
    return {
        "mdape": hi,
        "within_25pct": inside(WITHIN_25PCT) / r.size,
        "max_ratio_off": float(max(np.exp((lr.max() - lr.min()) / 2.0) for lr in parts)),
        "n": int(r.size),
        "groups": len(parts),
    }


#: Two runs are twins when they are dense, on the same accelerator at the same precision, with
#: published GPU counts and parameter counts within this factor of each other.
TWIN_SIZE_FACTOR = 1.10
#: Implied-MFU ratios above which a twin pair cannot both be within +-25 % (1.25 / 0.75) or within
#: 2x (2 x 2) of a prediction that expects the slower run to be at least as fast.
TWIN_RATIO_25PCT, TWIN_RATIO_2X = 1.25 / 0.75, 4.0
#: The columns of :func:`twin_pairs`.
TWIN_COLUMNS = (
    "slower",
    "faster",
    "accelerator",
    "slower_mfu",
    "faster_mfu",
    "ratio",
    "min_worst_off",
    "slower_gpus",
    "faster_gpus",
    "slower_seq_len",
    "faster_seq_len",
)


def _twin_mask(rows: pd.DataFrame, mfu: np.ndarray) -> np.ndarray:
    """``mask[a, b]``: run ``a`` is the slower twin of run ``b`` (same dense part and precision,
    sizes within :data:`TWIN_SIZE_FACTOR`, no more GPUs, no longer sequences, lower implied MFU)."""
    ok = (~is_moe(rows)) & rows["gpu_count"].notna().to_numpy() & rows["seq_len"].notna().to_numpy()
    acc, prec = rows["accelerator_id"], rows["precision"]
    ok &= acc.notna().to_numpy() & prec.notna().to_numpy()  # NaN matches nothing, not even NaN
    acc, prec = acc.to_numpy(object), prec.to_numpy(object)
    n, gpus, seq = (rows[c].to_numpy(float) for c in ("params_total", "gpu_count", "seq_len"))
    pair = np.outer(ok, ok) & (acc[:, None] == acc[None, :]) & (prec[:, None] == prec[None, :])
    pair &= np.maximum.outer(n, n) <= TWIN_SIZE_FACTOR * np.minimum.outer(n, n)
    pair &= (gpus[:, None] <= gpus[None, :]) & (seq[:, None] <= seq[None, :])
    return pair & (mfu[:, None] < mfu[None, :])


def twin_pairs(rows: pd.DataFrame, catalog: Catalog | None = None) -> pd.DataFrame:
    """Twin runs (:data:`TWIN_SIZE_FACTOR`) that ran in the conditions every physical model calls no
    slower, yet were slower: the ``slower`` run used no more GPUs and no longer sequences than the
    ``faster`` one (less communication, fewer attention FLOPs per token), but reached a lower
    implied MFU (6 N D / (GPU-hours x dense BF16 peak)).

    A predictor that gives the ``slower`` run at least the MFU it gives the ``faster`` one (as the
    engine does) is off by at least ``sqrt(ratio)`` on one of the two, where ``ratio`` is the
    faster's implied MFU over the slower's: above 1.25 / 0.75 = 1.67 they cannot both be within
    +-25 %, above 4 they cannot both be within 2x. One row per pair, most contradictory first:
    :data:`TWIN_COLUMNS` (``slower``, ``faster``, ``accelerator``, ``slower_mfu``,
    ``faster_mfu``, ``ratio``, ``min_worst_off``, ``slower_gpus``, ``faster_gpus``,
    ``slower_seq_len``, ``faster_seq_len``).
    """
    rows = rows.reset_index(drop=True)
    mfu = baseline_hours(rows, 1.0, catalog) / rows["gpu_hours"].to_numpy(float)
    a, b = np.nonzero(_twin_mask(rows, mfu))  # row-major: pairs in the order of a double loop
    if a.size == 0:
        return pd.DataFrame(columns=list(TWIN_COLUMNS))
    run, acc = rows["run_id"].to_numpy(object), rows["accelerator_id"].to_numpy(object)
    gpus, seq = rows["gpu_count"].to_numpy(float), rows["seq_len"].to_numpy(float)
    out = pd.DataFrame(
        {
            "slower": run[a],
            "faster": run[b],
            "accelerator": acc[a],
            "slower_mfu": mfu[a],
            "faster_mfu": mfu[b],
            "ratio": mfu[b] / mfu[a],
            "min_worst_off": np.sqrt(mfu[b] / mfu[a]),
            "slower_gpus": gpus[a].astype(int),
            "faster_gpus": gpus[b].astype(int),
            "slower_seq_len": seq[a].astype(int),
            "faster_seq_len": seq[b].astype(int),
        }
    )
    return out.sort_values("ratio", ascending=False, ignore_index=True)


def _holdout_time_range(cat: Catalog) -> dict | None:
    rows = full_runs(cat)
    hold = rows[rows["split"] == "holdout"]
    if hold.empty:
        return None
    return time_range(hold["gpu_hours"].to_numpy(float), predict_hours(hold, cat))


_holdout_time_range_cached = PerCatalog(_holdout_time_range)


def holdout_time_range(catalog: Catalog | None = None) -> dict | None:
    """:func:`time_range` of the held-out runs, predicted with the catalog's constants (None when no
    run is held out); computed once per catalog object
    (:class:`~workbook.calibrate.cache.PerCatalog`): :func:`workbook.recommend` asks every call."""
    rng = _holdout_time_range_cached(resolve_catalog(catalog))
    return None if rng is None else dict(rng)
