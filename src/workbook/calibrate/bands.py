"""The two levels of the time model measured on their own evidence, and the bands around them
(data/assumptions.csv ``realized_time_ratio_*``, ``tuned_stack_speedup_*``,
``tuned_time_ratio_*``; :mod:`workbook.model.uncertainty` uses them).

- :func:`realized_band`: where the held-out whole runs landed against the engine's prediction
  (split-conformal quantiles of published / predicted GPU-hours: the held-out runs fitted no
  constant, so they are the conformal calibration set);
- :func:`tuned_band`: the benchmarks' steady-state throughput against the engine's (the tuned
  stack's speedup per precision, the MoE factor, and the split-conformal quantiles of the
  leave-one-out residuals of the dense rows and, apart, of the MoE rows: a band per kind);
- :func:`tuned_stack_maturity`: the tuned level's software-stack factor of a non-CUDA stack
  (``software_maturity_tuned_<stack>``), from one benchmark that both vendors' reference recipes
  ran (:data:`TUNED_STACK_PAIRS`); :func:`tuned_part_maturity` the same for a part with its own
  (keyed by accelerator: CDNA 4 on ROCm 7, :data:`TUNED_PART_PAIRS`; stored by hand in
  data/assumptions.csv, which ``--fit --write`` does not rewrite: a test checks stored = live);
- :func:`band_constants`: all of them, as the rows of data/assumptions.csv they are stored in;
- :func:`band_coverage`: how often the band held for a run it had not seen (leave-one-out and
  forward in time), and its median width.

Split rule, declared before any error was looked at: the realized band is measured on the rows with
``split`` holdout only; a run is inside its band when its published / predicted ratio lies between
the conformal quantiles of the *other* held-out runs (leave-one-out) or of the held-out runs entered
in earlier batches (forward); MLPerf rows are not used (no token counts; v5.1 is held out).
Benchmark rows with ``split`` holdout (declared with the rows, before their error was computed)
fit neither the tuned speedups nor a stack factor: they are predicted, never fitted. Every MoE
benchmark row, held out or not, fits the MoE factor (the rule declared in CHANGELOG.md on
2026-12-02, after the held-out MoE rows' errors were seen): a MoE row's out-of-sample figure is its
leave-one-out one.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..model import assumption_values, benchmark_rows, moe_by_class, tuned_stack_factor
from .benchmarks import benchmark_throughput
from .cache import PerCatalog
from .metrics import _ratios, metrics
from .runs import (
    entry_batch,
    full_runs,
    predict_hours,
)

#: The band's nominal quantiles (p10, p90) [probability].
BAND_LOW, BAND_HIGH = 0.1, 0.9
#: Precisions the tuned stack has one speedup for across vendors; FP4 has a vendor's own
#: (:data:`FP4_SPEEDUP`) where the vendor has FP4 benchmarks, else takes the last one's.
TUNED_PRECISIONS = ("bf16", "fp8")
#: The tuned FP4 speedup, keyed by accelerator in data/assumptions.csv: a vendor's own, fitted on
#: its dense FP4 benchmark rows not held out (:func:`tuned_part_fp4`; NVFP4 and MXFP4 are
#: different formats with different recipes: the rule declared in CHANGELOG.md, 2026-12-02).
FP4_SPEEDUP = "tuned_stack_speedup_fp4"
#: The fewest dense FP4 benchmark rows (not held out) a vendor needs for its own FP4 speedup:
#: with one left out, a median of two others remains (declared in CHANGELOG.md).
FP4_VENDOR_MIN_ROWS = 3
#: The benchmark each non-CUDA stack's tuned factor is measured on: stack -> (that stack's
#: calibration row, the CUDA row of the same benchmark, model, GPU count and precision).
TUNED_STACK_PAIRS = {"rocm": ("mlperf-v50-lora-mi300x-8", "mlperf-v50-lora-b200-8")}
#: Parts whose stack has its own tuned factor (a newer generation on a newer stack: CDNA 4 on
#: ROCm 7), measured like the stack's: part -> (that part's calibration row, its CUDA pair of the
#: same model, GPU count, sequence length and precision). Split declared in CHANGELOG.md (amd3).
TUNED_PART_PAIRS = {"mi355x": ("primus-mlperf-llama31-8b-mi355x-8", "nemo-llama3-8b-b200")}
#: The whole-run HBM traffic constant, and the tuned level's own (data/assumptions.csv).
TRAFFIC = "memory_traffic_bytes_per_token_layer_dmodel"
TUNED_TRAFFIC = "memory_traffic_tuned_bytes_per_token_layer_dmodel"
#: The values :func:`fit_tuned_traffic` chooses among [B per token, layer and d_model] (the rule
#: declared in CHANGELOG.md before the fit was run).
TUNED_TRAFFIC_GRID = tuple(float(v) for v in range(100, 801, 50))
#: The whole-run levels' per-step overhead (0) and the tuned level's own [tokens per GPU per step]
#: (data/assumptions.csv; :func:`fit_tuned_step_overhead`, the rule declared in CHANGELOG.md).
STEP_OVERHEAD = "step_overhead_tokens"
STEP_OVERHEAD_TUNED = "step_overhead_tuned_tokens"
#: The values :func:`fit_tuned_step_overhead` chooses among [tokens per GPU per step] (declared).
STEP_OVERHEAD_GRID = tuple(float(v) for v in range(0, 401, 25))
#: Parts that take another part's tuned factor (declared, not fitted): MI350X is MI355X's CDNA 4
#: die at a lower clock and power on the same ROCm 7 stack, with no FP8 benchmark of its own.
TUNED_PART_SHARED = {"mi350x": "mi355x"}
#: The whole-run MoE multiplier, and the tuned level's own (data/assumptions.csv; fitted on every
#: MoE benchmark row by the rule declared in CHANGELOG.md: :func:`fit_moe_tuned`).
MOE = "moe_efficiency"
MOE_TUNED = "moe_efficiency_tuned"
#: The fewest MoE benchmark rows a part needs for its own tuned MoE factor (keyed by accelerator,
#: :func:`tuned_part_moe`): with one left out, three remain for a median (declared in CHANGELOG.md).
PART_MOE_MIN_ROWS = 4


def conformal_quantiles(ratios) -> tuple[float, float]:
    """The split-conformal (p10, p90) of ``ratios``: the ``floor((n + 1) 0.1)``-th and the
    ``ceil((n + 1) 0.9)``-th smallest of ``n`` (clipped to the sample), which cover a new draw from
    the same distribution at least 80 % of the time (Vovk et al. 2005; Lei et al. 2018,
    arXiv 1604.04173)."""
    r = np.sort(np.asarray(ratios, float))
    n = r.size
    lo = min(max(math.floor((n + 1) * BAND_LOW), 1), n)
    hi = min(max(math.ceil((n + 1) * BAND_HIGH), 1), n)
    return float(r[lo - 1]), float(r[hi - 1])


def loo_bands(ratios) -> list[tuple[float, float]]:
    """For each of ``ratios``, the split-conformal (p10, p90) of all the others (leave-one-out)."""
    r = np.asarray(ratios, float)
    return [conformal_quantiles(np.delete(r, i)) for i in range(r.size)]


def holdout_ratios(cat: Catalog) -> tuple[pd.DataFrame, np.ndarray]:
    """The held-out full runs and their published / engine-predicted GPU-hours [x]."""
    rows = full_runs(cat)
    hold = rows[rows["split"] == "holdout"].reset_index(drop=True)
    return hold, _ratios(hold["gpu_hours"], predict_hours(hold, cat))


def realized_band(catalog: Catalog | None = None) -> dict:
    """Published / predicted GPU-hours of the held-out runs (engine level): ``p10`` and ``p90``
    (split-conformal), ``p50`` (median), ``n``."""
    _, r = holdout_ratios(resolve_catalog(catalog))
    lo, hi = conformal_quantiles(r)
    return {"p10": lo, "p50": float(np.median(r)), "p90": hi, "n": int(r.size)}


def tuned_base_throughput(cat: Catalog, traffic: float | None = None) -> pd.DataFrame:
    """:func:`benchmark_throughput` at the engine level but with the tuned level's HBM traffic
    (``traffic``; default the stored ``memory_traffic_tuned_...``) and per-step overhead (the
    stored ``step_overhead_tuned_tokens``): what the tuned speedups and stack factors multiply."""
    a = assumption_values(cat)
    a[TRAFFIC] = a[TUNED_TRAFFIC] if traffic is None else float(traffic)
    a[STEP_OVERHEAD] = a[STEP_OVERHEAD_TUNED]
    bench = benchmark_throughput(cat, assumptions=a)
    vendor = cat.tables["accelerators"].set_index("accelerator_id")["vendor"]
    return bench.assign(vendor=vendor.reindex(bench["accelerator"]).to_numpy(object))


def _pair_factors(
    cat: Catalog, pairs: dict, stack_of, traffic: float | None = None
) -> dict[str, float]:
    """For each key of ``pairs`` (key -> (its calibration row, the CUDA row of the same
    benchmark)): the typical ``software_maturity_<stack_of(key)>`` x (published / engine tokens/s
    per GPU of its row) / (published / engine of the CUDA row), engine level at the tuned
    traffic (:func:`tuned_base_throughput`)."""
    bench = tuned_base_throughput(cat, traffic).set_index("run")
    ratio = bench["published_tok_s_gpu"] / bench["predicted_tok_s_gpu"]
    a = assumption_values(cat)
    return {
        key: a[f"software_maturity_{stack_of(key)}"] * float(ratio[mine] / ratio[cuda])
        for key, (mine, cuda) in pairs.items()
    }


def tuned_stack_maturity(
    catalog: Catalog | None = None, traffic: float | None = None
) -> dict[str, float]:
    """``software_maturity_tuned_<stack>`` for each stack of :data:`TUNED_STACK_PAIRS`: the
    typical ``software_maturity_<stack>`` x (published / engine tokens/s per GPU of the stack's
    row) / (published / engine of the CUDA row), i.e. the factor that puts the stack's reference
    recipe where CUDA's is on the same benchmark (the engine at the tuned level's HBM traffic,
    :func:`tuned_base_throughput`: no tuned speedup or stack factor enters)."""
    return _pair_factors(resolve_catalog(catalog), TUNED_STACK_PAIRS, lambda stack: stack, traffic)


def tuned_part_maturity(
    catalog: Catalog | None = None, traffic: float | None = None
) -> dict[str, float]:
    """``software_maturity_tuned_<stack>`` keyed by accelerator for each part of
    :data:`TUNED_PART_PAIRS` (as :func:`tuned_stack_maturity`, from that part's row and its CUDA
    pair; engine level) and of :data:`TUNED_PART_SHARED` (the part it shares with)."""
    cat = resolve_catalog(catalog)
    stacks = cat.tables["accelerators"].set_index("accelerator_id")["software_stack"]
    out = _pair_factors(cat, TUNED_PART_PAIRS, lambda part: stacks[part], traffic)
    return {**out, **{part: out[src] for part, src in TUNED_PART_SHARED.items()}}


def _live_benchmarks(cat: Catalog, traffic: float | None = None) -> pd.DataFrame:
    """:func:`tuned_base_throughput` with each part's stack factor from the live
    :func:`tuned_stack_maturity`, not the stored one, so that one ``--fit --write`` stores
    speedups consistent with the factor it stores."""
    bench = tuned_base_throughput(cat, traffic).reset_index(drop=True)
    a = assumption_values(cat)
    # Rounded as band_constants stores it, so that a stored factor gives the same speedups.
    live = tuned_stack_maturity(cat, traffic)
    a.update({f"software_maturity_tuned_{k}": round(v, 4) for k, v in live.items()})
    keyed = {k: round(v, 4) for k, v in tuned_part_maturity(cat, traffic).items()}
    return bench.assign(stack_factor=tuned_stack_factor(cat, bench["accelerator"], a, keyed))


def _speedups(bench: pd.DataFrame) -> dict:
    """Median published / predicted throughput per :data:`TUNED_PRECISIONS` (all rows where a
    precision has none), the prediction taken with each part's stack factor, over the dense rows
    that are not held out (the MoE rows fit :func:`fit_moe_tuned` instead); ``fp4``: vendor ->
    the same median over that vendor's FP4 rows, for each vendor with at least
    :data:`FP4_VENDOR_MIN_ROWS` of them (:func:`speedup_of` reads it)."""
    bench = bench[(bench["split"] != "holdout") & ~bench["moe"]]
    ratio = bench["published_tok_s_gpu"] / (bench["predicted_tok_s_gpu"] * bench["stack_factor"])
    out: dict = {}
    for p in TUNED_PRECISIONS:
        mine = ratio[bench["precision"] == p]
        out[p] = float(np.median(mine if len(mine) else ratio))
    fp4 = ratio[bench["precision"] == "fp4"].groupby(bench["vendor"]).agg(["median", "size"])
    out["fp4"] = {
        str(v): float(row["median"])
        for v, row in fp4.iterrows()
        if row["size"] >= FP4_VENDOR_MIN_ROWS
    }
    return out


def speedup_of(speed: dict, precision: str, vendor: str) -> float:
    """The tuned speedup of :func:`_speedups` for a row at ``precision`` on a part of ``vendor``:
    FP4 its vendor's own where it has one, else FP8's (as every precision outside
    :data:`TUNED_PRECISIONS`)."""
    if precision == "fp4" and vendor in speed["fp4"]:
        return speed["fp4"][vendor]
    return speed[precision if precision in TUNED_PRECISIONS else TUNED_PRECISIONS[-1]]


def _moe_tuned(bench: pd.DataFrame, speed: dict[str, float], moe_efficiency: float) -> float:
    """``moe_efficiency`` x the median published / tuned-predicted throughput of the MoE rows
    (held out or not), each predicted with its part's stack factor and its precision's speedup of
    ``speed`` (rounded as stored); no such row: ``moe_efficiency`` (nothing to fit)."""
    fit = bench[bench["moe"]]
    if fit.empty:
        return moe_efficiency
    sp = np.array(
        [round(speedup_of(speed, p, v), 4) for p, v in zip(fit["precision"], fit["vendor"])]
    )
    pred = fit["predicted_tok_s_gpu"].to_numpy(float) * fit["stack_factor"].to_numpy(float) * sp
    return moe_efficiency * float(np.median(fit["published_tok_s_gpu"].to_numpy(float) / pred))


def _part_moe(bench: pd.DataFrame, speed: dict[str, float], moe_efficiency: float) -> dict:
    """Each part with at least :data:`PART_MOE_MIN_ROWS` MoE rows: :func:`_moe_tuned` over its
    own MoE rows (accelerator id -> factor)."""
    rows = bench[bench["moe"]]
    counts = rows["accelerator"].value_counts()
    return {
        part: _moe_tuned(rows[rows["accelerator"] == part], speed, moe_efficiency)
        for part in sorted(counts.index[counts >= PART_MOE_MIN_ROWS])
    }


def tuned_part_moe(catalog: Catalog | None = None, traffic: float | None = None) -> dict:
    """``moe_efficiency_tuned`` keyed by accelerator (the rule declared in CHANGELOG.md): for each
    part with at least :data:`PART_MOE_MIN_ROWS` MoE benchmark rows, ``moe_efficiency`` x the
    median published / tuned-predicted tokens/s per GPU of that part's MoE rows (as
    :func:`fit_moe_tuned`, restricted to the part); stored by hand in data/assumptions.csv (a test
    checks stored = live). Other parts take the pooled factor."""
    cat = resolve_catalog(catalog)
    bench = _live_benchmarks(cat, traffic)
    return _part_moe(bench, _speedups(bench), assumption_values(cat)[MOE])


def tuned_part_fp4(catalog: Catalog | None = None, traffic: float | None = None) -> dict:
    """``tuned_stack_speedup_fp4`` keyed by accelerator (the rule declared in CHANGELOG.md,
    2026-12-02): for each vendor with at least :data:`FP4_VENDOR_MIN_ROWS` dense FP4 benchmark
    rows not held out, the median published / predicted throughput of those rows (as the BF16 /
    FP8 speedups: :func:`_speedups`), for each of that vendor's parts with an FP4 peak
    (accelerator id -> speedup); stored by hand in data/assumptions.csv (a test checks stored =
    live). Other parts plan FP4 with FP8's speedup."""
    cat = resolve_catalog(catalog)
    fp4 = _speedups(_live_benchmarks(cat, traffic))["fp4"]
    spec = cat.tables["accelerators"]
    spec = spec[spec["tflops_dense_fp4"].notna() & spec["vendor"].isin(list(fp4))]
    return {part: fp4[v] for part, v in sorted(zip(spec["accelerator_id"], spec["vendor"]))}


