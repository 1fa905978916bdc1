"""The time model against published runs: the runs, error metrics, the fit, benchmark checks, the
accuracy tables and the trust paragraph. A library: ``python -m workbook validate`` prints it."""

from . import validate
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
from .trust import time_model_trust
from .validate import RANGE_QUANTILES, holdout_time_range, time_range

__all__ = [
    "ACCURACY_TARGETS",
    "RANGE_QUANTILES",
    "accuracy_bias",
    "accuracy_floor",
    "accuracy_summary",
    "accuracy_table",
    "benchmark_table",
    "holdout_time_range",
    "throughput_ratio_table",
    "time_model_trust",
    "time_range",
    "twin_pair_table",
    "validate",
]
