"""``python -m workbook validate``: the time model against published runs, printed.

Prints, for every full run used, published vs predicted GPU-hours and the error; then the median
absolute percentage error (MdAPE), the share within +-25 %, the worst row, and the same figures for
the naive baseline (one constant MFU, 6 N D, fitted to the same calibration rows); the empirical
range (where the held-out runs landed relative to their predictions, with its leave-one-out
coverage, and each later batch of runs against the range of the runs entered before it); what no
recalibration by accelerator can fix; the steady-state throughput against every published benchmark;
then predicted vs published per-GPU throughput ratios between accelerators. Ends with
``name: value``
lines. Everything is computed by :func:`workbook.calibrate.validation_summary`; this module only
formats it.

``--fit`` refits the free constants (gemm_efficiency, memory_traffic_bytes_per_token_layer_dmodel,
tp_overlap_fraction, moe_efficiency) on the calibration rows by grid search on the mean absolute log
error, and prints them; ``--write`` also stores them in data/assumptions.csv, then the tuned
per-step overhead, the MoE routing width and the bands, each fitted at the ones before.
``--no-cv`` skips the out-of-sample error (leave-one-out and 200 random calibration/holdout
splits, ~20 s).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from ..calibrate import (
    ASSUMED_GPU_COUNT,
    FIT_PARAMS,
    MIN_GROUP_RUNS,
    RANGE_QUANTILES,
    TWIN_SIZE_FACTOR,
    ValidationSummary,
    band_constants,
    fit,
    fit_moe_routing,
    fit_tuned_step_overhead,
    ratio_said,
    target_table,
    validation_summary,
    write_assumptions,
)
from ..calibrate.bands import STEP_OVERHEAD_TUNED
from ..catalog import DATA_DIR, clear_cache
from ..model import step_overhead_factor
from ..model.estimate import ROUTING
from ..model.shape import moe_routing_factor

PERCENT = "{:+.1%}".format
GPU_HOURS = "{:,.0f}".format
#: Published and predicted tokens/s per GPU, and their error, in the benchmark tables.
TOKENS_S = {"published_tok_s_gpu": GPU_HOURS, "predicted_tok_s_gpu": GPU_HOURS, "error": PERCENT}
TIMES = "{:.2f}x".format
#: A held-out group table's columns (workbook.calibrate.levels._holdout_groups).
GROUP_FORMAT = {"mdape": "{:.1%}".format, "within_25pct": "{:.0%}".format, "median_error": PERCENT}


def _runs_section(s: ValidationSummary) -> list[str]:
    """The per-run table, and what ``loo_error`` is when it is there."""
    lines = [
        "Published vs predicted GPU-hours (full runs; * = GPU count not published, "
        f"{ASSUMED_GPU_COUNT} assumed)",
        s.runs.to_string(
            index=False,
            formatters={
                "published_gpu_h": GPU_HOURS,
                "predicted_gpu_h": GPU_HOURS,
                "baseline_gpu_h": GPU_HOURS,
                "error": PERCENT,
                "baseline_error": PERCENT,
                "loo_error": PERCENT,
            },
        ),
    ]
    if s.out_of_sample is not None:
        lines.append(
            "loo_error: the row predicted by constants refitted on all the other used rows "
            "(leave-one-out)"
        )
    lines.append("\nExcluded full runs and why:")
    lines += [f"  {r['run_id']}: {r['split_reason']}" for _, r in s.excluded.iterrows()]
    return lines


def _prospective_section(s: ValidationSummary) -> list[str]:
    """The runs entered after the constants were frozen, and their dense part."""
    p = s.prospective
    if p is None:
        return []
    m, b = p.engine, p.baseline
    lines = [
        f"\nProspective holdout ({m['n']} runs entered after the constants were frozen): MdAPE "
        f"{m['mdape']:.1%}, {m['within_25pct']:.0%} within +-25 %, worst "
        f"{m['max_ratio_off']:.2f}x (baseline: {b['mdape']:.1%}, {b['within_25pct']:.0%})"
    ]
    if p.dense is not None:
        m, b = p.dense, p.dense_baseline
        lines.append(
            f"  of which dense ({m['n']} runs, untouched by any model change made after they "
            f"were entered): MdAPE {m['mdape']:.1%}, {m['within_25pct']:.0%} within +-25 % "
            f"(baseline: {b['mdape']:.1%}, {b['within_25pct']:.0%})"
        )
    return lines


def _range_section(s: ValidationSummary) -> list[str]:
    """The empirical range of the held-out runs, its leave-one-out coverage and its forward
    check (the decision plans with the split-conformal band below, which covers better on few
    runs)."""
    rng, fw = s.time_range, s.forward
    lines = [
        "\nEmpirical range (interpolated percentiles; not what the decision plans with: that is "
        "the split-conformal band under 'Two levels' below):"
        f"\non the {rng['n']} held-out runs the published GPU-hours were "
        f"{rng['low']:.2f}x to {rng['high']:.2f}x the predicted ({RANGE_QUANTILES[0]:.0%}-"
        f"{RANGE_QUANTILES[1]:.0%} percentiles, median {rng['median']:.2f}x); each held-out run "
        "fell inside the range of the other runs in "
        f"{rng['loo_coverage']:.0%} of cases (leave-one-out coverage of the nominal "
        f"{RANGE_QUANTILES[1] - RANGE_QUANTILES[0]:.0%})."
    ]
    if len(fw):
        lines += [
            "Checked forward in time: each batch of runs entered later, against the range of the "
            "held-out runs entered before it (today's constants):",
            fw.to_string(index=False, formatters={"low": TIMES, "high": TIMES}),
            f"  inside: {fw['inside'].sum()} of {fw['runs'].sum()} runs",
        ]
    return lines


def _spread_section(s: ValidationSummary) -> list[str]:
    """The bias per accelerator, the recalibration floor and the twin runs."""
    f = s.floor
    return [
        "\nSigned error by accelerator (median of predicted / published - 1; negative = the runs "
        "took longer than predicted):",
        s.bias.to_string(formatters={"median_error": PERCENT}),
        "\nWhat no recalibration by accelerator can fix: with the best multiplier for each of the "
        f"{f['groups']} groups above, chosen in hindsight on these same {f['n']} runs (one set per "
        f"metric), MdAPE could at best be {f['mdape']:.1%}, {f['within_25pct']:.0%} within "
        f"+-25 %, worst {f['max_ratio_off']:.2f}x.",
        f"Twin runs (dense, same accelerator and precision, sizes within {TWIN_SIZE_FACTOR:.2f}x, "
        "published GPU counts) where the run with no more GPUs and no longer sequences was the "
        "slower one; ratio = the faster's implied MFU / the slower's; any predictor that expects "
        "the slower run to be at least as fast (as physics and the engine do) is off by at least "
        "min_worst_off on one of the two:",
        s.twins.to_string(
            index=False,
            formatters={
                "slower_mfu": "{:.3f}".format,
                "faster_mfu": "{:.3f}".format,
                "ratio": "{:.2f}".format,
                "min_worst_off": TIMES,
            },
        ),
        f"\nWorst row: {s.worst_run} ({s.worst_error:+.1%})",
        f"Baseline: constant MFU {s.baseline_mfu:.3f} of dense BF16 peak, 6 N_active D, fitted on "
        "the calibration rows",
    ]


def _throughput_section(s: ValidationSummary) -> list[str]:
    """The benchmarks, their bias per software source, and the throughput ratios."""
    m = s.benchmark_metrics
    tok_s = "{:,.1f}".format
    return [
        f"\nSteady-state throughput against the {m['n']} published benchmarks (tokens/s per GPU "
        f"between failures; no goodput, no site): MdAPE {m['mdape']:.1%}, {m['within_25pct']:.0%} "
        f"within +-25 %, worst {m['max_ratio_off']:.2f}x",
        s.benchmarks.to_string(
            index=False,
            formatters={
                "published_tok_s_gpu": tok_s,
                "predicted_tok_s_gpu": tok_s,
                "error": PERCENT,
            },
        ),
        s.benchmark_bias.to_string(formatters={"median_error": PERCENT}),
        "\nPer-GPU throughput ratios between accelerators (benchmark rows, same model; the tuned "
        "level, each part with its stack factor; a time ratio is the inverse):",
        s.ratios.drop(columns=["across_parts", "across_vendors"]).to_string(
            index=False,
            formatters={
                "published_ratio": "{:.2f}".format,
                "predicted_ratio": "{:.2f}".format,
                **TOKENS_S,
            },
        ),
    ]


def _out_of_sample_section(s: ValidationSummary) -> list[str]:
    """Leave-one-out and the random calibration/holdout splits (none when skipped)."""
    o = s.out_of_sample
    if o is None:
        return []
    m, b, splits = o.leave_one_out, o.baseline_leave_one_out, o.splits
    cal, hold = splits["calibration_mdape"], splits["holdout_mdape"]
    return [
        f"\nOut of sample. Leave-one-out over all {m['n']} used rows: MdAPE {m['mdape']:.1%}, "
        f"{m['within_25pct']:.0%} within +-25 %, worst {m['max_ratio_off']:.2f}x (baseline: MdAPE "
        f"{b['mdape']:.1%}, {b['within_25pct']:.0%} within +-25 %). "
        f"{o.repeats} random {s.calibration['n']}/{s.holdout['n']} splits, refitted each time: "
        f"median calibration MdAPE {cal.median():.1%}, median holdout MdAPE "
        f"{hold.median():.1%}; the holdout does worse in {(hold > cal).mean():.0%} of them."
    ]


def _derived_line(exact: dict, derived: dict) -> str:
    """The dense benchmarks at the tuned level with their exact shapes and from their parameter
    counts alone (what a plan that gives no shape gets)."""
    return (
        f"Dense benchmarks at the tuned level, {exact['n']} rows: with their exact shapes "
        f"(data/model_shapes.csv) MdAPE {exact['mdape']:.1%}, median {exact['median_error']:+.1%}; "
        f"from the parameter count alone (the shape derived from it, as a plan without a shape "
        f"is estimated) MdAPE {derived['mdape']:.1%}, median {derived['median_error']:+.1%}."
    )


def _levels_section(s: ValidationSummary) -> list[str]:
    """Both levels on their own evidence and the band's coverage (issue 19)."""
    lv = s.levels
    if lv is None:
        return []
    t, lo, c = lv.tuned, lv.tuned_loo, lv.coverage
    lines = [
        "\nTwo levels, each on its own evidence (workbook.calibrate.bands).",
        f"Tuned stack (a vendor reference recipe) on the {t['n']} benchmarks: MdAPE "
        f"{t['mdape']:.1%}, {t['within_25pct']:.0%} within +-25 % with the speedups fitted on "
        f"them; leave-one-out (each row's precision speedup refitted without it): MdAPE "
        f"{lo['mdape']:.1%}, {lo['within_25pct']:.0%} within +-25 %, worst "
        f"{lo['max_ratio_off']:.2f}x. Median signed error per vendor:",
        lv.tuned_bias.to_string(formatters={"median_error": PERCENT, "loo_median_error": PERCENT}),
        _derived_line(lv.tuned_exact, lv.tuned_derived),
    ]
    if lv.tuned_holdout_metrics is not None:
        h = lv.tuned_holdout_metrics
        lines += [
            f"Held-out benchmark rows (split holdout: fitted no speedup and no stack factor; a "
            "MoE row, since every MoE row fits the MoE factor, shown with that factor refitted "
            f"without it), tuned level: MdAPE {h['mdape']:.1%}, {h['within_25pct']:.0%} within "
            "+-25 %; "
            + "; ".join(
                f"{kind} ({m['n']} rows): MdAPE {m['mdape']:.1%}, {m['within_25pct']:.0%} within"
                for kind, m in lv.tuned_holdout_by_kind.items()
            )
            + ":",
            lv.tuned_holdout.to_string(index=False, formatters=TOKENS_S),
            "Held-out benchmark rows by the table they come from and kind:",
            lv.tuned_holdout_by_source.to_string(index=False, formatters=GROUP_FORMAT),
            "By GPU count (the tuned level at scale):",
            lv.tuned_holdout_by_scale.to_string(index=False, formatters=GROUP_FORMAT),
            "By vendor (median_error: the median signed error, predicted / published - 1):",
            lv.tuned_holdout_by_vendor.to_string(index=False, formatters=GROUP_FORMAT),
        ]
    lines += _tuned_band_lines(lv) + _fp4_lines(lv) + _overhead_lines(lv) + _routing_lines(lv)
    if lv.realized_blind is not None:
        b, base = lv.realized_blind, lv.realized_blind_baseline
        lines.append(
            f"Typical stack (what whole runs realized) on the {b['n']} blind dense runs (entered "
            "after the constants were frozen; the held-out median refitted without each): MdAPE "
            f"{b['mdape']:.1%}, {b['within_25pct']:.0%} within +-25 % (constant-MFU baseline: "
            f"{base['mdape']:.1%}, {base['within_25pct']:.0%})."
        )
    lines += [
        "Published / tuned-predicted GPU-hours of the used full runs by accelerator (MoE apart):",
        lv.realized_by_group.to_string(formatters={"p10": TIMES, "median": TIMES, "p90": TIMES}),
        f"Band (split-conformal p10-p90 of the held-out runs): held for {c['loo_coverage']:.0%} "
        f"of the {c['n']} left out one at a time, {c['forward_inside']} of {c['forward_runs']} "
        f"({c['forward_coverage']:.0%}) forward in time; p90 / p10 {c['width']:.2f}x (median "
        f"{c['loo_width_median']:.2f}x over the leave-one-out bands).",
    ]
    return lines + _realized_lines(s)


