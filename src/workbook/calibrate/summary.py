"""Everything the validator reports (``python -m workbook validate``), computed once as a typed
result: the per-run table, the error metrics of the engine and of the constant-MFU baseline, the
prospective holdout, the empirical range and its forward check, the bias per accelerator, the
recalibration floor, the twin runs, the benchmarks, the throughput ratios, the out-of-sample error
and the headline ``name: value`` figures. :mod:`workbook.cli.validate` only formats it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..catalog import Catalog, resolve_catalog
from .benchmarks import benchmark_throughput, throughput_ratios
from .fit import SPLIT_REPEATS, Fitter
from .levels import SCALE_GROUPS, Levels, level_summary
from .metrics import (
    TWIN_RATIO_2X,
    TWIN_RATIO_25PCT,
    bias_by_group,
    forward_range_check,
    metrics,
    recalibration_floor,
    time_range,
    twin_pairs,
)
from .realized import RealizedSummary, realized_summary
from .runs import (
    baseline_hours,
    baseline_leave_one_out,
    entry_batch,
    error_group,
    excluded_runs,
    fit_baseline_mfu,
    full_runs,
    is_moe,
    predict_hours,
)
from .targets import target_figures


@dataclass
class Prospective:
    """The holdout runs entered after the constants were frozen (:func:`.runs.is_prospective`).

    Each field is a :func:`.metrics.metrics` dict (``mdape``, ``within_25pct``, ``max_ratio_off``,
    ``n``). The MoE shape fix (CHANGELOG) was found on the prospective DeepSeek rows, so only the
    dense prospective rows stay a blind test of the model as it now stands."""

    #: The engine on all prospective runs.
    engine: dict
    #: The constant-MFU baseline on the same runs.
    baseline: dict
    #: The engine on the dense prospective runs (None when there is none).
    dense: dict | None
    #: The baseline on the dense prospective runs (None when there is none).
    dense_baseline: dict | None


@dataclass
class OutOfSample:
    """The error beyond the one fixed calibration/holdout split (:class:`.fit.Fitter`)."""

    #: The engine, every row predicted by constants refitted without it (:func:`.metrics.metrics`).
    leave_one_out: dict
    #: The baseline, its MFU refitted without each row (:func:`.metrics.metrics`).
    baseline_leave_one_out: dict
    #: One row per random split of the calibration/holdout sizes, refitted each time:
    #: ``calibration_mdape``, ``holdout_mdape``.
    splits: pd.DataFrame
    #: How many random splits (:data:`.fit.SPLIT_REPEATS`).
    repeats: int


@dataclass
class ValidationSummary:
    """The time model against the published runs, as ``python -m workbook validate`` prints it.

    Metrics dicts are :func:`.metrics.metrics` (``mdape``, ``within_25pct``, ``max_ratio_off``,
    ``n``); GPU-hours in [GPU-h], throughput in [tokens/s per GPU]."""

    #: One row per used full run: ``run``, ``split``, ``gpu``, ``gpus`` (with ``*`` when assumed),
    #: ``published_gpu_h``, ``predicted_gpu_h``, ``error``, ``baseline_gpu_h``,
    #: ``baseline_error``, and with the cross-validation ``loo_error``.
    runs: pd.DataFrame
    #: The excluded full runs (``run_id``, ``split_reason``: why).
    excluded: pd.DataFrame
    #: The engine on all used runs, the calibration runs and the held-out runs.
    engine: dict
    calibration: dict
    holdout: dict
    #: The constant-MFU baseline on all used runs, and its MFU (of dense BF16 peak).
    baseline: dict
    baseline_mfu: float
    #: The prospective holdout (None when no run was entered after the freeze).
    prospective: Prospective | None
    #: :func:`.metrics.time_range` of the held-out runs (``low``, ``median``, ``high``,
    #: ``loo_coverage``, ``n``).
    time_range: dict
    #: :func:`.metrics.forward_range_check` of the held-out runs, one row per later batch.
    forward: pd.DataFrame
    #: :func:`.metrics.bias_by_group` of the engine's error, per accelerator (dense) and MoE.
    bias: pd.DataFrame
    #: :func:`.metrics.recalibration_floor` of the engine per error group.
    floor: dict
    #: :func:`.metrics.twin_pairs` of the used runs.
    twins: pd.DataFrame
    #: The run the engine is furthest off on (in log ratio), and its error (predicted /
    #: published - 1).
    worst_run: str
    worst_error: float
    #: :func:`.benchmarks.benchmark_throughput`, its metrics and its bias per software source.
    benchmarks: pd.DataFrame
    benchmark_metrics: dict
    benchmark_bias: pd.DataFrame
    #: :func:`.benchmarks.throughput_ratios`.
    ratios: pd.DataFrame
    #: The cross-validation (None when skipped).
    out_of_sample: OutOfSample | None
    #: Both levels on their own evidence and the band's coverage (:func:`.levels.level_summary`).
    levels: Levels | None = None
    #: The realized level by software class and scale, and the conditioned bands against the
    #: declared rule (:func:`.realized.realized_summary`).
    realized: RealizedSummary | None = None

    @property
    def figures(self) -> dict:
        """The headline figures, ``name -> value``, in the order printed
        (:func:`headline_figures`)."""
        return headline_figures(self)


def _run_table(rows: pd.DataFrame, pub, pred, base) -> pd.DataFrame:
    """The per-run table of :attr:`ValidationSummary.runs` (without ``loo_error``)."""
    return pd.DataFrame(
        {
            "run": rows["run_id"],
            "split": rows["split"],
            "gpu": rows["accelerator_id"],
            "gpus": rows["n_gpus"].astype(str) + np.where(rows["gpu_count_assumed"], "*", ""),
            "published_gpu_h": pub,
            "predicted_gpu_h": pred,
            "error": pred / pub - 1.0,
            "baseline_gpu_h": base,
            "baseline_error": base / pub - 1.0,
        }
    )


def _prospective(rows: pd.DataFrame, batch, pub, pred, base) -> Prospective | None:
    """The engine and the baseline on the runs of any later entry batch (None when none)."""
    prosp = batch >= 1
    if not prosp.any():
        return None
    dense = prosp & ~is_moe(rows)
    return Prospective(
        engine=metrics(pub[prosp], pred[prosp]),
        baseline=metrics(pub[prosp], base[prosp]),
        dense=metrics(pub[dense], pred[dense]) if dense.any() else None,
        dense_baseline=metrics(pub[dense], base[dense]) if dense.any() else None,
    )


def _out_of_sample(rows: pd.DataFrame, cat: Catalog, fitter: Fitter, loo, n_holdout: int):
    """Leave-one-out of the engine (``loo`` [GPU-h]) and of the baseline, and the random splits."""
    pub = rows["gpu_hours"].to_numpy(float)
    return OutOfSample(
        leave_one_out=metrics(pub, loo),
        baseline_leave_one_out=metrics(pub, baseline_leave_one_out(rows, cat)),
        splits=fitter.random_splits(n_holdout=n_holdout, repeats=SPLIT_REPEATS),
        repeats=SPLIT_REPEATS,
    )


def validation_summary(catalog: Catalog | None = None, cv: bool = True) -> ValidationSummary:
    """The time model against the published runs of ``catalog``, predicted with its constants;
    ``cv`` adds the out-of-sample error (leave-one-out and random splits, ~20 s)."""
    cat = resolve_catalog(catalog)
    rows = full_runs(cat)
    pred = predict_hours(rows, cat)
    cal_mask = (rows["split"] == "calibration").to_numpy()
    base_mfu = fit_baseline_mfu(rows[cal_mask], cat)
    base = baseline_hours(rows, base_mfu, cat)
    pub = rows["gpu_hours"].to_numpy(float)
    table = _run_table(rows, pub, pred, base)
    out_of_sample = None
    if cv:
        fitter = Fitter(rows, cat)
        loo = fitter.leave_one_out()
        table["loo_error"] = loo / pub - 1.0
        out_of_sample = _out_of_sample(rows, cat, fitter, loo, int((~cal_mask).sum()))
    batch, groups = entry_batch(rows), error_group(rows)
    worst = table.iloc[int(np.argmax(np.abs(np.log(pred / pub))))]
    bench = benchmark_throughput(cat)
    return ValidationSummary(
        runs=table,
        excluded=excluded_runs(cat),
        engine=metrics(pub, pred),
        calibration=metrics(pub[cal_mask], pred[cal_mask]),
        holdout=metrics(pub[~cal_mask], pred[~cal_mask]),
        baseline=metrics(pub, base),
        baseline_mfu=base_mfu,
        prospective=_prospective(rows, batch, pub, pred, base),
        time_range=time_range(pub[~cal_mask], pred[~cal_mask]),
        forward=forward_range_check(batch, ~cal_mask, pub, pred),
        bias=bias_by_group(groups, pred / pub - 1.0),
        floor=recalibration_floor(groups, pub, pred),
        twins=twin_pairs(rows, cat),
        worst_run=worst["run"],
        worst_error=float(worst["error"]),
        benchmarks=bench,
        benchmark_metrics=metrics(bench["published_tok_s_gpu"], bench["predicted_tok_s_gpu"]),
        benchmark_bias=bias_by_group(bench["source"], bench["error"]),
        ratios=throughput_ratios(cat),
        out_of_sample=out_of_sample,
        levels=level_summary(cat),
        realized=realized_summary(cat),
    )


def _main_figures(s: ValidationSummary) -> dict:
    """The figures every validation has: run counts, the engine's and the baseline's metrics, the
    throughput checks, the range, the floor and the twin pairs."""
    m_all, m_cal, m_hold, b_all = s.engine, s.calibration, s.holdout, s.baseline
    rng, floor, twins = s.time_range, s.floor, s.twins
    return {
        "runs_used": m_all["n"],
        "runs_calibration": m_cal["n"],
        "runs_holdout": m_hold["n"],
        "mdape": m_all["mdape"],
        "within_25pct": m_all["within_25pct"],
        "max_ratio_off": m_all["max_ratio_off"],
        "calibration_mdape": m_cal["mdape"],
        "holdout_mdape": m_hold["mdape"],
        "holdout_within_25pct": m_hold["within_25pct"],
        "holdout_max_ratio_off": m_hold["max_ratio_off"],
        "baseline_mfu": s.baseline_mfu,
        "baseline_mdape": b_all["mdape"],
        "baseline_within_25pct": b_all["within_25pct"],
        "baseline_max_ratio_off": b_all["max_ratio_off"],
        "ratio_mdape": float(np.median(np.abs(s.ratios["error"]))),
        "benchmark_runs": s.benchmark_metrics["n"],
        "benchmark_mdape": s.benchmark_metrics["mdape"],
        "benchmark_within_25pct": s.benchmark_metrics["within_25pct"],
        "range_low": rng["low"],
        "range_median": rng["median"],
        "range_high": rng["high"],
        "range_loo_coverage": rng["loo_coverage"],
        "floor_mdape": floor["mdape"],
        "floor_within_25pct": floor["within_25pct"],
        "floor_max_ratio_off": floor["max_ratio_off"],
        "twin_pairs_beyond_25pct": int((twins["ratio"] > TWIN_RATIO_25PCT).sum()),
        "twin_pairs_beyond_2x": int((twins["ratio"] > TWIN_RATIO_2X).sum()),
    }


def _forward_figures(forward: pd.DataFrame) -> dict:
    """The range's forward check in all later batches (none without a later batch)."""
    if not len(forward):
        return {}
    return {
        "range_forward_runs": int(forward["runs"].sum()),
        "range_forward_inside": int(forward["inside"].sum()),
        "range_forward_coverage": float(forward["inside"].sum() / forward["runs"].sum()),
    }


