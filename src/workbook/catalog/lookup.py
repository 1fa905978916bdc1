"""Load, validate and look up the sourced tables in ``data/``.

Every table is read relative to this package (never the working directory: Voila and papermill run
notebooks from their own), checked against :mod:`workbook.schema`, and any problem is reported as a
:class:`CatalogError` naming the file, the CSV line and the column.

Users overlay their own prices or specs without editing the shipped tables::

    cat = load_catalog(overrides="my_quotes.csv")   # table,key,column,value,source,notes
    cat.snapshot()                                   # which data snapshot and which overrides

Override keys: ``accelerators`` by ``accelerator_id``; ``fabrics`` by ``fabric_id``; ``prices`` by
``price_id`` or by ``accelerator_id:kind`` (sets that pair's default price, adding a row when there is
none); ``facility`` / ``assumptions`` by ``parameter`` or ``parameter:accelerator_id``.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable

import pandas as pd

from ..shipped import DATA_DIR
from .schema import TABLES, Table

_ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_TRUE = {"true"}
_FALSE = {"false"}


class CatalogError(ValueError):
    """A data table does not match its documented schema."""

    def __init__(self, file: str, line: int | None, column: str | None, message: str):
        self.file, self.line, self.column = file, line, column
        where = file
        if line is not None:
            where += f", line {line}"
        if column is not None:
            where += f", column '{column}'"
        super().__init__(f"{where}: {message}")


class UnknownIdError(ValueError, KeyError):
    """An id that is not in the catalog; the message lists the valid ids."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


def _parse_cell(table: Table, col, raw: str, file: str, line: int):
    value = raw.strip()
    if value == "":
        if col.required:
            raise CatalogError(
                file, line, col.name, f"is empty; a value of type {col.type} is required"
            )
        return None
    t = col.type
    if t == "str":
        return value
    if t == "id":
        if not _ID_RE.match(value):
            raise CatalogError(
                file,
                line,
                col.name,
                f"{value!r} is not a valid id (lowercase letters, digits, '.', '-', '_')",
            )
        return value
    if t == "enum":
        if value not in col.allowed:
            raise CatalogError(
                file, line, col.name, f"{value!r} is not allowed; allowed: {', '.join(col.allowed)}"
            )
        return value
    if t == "bool":
        low = value.lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise CatalogError(
            file, line, col.name, f"{value!r} is not a boolean; allowed: true, false"
        )
    if t == "date":
        try:
            return dt.date.fromisoformat(value).isoformat()
        except ValueError:
            raise CatalogError(
                file, line, col.name, f"{value!r} is not an ISO date (YYYY-MM-DD)"
            ) from None
    if t in ("int", "float"):
        try:
            num = float(value)
        except ValueError:
            raise CatalogError(file, line, col.name, f"{value!r} is not a number") from None
        if not math.isfinite(num):
            raise CatalogError(file, line, col.name, f"{value!r} is not a finite number")
        if t == "int":
            if num != int(num):
                raise CatalogError(file, line, col.name, f"{value!r} is not a whole number")
            num = int(num)
        if col.min is not None and num < col.min:
            raise CatalogError(
                file, line, col.name, f"{value} is below the allowed minimum {col.min:g}"
            )
        if col.max is not None and num > col.max:
            raise CatalogError(
                file, line, col.name, f"{value} is above the allowed maximum {col.max:g}"
            )
        return num
    raise AssertionError(f"unknown column type {t}")  # schema bug, not user input