def _realized_lines(s: ValidationSummary) -> list[str]:
    """The realized level by software class and scale, and the conditioned bands (issue 19)."""
    r = s.realized
    if r is None:
        return []
    cand = r.candidates.rename(columns=lambda c: c.replace("_", " "))
    chosen = r.chosen or "none: the pooled band stays"
    return [
        "Published / tuned-predicted GPU-hours of the held-out full runs by software class "
        "(the training framework their source names, workbook.catalog.schema.SOFTWARE_CLASS) "
        "and by scale (empirical p10 / median / p90):",
        r.by_class.to_string(formatters={"p10": TIMES, "median": TIMES, "p90": TIMES}),
        f"The band conditioned on each (a group's own band where it has >= {MIN_GROUP_RUNS} "
        "conditioning runs, else pooled; the rule declared in CHANGELOG.md before it was "
        "computed: leave-one-out 75-85 % and narrower than pooled, then forward 75-85 %):",
        cand.to_string(
            formatters={
                "loo coverage": "{:.0%}".format,
                "loo width median": TIMES,
                "forward coverage": "{:.0%}".format,
                "forward width median": TIMES,
            }
        ),
        f"Conditioning adopted: {chosen}.",
    ]


def _targets_section(s: ValidationSummary) -> list[str]:
    """Issue 19's targets against the figures above (:func:`workbook.calibrate.target_table`)."""
    figures = s.figures
    t = target_table(figures, s.ratios)
    t["met"] = t["met"].map({True: "yes", False: "no"})
    return [
        f"\nIssue 19's targets on this repository's held-out rows ({figures['targets_met']} of "
        f"{figures['targets_total']} met; "
        "the issue's own check uses held-out rows that are not in data/, and the speed targets "
        "are measured by python -m workbook bench):",
        *_left_aligned(t),
        "Beyond the target, the per-GPU throughput ratios between any two parts (one vendor's "
        f"generations too): {ratio_said(s.ratios, 'across_parts')} within 10 %.",
    ]


