"""A decision scenario: what you train, with what money, power and people.

Validated by pydantic (a bad field raises :class:`ScenarioError`, a ``ValueError`` subclass whose
message names the field, the value and what is allowed) and round-tripped to YAML / JSON with keys
equal to the field names.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, Optional

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..catalog import load_catalog
from ..model import PRECISIONS, ModelShape, chinchilla_tokens, read_model_config, with_shape
from ..text import TUNED_RECIPES, shown
from .allowed import (
    _NUMBER_FIELDS,
    ACQUISITIONS,
    CONFIDENCE_RANGE,
    FRAMEWORKS,
    MAX_GPUS,
    NAME_MAX_CHARS,
    OBJECTIVES,
    PROVIDER_TIERS,
    REGIONS,
    REMOVED_WORKLOADS,
    SCENARIO_STACKS,
    TIME_FACTOR_RANGE,
    USED_PRICE_FACTOR_RANGE,
    WORKLOAD_METHOD,
    WORKLOADS,
)
from .scenario_errors import field_errors
from .yamlsafe import YamlError, read_scenario_file, safe_json, safe_yaml


class ScenarioError(ValueError):
    """A scenario field is invalid; ``errors`` lists (field, value, message)."""

    def __init__(self, errors: list[tuple[str, object, str]]):
        self.errors = errors
        lines = [
            m if f == "<scenario>" else f"{f}: {m}" if v is None else f"{f}={shown(v)}: {m}"
            for f, v, m in errors
        ]
        super().__init__("invalid scenario: " + "; ".join(lines))


class Scenario(BaseModel):
    """Inputs of :func:`workbook.recommend`. Units are in the field names or descriptions."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    name: str = Field("custom", max_length=NAME_MAX_CHARS, description="A label for reports.")
    workload: Literal[WORKLOADS] = Field("pretrain", description="What kind of training.")
    n_params: float = Field(..., gt=0, le=1e14, description="Model parameters [count].")
    n_active_params: Optional[float] = Field(
        None, gt=0, le=1e14, description="MoE active parameters per token [count]."
    )
    n_tokens: Optional[float] = Field(
        None,
        gt=0,
        le=1e15,
        description=(
            "Training tokens per run; default: Chinchilla 20 x params for (continued) pretraining."
        ),
    )
    seq_len: int = Field(4096, ge=128, le=1_048_576, description="Sequence length [tokens].")
    precision: Literal[PRECISIONS] = Field(
        "bf16",
        description=(
            "Training precision (the engine's PRECISIONS): FP8 and FP4 run the matmuls at that "
            "peak; a part without an FP4 peak in data/accelerators.csv fails on precision."
        ),
    )
    deadline_days: float = Field(
        ...,
        gt=0,
        le=3650,
        description="Time from decision to finished run, lead time included [days].",
    )
    budget_usd: float = Field(
        ...,
        ge=0,
        le=1e11,
        description=(
            "Money for the first year: purchase + running costs, or rent for the year's runs [USD]."
        ),
    )
    runs_per_year: float = Field(1.0, gt=0, le=365, description="Runs of this size per year.")
    site_power_kw: float = Field(
        ...,
        gt=0,
        le=1e7,
        description="Facility power available for the cluster, cooling included [kW].",
    )
    rack_limit_kw: Optional[float] = Field(
        None,
        gt=0,
        le=1000,
        description="Power one rack can carry [kW]; default by cooling (data/facility.csv).",
    )
    cooling: Literal["air", "liquid"] = Field("air", description="How the racks are cooled.")
    allow_liquid_retrofit: bool = Field(
        False, description="Buying may add liquid cooling (cost from data/facility.csv)."
    )
    electricity_usd_per_kwh: Optional[float] = Field(
        None,
        gt=0,
        le=5,
        description="Electricity price [USD/kWh]; default (None) data/facility.csv.",
    )
    pue: Optional[float] = Field(
        None, ge=1.0, le=3.0, description="Power usage effectiveness; default by cooling."
    )
    grid_kg_co2e_per_kwh: Optional[float] = Field(
        None,
        ge=0,
        le=1.5,
        description=(
            "Carbon intensity of the run's electricity (site or cloud region) [kg CO2e/kWh]; "
            "default (None) data/assumptions.csv (Ember, world average 2024)."
        ),
    )
    grid_region: Optional[str] = Field(
        None,
        description=(
            "Region whose grid intensity (data/grid_intensity.csv: Ember, 2023-2024) sets "
            "grid_kg_co2e_per_kwh when that is not given; None: the world average."
        ),
    )
    provider_tier: Literal[PROVIDER_TIERS] = Field(
        "specialised",
        description=(
            "Who the GPUs are rented from: 'specialised' GPU clouds (the default prices), "
            "'hyperscaler' (higher prices, egress billed) or 'marketplace' (cheaper, lower "
            "goodput); it moves rentals only."
        ),
    )
    team_size: int = Field(5, ge=1, le=100_000, description="People on the ML team.")
    platform_engineers: int = Field(
        0,
        ge=0,
        le=100_000,
        description="Engineers who can run clusters (drivers, fabric, schedulers).",
    )
    rocm_experience: bool = Field(
        False, description="The team has shipped training on ROCm before."
    )
    framework: Literal[FRAMEWORKS] = Field(
        "pytorch",
        description=(
            "The team's training framework: a PyTorch team pays a port (weeks and engineers) "
            "to train on TPU or Trainium."
        ),
    )
    region: Literal[REGIONS] = Field(
        "unrestricted",
        description=(
            "Where the hardware is bought: 'china' (China, Macau, other US-controlled "
            "destinations) rules out buying export-controlled parts; China-market variants "
            "(H800) are sold new only there."
        ),
    )
    time_factor: float = Field(
        1.0,
        ge=TIME_FACTOR_RANGE[0],
        le=TIME_FACTOR_RANGE[1],
        description=(
            "Plan for runs taking this many times the engine's predicted time [x]; 1 = as "
            "predicted. Set it from a pilot run of your own stack (its measured step time / the "
            "engine's), or to the slow end of the published runs (python -m workbook validate: "
            "range_high). It scales every option's days and GPU-hours (so rent and energy) and "
            "divides its MFU; the engine's step-time breakdown stays as predicted."
        ),
    )
    software_stack: Literal[SCENARIO_STACKS] = Field(
        "typical",
        description=(
            "The level run times are planned at: 'typical' (what published whole runs realized; "
            f"the default) or 'tuned' (a vendor's own reference recipe: {TUNED_RECIPES}; "
            "calibrated on their published throughput benchmarks; PyTorch's torchtitan ran "
            "slower, as a tuned pick's reasons say). The time factor applies on top."
        ),
    )
    confidence: float = Field(
        0.8,
        ge=CONFIDENCE_RANGE[0],
        le=CONFIDENCE_RANGE[1],
        description=(
            "An option meets the deadline (lead time included), the budget and the year's runs "
            "(they fit in a year) when it does so with at least this probability, from the band "
            "of its run time [probability]."
        ),
    )
    lead_time_tolerance_weeks: Optional[float] = Field(
        None,
        ge=0,
        le=520,
        description=(
            "Longest acceptable wait for hardware [weeks]; default: only the deadline limits it."
        ),
    )
    used_hardware_allowed: bool = Field(True, description="Second-hand GPUs may be bought.")
    used_price_factor: float = Field(
        1.0,
        ge=USED_PRICE_FACTOR_RANGE[0],
        le=USED_PRICE_FACTOR_RANGE[1],
        description=(
            "Second-hand GPUs cost this many times their default price in data/prices.csv (the "
            "secondary-market aggregator figures) [x]; 1 = as listed. The article's used H100 SXM "
            "at $18,000 a GPU against the listed $21,500 is 0.84."
        ),
    )
    sourced_prices_only: bool = Field(
        False,
        description=(
            "Only options whose price a buyer can check (a vendor, press or aggregator figure, one "
            "derived from them, or your own override); analyst estimates and the article's claims "
            "are then ruled out."
        ),
    )
    acquisition_modes: list[Literal[ACQUISITIONS]] = Field(
        list(ACQUISITIONS), min_length=1, description="Which ways to get GPUs are allowed."
    )
    objective: Literal[OBJECTIVES] = Field("cheapest-within-deadline")
    accelerators: Optional[list[str]] = Field(
        None,
        min_length=1,
        description="Restrict the sweep to these accelerator ids (None: all of them).",
    )
    fabric: Optional[str] = Field(
        None, description="Scale-out network id (data/fabrics.csv); default InfiniBand NDR."
    )
    max_gpus: int = Field(
        MAX_GPUS, ge=1, le=MAX_GPUS, description="Largest cluster to consider [GPUs]."
    )
    hf_config: Optional[str] = Field(
        None,
        max_length=4096,
        description=(
            "Path to the model's Hugging Face config.json, Megatron-LM / NeMo YAML (.yaml, .yml) "
            "or torchtitan TOML (.toml), read offline, at most 1 MB: its exact "
            "shape (layers, width, heads, KV heads, FFN, vocabulary, experts) sets n_params and "
            "n_active_params when absent (given ones must agree within 1 %), and the FLOPs and "
            "activation memory of every option; a YAML's or TOML's training sequence length "
            "sets seq_len when the scenario does not give it."
        ),
    )

    model_shape: Optional[dict] = Field(
        None,
        description=(
            "The model's exact shape given inline instead of a file (not with hf_config): "
            "n_layers, d_model, n_heads, n_kv_heads, ffn_hidden (an expert's, for a mixture of "
            "experts), vocab_size and, optional, n_experts, experts_per_token, head_dim, "
            "tie_embeddings; used as hf_config's shape is."
        ),
    )

    def __init__(self, **data):
        try:
            super().__init__(**data)
        except ValidationError as e:
            raise ScenarioError(field_errors(e, data, Scenario.model_fields)) from None

    @field_validator("workload", mode="before")
    @classmethod
    def _removed_workload(cls, v):
        if isinstance(v, str) and v in REMOVED_WORKLOADS:
            raise ValueError(REMOVED_WORKLOADS[v])
        return v

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be empty")
        return v

    @field_validator(*_NUMBER_FIELDS, mode="before")
    @classmethod
    def _not_a_bool(cls, v):
        if isinstance(v, bool):
            raise ValueError("is true/false, not a number; allowed: a number")
        return v

    @field_validator("accelerators")
    @classmethod
    def _known_accelerators(cls, v):
        if v is None:
            return v
        valid = load_catalog().accelerator_ids
        for a in v:
            if a not in valid:
                raise ValueError(
                    f"{shown(a)} is not an accelerator id; allowed: {', '.join(valid)}"
                )
            if v.count(a) > 1:
                raise ValueError(f"{shown(a)} is listed twice; allowed: each id once")
        return v

    @field_validator("fabric")
    @classmethod
    def _known_fabric(cls, v):
        valid = list(load_catalog().tables["fabrics"]["fabric_id"])
        if v is not None and v not in valid:
            raise ValueError(f"{shown(v)} is not a fabric id; allowed: {', '.join(valid)}")
        return v

    @field_validator("grid_region")
    @classmethod
    def _known_grid_region(cls, v):
        valid = list(load_catalog().tables["grid_intensity"]["region_id"])
        if v is not None and v not in valid:
            raise ValueError(f"{shown(v)} is not a grid region; allowed: {', '.join(valid)}")
        return v

    @model_validator(mode="before")
    @classmethod
    def _sizes_from_hf_config(cls, data):
        """Read :attr:`hf_config` (:func:`workbook.model.read_model_config`: exists, readable,
        <= 1 MB, the shape's keys) or :attr:`model_shape` (:func:`inline_shape`), not both, and
        fill in or check ``n_params`` / ``n_active_params`` from the exact shape."""
        path = data.get("hf_config") if isinstance(data, dict) else None
        inline = data.get("model_shape") if isinstance(data, dict) else None
        if path is None and inline is None:
            return data
        if path is not None and inline is not None:
            raise ValueError(
                f"model_shape={shown(inline)} given with hf_config={shown(path)}; allowed: one "
                "of the two"
            )
        sizes = {**_given_sizes(data), "n_layers": None, "d_model": None}
        if inline is not None:
            shape = inline_shape(inline)
            try:
                return {**data, **_sizes(with_shape(sizes, shape))}
            except ValueError as e:
                raise ValueError(f"model_shape: {e}") from None
        if not isinstance(path, str):
            raise ValueError(f"hf_config={shown(path)} is not a path; allowed: a config.json path")
        try:
            config = read_model_config(path)
            given = with_shape(sizes, config.shape)
        except ValueError as e:
            raise ValueError(f"hf_config={shown(path)}: {e}") from None
        # A Megatron / torchtitan file's training sequence length is the run's unless the
        # scenario gives its own (a config.json gives none: its context window is not one).
        seq = {"seq_len": config.seq_len} if config.seq_len and data.get("seq_len") is None else {}
        return {**data, **_sizes(given), **seq}

    @model_validator(mode="after")
    def _consistent(self):
        if self.n_active_params is not None and self.n_active_params > self.n_params:
            raise ValueError(
                f"n_active_params={self.n_active_params:g} exceeds n_params={self.n_params:g}; "
                "allowed: n_active_params <= n_params"
            )
        if self.n_tokens is None and self.workload not in ("pretrain", "continued-pretrain"):
            raise ValueError(
                f"n_tokens is required for workload={self.workload!r} "
                "(the Chinchilla default applies to pretraining only)"
            )
        return self

    # --- derived ----------------------------------------------------------------------------
    @property
    def tokens(self) -> float:
        """Tokens per run (Chinchilla 20 x params when not given; Hoffmann et al. 2022)."""
        if self.n_tokens is not None:
            return self.n_tokens
        return float(chinchilla_tokens(self.n_params))

    @property
    def method(self) -> str:
        return WORKLOAD_METHOD[self.workload]

    @property
    def exact_shape(self) -> ModelShape | None:
        """The exact shape of :attr:`hf_config` or :attr:`model_shape`; None without either."""
        if self.hf_config is not None:
            return read_model_config(self.hf_config).shape
        return inline_shape(self.model_shape) if self.model_shape is not None else None

    # --- construction with clear errors ------------------------------------------------------
    @classmethod
    def make(cls, **fields) -> "Scenario":
        """``Scenario(**fields)``; a bad field raises :class:`ScenarioError` with plain messages."""
        return cls(**fields)

    def replace(self, **changes) -> "Scenario":
        data = self.model_dump()
        data.update(changes)
        return Scenario.make(**data)

    # --- YAML / JSON ---------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return self.model_dump(mode="json")

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_yaml(cls, text: str) -> "Scenario":
        """A scenario from YAML text (:func:`~workbook.decide.yamlsafe.safe_yaml`: no aliases, no
        duplicate keys, nesting and size bounded)."""
        try:
            data = safe_yaml(text)
        except YamlError as e:
            raise ScenarioError([("<file>", None, str(e))]) from None
        return cls._from_mapping(data, "a mapping of field: value")

    @classmethod
    def from_json(cls, text: str) -> "Scenario":
        """A scenario from JSON text (duplicate keys refused, size bounded)."""
        try:
            data = safe_json(text)
        except YamlError as e:
            raise ScenarioError([("<file>", None, str(e))]) from None
        return cls._from_mapping(data, "an object of field: value")

    @classmethod
    def _from_mapping(cls, data, what: str) -> "Scenario":
        if not isinstance(data, dict):
            raise ScenarioError([("<file>", data, f"must be {what}")])
        return cls.make(**{str(k): v for k, v in data.items()})

    @classmethod
    def load(cls, path: str | Path) -> "Scenario":
        """Read a scenario file (.json as JSON, anything else as YAML); a missing, unreadable,
        oversized, binary or non-UTF-8 file raises :class:`ScenarioError` naming it."""
        try:
            text = read_scenario_file(path)
        except YamlError as e:
            raise ScenarioError([("<file>", str(path), str(e))]) from None
        return cls.from_json(text) if Path(path).suffix.lower() == ".json" else cls.from_yaml(text)

    def save(self, path: str | Path) -> None:
        p = Path(path)
        p.write_text(
            self.to_json() if p.suffix.lower() == ".json" else self.to_yaml(), encoding="utf-8"
        )