def _prospective_figures(p: Prospective | None) -> dict:
    """The prospective holdout and its dense part (none without a prospective run)."""
    if p is None:
        return {}
    out = {
        "runs_prospective": p.engine["n"],
        "prospective_mdape": p.engine["mdape"],
        "prospective_within_25pct": p.engine["within_25pct"],
        "prospective_baseline_mdape": p.baseline["mdape"],
    }
    if p.dense is not None:
        out.update(
            {
                "runs_prospective_dense": p.dense["n"],
                "prospective_dense_mdape": p.dense["mdape"],
                "prospective_dense_within_25pct": p.dense["within_25pct"],
            }
        )
    return out


def _out_of_sample_figures(o: OutOfSample | None) -> dict:
    """Leave-one-out and random-split figures (none without the cross-validation)."""
    if o is None:
        return {}
    splits = o.splits
    return {
        "loo_mdape": o.leave_one_out["mdape"],
        "loo_within_25pct": o.leave_one_out["within_25pct"],
        "loo_max_ratio_off": o.leave_one_out["max_ratio_off"],
        "baseline_loo_mdape": o.baseline_leave_one_out["mdape"],
        "baseline_loo_within_25pct": o.baseline_leave_one_out["within_25pct"],
        "splits_calibration_mdape_median": float(splits["calibration_mdape"].median()),
        "splits_holdout_mdape_median": float(splits["holdout_mdape"].median()),
        "splits_holdout_worse_share": float(
            (splits["holdout_mdape"] > splits["calibration_mdape"]).mean()
        ),
    }


