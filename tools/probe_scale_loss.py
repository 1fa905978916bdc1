"""Probe, on paper, more per-step overhead than the tuned level has.

Run before the tuned level had one (CHANGELOG.md, 2026-12-03: the figures it printed then chose
the form of ``step_overhead_tuned_tokens``, since fitted at 150 by
``workbook.calibrate.fit_tuned_step_overhead``); today its k is on top of the stored level's.
The tuned level's dense benchmark predictions (``workbook.calibrate.benchmark_throughput``) are
multiplied by ``1 / (1 + k / tokens per GPU per step)`` (the row's global batch / its GPU count),
then each precision's predictions are rescaled by the ratio of the calibration rows' median
published / predicted throughput with and without the loss (a stand-in for refitting the
speedups, which are those medians). Prints, for each ``k`` [tokens], the held-out dense rows'
MdAPE and median signed error (predicted / published - 1), the same for MLPerf v5.0's first and
second held-out batches and NeMo's held-out tables, and the calibration rows' MdAPE.

It is a probe, not a fit: the held-out rows it prints cannot test a k chosen from them. Rows
without a global batch keep k's loss at 0.

Run: PYTHONPATH=src .venv/bin/python tools/probe_scale_loss.py [K ...]   (default 0 100 200 280 400)

    k=0    held-out dense 9.6% (+4.0%) | first batch 10.4% (+0.3%) | ... (today's level: 150 stored)
"""

from __future__ import annotations

import sys

import numpy as np

from workbook.calibrate.benchmarks import benchmark_throughput
from workbook.catalog import load_catalog
from workbook.model import step_overhead_factor


def _figures(errors: np.ndarray) -> str:
    return f"{np.median(np.abs(errors)):.1%} ({np.median(errors):+.1%})"


def main(ks: list[float]) -> None:
    cat = load_catalog()
    runs = cat.tables["published_runs"].set_index("run_id")
    table = benchmark_throughput(cat, "tuned")
    table = table[~table["moe"]].reset_index(drop=True)
    rows = runs.loc[table["run"]]
    tokens_per_gpu = (rows["global_batch_tokens"].to_numpy(float) / table["n_gpus"]).fillna(np.inf)
    reason = rows["split_reason"].fillna("")
    first = reason.str.contains("multi-node and other-submitter").to_numpy()
    second = reason.str.contains("second batch").to_numpy()
    held = (table["split"] == "holdout").to_numpy()
    nemo = held & ~table["run"].str.startswith("mlperf").to_numpy()
    calibration = ~held
    published = table["published_tok_s_gpu"].to_numpy(float)
    base = table["predicted_tok_s_gpu"].to_numpy(float)
    for k in ks:
        lossy = base * step_overhead_factor(k, tokens_per_gpu.to_numpy(float))
        out = lossy.copy()
        for precision in table["precision"].unique():
            mine = (table["precision"] == precision).to_numpy()
            fit = mine & calibration
            if fit.any():
                before = np.median(published[fit] / base[fit])
                out[mine] *= np.median(published[fit] / lossy[fit]) / before
        err = out / published - 1.0
        print(
            f"k={k:<5g} held-out dense {_figures(err[held])} | first batch {_figures(err[first])}"
            f" | second {_figures(err[second])} | NeMo held-out {_figures(err[nemo])}"
            f" | calibration MdAPE {np.median(np.abs(err[calibration])):.1%}"
        )


if __name__ == "__main__":
    main([float(a) for a in sys.argv[1:]] or [0, 100, 200, 280, 400])
