"""Argument checks shared by every public function.

Messages name the argument, the value and what is allowed, and every failure is a ``ValueError``
(STYLE.md: validate with exceptions, never ``assert``).
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Iterable

import numpy as np
import pandas as pd

from .text import shown


def _is_array(x) -> bool:
    return isinstance(x, (np.ndarray, pd.Series, list, tuple))


def check_number(
    name: str,
    value: Any,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    positive: bool = False,
    integer: bool = False,
    allow_zero: bool = True,
) -> Any:
    """Check a scalar or array of numbers; return it unchanged (arrays as float ndarray/Series)."""
    allowed = _allowed_text(minimum, maximum, positive, integer)
    if isinstance(value, bool) or value is None or isinstance(value, str):
        raise ValueError(f"{name}={shown(value)} is not a number; allowed: {allowed}")
    if _is_array(value):
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} contains values that are not numbers; allowed: {allowed}"
            ) from None
        bad = ~np.isfinite(arr)
        if positive:
            bad |= arr <= 0
        if minimum is not None:
            bad |= arr < minimum
        if maximum is not None:
            bad |= arr > maximum
        if integer:
            bad |= arr != np.round(arr)
        if not allow_zero:
            bad |= arr == 0
        if bad.any():
            first = arr[bad.nonzero()[0][0]] if arr.ndim else arr
            raise ValueError(
                f"{name} has {int(bad.sum())} invalid value(s), e.g. {shown(float(first))}; "
                f"allowed: {allowed}"
            )
        return value if isinstance(value, pd.Series) else arr
    if not isinstance(value, numbers.Real):
        raise ValueError(
            f"{name}={shown(value)} is not a number (got {type(value).__name__}); "
            f"allowed: {allowed}"
        )
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name}={shown(value)} is not a finite number; allowed: {allowed}")
    if positive and v <= 0:
        raise ValueError(f"{name}={shown(value)} must be greater than 0; allowed: {allowed}")
    if not allow_zero and v == 0:
        raise ValueError(f"{name}={shown(value)} must not be 0; allowed: {allowed}")
    if minimum is not None and v < minimum:
        raise ValueError(f"{name}={shown(value)} is below the minimum; allowed: {allowed}")
    if maximum is not None and v > maximum:
        raise ValueError(f"{name}={shown(value)} is above the maximum; allowed: {allowed}")
    if integer and v != round(v):
        raise ValueError(f"{name}={shown(value)} is not a whole number; allowed: {allowed}")
    return value


def _allowed_text(minimum, maximum, positive, integer) -> str:
    kind = "a whole number" if integer else "a finite number"
    parts = []
    if positive:
        parts.append("> 0")
    if minimum is not None:
        parts.append(f">= {minimum:g}")
    if maximum is not None:
        parts.append(f"<= {maximum:g}")
    return kind + (" " + " and ".join(parts) if parts else "")


def check_choice(name: str, value: Any, allowed: Iterable[str]) -> Any:
    """Check a string (or array of strings) against the allowed values."""
    allowed = list(allowed)
    # Each distinct value once, in order of appearance (a sweep repeats a handful of names).
    values = pd.unique(np.asarray(value, dtype=object).ravel()) if _is_array(value) else [value]
    for v in values:
        if not isinstance(v, str) or v not in allowed:
            raise ValueError(
                f"{name}={shown(v)} is not allowed; allowed: {', '.join(map(str, allowed))}"
            )
    return value


def by_name(table: dict[str, Any], names) -> np.ndarray:
    """``table[name]`` for every name of the array ``names`` (one per row), looked up once per
    distinct name (a sweep repeats a handful): a float array. The names must be checked already
    (:func:`check_choice`)."""
    codes, uniques = pd.factorize(np.asarray(names, dtype=object).ravel())
    return np.array([table[u] for u in uniques], float)[codes]


def need_columns(name: str, df, columns) -> None:
    """Check that ``df`` is a DataFrame with every one of ``columns`` (the tables the guides'
    functions return, passed on to a chart or a summary)."""
    if not isinstance(df, pd.DataFrame):
        raise ValueError(
            f"{name} is a {type(df).__name__}; "
            "allowed: a DataFrame from the matching workbook.guides function"
        )
    missing = sorted(set(columns) - set(df.columns))
    if missing:
        raise ValueError(
            f"{name} lacks the column(s) {', '.join(missing)}; "
            "pass the table the matching workbook.guides function returns"
        )
