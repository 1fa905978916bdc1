"""Calibrate and validate the time model against published runs (``python -m workbook validate``).

Prints, for every full run used, published vs predicted GPU-hours and the error; then the median
absolute percentage error (MdAPE), the share within +-25 %, the worst row, and the same figures for
the naive baseline (one constant MFU, 6 N D, fitted to the same calibration rows); the range to plan
with (:func:`time_range`: where the held-out runs landed relative to their predictions, with its
leave-one-out coverage, and :func:`forward_range_check`: each later batch of runs against the range
of the runs entered before it); what no recalibration by accelerator can fix (:func:`recalibration_floor`,
:func:`twin_pairs`); the steady-state throughput against every published benchmark
(:func:`benchmark_throughput`); then predicted vs published per-GPU throughput ratios between accelerators.
Ends with ``name: value`` lines.

``--fit`` refits the free constants (gemm_efficiency, memory_traffic_bytes_per_token_layer_dmodel,
tp_overlap_fraction, moe_efficiency) on the calibration rows by grid search on the mean absolute log
error, and prints them;
``--write`` also stores them in data/assumptions.csv.

Then the out-of-sample error beyond the one fixed calibration/holdout split: every row predicted by
constants refitted without it (leave-one-out), and 200 random calibration/holdout splits of the same
sizes, refitted each time (``--no-cv`` skips this, ~20 s).
"""

from __future__ import annotations

import csv
import re

import numpy as np
import pandas as pd

from ..catalog import DATA_DIR, load_catalog
from ..model import estimate_frame

#: GPU count used when a run does not publish one. The LLaMA paper states 2,048 A100-80GB for its
#: models (Touvron et al. 2023, Sec. 2.4); the others do not say. GPU-hours depend on it only
#: through communication and goodput, which are small at these sizes.
ASSUMED_GPU_COUNT = 2048
#: Marks (in ``split_reason``) the holdout rows added after the constants were frozen: a prospective
#: test, since the constants were fitted before these runs were entered (data/README.md).
PROSPECTIVE_MARK = "after the constants were frozen"
#: The batches of prospective runs in the order they were entered: the parenthesis in "added <date>
#: (<batch>) after the constants were frozen" (``split_reason``). Append a new batch here.
ENTRY_BATCHES = ("third session", "fourth session", "fifth session", "fifth session, second search")
_BATCH = re.compile(r"added \d{4}-\d{2}-\d{2} \(([^)]*)\) " + re.escape(PROSPECTIVE_MARK))
FIT_PARAMS = (
    "gemm_efficiency",
    "memory_traffic_bytes_per_token_layer_dmodel",
    "tp_overlap_fraction",
    "moe_efficiency",
)


def full_runs(catalog=None) -> pd.DataFrame:
    runs = (catalog or load_catalog()).tables["published_runs"]
    used = runs[(runs["row_type"] == "full_run") & (runs["split"] != "excluded")].copy()
    used["gpu_count_assumed"] = used["gpu_count"].isna()
    used["n_gpus"] = used["gpu_count"].fillna(ASSUMED_GPU_COUNT).astype(int)
    return used.reset_index(drop=True)


def _configs(rows: pd.DataFrame, tokens) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "n_params": rows["params_total"].to_numpy(float),
            "n_active_params": rows["params_active"].to_numpy(float),
            "n_tokens": tokens,
            "accelerator": rows["accelerator_id"].to_numpy(object),
            "n_gpus": rows["n_gpus"].to_numpy(int)
            if "n_gpus" in rows
            else rows["gpu_count"].to_numpy(int),
            "seq_len": rows["seq_len"].fillna(4096).to_numpy(float),
            # fp16 and bf16 share the tensor peak on every GPU here.
            "precision": rows["precision"].replace({"fp16": "bf16"}).to_numpy(object),
        }
    )


def predict_hours(rows: pd.DataFrame, catalog=None, assumptions=None) -> np.ndarray:
    return estimate_frame(
        _configs(rows, rows["tokens"].to_numpy(float)), catalog=catalog, assumptions=assumptions
    )["gpu_hours"].to_numpy(float)


def baseline_hours(rows: pd.DataFrame, mfu: float, catalog=None) -> np.ndarray:
    """Naive baseline: 6 N_active D / (peak BF16 x constant MFU)."""
    cat = catalog or load_catalog()
    peak = (
        cat.tables["accelerators"]
        .set_index("accelerator_id")
        .loc[rows["accelerator_id"], "tflops_dense_bf16"]
        .to_numpy(float)
    )
    active = rows["params_active"].fillna(rows["params_total"]).to_numpy(float)
    return 6.0 * active * rows["tokens"].to_numpy(float) / (peak * 1e12 * mfu) / 3600.0


