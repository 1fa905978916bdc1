"""The configuration frame of :func:`workbook.model.estimate_frame`: its columns and defaults,
their checks, and the catalog rows (accelerator, fabric) each configuration names.

The first two steps of the estimate: :func:`read_configs` (every column checked, defaults filled
in: :class:`Configs`) and :func:`look_up_machines` (the catalog rows, the racks' cooling and the
precision's peak: :class:`Machines`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from difflib import get_close_matches
from typing import Any

import numpy as np
import pandas as pd

from ..catalog import Catalog, kv_value_problem, resolve_catalog
from ..checks import by_name, check_choice, check_number
from ..text import shown
from . import flops as compute
from .memory import STATE_BYTES
from .shape import SHAPE_LIMITS
from .uncertainty import SOFTWARE_STACKS

PRECISIONS = ("bf16", "fp8", "fp4")
METHODS = ("full", "lora", "qlora")
COOLING = ("air", "liquid")
INPUT_PIPELINES = ("compiled", "python")
DEFAULT_FABRIC = "ib-ndr-400"

CONFIG_DEFAULTS: dict[str, Any] = {
    "n_params": None,
    "n_tokens": None,
    "accelerator": None,
    "n_gpus": None,
    "n_active_params": np.nan,
    "seq_len": 4096,
    "n_layers": np.nan,
    "d_model": np.nan,
    # The exact shape (model/shape.py), NaN where only the size is known.
    "n_heads": np.nan,
    "n_kv_heads": np.nan,
    "ffn_hidden": np.nan,
    "vocab_size": np.nan,
    "n_experts": np.nan,
    "experts_per_token": np.nan,
    "head_dim": np.nan,  # NaN: d_model / n_heads
    "precision": "bf16",
    "method": "full",
    "fabric": None,  # DEFAULT_FABRIC
    "cooling": None,  # what the part was designed for
    "attention": "causal",
    "input_pipeline": "compiled",
    "global_batch_tokens": np.nan,
    "optimizer": "adam-mixed",
    "software_stack": "typical",
}


def assumption_values(
    catalog: Catalog, overrides: dict[str, float] | None = None
) -> dict[str, float]:
    """Global values of every assumption (``overrides`` wins), keyed by parameter name."""
    glob = catalog.global_rows("assumptions")
    values = dict(zip(glob["parameter"], glob["value"].astype(float)))
    if overrides is not None and not isinstance(overrides, dict):
        raise ValueError(f"assumptions={shown(overrides)} is not a dict; allowed: {{name: value}}")
    if not overrides:
        return values
    rows = {r["parameter"]: r for r in glob.to_dict("records")}  # only to range-check overrides
    for k, v in overrides.items():
        if k not in values:
            raise ValueError(
                f"assumption {shown(k)} is unknown; allowed: {', '.join(sorted(values))}"
            )
        values[k] = float(check_number(f"assumptions[{k!r}]", v))
        problem = kv_value_problem(rows[k], v)
        if problem:
            raise ValueError(f"assumptions[{k!r}]={problem}")
    return values


def per_accelerator(catalog: Catalog, parameter: str, ids, default: float) -> np.ndarray:
    """An assumption per row's accelerator (the global ``default`` where there is no specific
    row); ``ids`` an array of accelerator ids or the configurations' :class:`CatalogRows` (each
    distinct id looked up once)."""
    if isinstance(ids, CatalogRows):
        return ids.per_row(
            np.asarray([catalog.param("assumptions", parameter, a) for a in ids.ids], float)
        )
    values = {a: catalog.param("assumptions", parameter, a) for a in pd.unique(ids)}
    return by_name(values, ids)


def keyed_or(catalog: Catalog, parameter: str, ids: CatalogRows, default: float) -> np.ndarray:
    """Each row's accelerator's own ``parameter`` row of data/assumptions.csv (``accelerator_id``
    set), else ``default`` (the global value as the caller holds it, overrides included)."""
    own = catalog.own_values("assumptions", parameter)
    return ids.per_row(np.asarray([own.get(i, default) for i in ids.ids], float))


def _column(df: pd.DataFrame, name: str, dtype=float) -> np.ndarray:
    """The configuration column ``name`` as an array of ``dtype`` (float, or object for names),
    missing values and a missing column filled with its default (:data:`CONFIG_DEFAULTS`)."""
    default = CONFIG_DEFAULTS[name]
    if name in df.columns:
        col = df[name]
        if default is not None and not (isinstance(default, float) and math.isnan(default)):
            missing = col.isna()
            if missing.any():
                col = col.where(~missing, default)
        return col.to_numpy(dtype)
    if default is None and name not in ("fabric", "cooling"):
        raise ValueError(
            f"configuration column {name!r} is required; columns given: {', '.join(df.columns)}"
        )
    filled = np.empty(len(df), dtype=dtype)
    filled.fill(default)  # (np.full of a name into an object array is 30x slower)
    return filled


#: The name columns and their allowed values, checked in this order.
_CHOICES = {
    "precision": PRECISIONS,
    "method": METHODS,
    "attention": compute.ATTENTION_CONVENTIONS,
    "input_pipeline": INPUT_PIPELINES,
    "optimizer": STATE_BYTES,
    "software_stack": SOFTWARE_STACKS,
}


@dataclass(frozen=True)
class Configs:
    """The checked configuration columns with their defaults, one element per row."""

    n_params: np.ndarray  #: total parameters [count]
    n_active_params: np.ndarray  #: parameters per token (``n_params`` when dense) [count]
    n_tokens: np.ndarray  #: training tokens [tokens]
    n_gpus: np.ndarray  #: GPUs in the job [count]
    seq_len: np.ndarray  #: sequence length [tokens]
    n_layers: np.ndarray  #: given layers (NaN: derive from the size) [count]
    d_model: np.ndarray  #: given hidden size (NaN: derive) [count]
    global_batch_tokens: np.ndarray  #: given tokens per step (NaN: the default) [tokens]
    precision: np.ndarray  #: bf16, fp8 or fp4
    method: np.ndarray  #: full, lora or qlora
    attention: np.ndarray  #: attention-FLOP convention (flops.ATTENTION_CONVENTIONS)
    input_pipeline: np.ndarray  #: compiled or python
    optimizer: np.ndarray  #: model-state scheme (memory.STATE_BYTES)
    software_stack: np.ndarray  #: the level times are planned at (uncertainty.SOFTWARE_STACKS)
    accelerator: np.ndarray  #: catalog accelerator_id
    fabric: np.ndarray  #: catalog fabric_id (DEFAULT_FABRIC where none was given)
    cooling: np.ndarray  #: air, liquid or None (what the part was designed for)
    #: the exact shape's columns (n_heads ... experts_per_token; NaN where no shape is given)
    exact: dict[str, np.ndarray]
    #: each name column of :data:`_CHOICES` as (codes, distinct names): every row's position among
    #: the distinct names, so that a comparison or lookup reads each distinct name once
    coded: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    @property
    def has_shape(self) -> np.ndarray:
        """Rows with an exact shape: FLOPs and activations from it (model/shape.py)."""
        return ~np.isnan(self.exact["ffn_hidden"])

    def is_(self, column: str, name: str) -> np.ndarray:
        """Rows whose name column ``column`` is ``name`` (a bool array)."""
        codes, uniques = self.coded[column]
        hit = np.flatnonzero(uniques == name)
        return codes == hit[0] if hit.size else np.zeros(codes.shape, bool)

    def names(self, column: str):
        """The name column ``column``: one name when every row has it, else the array."""
        codes, uniques = self.coded[column]
        return str(uniques[0]) if len(uniques) == 1 else getattr(self, column)


@dataclass(frozen=True)
class CatalogRows:
    """The rows of a catalog table that the configurations name: the distinct ones (``table``,
    indexed by id, in order of first appearance) and each configuration's position among them
    (``codes``), so that a column is read once per distinct id and spread to the rows."""

    table: pd.DataFrame  #: the distinct rows named, indexed by id
    codes: np.ndarray  #: each configuration's row of ``table`` [position]

    @property
    def ids(self) -> list:
        """The distinct ids, in the order of ``table``."""
        return self.table.index.tolist()

    def __getitem__(self, column: str) -> np.ndarray:
        """The column's value of every configuration (as the table stores it)."""
        return self.per_row(self.table[column].to_numpy())

    def floats(self, column: str) -> np.ndarray:
        """The column's value of every configuration, as floats."""
        return self.per_row(self.table[column].to_numpy(float))

    def per_row(self, values) -> np.ndarray:
        """``values`` (one per distinct id, in the order of ``table``) for every configuration."""
        return np.asarray(values)[self.codes]


