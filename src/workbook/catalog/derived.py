"""Derived prices: how a row of ``prices.csv`` follows from other prices and assumptions.

``data/price_derivations.csv`` states, for each derived price, its formula: factors joined by
``*`` or ``/``, each a default price (``accelerator_id:kind``), a global assumption of
``assumptions.csv`` (``parameter``, or ``(1 - parameter)``), or a number. For example the H100
1-year reservation is ``h100-sxm:rent-on-demand * (1 - reserved_1y_discount)``.

The shipped value of a derived row must agree with its formula (:func:`check_derivations`); when a
user override changes an input, :func:`follow_overrides` recomputes every derived row whose value
moves (chains included), unless the user overrode that row itself, which wins.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from .tables import CatalogError

FILE = "price_derivations.csv"
#: A stated derived value may differ from its formula by rounding: the rows state hourly prices in
#: cents and purchase prices in dollars, so by half a cent, or 1 % of the value, whichever is more.
ROUNDING_ABS_USD, ROUNDING_REL = 0.005, 0.01

_TOKEN = re.compile(
    r"\s*(?:(?P<op>[*/])|\(\s*1\s*-\s*(?P<minus>[a-z0-9_]+)\s*\)|(?P<num>\d+(?:\.\d+)?)"
    r"|(?P<ref>[a-z0-9][a-z0-9._-]*:[a-z0-9-]+)|(?P<param>[a-z][a-z0-9_]*))"
)


def price_column(kind: str) -> str:
    """The price column of a row of ``kind`` (``buy-*``: per GPU; ``rent-*``: per GPU-hour)."""
    return "price_usd_per_gpu" if kind.startswith("buy") else "price_usd_per_gpu_hour"


def parse_formula(formula: str, line: int | None = None) -> list[tuple[str, str, str]]:
    """``[(op, kind, text), ...]``: ``op`` is ``*`` or ``/``, ``kind`` one of ref, param, minus,
    num. A malformed formula raises :class:`CatalogError`."""
    terms, pos, op = [], 0, "*"
    text = str(formula)
    expect_term = True
    while pos < len(text.rstrip()):
        m = _TOKEN.match(text, pos)
        if m is None or (m.group("op") is not None) == expect_term:
            raise CatalogError(
                FILE,
                line,
                "formula",
                f"cannot read {text[:200]!r} at character {pos + 1}; allowed: factors "
                "(accelerator_id:kind, parameter, (1 - parameter), number) joined by * or /",
            )
        if m.group("op"):
            op = m.group("op")
        else:
            kind = next(k for k in ("minus", "num", "ref", "param") if m.group(k) is not None)
            terms.append((op, kind, m.group(kind)))
        expect_term = not expect_term
        pos = m.end()
    if expect_term:
        raise CatalogError(FILE, line, "formula", f"{text[:200]!r} is empty or ends with * or /")
    return terms


class _Evaluator:
    """Evaluates the formulas over one set of tables (derived bases through their own formula)."""

    def __init__(self, tables: dict[str, pd.DataFrame]):
        p = tables["prices"]
        self.prices = p
        der = tables["price_derivations"]
        self.formulas = dict(zip(der["price_id"], der["formula"]))
        d = p[p["is_default"]]
        self.default_id = {
            f"{a}:{k}": i for a, k, i in zip(d["accelerator_id"], d["kind"], d["price_id"])
        }
        a = tables["assumptions"]
        g = a[a["accelerator_id"].isna()]
        self.params = dict(zip(g["parameter"], g["value"].astype(float)))
        self.values: dict[str, float] = {}
        self._busy: set[str] = set()

    def kind(self, price_id: str) -> str:
        return self.prices.loc[self.prices["price_id"] == price_id, "kind"].iloc[0]

    def stated(self, price_id: str) -> float:
        row = self.prices[self.prices["price_id"] == price_id].iloc[0]
        return float(row[price_column(row["kind"])])

    def value(self, price_id: str) -> float:
        """The row's value: its formula's if it has one, else the stated value."""
        if price_id not in self.formulas:
            return self.stated(price_id)
        if price_id not in self.values:
            if price_id in self._busy:
                raise CatalogError(FILE, None, "formula", f"{price_id} depends on itself")
            self._busy.add(price_id)
            self.values[price_id] = self._evaluate(price_id)
            self._busy.discard(price_id)
        return self.values[price_id]

    def _term(self, kind: str, text: str, price_id: str) -> float:
        if kind == "num":
            return float(text)
        if kind == "ref":
            if text not in self.default_id:
                raise CatalogError(
                    FILE, None, "formula", f"{price_id}: no default price for {text!r}"
                )
            return self.value(self.default_id[text])
        if text not in self.params:
            raise CatalogError(
                FILE, None, "formula", f"{price_id}: {text!r} is not a global assumption"
            )
        return 1.0 - self.params[text] if kind == "minus" else self.params[text]

    def _evaluate(self, price_id: str) -> float:
        out = 1.0
        for op, kind, text in parse_formula(self.formulas[price_id]):
            v = self._term(kind, text, price_id)
            if op == "/" and v == 0:
                raise CatalogError(FILE, None, "formula", f"{price_id}: divides by zero ({text})")
            out = out * v if op == "*" else out / v
        return out


def check_derivations(tables: dict[str, pd.DataFrame]) -> None:
    """Every formula parses, names a price row and existing inputs, and agrees with the row's
    stated value within rounding (:data:`ROUNDING_ABS_USD`, :data:`ROUNDING_REL`)."""
    der = tables["price_derivations"]
    known = set(tables["prices"]["price_id"])
    ev = _Evaluator(tables)
    lines = der.attrs.get("lines", range(2, len(der) + 2))
    for line, pid, formula in zip(lines, der["price_id"], der["formula"]):
        if pid not in known:
            raise CatalogError(FILE, line, "price_id", f"{pid!r} is not a price_id of prices.csv")
        parse_formula(formula, line)
        computed, stated = ev.value(pid), ev.stated(pid)
        if not math.isfinite(computed) or abs(stated - computed) > max(
            ROUNDING_ABS_USD, ROUNDING_REL * abs(computed)
        ):
            raise CatalogError(
                "prices.csv",
                None,
                price_column(ev.kind(pid)),
                f"{pid} states {stated:g} but its formula {formula} gives {computed:.4g}",
            )


def follow_overrides(
    before: dict[str, pd.DataFrame], after: dict[str, pd.DataFrame], own: set[str]
) -> list[dict]:
    """Recompute, in ``after`` (in place), every derived price whose formula gives another value
    than in ``before``; rows in ``own`` (overridden by the user) keep the user's value and lose
    their formula. Returns one record per moved row (price_id, accelerator_id, kind, from, to,
    formula)."""
    der = after["price_derivations"]
    after["price_derivations"] = der[~der["price_id"].isin(own)].reset_index(drop=True)
    old, new = _Evaluator(before), _Evaluator(after)
    prices = after["prices"]
    moved = []
    der = after["price_derivations"]
    for pid, formula in zip(der["price_id"], der["formula"]):
        now = new.value(pid)
        if now == old.value(pid):
            continue
        was = old.stated(pid)
        mask = prices["price_id"] == pid
        kind = prices.loc[mask, "kind"].iloc[0]
        col = price_column(kind)
        prices.loc[mask, col] = now
        prices["notes"] = prices["notes"].astype(object)
        prices.loc[mask, "notes"] = f"recomputed after your overrides: {formula} = {now:.4g}"
        moved.append(
            {
                "price_id": pid,
                "accelerator_id": prices.loc[mask, "accelerator_id"].iloc[0],
                "kind": kind,
                "from": was,
                "to": now,
                "formula": formula,
            }
        )
    return moved


def generic_formula(formula: str, accelerator_id: str) -> str:
    """``formula`` with the part's own prices named by their kind only: two parts whose prices are
    derived by one rule read the same (``h100-sxm:rent-on-demand * (1 - reserved_1y_discount)``
    for H100 and its B200 twin both give ``rent-on-demand * (1 - reserved_1y_discount)``), so a
    quote that finds one rule off finds it off for both."""
    return re.sub(rf"(?<![a-z0-9._-]){re.escape(accelerator_id)}:", "", str(formula))


def _row(tables: dict[str, pd.DataFrame], price_id: str) -> pd.Series | None:
    """``price_id``'s row of data/price_derivations.csv, or None for a price with no formula."""
    der = tables["price_derivations"]
    rows = der[der["price_id"] == price_id]
    return None if rows.empty else rows.iloc[0]


