"""The published full runs the time model is checked on (data/published_runs.csv), their
predictions by the engine and by a naive constant-MFU baseline, and how they are grouped: MoE or
dense per accelerator, and the batch each was entered in (the first split, then the prospective
batches entered after the constants were frozen)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..model import METHOD_FLOPS_PER_PARAM, estimate_frame, moe_rows, used_full_runs
from ..model.shape import SHAPE_LIMITS
from ..units import SECONDS_PER_HOUR, TERA

#: GPU count used when a run does not publish one. The LLaMA paper states 2,048 A100-80GB for its
#: models (Touvron et al. 2023, Sec. 2.4); the others do not say. GPU-hours depend on it only
#: through communication and goodput, which are small at these sizes.
ASSUMED_GPU_COUNT = 2048
#: Sequence length [tokens] used when a run does not publish one: the engine's default
#: (``workbook.model.estimate.CONFIG_DEFAULTS``).
ASSUMED_SEQ_LEN = 4096
#: Marks (in ``split_reason``) the holdout rows added after the constants were frozen: a prospective
#: test, since the constants were fitted before these runs were entered (data/README.md).
PROSPECTIVE_MARK = "after the constants were frozen"
#: The batches of prospective runs in the order they were entered: the parenthesis in "added <date>
#: (<batch>) after the constants were frozen" (``split_reason``). Append a new batch here.
ENTRY_BATCHES = (
    "third session",
    "fourth session",
    "fifth session",
    "fifth session, second search",
    "sixth session",
    "seventh session",
)
_BATCH = re.compile(r"added \d{4}-\d{2}-\d{2} \(([^)]*)\) " + re.escape(PROSPECTIVE_MARK))


def full_runs(catalog: Catalog | None = None) -> pd.DataFrame:
    """The usable full runs (``row_type`` full_run, ``split`` calibration or holdout), with
    ``gpu_count_assumed`` (no GPU count published) and ``n_gpus`` (the published count, else
    :data:`ASSUMED_GPU_COUNT`)."""
    runs = resolve_catalog(catalog).tables["published_runs"]
    used = runs[used_full_runs(runs)].copy()
    used["gpu_count_assumed"] = used["gpu_count"].isna()
    used["n_gpus"] = used["gpu_count"].fillna(ASSUMED_GPU_COUNT).astype(int)
    return used.reset_index(drop=True)


def excluded_runs(catalog: Catalog | None = None) -> pd.DataFrame:
    """The full runs left out of every check (``split`` excluded); ``split_reason`` says why."""
    runs = resolve_catalog(catalog).tables["published_runs"]
    return runs[(runs["row_type"] == "full_run") & (runs["split"] == "excluded")]


#: model_shapes.csv's columns that are configuration columns of the engine (the exact shape:
#: :class:`workbook.model.ModelShape`'s counts, in its order).
SHAPE_CONFIG_COLUMNS = tuple(SHAPE_LIMITS)


def shape_columns(rows: pd.DataFrame, shapes: pd.DataFrame) -> pd.DataFrame:
    """The exact shape of each row (its ``shape_id`` in ``shapes``, data/model_shapes.csv) as
    engine configuration columns: NaN where a row has no shape (derived from its size)."""
    table = shapes.set_index("shape_id")[list(SHAPE_CONFIG_COLUMNS)].astype(float)
    return table.reindex(rows["shape_id"].to_numpy(object)).reset_index(drop=True)


def run_configs(
    rows: pd.DataFrame, tokens, software_stack: str = "engine", shapes: pd.DataFrame | None = None
) -> pd.DataFrame:
    """The engine's configuration frame (:func:`workbook.model.estimate_frame`) of published rows,
    trained on ``tokens`` [tokens] each; ``n_gpus`` if the rows have it, else ``gpu_count``; at the
    ``software_stack`` level (default ``"engine"``: the step-time model as fitted, which is what
    the fit and the checks of its constants compare); with ``shapes`` (data/model_shapes.csv),
    each row's exact shape where it names one (:func:`shape_columns`)."""
    configs = pd.DataFrame(
        {
            "n_params": rows["params_total"].to_numpy(float),
            "n_active_params": rows["params_active"].to_numpy(float),
            "n_tokens": tokens,
            "accelerator": rows["accelerator_id"].to_numpy(object),
            "n_gpus": rows["n_gpus"].to_numpy(int)
            if "n_gpus" in rows
            else rows["gpu_count"].to_numpy(int),
            "seq_len": rows["seq_len"].fillna(ASSUMED_SEQ_LEN).to_numpy(float),
            # fp16 and bf16 share the tensor peak on every GPU here.
            "precision": rows["precision"].replace({"fp16": "bf16"}).to_numpy(object),
            "software_stack": software_stack,
            "method": rows["method"].fillna("full").to_numpy(object)
            if "method" in rows
            else "full",
        }
    )
    if shapes is None:
        return configs
    return pd.concat([configs, shape_columns(rows, shapes)], axis=1)