def _level_figures(lv: Levels | None) -> dict:
    """Both levels and the band's coverage (issue 19)."""
    if lv is None:
        return {}
    out = {
        "tuned_benchmark_mdape": lv.tuned["mdape"],
        "tuned_benchmark_within_25pct": lv.tuned["within_25pct"],
        "tuned_loo_mdape": lv.tuned_loo["mdape"],
        "tuned_loo_within_25pct": lv.tuned_loo["within_25pct"],
    }
    for vendor, row in lv.tuned_bias.iterrows():
        out[f"tuned_bias_{str(vendor).lower()}"] = float(row["median_error"])
        out[f"tuned_loo_bias_{str(vendor).lower()}"] = float(row["loo_median_error"])
    out["tuned_dense_exact_mdape"] = lv.tuned_exact["mdape"]
    out["tuned_dense_derived_mdape"] = lv.tuned_derived["mdape"]
    out["tuned_dense_derived_median_error"] = lv.tuned_derived["median_error"]
    if lv.tuned_holdout_metrics is not None:
        out["tuned_holdout_rows"] = lv.tuned_holdout_metrics["n"]
        out["tuned_holdout_mdape"] = lv.tuned_holdout_metrics["mdape"]
        out["tuned_holdout_within_25pct"] = lv.tuned_holdout_metrics["within_25pct"]
        for kind, m in lv.tuned_holdout_by_kind.items():
            out[f"tuned_holdout_{kind.lower()}_rows"] = m["n"]
            out[f"tuned_holdout_{kind.lower()}_mdape"] = m["mdape"]
            out[f"tuned_holdout_{kind.lower()}_within_25pct"] = m["within_25pct"]
        for r in lv.tuned_holdout_by_vendor.itertuples():
            out[f"tuned_holdout_bias_{r.vendor.lower()}_{r.kind.lower()}"] = r.median_error
        big = lv.tuned_holdout_by_scale
        big = big[(big["gpus"] == SCALE_GROUPS[-1][0]) & (big["kind"] == "dense")]
        if len(big):
            out["tuned_holdout_dense_over256_rows"] = int(big["runs"].iloc[0])
            out["tuned_holdout_dense_over256_mdape"] = float(big["mdape"].iloc[0])
    out["tuned_step_overhead_tokens"] = lv.step_overhead_tokens
    if lv.moe_routing.get("none") is not None:
        out["tuned_moe_routing_width"] = lv.moe_routing["width"]
        for key in ("none", "at_width", "nested"):
            out[f"tuned_moe_routing_{key}_mdape"] = lv.moe_routing[key]["mdape"]
            out[f"tuned_moe_routing_{key}_within_25pct"] = lv.moe_routing[key]["within_25pct"]
    for kind, m in lv.tuned_bands.items():
        for key in ("p10", "p90", "loo_coverage"):
            out[f"tuned_band_{kind.lower()}_{key}"] = m[key]
    for key, m in (("fp4_loo", lv.tuned_fp4_loo), ("fp4_holdout", lv.tuned_fp4_holdout)):
        if m:
            out[f"tuned_{key}_rows"] = m["n"]
            out[f"tuned_{key}_mdape"] = m["mdape"]
            out[f"tuned_{key}_median_error"] = m["median_error"]
    if lv.realized_blind is not None:
        out["realized_blind_runs"] = lv.realized_blind["n"]
        out["realized_blind_mdape"] = lv.realized_blind["mdape"]
        out["realized_blind_baseline_mdape"] = lv.realized_blind_baseline["mdape"]
    c = lv.coverage
    out.update(
        {
            "band_loo_coverage": c["loo_coverage"],
            "band_forward_runs": c["forward_runs"],
            "band_forward_inside": c["forward_inside"],
            "band_forward_coverage": c["forward_coverage"],
            "band_width": c["width"],
            "band_loo_width_median": c["loo_width_median"],
        }
    )
    return out


