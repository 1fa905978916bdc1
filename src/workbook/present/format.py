"""Numbers and tables for people: the one HTML-table implementation of the memo and the app.

:func:`html_table` turns a frame into a plain, escaped HTML table: numbers right-aligned
(``class="num"``) with thousands separators, dollar amounts as ``$1,234``, shares as percentages,
columns titled for a reader (:data:`TITLES`). The memo (:mod:`workbook.present.memo`) prints it as
is; the app (:mod:`workbook.present.app.page`) wraps it in its ``wb-table`` div.
"""

from __future__ import annotations

import base64
import html
import math
import re
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from ..text import ARTICLE_CITATION, money_text, params_label, readable


def escape(x: Any) -> str:
    """``str(x)`` escaped for HTML text and attribute values."""
    return html.escape(str(x), quote=True)


def number(x: Any, digits: int = 0) -> str:
    """A number with thousands separators and ``digits`` decimals; ``n/a`` for NaN, ``∞`` for
    infinity, escaped text for anything that is not a number."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return escape(x)
    if math.isnan(v):
        return "n/a"
    if math.isinf(v):
        return "∞"
    return f"{v:,.{digits}f}"


def usd(x: Any) -> str:
    """A dollar amount in whole dollars: ``$1,234``, ``-$5``; ``n/a``, ``∞`` or text as
    :func:`number` gives them."""
    s = number(x, 0)
    if not s[:1].isdigit() and not s.startswith("-"):
        return s  # n/a, infinity or text
    return f"-${s[1:]}" if s.startswith("-") else f"${s}"


def share_text(x: float) -> str:
    """A share of Monte Carlo draws in whole percent, but never 0 % or 100 % for a share that is
    neither: ``54%``, ``0.2%``, ``over 99%`` (modest-budget: its part won 99.8 % of the draws and
    another part 0.2 %)."""
    if 0 < x < 0.01:
        return f"{x:.1%}"
    if 0.99 < x < 1:
        return "over 99%"
    return f"{x:.0%}"


def usd_short(x: Any) -> str:
    """A dollar amount for a table or a sentence: from a million, three significant figures as
    :func:`workbook.text.money_text` writes them (``$3.00M``, ``$55.6M``, ``$1.25B``), the same
    as the recommendation's sentences; under a million :func:`usd` (``$19,602``)."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return escape(x)
    return money_text(v) if math.isfinite(v) and abs(v) >= 1e6 else usd(v)


