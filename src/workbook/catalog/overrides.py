"""User overrides of the shipped tables: one :class:`Override` per changed cell.

Users overlay their own prices or specs without editing the shipped tables::

    cat = load_catalog(overrides="my_quotes.csv")   # table,key,column,value,source,notes
    cat.snapshot()                                   # which data snapshot and which overrides

Override keys: ``accelerators`` by ``accelerator_id``; ``fabrics`` by ``fabric_id``; ``prices`` by
``price_id`` or by ``accelerator_id:kind`` (sets that pair's default price, adding a row when there
is none); ``facility`` / ``assumptions`` by ``parameter`` or ``parameter:accelerator_id``.

An overridden table is written back to CSV and re-parsed by :func:`~workbook.catalog.tables.
parse_table`, so an override cannot smuggle in a value the schema forbids.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import pandas as pd

from ..text import NO_SOURCE, listing, shown
from .derived import check_derivations, follow_overrides, price_column
from .schema import TABLES, Table
from .tables import CatalogError, check_references, kv_value_problem, parse_table

#: The key column of the tables overridden by a plain id.
_KEY_COLUMN = {
    "accelerators": "accelerator_id",
    "fabrics": "fabric_id",
    "prices": "price_id",
    "price_derivations": "price_id",
}
#: Columns an overrides file must have (``source`` and ``notes`` are optional).
_NEEDED_COLUMNS = ["table", "key", "column", "value"]
#: Columns an overrides file may have.
_ALL_COLUMNS = [*_NEEDED_COLUMNS, "source", "notes"]


@dataclass
class Override:
    """One changed cell: ``value`` (text, parsed by the column's type) in ``table`` at ``key``."""

    table: str
    key: str
    column: str
    value: str
    source: str = ""
    notes: str = ""


def table_to_csv(df: pd.DataFrame, table: Table) -> str:
    """A table as CSV text in its schema's column order (the inverse of ``parse_table``)."""
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
            elif c.type == "float" and not isinstance(v, str):
                out.append(repr(float(v)))
            else:
                out.append(str(v))
        w.writerow(out)
    return buf.getvalue()


def _where(o: Override) -> str:
    return shown(f"override {o.table}:{o.key}:{o.column}")[1:-1]


def as_override(o) -> Override:
    """An :class:`Override`, or a dict with its fields (every field text; numbers are written as
    text). Anything else raises :class:`CatalogError` naming what is wrong."""
    if isinstance(o, Override):
        fields = dict(o.__dict__)
    elif isinstance(o, dict):
        fields = dict(o)
    else:
        raise CatalogError(
            "overrides", None, None, f"{shown(o)} is not an override; allowed: Override or dict"
        )
    unknown = sorted(set(map(str, fields)) - set(_ALL_COLUMNS))
    missing = [c for c in _NEEDED_COLUMNS if fields.get(c) in (None, "")]
    if unknown or missing:
        what = f"unknown field {shown(unknown[0])}" if unknown else f"no {missing[0]}"
        raise CatalogError(
            "overrides",
            None,
            None,
            f"{shown(fields)} has {what}; fields: {', '.join(_ALL_COLUMNS)}",
        )
    for k, v in fields.items():
        if isinstance(v, bool) or not isinstance(v, (str, int, float)):
            raise CatalogError(
                "overrides", None, k, f"{shown(v)} is not text or a number; allowed: text"
            )
    return Override(**{k: str(v).strip() for k, v in fields.items()})


def _check_target(tables: dict[str, pd.DataFrame], o: Override) -> None:
    """The override names a known table and one of its columns."""
    if o.table not in tables:
        raise CatalogError(
            _where(o), None, "table", f"{shown(o.table)} is unknown; valid: {', '.join(tables)}"
        )
    df = tables[o.table]
    if o.column not in df.columns:
        raise CatalogError(
            _where(o),
            None,
            "column",
            f"{shown(o.column)} is not a column of {o.table}; valid: {', '.join(df.columns)}",
        )


def _key_value_rows(df: pd.DataFrame, o: Override) -> pd.Series:
    """Rows of a facility / assumptions table for ``parameter`` or ``parameter:accelerator_id``."""
    param, _, acc = o.key.partition(":")
    mask = (df["parameter"] == param) & (
        df["accelerator_id"] == acc if acc else df["accelerator_id"].isna()
    )
    if not mask.any():
        raise CatalogError(_where(o), None, "key", f"no {o.table} row for {shown(o.key)}")
    return mask


def _default_price_rows(
    df: pd.DataFrame, o: Override, accelerator_ids: list[str]
) -> tuple[pd.DataFrame, pd.Series]:
    """The default price row of ``accelerator_id:kind``, added (as an estimate) when missing."""
    acc, _, kind = o.key.partition(":")
    if acc not in set(accelerator_ids):
        valid = ", ".join(accelerator_ids)
        raise CatalogError(
            _where(o), None, "key", f"accelerator {shown(acc)} is unknown; valid ids: {valid}"
        )
    mask = (df["accelerator_id"] == acc) & (df["kind"] == kind) & df["is_default"]
    if mask.any():
        return df, mask
    new = {c: None for c in df.columns}
    new.update(
        price_id=f"override-{acc}-{kind}",
        accelerator_id=acc,
        kind=kind,
        provider="user override" if o.source else NO_SOURCE,
        price_date=dt.date.today().isoformat(),
        source_kind="estimate",
        is_default=True,
        source_url=f"user override: {o.source}" if o.source else NO_SOURCE,
        accessed=dt.date.today().isoformat(),
        notes=o.notes,
    )
    df = pd.concat([df, pd.DataFrame([new])], ignore_index=True)
    return df, df["price_id"] == new["price_id"]


def _id_rows(df: pd.DataFrame, o: Override) -> pd.Series:
    key_col = _KEY_COLUMN[o.table]
    mask = df[key_col] == o.key
    if not mask.any():
        raise CatalogError(
            _where(o),
            None,
            "key",
            f"no {o.table} row with {key_col} {shown(o.key)}; valid: {listing(df[key_col])}",
        )
    return mask


def apply_override(tables: dict[str, pd.DataFrame], o: Override) -> list[str]:
    """Set the override's cell in ``tables`` (in place) and note it in the row's provenance.

    Returns the price_ids whose price the override set (empty for other cells)."""
    _check_target(tables, o)
    df = tables[o.table]
    if o.table in ("facility", "assumptions"):
        mask = _key_value_rows(df, o)
        problem = (
            kv_value_problem(df[mask].iloc[0].to_dict(), o.value) if o.column == "value" else ""
        )
        if problem:
            raise CatalogError(_where(o), None, "value", problem)
    elif o.table == "prices" and ":" in o.key:
        df, mask = _default_price_rows(df, o, list(tables["accelerators"]["accelerator_id"]))
    else:
        mask = _id_rows(df, o)
    df[o.column] = df[o.column].astype(object)
    df.loc[mask, o.column] = o.value
    if "source_url" in df.columns:
        df.loc[mask, "source_url"] = f"user override: {o.source}" if o.source else NO_SOURCE
    if "notes" in df.columns:
        df.loc[mask, "notes"] = f"overridden ({o.column}={o.value}) {o.notes}".strip()
    if "accessed" in df.columns:
        df.loc[mask, "accessed"] = dt.date.today().isoformat()
    tables[o.table] = df
    if o.table != "prices":
        return []
    hit = df[mask]
    return [
        pid for pid, kind in zip(hit["price_id"], hit["kind"]) if price_column(kind) == o.column
    ]


def overridden_tables(
    tables: dict[str, pd.DataFrame], overrides: Iterable[Override | dict]
) -> tuple[dict[str, pd.DataFrame], list[Override], list[dict]]:
    """Copies of ``tables`` with the overrides applied and re-validated, the overrides applied, and
    the derived prices they moved (:func:`~workbook.catalog.derived.follow_overrides`).

    Every table goes back through :func:`parse_table` and :func:`check_references`, so an override
    is held to the same schema as the shipped rows.
    """
    copies = {k: v.copy() for k, v in tables.items()}
    applied, own = [], set()
    if isinstance(overrides, (str, bytes, dict)) or not hasattr(overrides, "__iter__"):
        raise CatalogError(
            "overrides",
            None,
            None,
            f"{shown(overrides)} is not a list of overrides; allowed: a path or a list",
        )
    for o in overrides:
        o = as_override(o)
        own.update(apply_override(copies, o))
        applied.append(o)
    checked = {
        name: parse_table(
            TABLES[name], table_to_csv(df, TABLES[name]), f"{name}.csv (with overrides)"
        )
        for name, df in copies.items()
    }
    check_references(checked)
    moved = follow_overrides(tables, checked, own)
    check_derivations(checked)
    return checked, applied, moved


#: The largest overrides file read [bytes]: a file of thousands of changed cells is far below it,
#: and a mistaken upload (a data dump, a binary) is refused before it is parsed.
MAX_OVERRIDES_BYTES = 1_000_000


def decode_overrides(data: bytes, file: str) -> str:
    """The text of an overrides file: at most :data:`MAX_OVERRIDES_BYTES`, UTF-8 (an Excel "CSV
    UTF-8" byte-order mark is dropped)."""
    if len(data) > MAX_OVERRIDES_BYTES:
        raise CatalogError(
            file, None, None, f"is {len(data):,} bytes; allowed: at most {MAX_OVERRIDES_BYTES:,}"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise CatalogError(
            file, None, None, f"is not UTF-8 text (byte {e.start + 1}); save it as CSV UTF-8"
        ) from None


def _override_row(cells: list[str], header: list[str], file: str, line: int) -> Override:
    if len(cells) != len(header):
        raise CatalogError(
            file,
            line,
            None,
            f"has {len(cells)} cells; the header has {len(header)} ({', '.join(header)})",
        )
    r = dict(zip(header, (c.strip() for c in cells)))
    for col in _NEEDED_COLUMNS:
        if not r[col]:
            raise CatalogError(file, line, col, "is empty; every override needs a value here")
    return Override(
        r["table"], r["key"], r["column"], r["value"], r.get("source", ""), r.get("notes", "")
    )


def parse_overrides(text: str, file: str = "overrides") -> list[Override]:
    """The overrides of CSV text with columns table,key,column,value[,source,notes] (CRLF or LF
    line ends; blank lines skipped). Raises :class:`CatalogError` naming the file, line and
    column: missing or unknown columns, a short row, an empty cell, a cell overridden twice."""
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"), newline="")))
    header = [h.strip() for h in rows[0]] if rows else []
    missing = [c for c in _NEEDED_COLUMNS if c not in header]
    unknown = [h for h in header if h not in _ALL_COLUMNS or header.count(h) > 1]
    if missing or unknown:
        what = (
            f"lacks {', '.join(missing)}"
            if missing
            else f"has {shown(unknown[0])} (unknown or twice)"
        )
        raise CatalogError(
            file, 1, None, f"the header {what}; allowed columns: {', '.join(_ALL_COLUMNS)}"
        )
    out, seen = [], {}
    for line, cells in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in cells):
            continue
        o = _override_row(cells, header, file, line)
        cell_key = (o.table, o.key, o.column)
        if cell_key in seen:
            raise CatalogError(
                file,
                line,
                "key",
                f"{o.table}:{o.key}:{o.column} is overridden twice (first on line "
                f"{seen[cell_key]}); allowed: one value per cell",
            )
        seen[cell_key] = line
        out.append(o)
    return out


def read_overrides(path: str | Path) -> list[Override]:
    """Read an overrides CSV with columns table,key,column,value[,source,notes]
    (:func:`parse_overrides`; at most :data:`MAX_OVERRIDES_BYTES`)."""
    p = Path(path)
    if not p.is_file():
        why = "is a folder, not a file" if p.is_dir() else "overrides file not found"
        raise CatalogError(shown(str(p)), None, None, why)
    try:
        size = p.stat().st_size
        if size > MAX_OVERRIDES_BYTES:
            raise CatalogError(
                p.name, None, None, f"is {size:,} bytes; allowed: at most {MAX_OVERRIDES_BYTES:,}"
            )
        data = p.read_bytes()
    except OSError as e:
        raise CatalogError(p.name, None, None, f"cannot be read ({e.strerror})") from None
    return parse_overrides(decode_overrides(data, p.name), p.name)