def _realized_figures(r: RealizedSummary | None) -> dict:
    """The realized median per software class, each conditioned band's coverage and width, and
    the grouping the declared rule adopted (``pooled``: none)."""
    if r is None:
        return {}
    out = {
        f"realized_{str(g).replace('-', '_')}_median": float(row["median"])
        for (by, g), row in r.by_class.iterrows()
        if by == "software class"
    }
    for by, row in r.candidates.drop(index="pooled").iterrows():
        out[f"band_{by}_loo_coverage"] = float(row["loo_coverage"])
        out[f"band_{by}_loo_width_median"] = float(row["loo_width_median"])
        out[f"band_{by}_forward_coverage"] = float(row["forward_coverage"])
    out["band_conditioning"] = r.chosen or "pooled"
    return out


def headline_figures(s: ValidationSummary) -> dict:
    """The ``name: value`` lines the validator ends with, in order: :func:`_main_figures`, then the
    forward check, the prospective holdout and the out-of-sample error where there are any, and
    last how many of issue 19's targets they meet (:mod:`.targets`)."""
    out = {
        **_main_figures(s),
        **_forward_figures(s.forward),
        **_prospective_figures(s.prospective),
        **_out_of_sample_figures(s.out_of_sample),
        **_level_figures(s.levels),
        **_realized_figures(s.realized),
    }
    return {**out, **target_figures(out, s.ratios)}