@dataclass(frozen=True)
class Machines:
    """The catalog rows of every configuration and what they imply."""

    spec: CatalogRows  #: accelerators.csv rows of the configurations
    fabric: CatalogRows  #: fabrics.csv rows of the configurations
    cooling: np.ndarray  #: air or liquid: the racks the run is in
    peak_bf16_tflops: np.ndarray  #: dense BF16 peak [TFLOP/s]
    peak_tflops: np.ndarray  #: dense peak at the precision (BF16 where unsupported) [TFLOP/s]
    supported: np.ndarray  #: the accelerator has the precision


def _checked(df: pd.DataFrame, name: str, **rule) -> np.ndarray:
    return np.asarray(
        check_number(name, _column(df, name), maximum=LIMITS.get(name), **rule),
        float,
    )


#: Upper bounds of the configuration numbers (every range has one; issue 13): the Scenario's own
#: limits for size, tokens and sequence, ten million GPUs (600x the largest published run, 16,384
#: H100), and shapes far beyond any published model (Llama 3.1 405B: 126 layers, d = 16,384).
LIMITS = {
    "n_params": 1e14,
    "n_tokens": 1e15,
    "n_gpus": 1e7,
    "seq_len": 1_048_576,
    "n_layers": 10_000,
    "d_model": 1_000_000,
    "global_batch_tokens": 1e10,
}