def fit_moe_tuned(catalog: Catalog | None = None, traffic: float | None = None) -> float:
    """``moe_efficiency_tuned``, the tuned level's MoE multiplier (the rule declared in
    CHANGELOG.md): the engine's ``moe_efficiency`` x the median published / tuned-predicted
    tokens/s per GPU of every MoE benchmark row, the dense tuned constants (HBM
    ``traffic``, speedups, stack factors) fitted first on the dense rows."""
    cat = resolve_catalog(catalog)
    bench = _live_benchmarks(cat, traffic)
    return _moe_tuned(bench, _speedups(bench), assumption_values(cat)[MOE])


def tuned_loo_ratios(catalog: Catalog | None = None, traffic: float | None = None) -> pd.DataFrame:
    """Every benchmark row against the tuned stack with its precision's speedup (and, for a
    mixture of experts, the MoE factor: its part's own where the part has
    :data:`PART_MOE_MIN_ROWS` MoE rows, :func:`tuned_part_moe`, else its class's at its compute,
    :func:`workbook.model.moe_by_class`) refitted without it (a held-out
    dense row's is the full fit, which never saw it) and its part's stack factor, at HBM
    ``traffic`` (default the stored tuned value): :func:`tuned_base_throughput` plus
    ``loo_speedup``, ``loo_moe`` (the tuned / engine MoE multiplier; 1 for a dense row),
    ``loo_tok_s_gpu`` and ``time_ratio`` (published / predicted time = predicted / published
    throughput)."""
    cat = resolve_catalog(catalog)
    bench = _live_benchmarks(cat, traffic)
    moe_efficiency = assumption_values(cat)[MOE]
    counts = bench.loc[bench["moe"], "accelerator"].value_counts()
    speed, moe = [], []
    for i, (p, moe_row, part, vendor) in enumerate(
        zip(bench["precision"], bench["moe"], bench["accelerator"], bench["vendor"], strict=True)
    ):
        rest = bench.drop(index=i)
        sp = _speedups(rest)
        speed.append(speedup_of(sp, p, vendor))
        if not moe_row:
            moe.append(1.0)
        elif counts.get(part, 0) >= PART_MOE_MIN_ROWS:  # its part's own, without it
            own = _moe_tuned(rest[rest["accelerator"] == part], sp, moe_efficiency)
            moe.append(own / moe_efficiency)
        else:  # its class's at its compute, the other parts' own refitted without it
            by_class = moe_by_class(
                cat.tables["accelerators"],
                _part_moe(rest, sp, moe_efficiency),
                _moe_tuned(rest, sp, moe_efficiency),
            )
            moe.append(by_class[part] / moe_efficiency)
    loo, loo_moe = np.array(speed), np.array(moe)
    pred = (bench["predicted_tok_s_gpu"] * bench["stack_factor"]).to_numpy(float) * loo * loo_moe
    return bench.assign(
        loo_speedup=loo,
        loo_moe=loo_moe,
        loo_tok_s_gpu=pred,
        time_ratio=pred / bench["published_tok_s_gpu"].to_numpy(float),
    )


