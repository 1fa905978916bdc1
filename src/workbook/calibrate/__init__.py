"""The time model against published runs (a library; ``python -m workbook validate`` prints it).

- :mod:`.runs`: the published full runs, the engine's and the constant-MFU baseline's GPU-hours,
  MoE / accelerator groups and entry batches;
- :mod:`.metrics`: error metrics, bias per group, the range to plan with and its forward check,
  the recalibration floor, the twin runs;
- :mod:`.fit`: the grid fit of the free constants and its cross-validation;
- :mod:`.benchmarks`: steady-state throughput against published benchmarks, throughput ratios;
- :mod:`.bands`: the typical (realized) and tuned levels and their split-conformal bands;
- :mod:`.levels`: both levels on their own evidence (what the validator prints of them);
- :mod:`.realized`: the realized level by software class and scale, and the band conditioned on
  either against the declared rule;
- :mod:`.summary`: everything the validator prints, as one typed result;
- :mod:`.accuracy`: the accuracy tables (notebook 07); :mod:`.trust`: the trust paragraph.
"""

from .accuracy import (
    ACCURACY_TARGETS,
    accuracy_bias,
    accuracy_floor,
    accuracy_summary,
    accuracy_table,
    benchmark_table,
    throughput_ratio_table,
    twin_pair_table,
)
from .bands import (
    band_basis_counts,
    band_constants,
    band_coverage,
    conformal_quantiles,
    fit_moe_tuned,
    fit_tuned_traffic,
    realized_band,
    tuned_band,
    tuned_base_throughput,
    tuned_loo_ratios,
    tuned_part_maturity,
    tuned_part_moe,
    tuned_stack_maturity,
)
from .benchmarks import RATIO_PAIRS, benchmark_throughput, throughput_ratios
from .fit import FIT_PARAMS, GRID, MOE_GRID, SPLIT_REPEATS, Fitter, fit, write_assumptions
from .levels import (
    Levels,
    level_summary,
    tuned_fp4_holdout,
    tuned_fp4_holdout_cached,
    tuned_moe_loo,
    tuned_moe_loo_cached,
)
from .metrics import (
    RANGE_QUANTILES,
    TWIN_RATIO_2X,
    TWIN_RATIO_25PCT,
    TWIN_SIZE_FACTOR,
    bias_by_group,
    forward_range_check,
    holdout_time_range,
    metrics,
    recalibration_floor,
    time_range,
    twin_pairs,
)
from .realized import (
    CONDITIONINGS,
    MIN_GROUP_RUNS,
    RealizedSummary,
    chosen_conditioning,
    conditioned_coverage,
    realized_by_class,
    realized_summary,
)
from .runs import (
    ASSUMED_GPU_COUNT,
    ENTRY_BATCHES,
    PROSPECTIVE_MARK,
    baseline_hours,
    baseline_leave_one_out,
    entry_batch,
    error_group,
    excluded_runs,
    fit_baseline_mfu,
    full_runs,
    is_moe,
    is_prospective,
    predict_hours,
)
from .summary import OutOfSample, Prospective, ValidationSummary, validation_summary
from .trust import time_model_trust

__all__ = [
    "ACCURACY_TARGETS",
    "ASSUMED_GPU_COUNT",
    "ENTRY_BATCHES",
    "FIT_PARAMS",
    "GRID",
    "MOE_GRID",
    "OutOfSample",
    "PROSPECTIVE_MARK",
    "Prospective",
    "RANGE_QUANTILES",
    "RATIO_PAIRS",
    "SPLIT_REPEATS",
    "TWIN_RATIO_25PCT",
    "TWIN_RATIO_2X",
    "TWIN_SIZE_FACTOR",
    "Fitter",
    "ValidationSummary",
    "accuracy_bias",
    "Levels",
    "level_summary",
    "band_basis_counts",
    "band_constants",
    "band_coverage",
    "conformal_quantiles",
    "realized_band",
    "CONDITIONINGS",
    "MIN_GROUP_RUNS",
    "RealizedSummary",
    "chosen_conditioning",
    "conditioned_coverage",
    "realized_by_class",
    "realized_summary",
    "fit_moe_tuned",
    "fit_tuned_traffic",
    "tuned_band",
    "tuned_base_throughput",
    "tuned_loo_ratios",
    "tuned_fp4_holdout",
    "tuned_fp4_holdout_cached",
    "tuned_moe_loo",
    "tuned_moe_loo_cached",
    "tuned_part_maturity",
    "tuned_part_moe",
    "tuned_stack_maturity",
    "accuracy_floor",
    "accuracy_summary",
    "accuracy_table",
    "baseline_hours",
    "baseline_leave_one_out",
    "benchmark_table",
    "benchmark_throughput",
    "bias_by_group",
    "entry_batch",
    "error_group",
    "excluded_runs",
    "fit",
    "fit_baseline_mfu",
    "forward_range_check",
    "full_runs",
    "holdout_time_range",
    "is_moe",
    "is_prospective",
    "metrics",
    "predict_hours",
    "recalibration_floor",
    "throughput_ratio_table",
    "throughput_ratios",
    "time_model_trust",
    "time_range",
    "twin_pair_table",
    "twin_pairs",
    "validation_summary",
    "write_assumptions",
]
