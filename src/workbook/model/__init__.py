"""The formulas: FLOPs, memory, step time, goodput, power, cost, serving, claims, and the estimate
pipeline over them. Arrays in, arrays out; other layers import from here."""

from . import cost
from .claims import ClaimCheck, check_claim, implied_peak_fraction
from .config_files import SUFFIXES as CONFIG_SUFFIXES
from .config_files import ModelConfig, read_model_config
from .configs import METHODS, PRECISIONS, assumption_values
from .cost import (
    breakeven_runs_per_year,
    capex,
    ownership_per_year,
    rent_cost_per_run,
    reserved_cost_per_year,
)
from .estimate import TrainingEstimate, estimate_frame, estimate_training
from .flops import (
    ATTENTION_CONVENTIONS,
    CHINCHILLA_TOKENS_PER_PARAM,
    METHOD_FLOPS_PER_PARAM,
    chinchilla_tokens,
    flops_per_token,
    model_shape,
    training_flops,
)
from .goodput import goodput
from .memory import (
    FROZEN_BASE_BYTES,
    STATE_BYTES,
    activation_memory_gb,
    adapter_state_memory_gb,
    model_state_memory_gb,
    model_state_terms_gb,
)
from .power import cluster_power, node_power_kw
from .serving import inference_frame
from .shape import MAX_CONFIG_BYTES, ModelShape, with_shape
from .step_time import STEP_COLUMNS, step_overhead_factor
from .uncertainty import (
    BAND_QUANTILES,
    MOE_WHOLE_RUN_PART,
    SOFTWARE_STACKS,
    Z90,
    benchmark_rows,
    evidence_parts,
    level_moe_efficiency,
    moe_by_class,
    moe_classes,
    moe_rows,
    normal_cdf,
    probability_within,
    quantile_multiplier,
    tuned_stack_factor,
    used_full_runs,
)

__all__ = [
    "BAND_QUANTILES",
    "MOE_WHOLE_RUN_PART",
    "SOFTWARE_STACKS",
    "Z90",
    "benchmark_rows",
    "evidence_parts",
    "level_moe_efficiency",
    "moe_by_class",
    "moe_classes",
    "moe_rows",
    "normal_cdf",
    "probability_within",
    "quantile_multiplier",
    "read_model_config",
    "tuned_stack_factor",
    "used_full_runs",
    "ATTENTION_CONVENTIONS",
    "CONFIG_SUFFIXES",
    "MAX_CONFIG_BYTES",
    "CHINCHILLA_TOKENS_PER_PARAM",
    "ClaimCheck",
    "FROZEN_BASE_BYTES",
    "METHODS",
    "ModelConfig",
    "ModelShape",
    "METHOD_FLOPS_PER_PARAM",
    "PRECISIONS",
    "STATE_BYTES",
    "STEP_COLUMNS",
    "TrainingEstimate",
    "activation_memory_gb",
    "adapter_state_memory_gb",
    "assumption_values",
    "breakeven_runs_per_year",
    "capex",
    "check_claim",
    "chinchilla_tokens",
    "cluster_power",
    "cost",
    "estimate_frame",
    "estimate_training",
    "flops_per_token",
    "goodput",
    "implied_peak_fraction",
    "inference_frame",
    "model_shape",
    "model_state_memory_gb",
    "model_state_terms_gb",
    "node_power_kw",
    "ownership_per_year",
    "rent_cost_per_run",
    "reserved_cost_per_year",
    "step_overhead_factor",
    "training_flops",
    "with_shape",
]