def fit_baseline_mfu(rows: pd.DataFrame, catalog=None) -> float:
    """The constant MFU that minimises the median absolute log error (median of implied MFUs)."""
    implied = baseline_hours(rows, 1.0, catalog) / rows["gpu_hours"].to_numpy(float)
    return float(np.exp(np.median(np.log(implied))))


def baseline_leave_one_out(rows: pd.DataFrame, catalog=None) -> np.ndarray:
    """Each row's baseline GPU-hours with the constant MFU refitted on all the other rows."""
    keep = np.ones(len(rows), bool)
    out = np.empty(len(rows))
    for i in range(len(rows)):
        keep[i] = False
        out[i] = baseline_hours(rows.iloc[[i]], fit_baseline_mfu(rows[keep], catalog), catalog)[0]
        keep[i] = True
    return out


def is_moe(rows: pd.DataFrame) -> np.ndarray:
    """Mixture-of-experts runs: those that publish an active parameter count."""
    return rows["params_active"].notna().to_numpy()


def error_group(rows: pd.DataFrame) -> np.ndarray:
    """The group a run's error is summarised in: its accelerator for dense runs, "MoE (any)" for MoE."""
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
                f"run {run!r}: entry batch {m.group(1)!r} is unknown; allowed: {', '.join(ENTRY_BATCHES)} "
                "(append a new batch to workbook.validate.ENTRY_BATCHES)"
            )
        out.append(0 if m is None else ENTRY_BATCHES.index(m.group(1)) + 1)
    return np.array(out, int)


def is_prospective(rows: pd.DataFrame) -> np.ndarray:
    """Holdout rows entered after the constants were frozen: those of any :func:`entry_batch` after the first split."""
    return entry_batch(rows) >= 1


def bias_by_group(groups, errors) -> pd.DataFrame:
    """Run count and median signed error (predicted / published - 1) per group: a systematic bias
    shows here while the MdAPE hides it."""
    return (
        pd.Series(np.asarray(errors, float))
        .groupby(np.asarray(groups))
        .agg(runs="size", median_error="median")
    )


