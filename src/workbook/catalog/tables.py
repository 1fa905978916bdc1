"""Read and validate one table of ``data/`` against its schema, and the shipped data directory.

Every cell is parsed by its column's type (:mod:`workbook.catalog.schema`); any problem is a
:class:`CatalogError` naming the file, the CSV line and the column. Tables are read relative to the
package (:data:`workbook.shipped.DATA_DIR`), never the working directory: Voila and papermill run
notebooks from their own.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import math
import re
from pathlib import Path
from typing import Iterable

import pandas as pd

from ..shipped import DATA_DIR
from ..text import shown
from .schema import TABLES, Column, Table

_ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_TRUE = {"true"}
_FALSE = {"false"}
#: Tables whose ``accelerator_id`` must name a row of accelerators.csv (empty = every accelerator).
_REFERENCING_TABLES = ("prices", "facility", "assumptions", "published_runs")


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


# --- one cell ------------------------------------------------------------------------------------


def _parse_id(col: Column, value: str, file: str, line: int) -> str:
    if not _ID_RE.match(value):
        raise CatalogError(
            file,
            line,
            col.name,
            f"{value!r} is not a valid id (lowercase letters, digits, '.', '-', '_')",
        )
    return value


def _parse_enum(col: Column, value: str, file: str, line: int) -> str:
    if value not in col.allowed:
        raise CatalogError(
            file, line, col.name, f"{value!r} is not allowed; allowed: {', '.join(col.allowed)}"
        )
    return value


def _parse_bool(col: Column, value: str, file: str, line: int) -> bool:
    low = value.lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise CatalogError(file, line, col.name, f"{value!r} is not a boolean; allowed: true, false")


def _parse_date(col: Column, value: str, file: str, line: int) -> str:
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise CatalogError(
            file, line, col.name, f"{value!r} is not an ISO date (YYYY-MM-DD)"
        ) from None


def _parse_number(col: Column, value: str, file: str, line: int) -> float | int:
    try:
        num = float(value)
    except ValueError:
        raise CatalogError(file, line, col.name, f"{value!r} is not a number") from None
    if not math.isfinite(num):
        raise CatalogError(file, line, col.name, f"{value!r} is not a finite number")
    if col.type == "int":
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


_PARSERS = {
    "str": lambda col, value, file, line: value,
    "id": _parse_id,
    "enum": _parse_enum,
    "bool": _parse_bool,
    "date": _parse_date,
    "int": _parse_number,
    "float": _parse_number,
}


def _parse_cell(col: Column, raw: str, file: str, line: int):
    """One cell as its column's type: None when empty and optional, else str, bool or number."""
    value = raw.strip()
    if value == "":
        if col.required:
            raise CatalogError(
                file, line, col.name, f"is empty; a value of type {col.type} is required"
            )
        return None
    parser = _PARSERS.get(col.type)
    if parser is None:
        raise AssertionError(f"unknown column type {col.type}")  # schema bug, not user input
    return parser(col, value, file, line)


# --- one table -----------------------------------------------------------------------------------


def _read_header(reader, table: Table, file: str) -> list[str]:
    """The header row, checked: every documented column once, nothing else."""
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
    return header


def _read_rows(reader, table: Table, header: list[str], file: str):
    """Parsed rows (dicts) and their CSV line numbers; blank lines are skipped."""
    cols = {c.name: c for c in table.columns}
    rows, lines = [], []
    for i, raw in enumerate(reader, start=2):
        if not any(cell.strip() for cell in raw):
            continue
        if len(raw) != len(header):
            raise CatalogError(file, i, None, f"has {len(raw)} cells; the header has {len(header)}")
        rows.append({h: _parse_cell(cols[h], cell, file, i) for h, cell in zip(header, raw)})
        lines.append(i)
    return rows, lines


def _check_unique(table: Table, rows: list[dict], lines: list[int], file: str) -> None:
    """Unique columns hold no value twice; ``unique_together`` keys no combination twice."""
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
        together = ", ".join(table.unique_together)
        for row, line in zip(rows, lines):
            key = tuple(row[k] for k in table.unique_together)
            if key in seen:
                raise CatalogError(
                    file,
                    line,
                    table.unique_together[0],
                    f"duplicate key {key!r} for ({together}) (first on line {seen[key]})",
                )
            seen[key] = line