def _fit_traffic(cat: Catalog) -> tuple[float, float]:
    """(traffic, its leave-one-out MdAPE) of :func:`fit_tuned_traffic`."""
    best, best_mdape = TUNED_TRAFFIC_GRID[-1], math.inf
    for traffic in reversed(TUNED_TRAFFIC_GRID):  # from the largest: a tie keeps it
        loo = tuned_loo_ratios(cat, traffic)
        fit_rows = loo[
            (loo["split"] != "holdout") & ~loo["moe"] & loo["precision"].isin(TUNED_PRECISIONS)
        ]
        mdape = metrics(fit_rows["published_tok_s_gpu"], fit_rows["loo_tok_s_gpu"])["mdape"]
        if mdape < best_mdape:
            best, best_mdape = traffic, mdape
    return best, best_mdape


def fit_tuned_traffic(catalog: Catalog | None = None) -> float:
    """The tuned level's HBM traffic: the point of :data:`TUNED_TRAFFIC_GRID` with the lowest
    leave-one-out MdAPE (:func:`tuned_loo_ratios` at that traffic) over the dense BF16 / FP8
    benchmark rows not held out (the FP4 rows fit their vendor's speedup on top); a tie goes to
    the larger value (the rules declared in CHANGELOG.md). At the catalog's stored per-step
    overhead."""
    return _fit_traffic(resolve_catalog(catalog))[0]


