"""The catalog: the validated tables of ``data/`` with their lookups, prices and provenance.

:func:`load_catalog` reads the shipped tables once (cached; :func:`clear_cache` after rewriting a
file in ``data/``) and applies user overrides (:mod:`workbook.catalog.overrides`);
:func:`resolve_catalog` is what every public function with a ``catalog=None`` argument calls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

from ..shipped import DATA_DIR
from ..text import NO_SOURCE
from .derived import check_derivations
from .overrides import Override, overridden_tables, read_overrides
from .schema import TABLES
from .tables import UnknownIdError, data_hash, load_shipped_tables

#: Price sources that a buyer can check: a vendor list or quote, a press report, an aggregator's
#: published median, or a figure derived from one of them (reserved from on-demand,
#: GB200 from B200).
SOURCED_PRICE_KINDS = ("vendor", "press", "aggregator", "derived")
#: The provider of a price a user entered (:mod:`workbook.catalog.overrides`): their own quote.
USER_OVERRIDE = "user override"


def price_is_sourced(source_kind, provider, source_url) -> np.ndarray:
    """Whether each price rests on a source a buyer can check (:data:`SOURCED_PRICE_KINDS`, and the
    provider does not call it an estimate) or on the user's own override (a new row's provider, or
    an overridden row's ``source_url``, says "user override"); an analyst estimate, the article's
    claim, or an override without a source (:data:`workbook.text.NO_SOURCE`) is not."""
    kind = np.asarray(source_kind, dtype=object)
    prov = pd.Series(np.asarray(provider, dtype=object)).fillna("").str.lower().to_numpy(object)
    url = pd.Series(np.asarray(source_url, dtype=object)).fillna("").str.lower()
    unsourced = url.str.startswith(NO_SOURCE).to_numpy(bool)
    own = ((prov == USER_OVERRIDE) | url.str.startswith(USER_OVERRIDE).to_numpy(bool)) & ~unsourced
    said = np.array(["estimate" in x for x in prov], bool)
    return (own | (np.isin(kind, SOURCED_PRICE_KINDS) & ~said)) & ~unsourced


@dataclass
class Catalog:
    """The validated tables plus the overrides applied to them."""

    tables: dict[str, pd.DataFrame]
    data_hash: str
    overrides: list[Override] = field(default_factory=list)
    #: Derived prices the overrides moved (:func:`workbook.catalog.derived.follow_overrides`).
    derived: list[dict] = field(default_factory=list)

    def __post_init__(self):
        for df in self.tables.values():
            df.attrs.pop("lines", None)  # line numbers are only needed while validating
        # (table, parameter) -> {accelerator_id or None: row} for fast key-value lookups.
        self._kv: dict[tuple[str, str], dict] = {}
        for name in ("facility", "assumptions"):
            for rec in self.tables[name].to_dict("records"):
                acc = rec["accelerator_id"] if isinstance(rec["accelerator_id"], str) else None
                self._kv.setdefault((name, rec["parameter"]), {})[acc] = rec

    # --- lookups -----------------------------------------------------------------------------
    def accelerators(self) -> pd.DataFrame:
        return self.tables["accelerators"].copy()

    @property
    def accelerator_ids(self) -> list[str]:
        return list(self.tables["accelerators"]["accelerator_id"])

    def accelerator(self, accelerator_id: str) -> pd.Series:
        """One accelerator's row; an unknown id raises :class:`UnknownIdError` listing valid ids."""
        df = self.tables["accelerators"]
        hit = df[df["accelerator_id"] == accelerator_id]
        if hit.empty:
            valid = ", ".join(self.accelerator_ids)
            raise UnknownIdError(f"accelerator {accelerator_id!r} is unknown; valid ids: {valid}")
        return hit.iloc[0]

    def fabric(self, fabric_id: str) -> pd.Series:
        df = self.tables["fabrics"]
        hit = df[df["fabric_id"] == fabric_id]
        if hit.empty:
            raise UnknownIdError(
                f"fabric {fabric_id!r} is unknown; valid ids: {', '.join(df['fabric_id'])}"
            )
        return hit.iloc[0]

    def param(
        self, table: str, parameter: str, accelerator_id: str | None = None, field_: str = "value"
    ) -> float:
        """A key-value parameter (facility / assumptions): the per-accelerator row if there is one,
        else the global row. ``field_``: value, low or high (falls back to value when empty)."""
        rows = self._kv.get((table, parameter))
        if rows is None:
            valid = sorted(p for t, p in self._kv if t == table)
            raise UnknownIdError(
                f"{table} parameter {parameter!r} is unknown; valid: {', '.join(valid)}"
            )
        rec = rows.get(accelerator_id) if accelerator_id is not None else None
        if rec is None:
            rec = rows.get(None)
        if rec is None:
            raise UnknownIdError(
                f"{table} parameter {parameter!r} has no value for {accelerator_id!r}"
                " and no global default"
            )
        v = rec[field_]
        return float(v) if pd.notna(v) else float(rec["value"])

    def own_values(self, table: str, parameter: str) -> dict[str, float]:
        """The per-accelerator rows of a key-value parameter, without its global one: accelerator
        id -> value (empty when it has none)."""
        rows = self._kv.get((table, parameter), {})
        return {a: float(r["value"]) for a, r in rows.items() if a is not None}

    def global_rows(self, table: str) -> pd.DataFrame:
        """The rows of a key-value table (``facility`` / ``assumptions``) that apply to every
        accelerator (``accelerator_id`` empty), in file order."""
        df = self.tables[table]
        return df[df["accelerator_id"].isna()]

    def param_by_accelerator(self, table: str, parameter: str) -> pd.Series:
        """A parameter for every accelerator id (global default where there is no specific row;
        NaN if none). Built once per catalog and parameter (a catalog does not change after it
        is built; overrides make a new one), a copy returned."""
        cache = self.__dict__.setdefault("_param_by_accelerator_cache", {})
        if (table, parameter) not in cache:
            cache[table, parameter] = pd.Series(
                {a: self._param_or_nan(table, parameter, a) for a in self.accelerator_ids},
                name=parameter,
            )
        return cache[table, parameter].copy()

    def _param_or_nan(self, table, parameter, a):
        try:
            return self.param(table, parameter, a)
        except UnknownIdError:
            return math.nan

    def price(self, accelerator_id: str, kind: str) -> float:
        """The default price of one kind (``buy-*``: USD per GPU; ``rent-*``: USD per GPU-hour),
        NaN if none."""
        self.accelerator(accelerator_id)
        p = self.tables["prices"]
        hit = p[(p["accelerator_id"] == accelerator_id) & (p["kind"] == kind) & p["is_default"]]
        if hit.empty:
            return math.nan
        col = "price_usd_per_gpu" if kind.startswith("buy") else "price_usd_per_gpu_hour"
        return float(hit.iloc[0][col])

    def default_prices(self, field: str = "price") -> pd.DataFrame:
        """Wide table: one row per accelerator, one column per price kind (NaN where unknown).

        ``field="basis"`` gives "source_kind: provider (date)" for each default price instead
        (just "provider (date)" when the provider text already starts with the kind, as
        "estimate (...)" does).
        """
        cache = self.__dict__.setdefault("_price_cache", {})
        if field not in cache:
            cache[field] = self._default_prices(field)
        return cache[field].copy()

    def _default_prices(self, field: str) -> pd.DataFrame:
        """:meth:`default_prices` uncached: ``price``, ``basis``, ``sourced``
        (:func:`price_is_sourced`) or any column of prices.csv."""
        p = self.tables["prices"]
        p = p[p["is_default"]].copy()
        p["price"] = p["price_usd_per_gpu"].fillna(p["price_usd_per_gpu_hour"])
        said = [prov.startswith(kind) for prov, kind in zip(p["provider"], p["source_kind"])]
        p["basis"] = (
            p["provider"].where(said, p["source_kind"] + ": " + p["provider"])
            + " ("
            + p["price_date"]
            + ")"
        )
        p["sourced"] = price_is_sourced(p["source_kind"], p["provider"], p["source_url"])
        wide = p.pivot(index="accelerator_id", columns="kind", values=field)
        return wide.reindex(self.accelerator_ids)

    # --- provenance --------------------------------------------------------------------------
    def snapshot(self) -> dict:
        """Which data snapshot and which overrides a result used."""
        accessed = []
        for df in self.tables.values():
            if "accessed" in df:
                accessed.extend(d for d in df["accessed"] if d)
        return {
            "data_dir": str(DATA_DIR),
            "data_hash": self.data_hash,
            "latest_accessed": max(accessed) if accessed else None,
            "overrides": [o.__dict__ for o in self.overrides],
            "derived": [dict(d) for d in self.derived],
        }

    # --- overrides ---------------------------------------------------------------------------
    def with_overrides(self, overrides: Iterable[Override | dict]) -> "Catalog":
        """A new catalog with the overrides applied and everything re-validated."""
        checked, applied, moved = overridden_tables(self.tables, overrides)
        return Catalog(
            checked, self.data_hash, list(self.overrides) + applied, self.derived + moved
        )