def _check_frame(configs) -> None:
    """A non-empty DataFrame whose columns are not misspellings of the engine's."""
    if not isinstance(configs, pd.DataFrame):
        raise ValueError(
            f"configs={shown(configs)} is not a DataFrame; allowed: one row per configuration"
        )
    if len(configs) == 0:
        raise ValueError("configs is empty; allowed: a DataFrame with at least one row")
    for c in map(str, configs.columns):
        close = get_close_matches(c, list(CONFIG_DEFAULTS), n=1, cutoff=0.85)
        if c not in CONFIG_DEFAULTS and close:
            raise ValueError(
                f"configuration column {shown(c)} is not one the engine reads; "
                f"did you mean {close[0]!r}? allowed: {', '.join(CONFIG_DEFAULTS)}"
            )


def _optional_shape(df: pd.DataFrame, name: str) -> np.ndarray:
    """A given layer count or width (NaN: derive it): a whole number within :data:`LIMITS`."""
    col = _column(df, name)
    given = col[~np.isnan(col)]
    if given.size:
        check_number(name, given, positive=True, integer=True, maximum=LIMITS[name])
    return col


#: The exact-shape columns, and those a row with a shape must give.
SHAPE_COLUMNS = tuple(k for k in SHAPE_LIMITS if k not in ("n_layers", "d_model"))
_SHAPE_REQUIRED = ("n_layers", "d_model", "n_heads", "ffn_hidden", "vocab_size")