def _to_frame(table: Table, rows: list[dict], lines: list[int]) -> pd.DataFrame:
    """The rows as a DataFrame with numeric dtypes (nullable Int64 for optional integers)."""
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


def parse_table(table: Table, text: str, file: str) -> pd.DataFrame:
    """Parse CSV text into a validated DataFrame, or raise :class:`CatalogError`.

    ``df.attrs["lines"]`` keeps each row's CSV line for the cross-table checks
    (:func:`check_references`).
    """
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff"), newline=""))
    header = _read_header(reader, table, file)
    rows, lines = _read_rows(reader, table, header, file)
    _check_unique(table, rows, lines, file)
    return _to_frame(table, rows, lines)


def load_table(name: str, path: str | Path | None = None) -> pd.DataFrame:
    """Load one table (by schema name) from ``data/`` or from ``path`` and validate it."""
    if name not in TABLES:
        raise UnknownIdError(f"table {name!r} is unknown; valid tables: {', '.join(TABLES)}")
    p = Path(path) if path is not None else DATA_DIR / f"{name}.csv"
    if not p.exists():
        raise CatalogError(str(p), None, None, "file not found")
    return parse_table(TABLES[name], p.read_text(encoding="utf-8-sig"), p.name)


# --- across tables -------------------------------------------------------------------------------


def _lines(df: pd.DataFrame):
    return df.attrs.get("lines", range(2, len(df) + 2))


def _check_accelerator_ids(tables: dict[str, pd.DataFrame]) -> None:
    valid = set(tables["accelerators"]["accelerator_id"])
    for name in _REFERENCING_TABLES:
        df = tables[name]
        for line, v in zip(_lines(df), df["accelerator_id"]):
            if v is not None and not (isinstance(v, float) and math.isnan(v)) and v not in valid:
                raise CatalogError(
                    f"{name}.csv",
                    line,
                    "accelerator_id",
                    f"{v!r} is not in accelerators.csv; valid ids: {', '.join(sorted(valid))}",
                )


def _check_shape_ids(tables: dict[str, pd.DataFrame]) -> None:
    """Every ``shape_id`` of published_runs.csv names a row of model_shapes.csv (the engine checks
    the shape itself where a row is predicted: ``workbook.model.estimate_frame``)."""
    valid = set(tables["model_shapes"]["shape_id"])
    runs = tables["published_runs"]
    for line, v in zip(_lines(runs), runs["shape_id"]):
        if isinstance(v, str) and v not in valid:
            raise CatalogError(
                "published_runs.csv",
                line,
                "shape_id",
                f"{v!r} is not in model_shapes.csv; valid ids: {', '.join(sorted(valid))}",
            )


def _check_price_columns(prices: pd.DataFrame) -> None:
    """A ``buy-*`` row has a purchase price only, a ``rent-*`` row an hourly price only."""
    for line, (_, r) in zip(_lines(prices), prices.iterrows()):
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


def _check_one_default_price(prices: pd.DataFrame) -> None:
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


#: The data/facility.csv rows an accelerator that can be bought needs (the engine prices and
#: powers its servers from them; a missing one would silently count as 0).
BUYABLE_FACILITY_ROWS = (
    "host_overhead_kw_per_node",
    "nodes_per_rack_max",
    "server_cost_usd_per_node",
    "lead_time_weeks",
)


def _missing_rows(tables: dict[str, pd.DataFrame], acc: pd.Series) -> list[str]:
    """The facility and default-price rows accelerator ``acc`` lacks, as ``table:key`` names."""
    aid = acc["accelerator_id"]
    fac = tables["facility"]
    have = set(fac.loc[fac["accelerator_id"] == aid, "parameter"])
    prices = tables["prices"]
    kinds = set(prices.loc[(prices["accelerator_id"] == aid) & prices["is_default"], "kind"])
    need_prices = ["rent-on-demand"]
    missing = []
    if acc["availability"] == "buy-and-rent":
        missing += [f"facility.csv:{p}:{aid}" for p in BUYABLE_FACILITY_ROWS if p not in have]
        need_prices.insert(0, "buy-new")
        if pd.isna(acc["tdp_w"]):
            missing.append(f"accelerators.csv:{aid}:tdp_w")
    missing += [f"prices.csv:{aid}:{k} (is_default=true)" for k in need_prices if k not in kinds]
    return missing


