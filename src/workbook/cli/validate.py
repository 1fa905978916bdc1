"""``python -m workbook validate``: the time model against published runs, printed.

Prints, for every full run used, published vs predicted GPU-hours and the error; then the median
absolute percentage error (MdAPE), the share within +-25 %, the worst row, and the same figures for
the naive baseline (one constant MFU, 6 N D, fitted to the same calibration rows); the range to plan
with (where the held-out runs landed relative to their predictions, with its leave-one-out coverage,
and each later batch of runs against the range of the runs entered before it); what no
recalibration by accelerator can fix; the steady-state throughput against every published benchmark;
then predicted vs published per-GPU throughput ratios between accelerators. Ends with ``name: value``
lines.

``--fit`` refits the free constants (gemm_efficiency, memory_traffic_bytes_per_token_layer_dmodel,
tp_overlap_fraction, moe_efficiency) on the calibration rows by grid search on the mean absolute log
error, and prints them; ``--write`` also stores them in data/assumptions.csv. ``--no-cv`` skips the
out-of-sample error (leave-one-out and 200 random calibration/holdout splits, ~20 s).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from ..calibrate.validate import (
    ASSUMED_GPU_COUNT,
    DATA_DIR,
    FIT_PARAMS,
    RANGE_QUANTILES,
    TWIN_RATIO_2X,
    TWIN_RATIO_25PCT,
    TWIN_SIZE_FACTOR,
    Fitter,
    baseline_hours,
    baseline_leave_one_out,
    benchmark_throughput,
    bias_by_group,
    entry_batch,
    error_group,
    fit,
    fit_baseline_mfu,
    forward_range_check,
    full_runs,
    is_moe,
    load_catalog,
    metrics,
    predict_hours,
    recalibration_floor,
    throughput_ratios,
    time_range,
    twin_pairs,
    write_assumptions,
)

SPLIT_REPEATS = 200


def report(catalog=None, out=sys.stdout, cv: bool = True) -> dict:
    """Print the validation and return its headline figures; ``cv`` adds the cross-validation (~20 s)."""
    cat = catalog or load_catalog()
    rows = full_runs(cat)
    pred = predict_hours(rows, cat)
    cal_mask = (rows["split"] == "calibration").to_numpy()
    base_mfu = fit_baseline_mfu(rows[cal_mask], cat)
    base = baseline_hours(rows, base_mfu, cat)
    pub = rows["gpu_hours"].to_numpy(float)
    table = pd.DataFrame(
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
    if cv:
        fitter = Fitter(rows, cat)
        loo = fitter.leave_one_out()
        table["loo_error"] = loo / pub - 1.0
    pd.set_option("display.width", 200)
    print(
        "Published vs predicted GPU-hours (full runs; * = GPU count not published, "
        f"{ASSUMED_GPU_COUNT} assumed)",
        file=out,
    )
    print(
        table.to_string(
            index=False,
            formatters={
                "published_gpu_h": "{:,.0f}".format,
                "predicted_gpu_h": "{:,.0f}".format,
                "baseline_gpu_h": "{:,.0f}".format,
                "error": "{:+.1%}".format,
                "baseline_error": "{:+.1%}".format,
                "loo_error": "{:+.1%}".format,
            },
        ),
        file=out,
    )
    if cv:
        print(
            "loo_error: the row predicted by constants refitted on all the other used rows (leave-one-out)",
            file=out,
        )
    excluded = cat.tables["published_runs"]
    excluded = excluded[(excluded["row_type"] == "full_run") & (excluded["split"] == "excluded")]
    print("\nExcluded full runs and why:", file=out)
    for _, r in excluded.iterrows():
        print(f"  {r['run_id']}: {r['split_reason']}", file=out)
    m_all, m_cal, m_hold = (
        metrics(pub, pred),
        metrics(pub[cal_mask], pred[cal_mask]),
        metrics(pub[~cal_mask], pred[~cal_mask]),
    )
    b_all = metrics(pub, base)
    batch = entry_batch(rows)
    prosp = batch >= 1
    if prosp.any():
        m_pro, b_pro = metrics(pub[prosp], pred[prosp]), metrics(pub[prosp], base[prosp])
        print(
            f"\nProspective holdout ({m_pro['n']} runs entered after the constants were frozen): MdAPE "
            f"{m_pro['mdape']:.1%}, {m_pro['within_25pct']:.0%} within +-25 %, worst {m_pro['max_ratio_off']:.2f}x "
            f"(baseline: {b_pro['mdape']:.1%}, {b_pro['within_25pct']:.0%})",
            file=out,
        )
        # The MoE shape fix (CHANGELOG) was found on the prospective DeepSeek rows, so only the dense
        # prospective rows stay a blind test of the model as it now stands.
        dense_pro = prosp & ~is_moe(rows)
        if dense_pro.any():
            m_dpro, b_dpro = (
                metrics(pub[dense_pro], pred[dense_pro]),
                metrics(pub[dense_pro], base[dense_pro]),
            )
            print(
                f"  of which dense ({m_dpro['n']} runs, untouched by any model change made after they were entered): "
                f"MdAPE {m_dpro['mdape']:.1%}, {m_dpro['within_25pct']:.0%} within +-25 % "
                f"(baseline: {b_dpro['mdape']:.1%}, {b_dpro['within_25pct']:.0%})",
                file=out,
            )
    rng = time_range(pub[~cal_mask], pred[~cal_mask])
    print(
        f"\nRange to plan with: on the {rng['n']} held-out runs the published GPU-hours were {rng['low']:.2f}x to "
        f"{rng['high']:.2f}x the predicted ({RANGE_QUANTILES[0]:.0%}-{RANGE_QUANTILES[1]:.0%} percentiles, median "
        f"{rng['median']:.2f}x); each held-out run fell inside the range of the other runs in "
        f"{rng['loo_coverage']:.0%} of cases (leave-one-out coverage of the nominal "
        f"{RANGE_QUANTILES[1] - RANGE_QUANTILES[0]:.0%}).",
        file=out,
    )
    forward = forward_range_check(batch, ~cal_mask, pub, pred)
    if len(forward):
        print(
            "Checked forward in time: each batch of runs entered later, against the range of the held-out runs "
            "entered before it (today's constants):",
            file=out,
        )
        print(
            forward.to_string(
                index=False, formatters={"low": "{:.2f}x".format, "high": "{:.2f}x".format}
            ),
            file=out,
        )
        print(f"  inside: {forward['inside'].sum()} of {forward['runs'].sum()} runs", file=out)
    bias = bias_by_group(error_group(rows), pred / pub - 1.0)
    print(
        "\nSigned error by accelerator (median of predicted / published - 1; negative = the runs took longer "
        "than predicted):",
        file=out,
    )
    print(bias.to_string(formatters={"median_error": "{:+.1%}".format}), file=out)
    floor = recalibration_floor(error_group(rows), pub, pred)
    twins = twin_pairs(rows, cat)
    print(
        f"\nWhat no recalibration by accelerator can fix: with the best multiplier for each of the {floor['groups']} "
        f"groups above, chosen in hindsight on these same {floor['n']} runs (one set per metric), MdAPE could at "
        f"best be {floor['mdape']:.1%}, {floor['within_25pct']:.0%} within +-25 %, worst {floor['max_ratio_off']:.2f}x.",
        file=out,
    )
    print(
        f"Twin runs (dense, same accelerator and precision, sizes within {TWIN_SIZE_FACTOR:.2f}x, published GPU "
        "counts) where the run with no more GPUs and no longer sequences was the slower one; ratio = the faster's "
        "implied MFU / the slower's; any predictor that expects the slower run to be at least as fast (as physics "
        "and the engine do) is off by at least min_worst_off on one of the two:",
        file=out,
    )
    print(
        twins.to_string(
            index=False,
            formatters={
                "slower_mfu": "{:.3f}".format,
                "faster_mfu": "{:.3f}".format,
                "ratio": "{:.2f}".format,
                "min_worst_off": "{:.2f}x".format,
            },
        ),
        file=out,
    )
    worst = table.iloc[int(np.argmax(np.abs(np.log(pred / pub))))]
    print(f"\nWorst row: {worst['run']} ({worst['error']:+.1%})", file=out)
    print(
        f"Baseline: constant MFU {base_mfu:.3f} of dense BF16 peak, 6 N_active D, fitted on the calibration rows",
        file=out,
    )
    bench = benchmark_throughput(cat)
    m_bench = metrics(bench["published_tok_s_gpu"], bench["predicted_tok_s_gpu"])
    print(
        f"\nSteady-state throughput against the {m_bench['n']} published benchmarks (tokens/s per GPU between "
        f"failures; no goodput, no site): MdAPE {m_bench['mdape']:.1%}, {m_bench['within_25pct']:.0%} within +-25 %, "
        f"worst {m_bench['max_ratio_off']:.2f}x",
        file=out,
    )
    print(
        bench.to_string(
            index=False,
            formatters={
                "published_tok_s_gpu": "{:,.1f}".format,
                "predicted_tok_s_gpu": "{:,.1f}".format,
                "error": "{:+.1%}".format,
            },
        ),
        file=out,
    )
    print(
        bias_by_group(bench["source"], bench["error"]).to_string(
            formatters={"median_error": "{:+.1%}".format}
        ),
        file=out,
    )
    ratios = throughput_ratios(cat)
    print(
        "\nPer-GPU throughput ratios between accelerators (benchmark rows, same model and software):",
        file=out,
    )
    print(
        ratios.to_string(
            index=False,
            formatters={
                "published_ratio": "{:.2f}".format,
                "predicted_ratio": "{:.2f}".format,
                "published_tok_s_gpu": "{:,.0f}".format,
                "predicted_tok_s_gpu": "{:,.0f}".format,
                "error": "{:+.1%}".format,
            },
        ),
        file=out,
    )
    figures = {
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
        "baseline_mfu": base_mfu,
        "baseline_mdape": b_all["mdape"],
        "baseline_within_25pct": b_all["within_25pct"],
        "baseline_max_ratio_off": b_all["max_ratio_off"],
        "ratio_mdape": float(np.median(np.abs(ratios["error"]))),
        "benchmark_runs": m_bench["n"],
        "benchmark_mdape": m_bench["mdape"],
        "benchmark_within_25pct": m_bench["within_25pct"],
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
    if len(forward):
        figures.update(
            {
                "range_forward_runs": int(forward["runs"].sum()),
                "range_forward_inside": int(forward["inside"].sum()),
                "range_forward_coverage": float(forward["inside"].sum() / forward["runs"].sum()),
            }
        )
    if prosp.any():
        figures.update(
            {
                "runs_prospective": m_pro["n"],
                "prospective_mdape": m_pro["mdape"],
                "prospective_within_25pct": m_pro["within_25pct"],
                "prospective_baseline_mdape": b_pro["mdape"],
            }
        )
        if dense_pro.any():
            figures.update(
                {
                    "runs_prospective_dense": m_dpro["n"],
                    "prospective_dense_mdape": m_dpro["mdape"],
                    "prospective_dense_within_25pct": m_dpro["within_25pct"],
                }
            )
    if cv:
        m_loo = metrics(pub, loo)
        b_loo = metrics(pub, baseline_leave_one_out(rows, cat))
        splits = fitter.random_splits(n_holdout=m_hold["n"], repeats=SPLIT_REPEATS)
        print(
            f"\nOut of sample. Leave-one-out over all {m_loo['n']} used rows: MdAPE {m_loo['mdape']:.1%}, "
            f"{m_loo['within_25pct']:.0%} within +-25 %, worst {m_loo['max_ratio_off']:.2f}x (baseline: MdAPE "
            f"{b_loo['mdape']:.1%}, {b_loo['within_25pct']:.0%} within +-25 %). "
            f"{SPLIT_REPEATS} random {m_cal['n']}/{m_hold['n']} splits, refitted each time: median calibration "
            f"MdAPE {splits['calibration_mdape'].median():.1%}, median holdout MdAPE "
            f"{splits['holdout_mdape'].median():.1%}; the holdout does worse in "
            f"{(splits['holdout_mdape'] > splits['calibration_mdape']).mean():.0%} of them.",
            file=out,
        )
        figures.update(
            {
                "loo_mdape": m_loo["mdape"],
                "loo_within_25pct": m_loo["within_25pct"],
                "loo_max_ratio_off": m_loo["max_ratio_off"],
                "baseline_loo_mdape": b_loo["mdape"],
                "baseline_loo_within_25pct": b_loo["within_25pct"],
                "splits_calibration_mdape_median": float(splits["calibration_mdape"].median()),
                "splits_holdout_mdape_median": float(splits["holdout_mdape"].median()),
                "splits_holdout_worse_share": float(
                    (splits["holdout_mdape"] > splits["calibration_mdape"]).mean()
                ),
            }
        )
    print("", file=out)
    for k, v in figures.items():
        print(f"{k}: {v:.3f}" if isinstance(v, float) else f"{k}: {v}", file=out)
    return figures


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``validate`` command to the ``python -m workbook`` sub-parsers."""
    ap = sub.add_parser(
        "validate",
        help="the time model against published runs",
        description=__doc__.splitlines()[0],
    )
    ap.add_argument(
        "--fit", action="store_true", help="refit the free constants on the calibration rows"
    )
    ap.add_argument(
        "--write", action="store_true", help="with --fit: store them in data/assumptions.csv"
    )
    ap.add_argument(
        "--no-cv",
        action="store_true",
        help="skip the cross-validation (leave-one-out, random splits)",
    )
    ap.set_defaults(run=run)
    return ap


def run(args: argparse.Namespace) -> int:
    if args.fit:
        best = fit()
        print("fitted: " + ", ".join(f"{k}={v}" for k, v in best.items()))
        if args.write:
            write_assumptions({k: best[k] for k in FIT_PARAMS if k in best})
            from ..catalog import lookup as _c

            _c._shipped.cache_clear()
            print(f"written to {Path(DATA_DIR) / 'assumptions.csv'}")
    report(cv=not args.no_cv)
    return 0