def _exact_shape(df: pd.DataFrame) -> dict[str, np.ndarray]:
    """The exact-shape columns: whole numbers within :data:`SHAPE_LIMITS`; a row that gives one
    gives the layers, width, heads, FFN width and vocabulary (KV heads default to the heads,
    experts to 1, dense; the head size, NaN, to d_model / heads)."""
    cols = {k: _column(df, k) for k in ("n_layers", "d_model", *SHAPE_COLUMNS)}
    rows = np.zeros(len(df), bool)
    for k in SHAPE_COLUMNS:
        rows |= ~np.isnan(cols[k])
    if not rows.any():
        return {k: cols[k] for k in SHAPE_COLUMNS}
    for k in _SHAPE_REQUIRED:
        if np.isnan(cols[k][rows]).any():
            raise ValueError(
                f"configuration column {k!r} is missing in a row with a model shape; allowed: "
                f"every one of {', '.join(_SHAPE_REQUIRED)} where a shape column is given"
            )
    defaults = {"n_kv_heads": cols["n_heads"], "n_experts": 1.0, "experts_per_token": 1.0}
    for k, v in defaults.items():
        cols[k] = np.where(rows & np.isnan(cols[k]), v, cols[k])
    for k in SHAPE_COLUMNS:
        given = cols[k][rows]
        given = given[~np.isnan(given)] if k == "head_dim" else given
        check_number(k, given, positive=True, integer=True, maximum=SHAPE_LIMITS[k])
    d, h, kv = cols["d_model"][rows], cols["n_heads"][rows], cols["n_kv_heads"][rows]
    e, k = cols["n_experts"][rows], cols["experts_per_token"][rows]
    no_head_dim = np.isnan(cols["head_dim"][rows])
    for bad, text in (
        (
            no_head_dim & (d % h != 0),
            "d_model is not a multiple of n_heads; allowed: equal heads, or a head_dim",
        ),
        (h % kv != 0, "n_kv_heads does not divide n_heads; allowed: a divisor (GQA)"),
        (
            k > e,
            "experts_per_token exceeds n_experts; allowed: 1 <= experts_per_token <= n_experts",
        ),
    ):
        if bad.any():
            raise ValueError(f"{text} ({int(bad.sum())} row(s))")
    return {k: cols[k] for k in SHAPE_COLUMNS}


def _coded(df: pd.DataFrame, name: str, values: np.ndarray, allowed) -> tuple:
    """The name column ``values`` checked against ``allowed``, as (codes, distinct names) (see
    :attr:`Configs.coded`); a column not given is its default in every row."""
    if name not in df.columns:
        check_choice(name, CONFIG_DEFAULTS[name], allowed)
        return np.zeros(len(values), np.intp), np.array([CONFIG_DEFAULTS[name]], object)
    codes, uniques = pd.factorize(values)
    if (codes < 0).any() or not all(isinstance(u, str) and u in allowed for u in uniques):
        check_choice(name, values, allowed)  # the message names the first bad value
    return codes, np.asarray(uniques, object)


def _fabric(df: pd.DataFrame) -> np.ndarray:
    """The fabric column, :data:`DEFAULT_FABRIC` where none is given."""
    if "fabric" not in df.columns:
        filled = np.empty(len(df), dtype=object)
        filled.fill(DEFAULT_FABRIC)
        return filled
    return df["fabric"].fillna(DEFAULT_FABRIC).to_numpy(object)


def read_configs(configs: pd.DataFrame) -> Configs:
    """Step 1 of the estimate: every column checked (numbers, then names), defaults filled in."""
    _check_frame(configs)
    df = configs.reset_index(drop=True)
    n_params = _checked(df, "n_params", positive=True)
    n_tokens = _checked(df, "n_tokens", positive=True)
    n_gpus = _checked(df, "n_gpus", positive=True, integer=True)
    seq_len = _checked(df, "seq_len", minimum=1, integer=True)
    active = _column(df, "n_active_params")
    active = np.where(np.isnan(active), n_params, active)
    check_number("n_active_params", active, positive=True)
    if np.any(active > n_params * (1 + 1e-9)):
        raise ValueError(
            "n_active_params exceeds n_params in some rows; "
            "allowed: 0 < n_active_params <= n_params"
        )
    names = {k: _column(df, k, object) for k in _CHOICES}
    coded = {k: _coded(df, k, names[k], allowed) for k, allowed in _CHOICES.items()}
    return Configs(
        n_params=n_params,
        n_active_params=active,
        n_tokens=n_tokens,
        n_gpus=n_gpus,
        seq_len=seq_len,
        n_layers=_optional_shape(df, "n_layers"),
        d_model=_optional_shape(df, "d_model"),
        global_batch_tokens=_column(df, "global_batch_tokens"),
        accelerator=_column(df, "accelerator", object),
        fabric=_fabric(df),
        cooling=_column(df, "cooling", object),
        exact=_exact_shape(df),
        coded=coded,
        **names,
    )