def _left_aligned(t: pd.DataFrame) -> list[str]:
    """``t``'s header and rows as text lines, every column left-aligned (a sentence column reads
    badly right-aligned)."""
    cells = [list(t.columns)] + t.astype(str).to_numpy().tolist()
    widths = [max(len(row[i]) for row in cells) for i in range(len(t.columns))]
    return ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]


def _figure_lines(figures: dict) -> list[str]:
    """``name: value`` lines, floats to 3 decimals, after an empty line."""
    return [""] + [
        f"{k}: {v:.3f}" if isinstance(v, float) else f"{k}: {v}" for k, v in figures.items()
    ]


def report(catalog=None, out=sys.stdout, cv: bool = True) -> dict:
    """Print the validation and return its headline figures; ``cv`` adds the cross-validation
    (~20 s)."""
    s = validation_summary(catalog, cv=cv)
    figures = s.figures
    pd.set_option("display.width", 200)
    for section in (
        _runs_section,
        _prospective_section,
        _range_section,
        _spread_section,
        _throughput_section,
        _out_of_sample_section,
        _levels_section,
        _targets_section,
    ):
        for line in section(s):
            print(line, file=out)
    for line in _figure_lines(figures):
        print(line, file=out)
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
    """``--fit`` (and ``--write``) first, then the report."""
    if args.fit:
        best = fit()
        print("fitted: " + ", ".join(f"{k}={v}" for k, v in best.items()))
        if args.write:
            write_assumptions({k: best[k] for k in FIT_PARAMS if k in best})
            clear_cache()  # the tuned per-step overhead is fitted with the constants just written
            tokens, _ = fit_tuned_step_overhead()
            print(f"tuned per-step overhead: {STEP_OVERHEAD_TUNED}={tokens:g}")
            write_assumptions({STEP_OVERHEAD_TUNED: tokens})
            clear_cache()  # the MoE routing width is fitted at the overhead just written
            width = fit_moe_routing()
            print(f"MoE routing width: {ROUTING}={width:g}")
            write_assumptions({ROUTING: width})
            clear_cache()  # the bands are measured with the constants just written
            bands = band_constants()
            print("bands: " + ", ".join(f"{k}={v}" for k, v in bands.items()))
            write_assumptions(bands)
            # The report below must read the constants just written, not the cached tables.
            clear_cache()
            print(f"written to {Path(DATA_DIR) / 'assumptions.csv'}")
    report(cv=not args.no_cv)
    return 0