def _check_accelerators_complete(tables: dict[str, pd.DataFrame]) -> None:
    """Every accelerator has the rows the engine needs: a default on-demand price; one that can be
    bought also a default new price, its board power and :data:`BUYABLE_FACILITY_ROWS`."""
    accs = tables["accelerators"]
    lines = list(_lines(accs))
    for i, (_, acc) in enumerate(accs.iterrows()):
        line = lines[i] if i < len(lines) else None  # a row added after parsing has no line
        missing = _missing_rows(tables, acc)
        if missing:
            raise CatalogError(
                "accelerators.csv",
                line,
                "accelerator_id",
                f"{acc['accelerator_id']!r} lacks the rows the engine needs: " + ", ".join(missing),
            )


def check_references(tables: dict[str, pd.DataFrame]) -> None:
    """Checks across tables: accelerator ids exist, price columns match the kind, at most one
    default price per accelerator and kind, and every accelerator has the facility and price rows
    it needs. Raises :class:`CatalogError`."""
    _check_accelerator_ids(tables)
    _check_shape_ids(tables)
    _check_price_columns(tables["prices"])
    _check_one_default_price(tables["prices"])
    _check_accelerators_complete(tables)


# --- allowed values of a key-value parameter ------------------------------------------------------
#: A parameter's value may be at most this many times the top of its plausible range (``high``, or
#: the shipped value): a hundred times is a typo, not a plan (issue 13: ``gemm_efficiency=50``).
KV_MAX_TIMES_HIGH = 100
#: Words of the parameters that must be above zero: efficiencies, rates, bandwidths, batches,
#: caps, factors, lives and unit prices divide or scale a time or a cost, so zero gives infinite or
#: undefined results (issue 13: ``failure_rate_per_gpu_hour=0`` gave NaN). An overlap, an
#: overhead or a lead time may be zero.
POSITIVE_WORDS = (
    "efficiency", "maturity", "rate", "bw", "batch", "max", "factor", "life", "usable",
    "throttle", "stages", "per_", "pue",
)  # fmt: skip
#: ... except these, whose zero means "none of it" (the fit tries zero HBM traffic).
ZERO_MEANS_NONE = ("memory_traffic_bytes_per_token_layer_dmodel",)


def kv_allowed(rec: dict) -> tuple[float, bool, float]:
    """The allowed values of a facility / assumptions parameter, from its shipped row: ``(low,
    low_exclusive, high)``. Zero or more (more than zero for :data:`POSITIVE_WORDS`); at most 1
    for a fraction (the unit starts with "fraction"), else at most :data:`KV_MAX_TIMES_HIGH` times
    the top of its plausible range."""
    value, high = (
        float(rec.get(k)) if pd.notna(rec.get(k)) else math.nan for k in ("value", "high")
    )
    top = (
        1.0
        if str(rec.get("unit", "")).startswith("fraction")
        else KV_MAX_TIMES_HIGH * max(x for x in (high, value, 1e-300) if math.isfinite(x))
    )
    name = str(rec.get("parameter"))
    positive = any(w in name for w in POSITIVE_WORDS) and name not in ZERO_MEANS_NONE
    return 0.0, positive, top


def kv_value_problem(rec: dict, value) -> str:
    """Why ``value`` is not allowed for the parameter of shipped row ``rec`` ("" if it is)."""
    low, exclusive, high = kv_allowed(rec)
    allowed = f"allowed: {'> 0' if exclusive else '>= 0'} and <= {high:g}"
    try:
        v = float(value)
    except (TypeError, ValueError):
        return f"{shown(value)} is not a number; {allowed}"
    if not math.isfinite(v) or v < low or (exclusive and v == low) or v > high:
        return f"{v:g} is out of range; {allowed}"
    return ""


# --- the shipped data directory ------------------------------------------------------------------


def data_hash(names: Iterable[str]) -> str:
    """The first 12 hex digits of the SHA-256 of the shipped CSV files (sorted by name)."""
    h = hashlib.sha256()
    for n in sorted(names):
        h.update((DATA_DIR / f"{n}.csv").read_bytes())
    return h.hexdigest()[:12]


def load_shipped_tables() -> dict[str, pd.DataFrame]:
    """Every table of :data:`~workbook.catalog.schema.TABLES` from ``data/``, checked together."""
    tables = {name: load_table(name) for name in TABLES}
    check_references(tables)
    return tables
