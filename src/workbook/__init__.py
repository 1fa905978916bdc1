"""GPU training decision workbook: which accelerators to buy or rent, how many, and where.

Public API (notebooks, the Voila app and reports use only this)::

    from workbook import accelerators, estimate_training, estimate_frame, check_claim
"""

from .catalog import CatalogError, UnknownIdError, accelerators, load_catalog
from .model.claims import check_claim
from .model.estimate import TrainingEstimate, estimate_frame, estimate_training
from .model.flops import chinchilla_tokens, flops_per_token, model_shape, training_flops
from .model.serving import inference_frame

__all__ = [
    "CatalogError",
    "UnknownIdError",
    "accelerators",
    "load_catalog",
    "check_claim",
    "chinchilla_tokens",
    "flops_per_token",
    "model_shape",
    "training_flops",
    "TrainingEstimate",
    "estimate_frame",
    "estimate_training",
    "inference_frame",
]

from .decide import (
    ARTICLE_ADVICE,
    Recommendation,
    Scenario,
    ScenarioError,
    article_comparison,
    presets,
    recommend,
)

__all__ += [
    "Recommendation",
    "recommend",
    "ARTICLE_ADVICE",
    "article_comparison",
    "presets",
    "Scenario",
    "ScenarioError",
]

from .guides.memory_fit import memory_fit_table  # noqa: E402  (fewest GPUs of each type for a job)

__all__ += ["memory_fit_table"]