def _tuned_band_lines(lv) -> list[str]:
    """The tuned band of each kind and how often it held leave-one-out; none without bands."""
    if not lv.tuned_bands:
        return []
    return [
        "Tuned band per kind (split-conformal p10-p90 of the leave-one-out time ratios, "
        "published / predicted time; coverage: each row inside the band of the others): "
        + "; ".join(
            f"{kind} {m['n']} rows {m['p10']:.2f}x-{m['p90']:.2f}x, {m['loo_coverage']:.0%}"
            for kind, m in lv.tuned_bands.items()
        )
        + "."
    ]


def _fp4_lines(lv) -> list[str]:
    """The FP4 line of the levels section: the rows that fitted a vendor's FP4 speedup
    (leave-one-out) and the held-out ones (FP8's speedup); none without FP4 rows."""
    fit, held = lv.tuned_fp4_loo, lv.tuned_fp4_holdout
    parts = []
    if fit:
        parts.append(
            f"{' and '.join(fit['vendors'])}'s own, fitted on {fit['n']} rows "
            f"(leave-one-out MdAPE {fit['mdape']:.1%}, median {fit['median_error']:+.1%})"
        )
    if held:
        parts.append(
            f"other vendors' FP8 speedup, on {held['n']} held-out rows "
            f"(MdAPE {held['mdape']:.1%}, median {held['median_error']:+.1%})"
        )
    if not parts:
        return []
    return [
        "FP4 at the tuned level (a vendor's own speedup where it has FP4 benchmarks, else "
        "FP8's; the rule declared in CHANGELOG.md 2026-12-02): " + "; ".join(parts) + "."
    ]


