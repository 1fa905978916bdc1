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

from ..text import NO_SOURCE
from .derived import check_derivations, follow_overrides, price_column
from .schema import TABLES, Table
from .tables import CatalogError, check_references, parse_table

#: The key column of the tables overridden by a plain id.
_KEY_COLUMN = {
    "accelerators": "accelerator_id",
    "fabrics": "fabric_id",
    "prices": "price_id",
    "price_derivations": "price_id",
}
#: Columns an overrides file must have (``source`` and ``notes`` are optional).
_NEEDED_COLUMNS = ["table", "key", "column", "value"]


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
            elif c.type == "float":
                out.append(repr(float(v)))
            else:
                out.append(str(v))
        w.writerow(out)
    return buf.getvalue()


def _where(o: Override) -> str:
    return f"override {o.table}:{o.key}:{o.column}"


def _check_target(tables: dict[str, pd.DataFrame], o: Override) -> None:
    """The override names a known table and one of its columns."""
    if o.table not in tables:
        raise CatalogError(
            _where(o), None, "table", f"{o.table!r} is unknown; valid: {', '.join(tables)}"
        )
    df = tables[o.table]
    if o.column not in df.columns:
        raise CatalogError(
            _where(o),
            None,
            "column",
            f"{o.column!r} is not a column of {o.table}; valid: {', '.join(df.columns)}",
        )


def _key_value_rows(df: pd.DataFrame, o: Override) -> pd.Series:
    """Rows of a facility / assumptions table for ``parameter`` or ``parameter:accelerator_id``."""
    param, _, acc = o.key.partition(":")
    mask = (df["parameter"] == param) & (
        df["accelerator_id"] == acc if acc else df["accelerator_id"].isna()
    )
    if not mask.any():
        raise CatalogError(_where(o), None, "key", f"no {o.table} row for {o.key!r}")
    return mask


def _default_price_rows(df: pd.DataFrame, o: Override) -> tuple[pd.DataFrame, pd.Series]:
    """The default price row of ``accelerator_id:kind``, added (as an estimate) when missing."""
    acc, _, kind = o.key.partition(":")
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
            f"no {o.table} row with {key_col} {o.key!r}; valid: {', '.join(df[key_col])}",
        )
    return mask


def apply_override(tables: dict[str, pd.DataFrame], o: Override) -> list[str]:
    """Set the override's cell in ``tables`` (in place) and note it in the row's provenance.

    Returns the price_ids whose price the override set (empty for other cells)."""
    _check_target(tables, o)
    df = tables[o.table]
    if o.table in ("facility", "assumptions"):
        mask = _key_value_rows(df, o)
    elif o.table == "prices" and ":" in o.key:
        df, mask = _default_price_rows(df, o)
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
    for o in overrides:
        o = o if isinstance(o, Override) else Override(**o)
        own.update(apply_override(copies, o))
        applied.append(o)
    moved = follow_overrides(tables, copies, own)
    checked = {
        name: parse_table(
            TABLES[name], table_to_csv(df, TABLES[name]), f"{name}.csv (with overrides)"
        )
        for name, df in copies.items()
    }
    check_references(checked)
    check_derivations(checked)
    return checked, applied, moved


def read_overrides(path: str | Path) -> list[Override]:
    """Read an overrides CSV with columns table,key,column,value[,source,notes]."""
    p = Path(path)
    if not p.exists():
        raise CatalogError(str(p), None, None, "overrides file not found")
    rows = list(csv.DictReader(io.StringIO(p.read_text(encoding="utf-8"))))
    need = _NEEDED_COLUMNS
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
