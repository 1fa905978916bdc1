"""Both levels of the time model on their own evidence, as ``python -m workbook validate`` prints
them (:func:`level_summary`), and the live figures a pick's reasons quote: the tuned level on the
MoE and FP4 benchmarks (:func:`tuned_evidence`). The constants and
bands themselves are :mod:`.bands`'.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..catalog import Catalog, resolve_catalog
from .bands import (
    BAND_HIGH,
    BAND_LOW,
    FP4_SPEEDUP,
    band_coverage,
    conformal_quantiles,
    holdout_ratios,
    loo_bands,
    tuned_loo_ratios,
)
from .benchmarks import TORCHTITAN_SOURCE, benchmark_throughput
from .cache import PerCatalog
from .metrics import metrics
from .moe_routing import routing_fit_cached
from .runs import (
    baseline_hours,
    entry_batch,
    error_group,
    fit_baseline_mfu,
    full_runs,
    is_moe,
    predict_hours,
)


def _holdout_by_kind(tuned: pd.DataFrame) -> dict[str, dict]:
    """The held-out rows of a tuned-level :func:`benchmark_throughput` table, dense and MoE apart:
    :func:`.metrics.metrics` plus ``fastest`` (the largest predicted / published throughput) [x]
    per kind that has such rows."""
    hold = tuned[tuned["split"] == "holdout"]
    out = {}
    for kind, rows in (("dense", hold[~hold["moe"]]), ("MoE", hold[hold["moe"]])):
        if len(rows):
            pub, pred = rows["published_tok_s_gpu"], rows["predicted_tok_s_gpu"]
            out[kind] = {**metrics(pub, pred), "fastest": float((pred / pub).max())}
    return out


def _signed_metrics(rows: pd.DataFrame, predicted: str = "predicted_tok_s_gpu") -> dict:
    """:func:`.metrics.metrics` of rows of a benchmark table against their ``predicted`` column,
    plus ``median_error`` (signed, predicted / published - 1)."""
    pub, pred = rows["published_tok_s_gpu"], rows[predicted]
    return {**metrics(pub, pred), "median_error": float(np.median(pred / pub - 1))}


#: GPU-count groups of the held-out rows: one node, up to 256 GPUs, beyond [GPUs].
SCALE_GROUPS = (("<= 8 GPUs", 8), ("9-256 GPUs", 256), ("> 256 GPUs", np.inf))


def scale_group(n_gpus) -> pd.Categorical:
    """Each GPU count's :data:`SCALE_GROUPS` label (ordered as listed)."""
    labels = [name for name, _ in SCALE_GROUPS]
    edges = np.array([top for _, top in SCALE_GROUPS], float)
    idx = np.searchsorted(edges, np.asarray(n_gpus, float), side="left")
    return pd.Categorical([labels[i] for i in idx], categories=labels, ordered=True)


def _holdout_groups(hold: pd.DataFrame, labels, name: str) -> pd.DataFrame:
    """Held-out rows' :func:`_signed_metrics` per ``labels`` (one per row) and kind (dense /
    MoE): ``name``, ``kind``, ``runs``, ``mdape``, ``within_25pct``, ``median_error``."""
    cols = [name, "kind", "runs", "mdape", "within_25pct", "median_error"]
    out = []
    grouped = hold.assign(_group=labels).groupby(["_group", "moe"], sort=True, observed=True)
    for (label, moe), rows in grouped:
        m = _signed_metrics(rows)
        out.append({name: label, "kind": "MoE" if moe else "dense", "runs": m["n"],
                    "mdape": m["mdape"], "within_25pct": m["within_25pct"],
                    "median_error": m["median_error"]})  # fmt: skip
    return pd.DataFrame(out, columns=cols)


def _holdout_by_source(hold: pd.DataFrame) -> pd.DataFrame:
    """Held-out rows' metrics per ``source`` and kind (:func:`_holdout_groups`)."""
    return _holdout_groups(hold, hold["source"].to_numpy(object), "source")


def _holdout_by_scale(hold: pd.DataFrame) -> pd.DataFrame:
    """Held-out rows' metrics per GPU count (:data:`SCALE_GROUPS`) and kind."""
    return _holdout_groups(hold, scale_group(hold["n_gpus"]), "gpus")


