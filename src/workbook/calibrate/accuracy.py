"""How accurate the time model is, as tables: published vs predicted GPU-hours, error metrics,
bias per accelerator, the recalibration floor and the twin runs (notebook 07, the trust text)."""

from __future__ import annotations

import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..checks import need_columns
from .benchmarks import benchmark_throughput, throughput_ratios
from .fit import Fitter
from .metrics import bias_by_group, metrics, recalibration_floor, twin_pairs
from .runs import (
    baseline_hours,
    baseline_leave_one_out,
    entry_batch,
    error_group,
    fit_baseline_mfu,
    full_runs,
    predict_hours,
)


def accuracy_table(catalog: Catalog | None = None, out_of_sample: bool = False) -> pd.DataFrame:
    """Published vs predicted GPU-hours for every usable full run in data/published_runs.csv.

    Predictions are :func:`workbook.calibrate.runs.predict_hours` (the full engine); the baseline
    is :func:`workbook.calibrate.runs.baseline_hours`: 6 N_active D at one constant MFU fitted on
    the calibration rows. ``gpus`` not published are assumed (``gpu_count_assumed``; 2,048).

    Returns
    -------
    DataFrame, one row per run: ``run_id``, ``model``, ``split`` (calibration | holdout),
    ``accelerator``, ``n_gpus``, ``gpu_count_assumed``, ``published_gpu_hours``,
    ``predicted_gpu_hours``, ``error`` (predicted / published - 1), ``baseline_gpu_hours``,
    ``baseline_error``, ``group`` (accelerator, or "MoE (any)"), ``prospective`` (a holdout run
    entered after the constants were frozen), ``entry_batch``
    (:func:`workbook.calibrate.runs.entry_batch`); with ``out_of_sample`` (about 10 s) also
    ``loo_gpu_hours`` / ``loo_error`` and ``baseline_loo_gpu_hours``: each run predicted with the
    constants refitted on all the other runs (:class:`workbook.calibrate.fit.Fitter`,
    :func:`workbook.calibrate.runs.baseline_leave_one_out`).
    """
    cat = resolve_catalog(catalog)
    rows = full_runs(cat)
    pred = predict_hours(rows, cat)
    base_mfu = fit_baseline_mfu(rows[rows["split"] == "calibration"], cat)
    base = baseline_hours(rows, base_mfu, cat)
    pub = rows["gpu_hours"].to_numpy(float)
    batch = entry_batch(rows)
    table = pd.DataFrame(
        {
            "run_id": rows["run_id"],
            "model": rows["model"],
            "split": rows["split"],
            "accelerator": rows["accelerator_id"],
            "n_gpus": rows["n_gpus"].astype(int),
            "gpu_count_assumed": rows["gpu_count_assumed"].astype(bool),
            "published_gpu_hours": pub,
            "predicted_gpu_hours": pred,
            "error": pred / pub - 1.0,
            "baseline_gpu_hours": base,
            "baseline_error": base / pub - 1.0,
            "group": error_group(rows),
            "prospective": batch >= 1,
            "entry_batch": batch,
        }
    )
    if out_of_sample:
        table["loo_gpu_hours"] = Fitter(rows, cat).leave_one_out()
        table["loo_error"] = table["loo_gpu_hours"] / pub - 1.0
        table["baseline_loo_gpu_hours"] = baseline_leave_one_out(rows, cat)
    return table