def _rows(table: pd.DataFrame, key: str, ids: np.ndarray, what: str) -> CatalogRows:
    """The rows of ``table`` for ``ids``; an unknown id lists the valid ones."""
    indexed = table.set_index(key)
    codes, uniques = pd.factorize(ids, use_na_sentinel=False)
    unknown = sorted({str(x) for x in uniques if x not in indexed.index})
    if unknown:
        raise ValueError(f"{what}={unknown[0]!r} is unknown; allowed: {', '.join(indexed.index)}")
    return CatalogRows(table=indexed.loc[list(uniques)], codes=codes)


def look_up_machines(cat: Catalog, cfg: Configs) -> Machines:
    """Step 2 of the estimate: the accelerator and fabric rows, the racks' cooling and the
    precision's peak."""
    spec = _rows(cat.tables["accelerators"], "accelerator_id", cfg.accelerator, "accelerator")
    fabric = _rows(cat.tables["fabrics"], "fabric_id", cfg.fabric, "fabric")
    liquid_only = spec.table["cooling_options"].to_numpy(object) == "liquid"
    designed = spec.per_row(np.where(liquid_only, "liquid", "air"))
    given = ~pd.isna(cfg.cooling)
    cooling = np.where(given, cfg.cooling, designed) if given.any() else designed.astype(object)
    check_choice("cooling", cfg.cooling[given], COOLING)  # the designed ones are allowed
    peak_bf16 = spec.floats("tflops_dense_bf16")
    peak = np.select(
        [cfg.is_("precision", "fp8"), cfg.is_("precision", "fp4")],
        [spec.floats("tflops_dense_fp8"), spec.floats("tflops_dense_fp4")],
        peak_bf16,
    )
    supported = np.isfinite(peak)
    return Machines(
        spec=spec,
        fabric=fabric,
        cooling=cooling,
        peak_bf16_tflops=peak_bf16,
        peak_tflops=np.where(supported, peak, peak_bf16),
        supported=supported,
    )


#: Arguments of :func:`estimate_training` that may be None (NaN in the configuration frame).
_OPTIONAL_NUMBERS = ("n_active_params", "n_layers", "d_model", "global_batch_tokens")


def check_training_args(catalog: Catalog | None, given: dict[str, Any]) -> Catalog:
    """The checks of :func:`estimate_training`'s arguments, in order; returns the catalog, which
    knows the accelerator and the fabric."""
    accelerator, fabric, cooling = given["accelerator"], given["fabric"], given["cooling"]
    if not isinstance(accelerator, str):
        raise ValueError(
            f"accelerator={accelerator!r} is not an accelerator id (a string); "
            "allowed: see workbook.accelerators()"
        )
    if fabric is not None and not isinstance(fabric, str):
        raise ValueError(f"fabric={fabric!r} is not a fabric id (a string)")
    for name in ("n_params", "n_tokens"):
        check_number(name, given[name], positive=True)
    check_number("n_gpus", given["n_gpus"], positive=True, integer=True)
    check_number("seq_len", given["seq_len"], minimum=1, integer=True)
    for name in _OPTIONAL_NUMBERS:
        if given[name] is not None:
            check_number(name, given[name], positive=True)
    for name, allowed in (
        ("precision", PRECISIONS),
        ("method", METHODS),
        ("software_stack", SOFTWARE_STACKS),
    ):
        check_choice(name, given[name], allowed)
    if cooling is not None:
        check_choice("cooling", cooling, COOLING)
    cat = resolve_catalog(catalog)
    cat.accelerator(accelerator)  # unknown id -> error listing valid ids
    if fabric is not None:
        cat.fabric(fabric)
    return cat
