"""The decision: a scenario, its options, their evaluation, the sensitivity of the pick, the
reasons. The options table's columns are declared in :mod:`workbook.decide.columns`."""

from .allowed import (
    ACQUISITIONS,
    CONFIDENCE_RANGE,
    FRAMEWORKS,
    MAX_GPUS,
    OBJECTIVES,
    PROVIDER_TIERS,
    REGIONS,
    SCENARIO_STACKS,
    TIME_FACTOR_RANGE,
    WORKLOADS,
)
from .columns import OPTION_COLUMNS, Column, option_columns
from .evaluate import (
    TieRule,
    best_in_groups,
    best_index,
    breakeven_for,
    cost_per_year_curve,
    evaluate,
    evaluate_arrays,
    option_position,
    option_row,
    rank_columns,
)
from .option_record import Option
from .options import gpu_counts, site_defaults, sweep
from .presets import ARTICLE_ADVICE, ARTICLE_OPTION, article_comparison, presets
from .recommend import Recommendation, recommend
from .risk import option_bands
from .scenario import Scenario, ScenarioError
from .sensitivity import (
    monte_carlo,
    monte_carlo_draws,
    monte_carlo_factors,
    monte_carlo_scope,
    tornado,
    tornado_ranges,
)
from .yamlsafe import MAX_SCENARIO_BYTES, YamlError, safe_yaml

__all__ = [
    "TieRule",
    "ACQUISITIONS",
    "CONFIDENCE_RANGE",
    "FRAMEWORKS",
    "PROVIDER_TIERS",
    "MAX_GPUS",
    "REGIONS",
    "ARTICLE_ADVICE",
    "ARTICLE_OPTION",
    "OBJECTIVES",
    "SCENARIO_STACKS",
    "OPTION_COLUMNS",
    "TIME_FACTOR_RANGE",
    "WORKLOADS",
    "Column",
    "Option",
    "Recommendation",
    "Scenario",
    "ScenarioError",
    "YamlError",
    "MAX_SCENARIO_BYTES",
    "safe_yaml",
    "article_comparison",
    "best_in_groups",
    "best_index",
    "breakeven_for",
    "cost_per_year_curve",
    "evaluate",
    "option_position",
    "evaluate_arrays",
    "gpu_counts",
    "monte_carlo",
    "monte_carlo_factors",
    "monte_carlo_scope",
    "monte_carlo_draws",
    "option_bands",
    "tornado_ranges",
    "option_columns",
    "option_row",
    "presets",
    "rank_columns",
    "recommend",
    "site_defaults",
    "sweep",
    "tornado",
]