#: The range quoted around a predicted time (app, memo, ``time_model_trust``): these quantiles of
#: published / predicted GPU-hours over the held-out runs, an 80 % range.
RANGE_QUANTILES = (0.10, 0.90)


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
    """Where published runs landed relative to their predictions: the :data:`RANGE_QUANTILES` (``low``,
    ``high``) and the median of ``published / predicted``, over ``n`` runs; and ``loo_coverage``, the
    share of runs inside the range computed from all the *other* runs (leave-one-out), an estimate of
    how often the range holds for a run it has not seen (NaN with fewer than 3 runs)."""
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
    """The range checked forward in time: each batch of runs entered after the first split (``batch`` >= 1,
    :func:`entry_batch`) against :func:`time_range` of the held-out runs entered before it. One row per
    batch: ``batch`` (its name), ``runs_before``, ``low``, ``high``, ``runs``, ``inside``. Predictions are
    the ones passed in (today's constants), not those of the day the batch was entered."""
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
    """Most points of ``log_r`` one window ``[a, a + width]`` can hold (a sliding window over the sorted points)."""
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
      (bisection on the same window count; exact for an odd number of runs, a lower bound for an even one);
    - ``max_ratio_off``: the largest ``sqrt(max r / min r)`` of a group (the multiplier at the
      geometric centre of a group's ratios ``r`` is the best for its worst run).

    Returns those with ``n`` (runs) and ``groups``.
    """
    groups = np.asarray(groups)
    r = _ratios(published, predicted)
    if groups.shape != r.shape:
        raise ValueError(
            f"published/predicted has {r.size} values for {groups.size} groups; allowed: one group per run"
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
        "within_25pct": inside(0.25) / r.size,
        "max_ratio_off": float(max(np.exp((lr.max() - lr.min()) / 2.0) for lr in parts)),
        "n": int(r.size),
        "groups": len(parts),
    }


#: Two runs are twins when they are dense, on the same accelerator at the same precision, with
#: published GPU counts and parameter counts within this factor of each other.
TWIN_SIZE_FACTOR = 1.10
#: Implied-MFU ratios above which a twin pair cannot both be within +-25 % (1.25 / 0.75) or within 2x (2 x 2)
#: of a prediction that expects the slower run to be at least as fast.
TWIN_RATIO_25PCT, TWIN_RATIO_2X = 1.25 / 0.75, 4.0


def twin_pairs(rows: pd.DataFrame, catalog=None) -> pd.DataFrame:
    """Twin runs (:data:`TWIN_SIZE_FACTOR`) that ran in the conditions every physical model calls no
    slower, yet were slower: the ``slower`` run used no more GPUs and no longer sequences than the
    ``faster`` one (less communication, fewer attention FLOPs per token), but reached a lower implied
    MFU (6 N D / (GPU-hours x dense BF16 peak)).

    A predictor that gives the ``slower`` run at least the MFU it gives the ``faster`` one (as the
    engine does) is off by at least ``sqrt(ratio)`` on one of the two, where ``ratio`` is the faster's
    implied MFU over the slower's: above 1.25 / 0.75 = 1.67 they cannot both be within +-25 %, above
    4 they cannot both be within 2x. One row per pair, most contradictory first: ``slower``,
    ``faster``, ``accelerator``, ``slower_mfu``, ``faster_mfu``, ``ratio``, ``min_worst_off``,
    ``slower_gpus``, ``faster_gpus``, ``slower_seq_len``, ``faster_seq_len``.
    """
    rows = rows.reset_index(drop=True)
    mfu = baseline_hours(rows, 1.0, catalog) / rows["gpu_hours"].to_numpy(float)
    ok = (~is_moe(rows)) & rows["gpu_count"].notna().to_numpy() & rows["seq_len"].notna().to_numpy()
    n, gpus, seq = (
        rows["params_total"].to_numpy(float),
        rows["gpu_count"].to_numpy(float),
        rows["seq_len"].to_numpy(float),
    )
    out = []
    for a in np.flatnonzero(ok):
        for b in np.flatnonzero(ok):
            if (
                rows.at[a, "accelerator_id"] == rows.at[b, "accelerator_id"]
                and rows.at[a, "precision"] == rows.at[b, "precision"]
                and max(n[a], n[b]) <= TWIN_SIZE_FACTOR * min(n[a], n[b])
                and gpus[a] <= gpus[b]
                and seq[a] <= seq[b]
                and mfu[a] < mfu[b]
            ):
                out.append(
                    {
                        "slower": rows.at[a, "run_id"],
                        "faster": rows.at[b, "run_id"],
                        "accelerator": rows.at[a, "accelerator_id"],
                        "slower_mfu": mfu[a],
                        "faster_mfu": mfu[b],
                        "ratio": mfu[b] / mfu[a],
                        "min_worst_off": float(np.sqrt(mfu[b] / mfu[a])),
                        "slower_gpus": int(gpus[a]),
                        "faster_gpus": int(gpus[b]),
                        "slower_seq_len": int(seq[a]),
                        "faster_seq_len": int(seq[b]),
                    }
                )
    cols = [
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
    ]
    return pd.DataFrame(out, columns=cols).sort_values("ratio", ascending=False, ignore_index=True)


def holdout_time_range(catalog=None) -> dict | None:
    """:func:`time_range` of the held-out runs, predicted with the catalog's constants (None when no
    run is held out)."""
    cat = catalog or load_catalog()
    rows = full_runs(cat)
    hold = rows[rows["split"] == "holdout"]
    if hold.empty:
        return None
    return time_range(hold["gpu_hours"].to_numpy(float), predict_hours(hold, cat))


def metrics(published, predicted) -> dict:
    err = (np.asarray(predicted) - np.asarray(published)) / np.asarray(published)
    ratio = np.asarray(predicted) / np.asarray(published)
    return {
        "mdape": float(np.median(np.abs(err))),
        "within_25pct": float(np.mean(np.abs(err) <= 0.25)),
        "max_ratio_off": float(np.max(np.maximum(ratio, 1 / ratio))),
        "n": int(len(err)),
    }


#: The grid searched for the dense constants (stage 1) and for moe_efficiency (stage 2).
GRID = [
    {
        "gemm_efficiency": float(e),
        "memory_traffic_bytes_per_token_layer_dmodel": k,
        "tp_overlap_fraction": ov,
    }
    for e in np.linspace(0.40, 1.00, 13)
    for k in (0, 200, 400, 600, 800, 1000, 1200, 1600, 2000)
    for ov in (0.0, 0.25, 0.5)
]
MOE_GRID = [float(m) for m in np.linspace(0.3, 1.0, 15)]


class Fitter:
    """Fits the free constants on any subset of the used rows, from predictions computed once.

    Every stage-1 grid point is evaluated on every row once (``GRID`` x rows); stage 2 (MoE rows
    only) is evaluated per stage-1 winner and cached. A fit on a subset is then a lookup, which makes
    cross-validation (leave-one-out, repeated random splits) cheap.
    """

    def __init__(self, rows: pd.DataFrame, catalog=None):
        self.cat = catalog or load_catalog()
        self.rows = rows.reset_index(drop=True)
        self.published = self.rows["gpu_hours"].to_numpy(float)
        self.moe = is_moe(self.rows)
        self.log_err = np.array(
            [np.log(predict_hours(self.rows, self.cat, g) / self.published) for g in GRID]
        )
        self._moe_cache: dict[int, np.ndarray] = {}

    def _moe_log_err(self, g: int) -> np.ndarray:
        """(len(MOE_GRID), rows) log errors with stage-1 values GRID[g] (dense rows: unaffected)."""
        if g not in self._moe_cache:
            sub = self.rows[self.moe]
            out = np.tile(self.log_err[g], (len(MOE_GRID), 1))
            for j, m in enumerate(MOE_GRID):
                out[j, self.moe] = np.log(
                    predict_hours(sub, self.cat, {**GRID[g], "moe_efficiency": m})
                    / self.published[self.moe]
                )
            self._moe_cache[g] = out
        return self._moe_cache[g]

    def fit(self, mask: np.ndarray) -> tuple[dict, np.ndarray]:
        """Constants minimising the mean absolute log error on the rows in ``mask`` (stage 1 on its dense
        rows, stage 2 on its MoE rows); returns them and the predicted GPU-hours of every row. With no
        MoE row in ``mask``, moe_efficiency stays at data/assumptions.csv's value."""
        mask = np.asarray(mask, bool)
        dense = mask & ~self.moe
        g = int(
            np.argmin(np.abs(self.log_err[:, dense]).mean(axis=1))
        )  # first minimum, as a loop would
        values, log_err = dict(GRID[g]), self.log_err[g]
        moe = mask & self.moe
        if moe.any():
            table = self._moe_log_err(g)
            j = int(np.argmin(np.abs(table[:, moe]).mean(axis=1)))
            values["moe_efficiency"], log_err = MOE_GRID[j], table[j]
        values["loss"] = float(np.abs(self.log_err[g, dense]).mean())
        return values, self.published * np.exp(log_err)

    def leave_one_out(self) -> np.ndarray:
        """Each row's GPU-hours predicted by constants fitted on all the other rows."""
        n = len(self.rows)
        return np.array([self.fit(np.arange(n) != i)[1][i] for i in range(n)])

    def random_splits(self, n_holdout: int, repeats: int = 200, seed: int = 0) -> pd.DataFrame:
        """Refit on random calibration sets; MdAPE of the calibration and the held-out rows per split."""
        rng = np.random.default_rng(seed)
        n, out = len(self.rows), []
        for _ in range(repeats):
            hold = np.zeros(n, bool)
            hold[rng.choice(n, n_holdout, replace=False)] = True
            _, pred = self.fit(~hold)
            out.append(
                {
                    "calibration_mdape": metrics(self.published[~hold], pred[~hold])["mdape"],
                    "holdout_mdape": metrics(self.published[hold], pred[hold])["mdape"],
                }
            )
        return pd.DataFrame(out)


