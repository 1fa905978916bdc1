"""Searching for the smallest change that makes an infeasible scenario feasible.

:class:`Trial` evaluates changed scenarios as the engine evaluates any (the same sweep,
constraints and :func:`workbook.decide.best_index`), sharing the base scenario's sweep where the
change allows; :func:`least` finds the smallest value of a number that makes something feasible,
by steps and then bisection. :mod:`workbook.decide.remedies` says which changes to try and how to
tell them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import pandas as pd

from ..catalog import Catalog
from .evaluate import TieRule, best_index, evaluated, pick_inputs
from .options import build_options, option_sweep
from .scenario import Scenario

#: Multipliers of a number the reader can move, tried in order until one makes something
#: feasible; the value reported is then bisected between that step and the one before [x].
STEPS = (1.25, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0, 100.0, 1000.0)
#: Most bisection steps between a step that fails and the next that works; they stop once one
#: unit of the field (a day, a budget's third significant figure) separates the two.
BISECTIONS = 40
#: The scenario fields whose change leaves every static constraint as it was: their options are
#: re-evaluated, not rebuilt.
MOVING_FIELDS = frozenset({"deadline_days", "budget_usd", "confidence"})
#: The scenario fields the sweep reads (:func:`workbook.decide.sweep`: the parts, the counts, the
#: model): a change of one is swept again.
SWEPT_FIELDS = frozenset({"n_tokens", "accelerators", "max_gpus"})


class Trial:
    """Evaluations of changed scenarios, sharing the base scenario's sweep where they can."""

    def __init__(self, s: Scenario, cat: Catalog):
        self.s, self.cat, self.rule = s, cat, TieRule.from_catalog(cat)
        self._est = option_sweep(s, cat)
        self._built = {(): build_options(s, self._est, cat)}

    def options(self, update: dict) -> tuple[Scenario, pd.DataFrame]:
        """The changed scenario and its evaluated options. The static part of an update (any
        field but :data:`MOVING_FIELDS`) is built once per distinct value and kept."""
        s2 = self.s.replace(**update)
        static = {k: v for k, v in update.items() if k not in MOVING_FIELDS}
        key = tuple(sorted((k, repr(v)) for k, v in static.items()))
        if key not in self._built:
            est = self._est
            if set(static) & SWEPT_FIELDS:
                est = option_sweep(s2, self.cat)
            self._built[key] = build_options(s2, est, self.cat)
        return s2, evaluated(s2, self._built[key])

    def pick(self, update: dict) -> tuple[Scenario, pd.Series] | None:
        """The option the engine picks after ``update``, or None when nothing is feasible."""
        s2, o = self.options(update)
        if not o["feasible"].any():
            return None
        pos = int(best_index(s2, o, pick_inputs(o), self.rule)[0])
        return (s2, o.iloc[pos]) if pos >= 0 else None


def largest(field: str) -> float:
    """The largest value :class:`Scenario` takes for ``field`` (its ``le`` constraint)."""
    return float(next(c.le for c in Scenario.model_fields[field].metadata if hasattr(c, "le")))


def least(
    s: Scenario,
    trial: Trial,
    field: str,
    fmt: Callable[[float], str],
    words: str,
    base: dict | None = None,
) -> Iterator[tuple[str, dict]]:
    """The smallest value of ``field`` above the scenario's that makes something feasible (with
    ``base`` changed too): the first of :data:`STEPS` that does, or else the largest value the
    field takes (:func:`largest`; every step is at most that), then
    halvings between it and the step before until one unit of the field apart (:data:`BISECTIONS`
    at most), then the smallest value in that unit that is enough."""
    base, cap = base or {}, largest(field)
    today = float(getattr(s, field))
    lo, hi = today, None
    # A zero budget has no multiple: powers of ten from $1,000 instead. The field's largest value
    # comes last: a $50,000 budget for a run that needs $174M (3,480x) found no budget at all.
    tries = [today * m for m in STEPS] if today > 0 else [10.0**k for k in range(3, 12)]
    tries.append(cap)
    for v in tries:
        v = min(v, cap)
        if feasible(trial, {**base, field: v}):
            hi = v
            break
        lo = v
        if v >= cap:
            break
    if hi is None:
        return
    for _ in range(BISECTIONS):  # until one unit of the field separates too little and enough
        if hi - lo <= _unit(field, hi):
            break
        mid = _round_up(field, (lo + hi) / 2)
        if mid >= hi:
            break
        lo, hi = (lo, mid) if feasible(trial, {**base, field: mid}) else (mid, hi)
    above = _unit_above(field, lo)  # the smallest value in the field's unit that may be enough
    hi = above if above <= hi and feasible(trial, {**base, field: above}) else _round_up(field, hi)
    yield f"{words.capitalize()} {fmt(hi)} (today {fmt(today)})", {field: hi}


def nearest_working(works: Callable[[int], bool], good: int, bad: int) -> int:
    """The whole number nearest ``bad`` that still ``works``, halving between ``good`` (which
    works) and ``bad`` (which does not, and is never tried): the fewest platform engineers from
    above, the most runs a year from below."""
    while abs(bad - good) > 1:
        mid = (good + bad) // 2
        good, bad = (mid, bad) if works(mid) else (good, mid)
    return good


def feasible(trial: Trial, update: dict) -> bool:
    return bool(trial.options(update)[1]["feasible"].any())


def _round_up(field: str, v: float) -> float:
    """``v`` rounded up to the field's unit (:func:`_unit`)."""
    u = _unit(field, v)
    return math.ceil(v / u - 1e-9) * u


def _unit(field: str, v: float) -> float:
    """The unit a value of ``field`` is given in: a day, a week; a budget's third significant
    figure."""
    if field == "budget_usd":
        return float(10 ** max(0, math.floor(math.log10(max(v, 1.0))) - 2))
    return 1.0


def _unit_above(field: str, v: float) -> float:
    """The smallest multiple of the field's unit above ``v``."""
    u = _unit(field, v)
    return (math.floor(v / u + 1e-9) + 1) * u