def with_assumption(cat: Catalog, name: str, value: float) -> Catalog:
    """``cat`` with the unkeyed assumption ``name`` set to ``value``."""
    cell = {"table": "assumptions", "key": name, "column": "value"}
    return cat.with_overrides([{**cell, "value": repr(float(value))}])


def with_step_overhead(cat: Catalog, tokens: float) -> Catalog:
    """``cat`` with the tuned level's per-step overhead set to ``tokens``."""
    return with_assumption(cat, STEP_OVERHEAD_TUNED, tokens)


def fit_tuned_step_overhead(catalog: Catalog | None = None) -> tuple[float, float]:
    """(``step_overhead_tuned_tokens``, the tuned HBM traffic at it): the point of
    :data:`STEP_OVERHEAD_GRID` whose :func:`fit_tuned_traffic` has the lowest leave-one-out
    MdAPE over the dense BF16 / FP8 benchmark rows not held out; a tie goes to the smaller (the
    rule declared in CHANGELOG.md, 2026-12-03)."""
    cat = resolve_catalog(catalog)
    best, best_mdape = (STEP_OVERHEAD_GRID[0], math.nan), math.inf
    for tokens in STEP_OVERHEAD_GRID:  # from the smallest: a tie keeps it
        traffic, mdape = _fit_traffic(with_step_overhead(cat, tokens))
        if mdape < best_mdape:
            best, best_mdape = (tokens, traffic), mdape
    return best