def accuracy_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Error metrics of :func:`accuracy_table` (:func:`workbook.calibrate.metrics.metrics`) for
    the engine and baseline.

    Rows: engine on all / calibration / holdout runs, baseline on all / calibration / holdout, then
    the prospective holdout (runs entered after the constants were frozen) when the table marks any;
    when the table has the leave-one-out columns, also ``leave-one-out`` rows (every run held out
    once). Columns: ``n``, ``mdape`` (median absolute percentage error), ``within_25pct`` (share of
    runs within +-25 %),
    ``max_ratio_off`` (worst predicted/published ratio, either direction).
    """
    need_columns(
        "table",
        table,
        {"split", "published_gpu_hours", "predicted_gpu_hours", "baseline_gpu_hours"},
    )
    rows = []
    for model, col in (
        ("engine", "predicted_gpu_hours"),
        ("constant-MFU baseline", "baseline_gpu_hours"),
    ):
        for split in ("all", "calibration", "holdout"):
            d = table if split == "all" else table[table["split"] == split]
            if d.empty:
                continue
            rows.append(
                {
                    "model": model,
                    "runs": split,
                    **metrics(d["published_gpu_hours"], d[col]),
                }
            )
        if "prospective" in table and table["prospective"].any():
            d = table[table["prospective"].astype(bool)]
            rows.append(
                {
                    "model": model,
                    "runs": "prospective holdout",
                    **metrics(d["published_gpu_hours"], d[col]),
                }
            )
        loo = {"engine": "loo_gpu_hours", "constant-MFU baseline": "baseline_loo_gpu_hours"}[model]
        if loo in table:
            rows.append(
                {
                    "model": model,
                    "runs": "leave-one-out",
                    **metrics(table["published_gpu_hours"], table[loo]),
                }
            )
    return pd.DataFrame(rows)[["model", "runs", "n", "mdape", "within_25pct", "max_ratio_off"]]


def accuracy_bias(table: pd.DataFrame) -> pd.DataFrame:
    """Systematic error per accelerator (dense runs) and for MoE runs: run count and median signed
    error (``predicted / published - 1``; negative: the runs took longer than predicted), in sample
    and, when the table has it, left out one at a time
    (:func:`workbook.calibrate.metrics.bias_by_group`)."""
    need_columns("table", table, {"group", "error"})
    out = bias_by_group(table["group"], table["error"])
    if "loo_error" in table:
        out["median_loo_error"] = bias_by_group(table["group"], table["loo_error"])["median_error"]
    return out.rename_axis("group").reset_index()


#: The accuracy targets of the time model (issue 3): MdAPE of GPU-hours, share within +-25 %,
#: worst ratio.
ACCURACY_TARGETS = {
    "mdape": ("at most", 0.15),
    "within_25pct": ("at least", 0.75),
    "max_ratio_off": ("at most", 2.0),
}


def accuracy_floor(table: pd.DataFrame) -> pd.DataFrame:
    """The engine's error on every run of :func:`accuracy_table` next to the best a recalibration by
    accelerator could reach (:func:`workbook.calibrate.metrics.recalibration_floor`: one
    multiplier per ``group``, chosen in hindsight on the same runs) and the target
    (:data:`ACCURACY_TARGETS`).

    One row per metric: ``metric``, ``target`` (e.g. "at most 0.15"), ``engine``,
    ``best_recalibration``, ``reachable_by_recalibration`` (whether the floor meets the target).
    """
    need_columns("table", table, {"group", "published_gpu_hours", "predicted_gpu_hours"})
    engine = metrics(table["published_gpu_hours"], table["predicted_gpu_hours"])
    floor = recalibration_floor(
        table["group"], table["published_gpu_hours"], table["predicted_gpu_hours"]
    )
    rows = []
    for metric, (way, target) in ACCURACY_TARGETS.items():
        meets = floor[metric] >= target if way == "at least" else floor[metric] <= target
        rows.append(
            {
                "metric": metric,
                "target": f"{way} {target:g}",
                "engine": engine[metric],
                "best_recalibration": floor[metric],
                "reachable_by_recalibration": bool(meets),
            }
        )
    return pd.DataFrame(rows)


def twin_pair_table(catalog: Catalog | None = None) -> pd.DataFrame:
    """Published twin runs that contradict any physical time model
    (:func:`workbook.calibrate.metrics.twin_pairs`): the run with no more GPUs and no longer
    sequences was the slower one, by ``ratio`` in implied MFU."""
    cat = resolve_catalog(catalog)
    return twin_pairs(full_runs(cat), cat)


def benchmark_table(catalog: Catalog | None = None) -> pd.DataFrame:
    """The engine's steady-state tokens/s per GPU against every published throughput benchmark
    (:func:`workbook.calibrate.benchmarks.benchmark_throughput`): the time model without goodput
    or site effects."""
    return benchmark_throughput(resolve_catalog(catalog))


def throughput_ratio_table(catalog: Catalog | None = None) -> pd.DataFrame:
    """Predicted vs published per-GPU throughput ratios between accelerators
    (:func:`workbook.calibrate.benchmarks.throughput_ratios`)."""
    return throughput_ratios(resolve_catalog(catalog))