def parse_table(table: Table, text: str, file: str) -> pd.DataFrame:
    """Parse CSV text into a validated DataFrame, or raise :class:`CatalogError`."""
    reader = csv.reader(io.StringIO(text))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise CatalogError(file, None, None, "is empty; expected a header row") from None
    missing = [c for c in table.column_names if c not in header]
    if missing:
        raise CatalogError(
            file,
            1,
            missing[0],
            f"required column is missing (expected columns: {', '.join(table.column_names)})",
        )
    unknown = [h for h in header if h not in table.column_names]
    if unknown:
        raise CatalogError(file, 1, unknown[0], "is not a documented column (see data/README.md)")
    dupes = {h for h in header if header.count(h) > 1}
    if dupes:
        raise CatalogError(file, 1, sorted(dupes)[0], "appears more than once in the header")
    cols = {c.name: c for c in table.columns}
    rows, lines = [], []
    for i, raw in enumerate(reader, start=2):
        if not any(cell.strip() for cell in raw):
            continue
        if len(raw) != len(header):
            raise CatalogError(file, i, None, f"has {len(raw)} cells; the header has {len(header)}")
        rows.append({h: _parse_cell(table, cols[h], cell, file, i) for h, cell in zip(header, raw)})
        lines.append(i)
    for c in table.columns:
        if c.unique:
            seen: dict = {}
            for row, line in zip(rows, lines):
                v = row[c.name]
                if v in seen:
                    raise CatalogError(
                        file, line, c.name, f"duplicate id {v!r} (first on line {seen[v]})"
                    )
                seen[v] = line
    if table.unique_together:
        seen = {}
        for row, line in zip(rows, lines):
            key = tuple(row[k] for k in table.unique_together)
            if key in seen:
                raise CatalogError(
                    file,
                    line,
                    table.unique_together[0],
                    f"duplicate key {key!r} for ({', '.join(table.unique_together)}) (first on line {seen[key]})",
                )
            seen[key] = line
    df = pd.DataFrame(rows, columns=table.column_names)
    df.attrs["lines"] = lines
    for c in table.columns:
        if c.type == "float":
            df[c.name] = pd.to_numeric(df[c.name], errors="coerce").astype(float)
        elif c.type == "int" and c.required:
            df[c.name] = df[c.name].astype("int64")
        elif c.type == "int":
            df[c.name] = pd.to_numeric(df[c.name], errors="coerce").astype("Int64")
    return df


def load_table(name: str, path: str | Path | None = None) -> pd.DataFrame:
    """Load one table (by schema name) from ``data/`` or from ``path`` and validate it."""
    if name not in TABLES:
        raise UnknownIdError(f"table {name!r} is unknown; valid tables: {', '.join(TABLES)}")
    p = Path(path) if path is not None else DATA_DIR / f"{name}.csv"
    if not p.exists():
        raise CatalogError(str(p), None, None, "file not found")
    return parse_table(TABLES[name], p.read_text(encoding="utf-8"), p.name)


def _check_references(tables: dict[str, pd.DataFrame]) -> None:
    acc = tables["accelerators"]
    valid = set(acc["accelerator_id"])
    for name in ("prices", "facility", "assumptions", "published_runs"):
        df = tables[name]
        for line, v in zip(df.attrs.get("lines", range(2, len(df) + 2)), df["accelerator_id"]):
            if v is not None and not (isinstance(v, float) and math.isnan(v)) and v not in valid:
                raise CatalogError(
                    f"{name}.csv",
                    line,
                    "accelerator_id",
                    f"{v!r} is not in accelerators.csv; valid ids: {', '.join(sorted(valid))}",
                )
    prices = tables["prices"]
    for line, (_, r) in zip(
        prices.attrs.get("lines", range(2, len(prices) + 2)), prices.iterrows()
    ):
        buy = r["kind"].startswith("buy")
        has_gpu, has_hour = pd.notna(r["price_usd_per_gpu"]), pd.notna(r["price_usd_per_gpu_hour"])
        if buy and (not has_gpu or has_hour):
            raise CatalogError(
                "prices.csv",
                line,
                "price_usd_per_gpu",
                f"a {r['kind']} row needs price_usd_per_gpu and no hourly price",
            )
        if not buy and (not has_hour or has_gpu):
            raise CatalogError(
                "prices.csv",
                line,
                "price_usd_per_gpu_hour",
                f"a {r['kind']} row needs price_usd_per_gpu_hour and no purchase price",
            )
    defaults = prices[prices["is_default"]]
    dup = defaults.duplicated(["accelerator_id", "kind"], keep="first")
    if dup.any():
        i = int(dup.to_numpy().nonzero()[0][0])
        r = defaults.iloc[i]
        line = prices.attrs["lines"][defaults.index[i]] if "lines" in prices.attrs else None
        raise CatalogError(
            "prices.csv",
            line,
            "is_default",
            f"more than one default price for {r['accelerator_id']} {r['kind']}",
        )