def tuned_band(catalog: Catalog | None = None, traffic: float | None = None) -> dict:
    """The tuned stack at HBM ``traffic``: ``speedup_<precision>`` (median published /
    :func:`tuned_base_throughput` steady throughput of the dense benchmarks at that precision;
    ``speedup_fp4``: vendor -> its own, :func:`tuned_part_fp4`), ``moe`` (:func:`fit_moe_tuned`),
    ``p10`` / ``p90`` (split-conformal) of the dense rows' leave-one-out time ratios
    (:func:`tuned_loo_ratios`) and ``moe_p10`` / ``moe_p90`` of the MoE rows'
    (a kind without rows: the other kind's)."""
    cat = resolve_catalog(catalog)
    bench = _live_benchmarks(cat, traffic)
    speed = _speedups(bench)
    moe = _moe_tuned(bench, speed, assumption_values(cat)[MOE])
    loo = tuned_loo_ratios(cat, traffic)
    dense, mixture = loo.loc[~loo["moe"], "time_ratio"], loo.loc[loo["moe"], "time_ratio"]
    lo, hi = conformal_quantiles(dense if len(dense) else mixture)
    moe_lo, moe_hi = conformal_quantiles(mixture) if len(mixture) else (lo, hi)
    return {
        **{f"speedup_{p}": v for p, v in speed.items()},
        "moe": moe,
        "p10": lo,
        "p90": hi,
        "moe_p10": moe_lo,
        "moe_p90": moe_hi,
    }