#: The fields of :class:`workbook.model.ModelShape` an inline ``model_shape`` may give.
SHAPE_FIELDS = tuple(ModelShape.__dataclass_fields__)


def inline_shape(given) -> ModelShape:
    """The :class:`ModelShape` of an inline ``model_shape`` mapping; one ``ValueError`` naming
    ``model_shape``, the key or value and what is allowed."""
    if not isinstance(given, dict):
        raise ValueError(
            f"model_shape={shown(given)} is not a mapping; allowed: n_layers, d_model, ... as keys"
        )
    unknown = [k for k in given if k not in SHAPE_FIELDS]
    if unknown:
        raise ValueError(
            f"model_shape has no field {shown(unknown[0])}; allowed: {', '.join(SHAPE_FIELDS)}"
        )
    try:
        return ModelShape(**given)
    except TypeError:
        missing = [k for k in SHAPE_FIELDS[:6] if k not in given]
        raise ValueError(
            f"model_shape={shown(given)} lacks {', '.join(missing)}; allowed: a shape with "
            f"{', '.join(SHAPE_FIELDS[:6])}"
        ) from None
    except ValueError as e:
        raise ValueError(f"model_shape: {e}") from None


def _given_sizes(data: dict) -> dict:
    """The scenario's given sizes (None where absent)."""
    return {"n_params": data.get("n_params"), "n_active_params": data.get("n_active_params")}


def _sizes(given: dict) -> dict:
    """``n_params`` and ``n_active_params`` (None for a dense model) from :func:`with_shape`."""
    active = given["n_active_params"]
    return {
        "n_params": given["n_params"],
        "n_active_params": active if active < given["n_params"] else None,
    }