def plain_number(x: Any) -> str:
    """A number for a reader, never in scientific notation: ``70B`` style is for
    :func:`workbook.text.params_label`; here ``120``, ``0.25``, ``2e-05`` -> ``0.00002``,
    ``16,384``."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return escape(x)
    if not math.isfinite(v):
        return number(v)
    if v == int(v):
        return f"{int(v):,}"
    if abs(v) >= 100:
        return f"{v:,.1f}"
    if abs(v) >= 0.001:
        return f"{v:.4g}"
    digits = 3 - math.floor(math.log10(abs(v)))  # 4 significant digits, positional
    return f"{v:.{digits}f}".rstrip("0").rstrip(".")


#: The local files some sources name, cited for a reader by what they are (no paths in a memo).
LOCAL_SOURCES = {
    "000_e6c314b433b91124.txt": ARTICLE_CITATION,
    "accelerators_sourced": "the workbook's compiled accelerator reference (accelerators_sourced, "
    "its rows cite the vendor pages)",
}
_LOCAL_PATH = re.compile(r"(?:\.\./|/work/)[\w./+-]+")


def source_text(part: str) -> str:
    """One source as a reader should see it: a local file path becomes what the file is
    (:data:`LOCAL_SOURCES`: the article by its title), everything else is kept."""

    def cite(m: re.Match) -> str:
        for key, citation in LOCAL_SOURCES.items():
            if key in m.group(0):
                return citation
        return m.group(0).rsplit("/", 1)[-1]

    if part.startswith("seed article: "):  # the article named in words: cited the one way
        return ARTICLE_CITATION
    return _LOCAL_PATH.sub(cite, part).replace("reference: the workbook's", "the workbook's")


def links(sources: Any) -> str:
    """``"url | url (note) | text"`` -> HTML: links for URLs, escaped text otherwise (local file
    paths cited by what they are, :func:`source_text`; a citation repeated is given once)."""
    if (
        sources is None
        or (isinstance(sources, float) and math.isnan(sources))
        or str(sources) == ""
    ):
        return ""
    parts, seen = [], set()
    for part in str(sources).split(" | "):
        p = source_text(part.strip())
        if p in seen or (p == ARTICLE_CITATION and any(x.startswith(p) for x in seen)):
            continue
        seen.add(p)
        url = p.split(" ", 1)[0]
        if url.startswith(("https://", "http://")):
            rest = p[len(url) :].strip()
            parts.append(
                f'<a href="{escape(url)}">{escape(url)}</a>' + (f" {escape(rest)}" if rest else "")
            )
        else:
            parts.append(escape(p))
    return "<br>".join(parts)


def download_link(data: bytes, name: str, mime: str, text: str) -> str:
    """An ``<a download>`` link that holds ``data`` itself (works offline; fine up to a few MB)."""
    payload = base64.b64encode(data).decode()
    return f"<a download='{name}' href='data:{mime};base64,{payload}'>{text}</a>"


#: How a column is formatted: a function value -> HTML. Columns not listed: numbers with
#: thousands separators (4 significant digits below 100), text escaped.
FORMATS: dict[str, Callable[[Any], str]] = {
    "n_gpus": lambda v: number(v, 0),
    "racks": lambda v: number(v, 0),
    "nodes": lambda v: number(v, 0),
    "wall_days": lambda v: number(v, 1),
    "time_to_result_days": lambda v: number(v, 1),
    "lead_time_days": lambda v: number(v, 0),
    "facility_kw": lambda v: number(v, 0),
    "cost_per_run_usd": usd,
    "cost_per_year_usd": usd,
    "first_year_cost_usd": usd,
    "capex_usd": usd,
    "staff_usd_per_year": usd,
    "energy_kwh": lambda v: number(v, 0),
    "co2e_kg": lambda v: number(v, 0),
    "cost_per_run_at_low": usd,
    "cost_per_run_at_high": usd,
    "swing_usd": usd,
    "share": lambda v: share_text(float(v)),
    "mfu": lambda v: f"{float(v):.0%}",
}

#: Column titles for a reader (the frame's names are kept where they read well).
TITLES = {
    "accelerator": "accelerator",
    "n_gpus": "GPUs",
    "acquisition": "acquisition",
    "wall_days": "run [days]",
    "time_to_result_days": "decision to result [days]",
    "cost_per_run_usd": "cost per run",
    "cost_per_year_usd": "cost per year",
    "first_year_cost_usd": "first-year cost",
    "facility_kw": "facility [kW]",
    "staff_usd_per_year": "platform engineers a year",
    "energy_kwh": "energy per run [kWh]",
    "co2e_kg": "CO2e per run [kg]",
    "failed": "why not feasible",
    "cost_per_run_at_low": "cost per run at low",
    "cost_per_run_at_high": "cost per run at high",
    "swing_usd": "swing",
    "flips": "changes the pick",
}


#: Columns of identifiers (``memory_traffic_bytes_per_token_layer_dmodel``): ``class="id"``, so a
#: printed page may break them anywhere rather than run off the paper.
ID_COLUMNS = frozenset({"parameter", "field", "accelerator", "for"})


#: A dollar amount already written as text (``$55.6M``, ``$366,048``, ``-$2.6M``): a number cell,
#: right-aligned and never broken inside (a phone's narrow table wrapped ``$55.6`` / ``M``).
_MONEY_TEXT = re.compile(r"^[-+]?\$[\d,]+(\.\d+)?[KMB]?$")


def cell(col: str, v: Any, raw: bool = False) -> str:
    """One ``<td>`` of column ``col``: formatted by :data:`FORMATS`, a number, or escaped text
    (``yes`` / ``no`` for booleans, lists joined by ``; ``; a dollar amount as text is a number
    cell); ``raw`` inserts ``v`` as HTML."""
    if raw:
        return f"<td>{'' if v is None else v}</td>"
    if isinstance(v, (list, tuple)):
        v = "; ".join(map(str, v))
    if v is None or (isinstance(v, float) and math.isnan(v) and col not in FORMATS):
        return "<td></td>"
    if col in FORMATS:
        try:
            return f'<td class="num">{FORMATS[col](v)}</td>'
        except (TypeError, ValueError):
            return f"<td>{escape(v)}</td>"
    if isinstance(v, str) and _MONEY_TEXT.match(v):
        return f'<td class="num">{escape(v)}</td>'
    if isinstance(v, (bool, str)) or not isinstance(v, (int, float)):
        attr = ' class="id"' if col in ID_COLUMNS else ""
        shown = "yes" if v is True else "no" if v is False else readable(v)
        return f"<td{attr}>{escape(shown)}</td>"
    v = float(v)
    return f'<td class="num">{number(v, 0) if abs(v) >= 100 else escape(f"{v:.4g}")}</td>'


def _is_number_column(df: pd.DataFrame, col: str) -> bool:
    """A column of numbers, or of dollar amounts written as text (blanks aside): its title is
    right-aligned over its cells."""
    values = df[col]
    if col in FORMATS:
        return True
    if pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values):
        shown = [v for v in values if isinstance(v, str) and v]
        return bool(shown) and all(_MONEY_TEXT.match(v) for v in shown)
    return pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)


def html_table(df: pd.DataFrame, raw: Iterable[str] = ()) -> str:
    """A plain HTML table of ``df`` (escaped, numbers right-aligned, no index); the columns in
    ``raw`` hold HTML and are inserted as is."""
    raw = set(raw)
    head = "".join(
        f'<th class="num">{escape(TITLES.get(c, c))}</th>'
        if c not in raw and _is_number_column(df, c)
        else f"<th>{escape(TITLES.get(c, c))}</th>"
        for c in df.columns
    )
    rows = [
        "<tr>" + "".join(cell(c, v, c in raw) for c, v in zip(df.columns, r)) + "</tr>"
        for r in df.itertuples(index=False, name=None)
    ]
    return (
        f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n"
        + "\n".join(rows)
        + "\n</tbody>\n</table>"
    )


def pick_columns(df: pd.DataFrame, wanted: Iterable[str]) -> pd.DataFrame:
    """The columns of ``wanted`` that ``df`` has, in that order (all of ``df`` if none), with a
    fresh 0..n-1 index."""
    cols = [c for c in wanted if c in df.columns]
    return (df[cols] if cols else df).reset_index(drop=True)


def _people_value(col: str, v: Any) -> str:
    """One value of column ``col`` as :func:`people_table` shows it."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if not isinstance(v, (int, float, np.integer, np.floating)):
        return readable(v)
    v = float(v)
    if col.startswith("usd_per_"):  # a unit price: cents matter ($0.0293 per million tokens)
        return f"${v:.3g}" if abs(v) < 100 else money_text(v)
    if col.endswith("params") or col.endswith("tokens") and not col.endswith("per_s"):
        return params_label(v)
    if col.endswith("_usd"):
        return usd(v)
    if col in ("mfu", "goodput", "share") or col.endswith(("_fraction", "_mfu")):
        return f"{v:.1%}"
    if col.endswith("_days"):
        return number(v, 1)
    if abs(v) >= 1e15:  # FLOP counts: a power of ten reads better than 25 digits
        return readable(f"{v:.2e}")
    if col.endswith("_hours") or abs(v) >= 1000:
        return number(v, 0)
    return plain_number(float(f"{v:.4g}"))


def people_frame(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with every value as text a reader should see: parameter and token counts in short
    (``70B``, ``1T``), dollars, shares as percentages, days to one decimal, large numbers with
    thousands separators, no scientific notation (``7.000000e+10`` becomes ``70B``)."""
    return pd.DataFrame(
        {c: [_people_value(str(c), v) for v in df[c]] for c in df.columns}, index=df.index
    )


def people_table(df: pd.DataFrame):
    """:func:`people_frame` of ``df`` for display in a notebook (a pandas ``Styler``): its table
    carries MathJax's ignore classes, so JupyterLab does not read "$1,001,950 ... $2,003,899" as
    TeX, and a fixed id, so stored outputs do not change from run to run. The numbers themselves
    stay in ``df`` for analysis."""
    return (
        people_frame(df)
        .style.set_uuid("people")
        .set_table_attributes('class="dataframe mathjax_ignore tex2jax_ignore"')
    )