def _holdout_by_vendor(cat: Catalog, hold: pd.DataFrame) -> pd.DataFrame:
    """Held-out rows' metrics per accelerator vendor and kind (issue 19's target: the median
    signed error of each vendor within +-8 %)."""
    vendor = cat.tables["accelerators"].set_index("accelerator_id")["vendor"]
    return _holdout_groups(hold, vendor.reindex(hold["accelerator"]).to_numpy(object), "vendor")


def out_of_sample(tuned: pd.DataFrame, loo: pd.DataFrame) -> pd.DataFrame:
    """A tuned-level :func:`benchmark_throughput` table with each MoE row predicted as
    :func:`.bands.tuned_loo_ratios` does, by the MoE factor refitted without it (every MoE row
    fits that factor: the rule declared in CHANGELOG.md on 2026-12-02); a dense row as it is (a
    held-out dense row fitted nothing)."""
    own = loo.set_index("run")["loo_tok_s_gpu"].reindex(tuned["run"]).to_numpy(float)
    pred = np.where(tuned["moe"], own, tuned["predicted_tok_s_gpu"].to_numpy(float))
    return tuned.assign(
        predicted_tok_s_gpu=pred, error=pred / tuned["published_tok_s_gpu"].to_numpy(float) - 1
    )


def tuned_bands_by_kind(loo: pd.DataFrame) -> dict[str, dict]:
    """The tuned band of each kind (dense, MoE) from :func:`.bands.tuned_loo_ratios`: ``n``,
    ``p10`` / ``p90`` (split-conformal, as stored in data/assumptions.csv) and ``loo_coverage``
    (each row's time ratio inside the band of the other rows of its kind) [x, share]."""
    out = {}
    for kind, rows in (("dense", loo[~loo["moe"]]), ("MoE", loo[loo["moe"]])):
        r = rows["time_ratio"].to_numpy(float)
        if r.size < 2:
            continue
        lo, hi = conformal_quantiles(r)
        inside = [a <= x <= b for x, (a, b) in zip(r, loo_bands(r), strict=True)]
        out[kind] = {"n": int(r.size), "p10": lo, "p90": hi, "loo_coverage": float(np.mean(inside))}
    return out


def tuned_moe_loo(catalog: Catalog | None = None, loo: pd.DataFrame | None = None) -> dict | None:
    """The tuned level on the MoE benchmark rows, each predicted with the MoE factor refitted
    without it (``loo``: :func:`.bands.tuned_loo_ratios`, computed when not given):
    :func:`.metrics.metrics`, ``fastest`` (the largest predicted / published throughput) and
    ``slowest`` (the largest published / predicted) [x]; None without such rows."""
    loo = tuned_loo_ratios(resolve_catalog(catalog)) if loo is None else loo
    rows = loo[loo["moe"]]
    if rows.empty:
        return None
    ratio = rows["loo_tok_s_gpu"] / rows["published_tok_s_gpu"]
    return {
        **metrics(rows["published_tok_s_gpu"], rows["loo_tok_s_gpu"]),
        "fastest": float(ratio.max()),
        "slowest": float((1 / ratio).max()),
    }


def tuned_fp4_loo(catalog: Catalog | None = None, loo: pd.DataFrame | None = None) -> dict | None:
    """The tuned level on the FP4 benchmark rows that fit a vendor's FP4 speedup
    (:func:`.bands.tuned_part_fp4`), each predicted with it refitted without the row (``loo`` as
    :func:`tuned_moe_loo`'s): :func:`.metrics.metrics`, ``median_error`` (signed), ``vendors``
    (whose rows they are) and ``parts`` (the accelerators with their own stored FP4 speedup);
    None without such rows."""
    cat = resolve_catalog(catalog)
    loo = tuned_loo_ratios(cat) if loo is None else loo
    rows = loo[(loo["precision"] == "fp4") & (loo["split"] != "holdout")]
    if rows.empty:
        return None
    return {
        **_signed_metrics(rows, "loo_tok_s_gpu"),
        "vendors": tuple(sorted(set(rows["vendor"]))),
        "parts": tuple(sorted(cat.own_values("assumptions", FP4_SPEEDUP))),
    }


def tuned_fp4_holdout(
    catalog: Catalog | None = None, tuned: pd.DataFrame | None = None
) -> dict | None:
    """The tuned level on the held-out FP4 benchmark rows (they fit nothing; since 2026-12-02 the
    MXFP4 rows of AMD, whose parts plan FP4 with FP8's speedup): :func:`.metrics.metrics` and
    ``median_error`` (predicted / published - 1, signed); None without such rows. ``tuned``:
    the tuned-level :func:`benchmark_throughput` table (computed when not given)."""
    if tuned is None:
        tuned = benchmark_throughput(resolve_catalog(catalog), "tuned")
    rows = tuned[(tuned["split"] == "holdout") & (tuned["precision"] == "fp4")]
    return _signed_metrics(rows) if len(rows) else None