def band_constants(catalog: Catalog | None = None) -> dict[str, float]:
    """The data/assumptions.csv rows of both bands, measured live (rounded to 4 decimals)."""
    cat = resolve_catalog(catalog)
    traffic = fit_tuned_traffic(cat)
    real, tuned = realized_band(cat), tuned_band(cat, traffic)
    values = {
        TUNED_TRAFFIC: traffic,
        "realized_time_ratio_p10": real["p10"],
        "realized_time_ratio_p50": real["p50"],
        "realized_time_ratio_p90": real["p90"],
        "tuned_time_ratio_p10": tuned["p10"],
        "tuned_time_ratio_p90": tuned["p90"],
        "tuned_time_ratio_moe_p10": tuned["moe_p10"],
        "tuned_time_ratio_moe_p90": tuned["moe_p90"],
        **{f"tuned_stack_speedup_{p}": tuned[f"speedup_{p}"] for p in TUNED_PRECISIONS},
        MOE_TUNED: tuned["moe"],
        **{
            f"software_maturity_tuned_{k}": v for k, v in tuned_stack_maturity(cat, traffic).items()
        },
    }
    return {k: round(float(v), 4) for k, v in values.items()}


def band_coverage(catalog: Catalog | None = None) -> dict:
    """How often the realized band held for a held-out run it had not seen, and its width:
    ``loo_coverage`` (each run against the conformal band of the other held-out runs),
    ``forward_runs`` / ``forward_inside`` / ``forward_coverage`` (each later entry batch against
    the band of the held-out runs entered before it), ``loo_width_median`` (median p90 / p10 of
    the leave-one-out bands) and ``width`` (p90 / p10 of the band of all held-out runs)."""
    cat = resolve_catalog(catalog)
    hold, r = holdout_ratios(cat)
    bands = loo_bands(r)
    inside = [lo <= x <= hi for x, (lo, hi) in zip(r, bands, strict=True)]
    widths = [hi / lo for lo, hi in bands]
    batch = entry_batch(hold)
    fw_runs = fw_in = 0
    for k in sorted(set(batch[batch >= 1])):
        before, now = batch < k, batch == k
        if before.sum() < 2:
            continue
        lo, hi = conformal_quantiles(r[before])
        fw_runs += int(now.sum())
        fw_in += int(((r[now] >= lo) & (r[now] <= hi)).sum())
    lo, hi = conformal_quantiles(r)
    return {
        "n": int(r.size),
        "loo_coverage": float(np.mean(inside)),
        "loo_width_median": float(np.median(widths)),
        "forward_runs": fw_runs,
        "forward_inside": fw_in,
        "forward_coverage": fw_in / fw_runs if fw_runs else math.nan,
        "width": hi / lo,
    }


#: :func:`band_coverage` per catalog object (the trust paragraph asks on every recommendation).
band_coverage_cached = PerCatalog(band_coverage)


def band_basis_counts(catalog: Catalog | None = None) -> tuple[int, int]:
    """How many held-out full runs and benchmark rows the two bands were measured on [count]."""
    cat = resolve_catalog(catalog)
    runs = full_runs(cat)
    bench = cat.tables["published_runs"]
    return int((runs["split"] == "holdout").sum()), int(benchmark_rows(bench).sum())