@dataclass
class Override:
    table: str
    key: str
    column: str
    value: str
    source: str = ""
    notes: str = ""


@dataclass
class Catalog:
    """The validated tables plus the overrides applied to them."""

    tables: dict[str, pd.DataFrame]
    data_hash: str
    overrides: list[Override] = field(default_factory=list)

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
            raise UnknownIdError(
                f"accelerator {accelerator_id!r} is unknown; valid ids: {', '.join(self.accelerator_ids)}"
            )
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
                f"{table} parameter {parameter!r} has no value for {accelerator_id!r} and no global default"
            )
        v = rec[field_]
        return float(v) if pd.notna(v) else float(rec["value"])

    def global_rows(self, table: str) -> pd.DataFrame:
        """The rows of a key-value table (``facility`` / ``assumptions``) that apply to every
        accelerator (``accelerator_id`` empty), in file order."""
        df = self.tables[table]
        return df[df["accelerator_id"].isna()]

    def param_by_accelerator(self, table: str, parameter: str) -> pd.Series:
        """A parameter for every accelerator id (global default where there is no specific row; NaN if none)."""
        return pd.Series(
            {a: self._param_or_nan(table, parameter, a) for a in self.accelerator_ids},
            name=parameter,
        )

    def _param_or_nan(self, table, parameter, a):
        try:
            return self.param(table, parameter, a)
        except UnknownIdError:
            return math.nan

    def price(self, accelerator_id: str, kind: str) -> float:
        """The default price of one kind (``buy-*``: USD per GPU; ``rent-*``: USD per GPU-hour), NaN if none."""
        self.accelerator(accelerator_id)
        p = self.tables["prices"]
        hit = p[(p["accelerator_id"] == accelerator_id) & (p["kind"] == kind) & p["is_default"]]
        if hit.empty:
            return math.nan
        col = "price_usd_per_gpu" if kind.startswith("buy") else "price_usd_per_gpu_hour"
        return float(hit.iloc[0][col])

    def default_prices(self, field: str = "price") -> pd.DataFrame:
        """Wide table: one row per accelerator, one column per price kind (NaN where unknown).

        ``field="basis"`` gives "source_kind: provider (date)" for each default price instead (just
        "provider (date)" when the provider text already starts with the kind, as "estimate (...)" does).
        """
        cache = self.__dict__.setdefault("_price_cache", {})
        if field not in cache:
            cache[field] = self._default_prices(field)
        return cache[field].copy()

    def _default_prices(self, field: str) -> pd.DataFrame:
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
        }

    # --- overrides ---------------------------------------------------------------------------
    def with_overrides(self, overrides: Iterable[Override | dict]) -> "Catalog":
        """A new catalog with the overrides applied and everything re-validated."""
        tables = {k: v.copy() for k, v in self.tables.items()}
        applied = list(self.overrides)
        for o in overrides:
            o = o if isinstance(o, Override) else Override(**o)
            _apply_override(tables, o)
            applied.append(o)
        # Re-validate through the same parser so an override cannot smuggle in a bad value.
        checked = {}
        for name, df in tables.items():
            checked[name] = parse_table(
                TABLES[name], _to_csv(df, TABLES[name]), f"{name}.csv (with overrides)"
            )
        _check_references(checked)
        return Catalog(checked, self.data_hash, applied)


def _to_csv(df: pd.DataFrame, table: Table) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(table.column_names)
    for _, r in df.iterrows():
        out = []
        for c in table.columns:
            v = r[c.name]
            if v is None or (not isinstance(v, str) and pd.isna(v)):
                out.append("")
            elif c.type == "bool":
                out.append("true" if v else "false")
            elif c.type == "float":
                out.append(repr(float(v)))
            else:
                out.append(str(v))
        w.writerow(out)
    return buf.getvalue()


