"""The values each :class:`~workbook.decide.scenario.Scenario` field allows.

Kept apart from the model so that the options, presets and forms can name them without the
validation code; every range or list names where it comes from.
"""

from __future__ import annotations

WORKLOADS = ("pretrain", "continued-pretrain", "full-finetune", "lora", "qlora")
#: Workloads no longer offered, with what to use instead (named in the error).
REMOVED_WORKLOADS = {
    "inference-heavy": (
        "was computed as full training, not as serving, so it was removed; choose the training "
        "workload (pretrain, continued-pretrain, full-finetune, lora, qlora) and compare serving "
        "with workbook.inference_frame ($ per million tokens served; notebook "
        "06_article_claims_checked checks the article's 'H200 or L40S for inference-heavy')"
    )
}
ACQUISITIONS = ("rent-spot", "rent-on-demand", "rent-reserved", "buy-new", "buy-used")
OBJECTIVES = ("cheapest-within-deadline", "fastest-within-budget")
#: Where the hardware is bought: ``unrestricted`` (the US and the countries its export rules do not
#: single out) or ``china`` (China, Macau and the other destinations of the US BIS
#: advanced-computing controls, country groups D:1, D:4, D:5; data/assumptions.csv
#: export_control_tpp).
REGIONS = ("unrestricted", "china")
#: The framework the team's training code is written in (cloud-only TPUs cost a port to a
#: PyTorch team: data/assumptions.csv porting_weeks_xla).
FRAMEWORKS = ("pytorch", "jax")
#: Who rents the GPUs out (data/assumptions.csv provider_*): ``hyperscaler`` (AWS, Google, Azure:
#: list prices above the default, egress billed), ``specialised`` (GPU clouds such as Lambda,
#: CoreWeave, Crusoe: the default prices are theirs) or ``marketplace`` (the long tail and
#: peer-to-peer: cheaper, lower goodput).
PROVIDER_TIERS = ("hyperscaler", "specialised", "marketplace")

#: Allowed :attr:`Scenario.used_price_factor` [x the listed second-hand price]: from a quarter
#: (a fire sale) to twice (a scarce part) the secondary-market figures of data/prices.csv.
USED_PRICE_FACTOR_RANGE = (0.25, 2.0)

#: Workload -> training method of the estimation engine.
WORKLOAD_METHOD = {
    "pretrain": "full",
    "continued-pretrain": "full",
    "full-finetune": "full",
    "lora": "lora",
    "qlora": "qlora",
}

#: The longest scenario name [characters] (a label for reports, not a document).
NAME_MAX_CHARS = 200
#: The number fields of :class:`Scenario` (true/false is refused there: YAML's ``true`` is not 1).
_NUMBER_FIELDS = (
    "n_params",
    "n_active_params",
    "n_tokens",
    "seq_len",
    "deadline_days",
    "budget_usd",
    "runs_per_year",
    "site_power_kw",
    "rack_limit_kw",
    "electricity_usd_per_kwh",
    "pue",
    "grid_kg_co2e_per_kwh",
    "team_size",
    "platform_engineers",
    "time_factor",
    "lead_time_tolerance_weeks",
    "max_gpus",
    "used_price_factor",
)

#: Allowed :attr:`Scenario.time_factor` (a pilot run's measured / predicted time) [x].
TIME_FACTOR_RANGE = (0.25, 10.0)
#: Allowed :attr:`Scenario.confidence` [probability]: below an even chance a plan is a gamble, and
#: at 0.99 and above the band's tails (fitted on a few dozen runs) say nothing.
CONFIDENCE_RANGE = (0.5, 0.99)
#: The software stack levels a scenario can plan at (:mod:`workbook.model.uncertainty`).
SCENARIO_STACKS = ("typical", "tuned")
#: The largest cluster the sweep considers [GPUs]: 2,048 eight-GPU nodes, the size of the largest
#: published run in data/published_runs.csv (Llama 3.1 405B on 16,384 H100 at its largest stage).
MAX_GPUS = 16384