def tuned_scale_holdout(
    catalog: Catalog | None = None, tuned: pd.DataFrame | None = None
) -> dict[str, dict]:
    """The tuned level on the held-out dense benchmark rows beyond 256 GPUs (:data:`SCALE_GROUPS`'
    last group; they fit nothing), per accelerator: ``n``, ``mdape``, ``median_error``
    (predicted / published - 1, signed) and ``gpus`` (the fewest and most GPUs of its rows);
    empty where no such row exists. ``tuned`` as :func:`tuned_fp4_holdout`'s."""
    if tuned is None:
        tuned = benchmark_throughput(resolve_catalog(catalog), "tuned")
    beyond = tuned["n_gpus"] > SCALE_GROUPS[-2][1]
    return _held_out_dense_by_part(tuned[beyond])


def _held_out_dense_by_part(tuned: pd.DataFrame) -> dict[str, dict]:
    """The held-out dense rows of ``tuned`` per accelerator: :func:`_signed_metrics` and
    ``gpus`` (the fewest and most GPUs of its rows)."""
    rows = tuned[(tuned["split"] == "holdout") & ~tuned["moe"]]
    return {
        part: {**_signed_metrics(g), "gpus": (int(g["n_gpus"].min()), int(g["n_gpus"].max()))}
        for part, g in rows.groupby("accelerator", sort=True)
    }


#: Benchmark tables (:func:`benchmark_throughput`'s ``source``) of trainers that are not a
#: vendor's reference recipe, the tuned level's meaning (declared in CHANGELOG.md 2026-12-04
#: before their rows' errors were computed): their held-out rows say how far a plan at the tuned
#: level is for a team that trains on them.
OTHER_STACK_SOURCES = (TORCHTITAN_SOURCE,)


def tuned_part_holdout(
    catalog: Catalog | None = None, tuned: pd.DataFrame | None = None
) -> dict[str, dict]:
    """The tuned level on each accelerator's held-out dense benchmark rows of vendor recipes
    (those of :data:`OTHER_STACK_SOURCES` apart; they fit nothing), at any GPU count: ``n``,
    ``mdape``, ``median_error`` (predicted / published - 1, signed) and ``gpus``. ``tuned`` as
    :func:`tuned_fp4_holdout`'s."""
    if tuned is None:
        tuned = benchmark_throughput(resolve_catalog(catalog), "tuned")
    return _held_out_dense_by_part(tuned[~tuned["source"].isin(OTHER_STACK_SOURCES)])


def tuned_other_stacks(
    catalog: Catalog | None = None, tuned: pd.DataFrame | None = None
) -> dict[str, dict]:
    """The tuned level on the held-out benchmark rows of each of :data:`OTHER_STACK_SOURCES`
    (they fit nothing): ``n``, ``mdape``, ``median_error`` (predicted / published - 1, signed)
    and ``parts`` (their accelerator ids); a source without such rows is left out. ``tuned`` as
    :func:`tuned_fp4_holdout`'s."""
    if tuned is None:
        tuned = benchmark_throughput(resolve_catalog(catalog), "tuned")
    rows = tuned[(tuned["split"] == "holdout") & tuned["source"].isin(OTHER_STACK_SOURCES)]
    return {
        str(source): {**_signed_metrics(g), "parts": tuple(sorted(set(g["accelerator"])))}
        for source, g in rows.groupby("source", sort=True)
    }


@dataclass(frozen=True)
class TunedEvidence:
    """The live figures a tuned pick's reasons quote (:func:`tuned_evidence`)."""

    #: :func:`tuned_moe_loo`.
    moe_loo: dict | None
    #: :func:`tuned_fp4_loo`.
    fp4_loo: dict | None
    #: :func:`tuned_fp4_holdout`.
    fp4_holdout: dict | None
    #: :func:`tuned_scale_holdout`.
    scale_holdout: dict = field(default_factory=dict)
    #: :func:`tuned_other_stacks`.
    other_stacks: dict = field(default_factory=dict)
    #: :func:`tuned_part_holdout`.
    part_holdout: dict = field(default_factory=dict)