@lru_cache(maxsize=1)
def _shipped() -> Catalog:
    """The shipped catalog, validated once per process (``_shipped.cache_clear()`` re-reads it)."""
    tables = load_shipped_tables()
    check_derivations(tables)
    return Catalog(tables, data_hash(TABLES))


def clear_cache() -> None:
    """Forget the cached shipped catalog, so the next :func:`load_catalog` re-reads ``data/``
    (after ``python -m workbook validate --fit --write`` rewrites ``assumptions.csv``)."""
    _shipped.cache_clear()


def load_catalog(overrides: str | Path | Iterable[Override | dict] | None = None) -> Catalog:
    """The shipped catalog (validated once, cached), optionally with user overrides applied."""
    cat = _shipped()
    if overrides is None:
        return cat
    if isinstance(overrides, (str, Path)):
        overrides = read_overrides(overrides)
    return cat.with_overrides(overrides)


def accelerators() -> pd.DataFrame:
    """The accelerator table as a DataFrame (column ``accelerator_id``)."""
    return load_catalog().accelerators()


def resolve_catalog(catalog: Catalog | None) -> Catalog:
    """``catalog``, or the shipped one when None; anything else raises ValueError."""
    if catalog is not None and not isinstance(catalog, Catalog):
        raise ValueError(
            f"catalog={catalog!r} is not a workbook Catalog; allowed: None or load_catalog(...)"
        )
    return catalog or load_catalog()