#: Expert widths the routing line shows its factor at: Qwen3-30B-A3B (768), Qwen3-235B-A22B
#: (1,536), gpt-oss (2,880); Hugging Face config.json moe_intermediate_size / intermediate_size.
ROUTING_SHOWN_AT = (768, 1536, 2880)


def _routing_lines(lv) -> list[str]:
    """The MoE routing width and what it did over the MoE rows; none without MoE rows."""
    fit = lv.moe_routing
    if not fit or fit.get("none") is None:
        return []
    c = fit["width"]
    at = ", ".join(
        f"x {moe_routing_factor(f, 2, c):.2f} at {f:,}-wide experts" for f in ROUTING_SHOWN_AT
    )
    none, width, nested = fit["none"], fit["at_width"], fit["nested"]
    return [
        f"MoE routing: dispatch and combine cost a {c:g}-wide matmul per routed token (the rule "
        "declared in CHANGELOG.md 2026-12-07), throughput x (1 + c / 2048) / (1 + c / expert "
        f"width): {at}. Over the {none['n']} MoE rows, leave-one-out: MdAPE "
        f"{none['mdape']:.1%} without it, {width['mdape']:.1%} with it, {nested['mdape']:.1%} "
        f"nested (each row at the width chosen without it); within +-25 % "
        f"{none['within_25pct']:.0%}, {width['within_25pct']:.0%}, {nested['within_25pct']:.0%}."
    ]


#: Tokens per GPU per step the overhead line shows its factor at: a 16M-token batch on 16,384
#: GPUs (976), on 4,096 (3,906), on 1,024 (15,625).
OVERHEAD_SHOWN_AT = (16e6 / 16384, 16e6 / 4096, 16e6 / 1024)


def _overhead_lines(lv) -> list[str]:
    """The tuned level's per-step overhead and what it costs a batch spread thin; none at 0."""
    k = lv.step_overhead_tokens
    if not k > 0:
        return []
    at = ", ".join(
        f"x {step_overhead_factor(k, t):.2f} at {t:,.0f} (16M tokens on {16e6 / t:,.0f} GPUs)"
        for t in OVERHEAD_SHOWN_AT
    )
    return [
        f"Per-step overhead at the tuned level: {k:g} tokens of each GPU's work per step (fitted "
        "on the calibration rows by the rule declared in CHANGELOG.md 2026-12-03; the whole-run "
        f"levels have none), steady throughput x 1 / (1 + {k:g} / tokens per GPU per step): {at}."
    ]