def fit(catalog=None) -> dict:
    """Grid-search the free constants on the calibration rows (mean absolute log error).

    Stage 1 fits gemm_efficiency, memory_traffic_bytes_per_token_layer_dmodel and
    tp_overlap_fraction on the dense rows; stage 2 fits moe_efficiency on the MoE rows.
    """
    cat = catalog or load_catalog()
    rows = full_runs(cat)
    values, _ = Fitter(rows, cat).fit((rows["split"] == "calibration").to_numpy())
    loss = values.pop("loss")
    return {"loss": loss, **{k: round(float(v), 4) for k, v in values.items()}}


def write_assumptions(values: dict) -> None:
    path = DATA_DIR / "assumptions.csv"
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    pi, ai, vi = header.index("parameter"), header.index("accelerator_id"), header.index("value")
    for r in rows[1:]:
        if r[pi] in values and r[ai] == "":
            r[vi] = repr(float(values[r[pi]]))
    with path.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


# Throughput-ratio checks: (label, numerator run_id, denominator run_id).
RATIO_PAIRS = [
    ("MPT-7B H100 / A100-80GB", "mpt-7b-bench-h100", "mpt-7b-bench-a100-80gb"),
    ("MPT-13B H100 / A100-80GB", "mpt-13b-bench-h100", "mpt-13b-bench-a100-80gb"),
    ("MPT-30B H100 / A100-80GB", "mpt-30b-bench-h100", "mpt-30b-bench-a100-80gb"),
    ("MPT-70B H100 / A100-80GB", "mpt-70b-bench-h100", "mpt-70b-bench-a100-80gb"),
    ("MPT-7B A100-80GB / A100-40GB", "mpt-7b-bench-a100-80gb", "mpt-7b-bench-a100-40gb"),
    ("NeMo Llama3-8B B200 / H100 (fp8)", "nemo-llama3-8b-b200", "nemo-llama3-8b-h100"),
    ("NeMo Llama3-8B GB200 / H100 (fp8)", "nemo-llama3-8b-gb200", "nemo-llama3-8b-h100"),
    ("NeMo Llama3-8B GB300 / H100 (fp8)", "nemo-llama3-8b-gb300", "nemo-llama3-8b-h100"),
    ("NeMo Llama3-70B GB200 / H100 (fp8)", "nemo-llama3-70b-gb200", "nemo-llama3-70b-h100"),
    ("NeMo Llama3-70B GB300 / H100 (fp8)", "nemo-llama3-70b-gb300", "nemo-llama3-70b-h100"),
    ("NeMo Llama3.1-405B B200 / H100 (fp8)", "nemo-llama31-405b-b200", "nemo-llama31-405b-h100"),
    ("NeMo Llama3.1-405B GB200 / H100 (fp8)", "nemo-llama31-405b-gb200", "nemo-llama31-405b-h100"),
    ("NeMo Llama3.1-405B GB300 / H100 (fp8)", "nemo-llama31-405b-gb300", "nemo-llama31-405b-h100"),
]