def formula_figures(tables: dict[str, pd.DataFrame], price_id: str) -> str:
    """The formula of ``price_id`` with its inputs' values, as a reader checks it by hand:
    ``$5.25 x (1 - 0.41)``, a price per GPU-hour to the cent, per GPU to the dollar ('' for a row
    with no formula)."""
    row = _row(tables, price_id)
    if row is None:
        return ""
    ev = _Evaluator(tables)
    out = []
    for i, (op, kind, text) in enumerate(parse_formula(row["formula"])):
        if kind == "ref":
            usd = ev.value(ev.default_id[text])
            figure = f"${usd:,.0f}" if text.split(":")[1].startswith("buy") else f"${usd:,.2f}"
        elif kind == "minus":
            figure = f"(1 - {ev.params[text]:g})"
        else:
            figure = f"{ev._term(kind, text, price_id):g}"
        out.append(figure if i == 0 else f"{'x' if op == '*' else '/'} {figure}")
    return " ".join(out)


def derivation_sentence(tables: dict[str, pd.DataFrame], price_id: str) -> str:
    """A derived price in words and figures, for a reader who checks it: the rule its row of
    data/price_derivations.csv states and the formula's inputs, ``1-year reservation = default
    on-demand x (1 - the 1-year committed-use discount) = $5.25 x (1 - 0.41)`` ('' for a row
    with no formula)."""
    row = _row(tables, price_id)
    if row is None:
        return ""
    rule = str(row["notes"]).strip().rstrip(".")
    return f"{rule} = {formula_figures(tables, price_id)}"


def undiscounted_factor(tables: dict[str, pd.DataFrame], price_id: str) -> float:
    """How many times its value a derived price is with every discount of its formula (each
    ``(1 - parameter)`` term) at none: 1 / (1 - 0.41) = 1.695 for a 1-year reservation, the
    on-demand price it is derived from; (1 - 0.41) / (1 - 0.64) = 1.639 for H100's 3-year, the
    1-year contract it is derived from; NaN for a row with no formula or no such term. How far
    such a price can rise and stay what it is (a reservation dearer than on demand is not one)."""
    row = _row(tables, price_id)
    if row is None:
        return math.nan
    ev = _Evaluator(tables)
    terms = [(op, t) for op, k, t in parse_formula(row["formula"]) if k == "minus"]
    if not terms:
        return math.nan
    # each (1 - p) multiplied in comes out (x 1 / (1 - p)); one divided by goes back (x (1 - p))
    return math.prod((1.0 - ev.params[t]) ** (-1 if op == "*" else 1) for op, t in terms)