def tuned_evidence(catalog: Catalog | None = None) -> TunedEvidence:
    """:func:`tuned_moe_loo`, :func:`tuned_fp4_loo`, :func:`tuned_fp4_holdout`,
    :func:`tuned_scale_holdout`, :func:`tuned_other_stacks` and :func:`tuned_part_holdout` of
    ``catalog``, the leave-one-out and tuned-level benchmark tables computed once each."""
    cat = resolve_catalog(catalog)
    loo, tuned = tuned_loo_ratios(cat), benchmark_throughput(cat, "tuned")
    return TunedEvidence(
        tuned_moe_loo(cat, loo),
        tuned_fp4_loo(cat, loo),
        tuned_fp4_holdout(cat, tuned),
        tuned_scale_holdout(cat, tuned),
        tuned_other_stacks(cat, tuned),
        tuned_part_holdout(cat, tuned),
    )


#: :func:`tuned_evidence` per catalog object (every recommendation's reasons ask).
tuned_evidence_cached = PerCatalog(tuned_evidence)


@dataclass
class Levels:
    """Both levels on their own evidence, as ``python -m workbook validate`` prints them.

    Metrics dicts are :func:`.metrics.metrics` (``mdape``, ``within_25pct``, ``max_ratio_off``,
    ``n``)."""

    #: The tuned stack on the benchmarks, its speedup fitted on all of them (in sample).
    tuned: dict
    #: The same, each row predicted with its precision's speedup refitted without it.
    tuned_loo: dict
    #: Median signed error (predicted / published - 1) per vendor: ``runs``, ``median_error``
    #: (in sample) and ``loo_median_error``.
    tuned_bias: pd.DataFrame
    #: The held-out benchmark rows at the tuned level out of sample (:func:`out_of_sample`: a
    #: dense row fitted nothing, a MoE row is shown with the MoE factor refitted without it):
    #: ``run``, ``accelerator``, ``published_tok_s_gpu``, ``predicted_tok_s_gpu``, ``error``;
    #: and their metrics.
    tuned_holdout: pd.DataFrame
    tuned_holdout_metrics: dict | None
    #: The same metrics (and ``fastest``) for the held-out dense rows and the held-out MoE rows
    #: apart (a kind with no held-out row is left out: :func:`_holdout_by_kind`).
    tuned_holdout_by_kind: dict
    #: The same per software (the benchmark table a row comes from) and kind: ``runs``,
    #: ``mdape``, ``within_25pct``.
    tuned_holdout_by_source: pd.DataFrame
    #: The dense benchmarks at the tuned level from their parameter counts alone (the shape
    #: derived from the size, what a plan without a shape gets), and with their exact shapes.
    tuned_derived: dict
    tuned_exact: dict
    #: The typical level's median (engine x the held-out median refitted without the row) on the
    #: dense prospective (blind) runs, and the constant-MFU baseline on the same runs.
    realized_blind: dict | None
    realized_blind_baseline: dict | None
    #: Published / tuned-predicted GPU-hours of the used full runs per group (accelerator, or MoE):
    #: ``runs``, ``p10``, ``median``, ``p90`` (by software class and scale:
    #: :func:`workbook.calibrate.realized.realized_by_class`).
    realized_by_group: pd.DataFrame
    #: :func:`band_coverage`.
    coverage: dict
    #: The tuned band of each kind and its leave-one-out coverage (:func:`tuned_bands_by_kind`).
    tuned_bands: dict = field(default_factory=dict)
    #: The FP4 benchmarks: those that fitted a vendor's FP4 speedup, leave-one-out
    #: (:func:`tuned_fp4_loo`), and the held-out ones (:func:`tuned_fp4_holdout`).
    tuned_fp4_loo: dict | None = None
    tuned_fp4_holdout: dict | None = None
    #: The held-out rows' metrics by GPU count (:data:`SCALE_GROUPS`) and by vendor, each per
    #: kind, with ``median_error`` (:func:`_holdout_groups`).
    tuned_holdout_by_scale: pd.DataFrame = field(default_factory=pd.DataFrame)
    tuned_holdout_by_vendor: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: The tuned level's per-step overhead [tokens per GPU per step] (data/assumptions.csv
    #: ``step_overhead_tuned_tokens``, :func:`workbook.calibrate.fit_tuned_step_overhead`).
    step_overhead_tokens: float = 0.0
    #: The MoE routing width's fit (:func:`workbook.calibrate.routing_fit`): ``width`` and the MoE
    #: rows' leave-one-out metrics without it, at it and nested.
    moe_routing: dict = field(default_factory=dict)