_KEY_COLUMN = {"accelerators": "accelerator_id", "fabrics": "fabric_id", "prices": "price_id"}


def _apply_override(tables: dict[str, pd.DataFrame], o: Override) -> None:
    where = f"override {o.table}:{o.key}:{o.column}"
    if o.table not in tables:
        raise CatalogError(
            where, None, "table", f"{o.table!r} is unknown; valid: {', '.join(tables)}"
        )
    df = tables[o.table]
    if o.column not in df.columns:
        raise CatalogError(
            where,
            None,
            "column",
            f"{o.column!r} is not a column of {o.table}; valid: {', '.join(df.columns)}",
        )
    if o.table in ("facility", "assumptions"):
        param, _, acc = o.key.partition(":")
        mask = (df["parameter"] == param) & (
            df["accelerator_id"] == acc if acc else df["accelerator_id"].isna()
        )
        if not mask.any():
            raise CatalogError(where, None, "key", f"no {o.table} row for {o.key!r}")
    elif o.table == "prices" and ":" in o.key:
        acc, _, kind = o.key.partition(":")
        mask = (df["accelerator_id"] == acc) & (df["kind"] == kind) & df["is_default"]
        if not mask.any():
            new = {c: None for c in df.columns}
            new.update(
                price_id=f"override-{acc}-{kind}",
                accelerator_id=acc,
                kind=kind,
                provider="user override",
                price_date=dt.date.today().isoformat(),
                source_kind="estimate",
                is_default=True,
                source_url=o.source or "user override",
                accessed=dt.date.today().isoformat(),
                notes=o.notes,
            )
            df = pd.concat([df, pd.DataFrame([new])], ignore_index=True)
            mask = df["price_id"] == new["price_id"]
        tables[o.table] = df
    else:
        key_col = _KEY_COLUMN[o.table]
        mask = df[key_col] == o.key
        if not mask.any():
            raise CatalogError(
                where,
                None,
                "key",
                f"no {o.table} row with {key_col} {o.key!r}; valid: {', '.join(df[key_col])}",
            )
    df = tables[o.table]
    df[o.column] = df[o.column].astype(object)
    df.loc[mask, o.column] = o.value
    if "source_url" in df.columns and o.source:
        df.loc[mask, "source_url"] = f"user override: {o.source}"
    if "notes" in df.columns:
        df.loc[mask, "notes"] = f"overridden ({o.column}={o.value}) {o.notes}".strip()
    if "accessed" in df.columns:
        df.loc[mask, "accessed"] = dt.date.today().isoformat()
    tables[o.table] = df


def read_overrides(path: str | Path) -> list[Override]:
    """Read an overrides CSV with columns table,key,column,value[,source,notes]."""
    p = Path(path)
    if not p.exists():
        raise CatalogError(str(p), None, None, "overrides file not found")
    rows = list(csv.DictReader(io.StringIO(p.read_text(encoding="utf-8"))))
    need = ["table", "key", "column", "value"]
    if rows and any(k not in rows[0] for k in need) or (not rows and p.read_text().strip() == ""):
        raise CatalogError(
            p.name,
            1,
            None,
            f"an overrides file needs the columns {', '.join(need)} (+ source, notes)",
        )
    return [
        Override(
            r["table"].strip(),
            r["key"].strip(),
            r["column"].strip(),
            r["value"].strip(),
            (r.get("source") or "").strip(),
            (r.get("notes") or "").strip(),
        )
        for r in rows
    ]


def _hash_dir(names: Iterable[str]) -> str:
    h = hashlib.sha256()
    for n in sorted(names):
        h.update((DATA_DIR / f"{n}.csv").read_bytes())
    return h.hexdigest()[:12]


@lru_cache(maxsize=1)
def _shipped() -> Catalog:
    tables = {name: load_table(name) for name in TABLES}
    _check_references(tables)
    return Catalog(tables, _hash_dir(TABLES))


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
    if catalog is not None and not isinstance(catalog, Catalog):
        raise ValueError(
            f"catalog={catalog!r} is not a workbook Catalog; allowed: None or load_catalog(...)"
        )
    return catalog or load_catalog()