def _steady_throughput(rows: pd.DataFrame, catalog) -> np.ndarray:
    """Predicted tokens/s per GPU between failures (what a benchmark measures) for benchmark rows."""
    rows = rows.assign(n_gpus=rows["gpu_count"].astype(int))
    return estimate_frame(_configs(rows, np.full(len(rows), 1e11)), catalog=catalog)[
        "steady_tokens_per_s_per_gpu"
    ].to_numpy(float)


def benchmark_throughput(catalog=None) -> pd.DataFrame:
    """Every published throughput benchmark (``row_type`` throughput_benchmark with tokens/s per GPU)
    against the engine's steady-state prediction for its model, part, GPU count, sequence length and
    precision (the engine's default global batch; the benchmarks' own batches are not in the rows).
    One row each: ``run``, ``source`` (the software: llm-foundry, NeMo, or papers), ``accelerator``, ``n_gpus``,
    ``precision``, ``published_tok_s_gpu``, ``predicted_tok_s_gpu``, ``error`` (predicted / published - 1)."""
    cat = catalog or load_catalog()
    runs = cat.tables["published_runs"]
    rows = runs[
        (runs["row_type"] == "throughput_benchmark") & runs["tokens_per_s_per_gpu"].notna()
    ].reset_index(drop=True)
    pred = _steady_throughput(rows, cat)
    pub = rows["tokens_per_s_per_gpu"].to_numpy(float)
    src = rows["source"].fillna("")
    source = np.select(
        [src.str.contains("llm-foundry"), src.str.contains("NeMo")],
        ["llm-foundry (MosaicML)", "NeMo (NVIDIA)"],
        "papers",
    )
    return pd.DataFrame(
        {
            "run": rows["run_id"],
            "source": source,
            "accelerator": rows["accelerator_id"],
            "n_gpus": rows["gpu_count"].astype(int),
            "precision": rows["precision"],
            "published_tok_s_gpu": pub,
            "predicted_tok_s_gpu": pred,
            "error": pred / pub - 1.0,
        }
    )


def throughput_ratios(catalog=None) -> pd.DataFrame:
    cat = catalog or load_catalog()
    runs = cat.tables["published_runs"].set_index("run_id")
    out = []
    for label, num, den in RATIO_PAIRS:
        rows = runs.loc[[num, den]].reset_index()
        pred = _steady_throughput(rows, cat)
        pub = rows["tokens_per_s_per_gpu"].to_numpy(float)
        out.append(
            {
                "pair": label,
                "published_ratio": pub[0] / pub[1],
                "predicted_ratio": pred[0] / pred[1],
                "published_tok_s_gpu": pub[0],
                "predicted_tok_s_gpu": pred[0],
            }
        )
    df = pd.DataFrame(out)
    df["error"] = df["predicted_ratio"] / df["published_ratio"] - 1.0
    return df