def predict_hours(
    rows: pd.DataFrame,
    catalog: Catalog | None = None,
    assumptions: dict | None = None,
    software_stack: str = "engine",
) -> np.ndarray:
    """The engine's GPU-hours [GPU-h] for each run's model, tokens, part, GPU count, sequence length
    and precision (at the ``software_stack`` level: the median); ``assumptions`` replaces
    constants of data/assumptions.csv (the fit)."""
    configs = run_configs(rows, rows["tokens"].to_numpy(float), software_stack)
    return estimate_frame(configs, catalog=catalog, assumptions=assumptions)["gpu_hours"].to_numpy(
        float
    )


def baseline_hours(rows: pd.DataFrame, mfu: float, catalog: Catalog | None = None) -> np.ndarray:
    """Naive baseline [GPU-h]: 6 N_active D / (peak BF16 x constant MFU)."""
    cat = resolve_catalog(catalog)
    peak = (
        cat.tables["accelerators"]
        .set_index("accelerator_id")
        .loc[rows["accelerator_id"], "tflops_dense_bf16"]
        .to_numpy(float)
    )
    active = rows["params_active"].fillna(rows["params_total"]).to_numpy(float)
    flops = METHOD_FLOPS_PER_PARAM["full"] * active * rows["tokens"].to_numpy(float)
    return flops / (peak * TERA * mfu) / SECONDS_PER_HOUR


def fit_baseline_mfu(rows: pd.DataFrame, catalog: Catalog | None = None) -> float:
    """The constant MFU that minimises the median absolute log error (median of implied MFUs)."""
    implied = baseline_hours(rows, 1.0, catalog) / rows["gpu_hours"].to_numpy(float)
    return float(np.exp(np.median(np.log(implied))))


def baseline_leave_one_out(rows: pd.DataFrame, catalog: Catalog | None = None) -> np.ndarray:
    """Each row's baseline GPU-hours with the constant MFU refitted on all the other rows."""
    keep = np.ones(len(rows), bool)
    out = np.empty(len(rows))
    for i in range(len(rows)):
        keep[i] = False
        out[i] = baseline_hours(rows.iloc[[i]], fit_baseline_mfu(rows[keep], catalog), catalog)[0]
        keep[i] = True
    return out


def is_moe(rows: pd.DataFrame) -> np.ndarray:
    """Mixture-of-experts runs: those that publish an active parameter count
    (:func:`workbook.model.uncertainty.moe_rows`)."""
    return moe_rows(rows).to_numpy()


def error_group(rows: pd.DataFrame) -> np.ndarray:
    """The group a run's error is summarised in: its accelerator for dense runs, "MoE (any)" for
    MoE."""
    return np.where(is_moe(rows), "MoE (any)", rows["accelerator_id"])


def entry_batch(rows: pd.DataFrame) -> np.ndarray:
    """When each run was entered: 0 with the first calibration / holdout split, ``k`` with the k-th
    batch of :data:`ENTRY_BATCHES` (read from ``split_reason``)."""
    out = []
    for run, reason in zip(rows["run_id"], rows["split_reason"]):
        m = _BATCH.search(reason)
        if m is None and PROSPECTIVE_MARK in reason:
            raise ValueError(
                f"run {run!r}: split_reason says {PROSPECTIVE_MARK!r} but names no batch; allowed: "
                f"'added <date> (<batch>) {PROSPECTIVE_MARK}'"
            )
        if m is not None and m.group(1) not in ENTRY_BATCHES:
            raise ValueError(
                f"run {run!r}: entry batch {m.group(1)!r} is unknown; allowed: "
                f"{', '.join(ENTRY_BATCHES)} "
                "(append a new batch to workbook.calibrate.runs.ENTRY_BATCHES)"
            )
        out.append(0 if m is None else ENTRY_BATCHES.index(m.group(1)) + 1)
    return np.array(out, int)


def is_prospective(rows: pd.DataFrame) -> np.ndarray:
    """Holdout rows entered after the constants were frozen: those of any :func:`entry_batch` after
    the first split."""
    return entry_batch(rows) >= 1