#: What the validator shows of each held-out benchmark row.
HOLDOUT_COLUMNS = [
    "run",
    "source",
    "accelerator",
    "n_gpus",
    "moe",
    "published_tok_s_gpu",
    "predicted_tok_s_gpu",
    "error",
]


def _vendor_bias(cat: Catalog, tuned: pd.DataFrame, loo: pd.DataFrame) -> pd.DataFrame:
    vendor = cat.tables["accelerators"].set_index("accelerator_id")["vendor"]
    v = vendor.reindex(tuned["accelerator"]).to_numpy(object)
    frame = pd.DataFrame(
        {
            "vendor": v,
            "error": tuned["error"],
            "loo_error": loo["loo_tok_s_gpu"] / loo["published_tok_s_gpu"] - 1,
        }
    )
    return frame.groupby("vendor").agg(
        runs=("error", "size"),
        median_error=("error", "median"),
        loo_median_error=("loo_error", "median"),
    )


def _realized_blind(cat: Catalog) -> tuple[dict | None, dict | None]:
    """The typical median on the dense prospective runs, its p50 refitted without the row."""
    hold, r = holdout_ratios(cat)
    blind = (entry_batch(hold) >= 1) & ~is_moe(hold)
    if not blind.any():
        return None, None
    pub = hold["gpu_hours"].to_numpy(float)
    engine = pub / r
    p50 = np.array([np.median(np.delete(r, i)) for i in range(r.size)])
    rows = full_runs(cat)
    base_mfu = fit_baseline_mfu(rows[rows["split"] == "calibration"], cat)
    base = baseline_hours(hold, base_mfu, cat)
    return (
        metrics(pub[blind], (engine * p50)[blind]),
        metrics(pub[blind], base[blind]),
    )


def _realized_by_group(cat: Catalog) -> pd.DataFrame:
    """Published / tuned-predicted GPU-hours of every used full run, per error group."""
    rows = full_runs(cat)
    tuned = predict_hours(rows, cat, software_stack="tuned")
    ratio = pd.Series(rows["gpu_hours"].to_numpy(float) / tuned)
    return ratio.groupby(error_group(rows)).agg(
        runs="size",
        p10=lambda x: x.quantile(BAND_LOW),
        median="median",
        p90=lambda x: x.quantile(BAND_HIGH),
    )


def level_summary(catalog: Catalog | None = None) -> Levels:
    """Both levels measured on their own evidence (:class:`Levels`)."""
    cat = resolve_catalog(catalog)
    tuned, loo = benchmark_throughput(cat, "tuned"), tuned_loo_ratios(cat)
    derived = benchmark_throughput(cat, "tuned", exact_shapes=False)
    oos = out_of_sample(tuned, loo)
    hold = oos[oos["split"] == "holdout"]
    blind, blind_base = _realized_blind(cat)
    return Levels(
        tuned=metrics(tuned["published_tok_s_gpu"], tuned["predicted_tok_s_gpu"]),
        tuned_loo=metrics(loo["published_tok_s_gpu"], loo["loo_tok_s_gpu"]),
        tuned_bias=_vendor_bias(cat, tuned, loo),
        tuned_holdout=hold[HOLDOUT_COLUMNS].reset_index(drop=True),
        tuned_holdout_metrics=metrics(hold["published_tok_s_gpu"], hold["predicted_tok_s_gpu"])
        if len(hold)
        else None,
        tuned_holdout_by_kind=_holdout_by_kind(oos),
        tuned_holdout_by_source=_holdout_by_source(hold),
        tuned_derived=_signed_metrics(derived[~derived["moe"]]),
        tuned_exact=_signed_metrics(tuned[~tuned["moe"]]),
        realized_blind=blind,
        realized_blind_baseline=blind_base,
        realized_by_group=_realized_by_group(cat),
        coverage=band_coverage(cat),
        tuned_bands=tuned_bands_by_kind(loo),
        tuned_fp4_loo=tuned_fp4_loo(cat, loo),
        tuned_fp4_holdout=tuned_fp4_holdout(cat),
        tuned_holdout_by_scale=_holdout_by_scale(hold),
        tuned_holdout_by_vendor=_holdout_by_vendor(cat, hold),
        step_overhead_tokens=cat.param("assumptions", "step_overhead_tuned_tokens"),
        moe_routing=routing_fit_cached(cat),
    )
