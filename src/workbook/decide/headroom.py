"""How far one of the pick's numbers, its estimated price or its run time, can rise before the
same rule picks another option: the margin a quote or a pilot run is held against
(:func:`price_headroom`, :func:`time_headroom`; the headline's "It stays the pick up to ...").

Where the option picked beyond that margin is another part whose number is estimated the same
way as the pick's (:func:`shares_price_estimate`, :func:`shares_speed_estimate`: MI350X beside
MI355X, one rent estimate and one architecture), the margin only says which of the two twins to
take; ``joint=True`` moves both together, the margin of the choice of that estimate itself."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .evaluate import TieRule, best_index, evaluate_arrays

#: How far a pick's estimated price, or its run time, is searched for the factor at which another
#: option becomes the pick [x]: ten times an estimate is another market (or another stack), not a
#: quote that came in high or a pilot run that came in slow.
HEADROOM_MAX = 10.0
#: Grid points per pass of that search: each pass narrows the bracket around the first factor
#: that changes the pick to one grid step of the last (three passes over 1-10x: 0.001 %).
HEADROOM_POINTS = 65
#: The search stops when the bracket is narrower than this ratio [x]: the headline says the
#: margin to 0.1 % rounded down from the largest factor checked that keeps the pick, so that
#: factor is within a hundredth of that of where the pick changes.
HEADROOM_RESOLUTION = 1.00001


@dataclass(frozen=True)
class Headroom:
    """How far one of a pick's numbers (its price, its run time) can rise before another option is
    the pick.

    ``factor`` [x] is the largest checked at which the pick holds, within
    :data:`HEADROOM_RESOLUTION` of one at which it does not (1: it changes at the first step),
    ``inf`` when it holds up to ``limit`` (:data:`HEADROOM_MAX`); ``other`` the row position in
    the options table of the pick just above it (-1: none feasible; meaningless when ``factor``
    is inf)."""

    factor: float
    other: int
    limit: float = HEADROOM_MAX


@dataclass(frozen=True)
class Margins:
    """A pick's margin on one estimated number and, where the option picked beyond it is a twin
    estimated the same way, the margin with both moved (:func:`margins`); ``then`` /
    ``joint_then``: the rows of the options picked beyond each (None: nothing feasible there,
    or no change up to the limit)."""

    headroom: Headroom
    then: pd.Series | None
    joint: Headroom | None = None
    joint_then: pd.Series | None = None

    @property
    def factor(self) -> float:
        return self.headroom.factor

    @property
    def joint_factor(self) -> float:
        return math.nan if self.joint is None else self.joint.factor

    @property
    def said(self) -> tuple:
        """What the caveat sentences take (:mod:`workbook.decide.caveats`): headroom, then,
        joint, joint_then."""
        return self.headroom, self.then, self.joint, self.joint_then


def margins(s, o: pd.DataFrame, pos: int, rule: TieRule, headroom, twins) -> Margins:
    """``headroom`` (:func:`price_headroom` or :func:`time_headroom`) of the pick at row position
    ``pos``, and again with ``joint=True`` when the option it hands the pick to is on another
    part estimated the same way (``twins``: :func:`shares_price_estimate` or
    :func:`shares_speed_estimate`)."""

    def row(h: Headroom) -> pd.Series | None:
        return o.iloc[h.other] if h.other >= 0 and math.isfinite(h.factor) else None

    h = headroom(s, o, pos, rule)
    then = row(h)
    if then is None or not twins(o.iloc[pos], then):
        return Margins(h, then)
    joint = headroom(s, o, pos, rule, joint=True)
    return Margins(h, then, joint, row(joint))


def price_headroom(
    s, o: pd.DataFrame, pos: int, rule: TieRule, joint: bool = False, limit: float = HEADROOM_MAX
) -> Headroom:
    """How far the price of the pick at row position ``pos`` (an estimate, or a price derived
    from others: ``price_derivation``) can rise before the same rule (:func:`best_index`) picks
    another option.

    The price is the part's, not one cluster's: every option on the same part, rented or bought
    as the pick is, whose price is the same kind of unquoted figure (an estimate; or derived by
    the same formula, the 1-year reservation of every cluster size) moves by the same factor (a
    quote that comes in 20 % high for 128 GPUs does for 64 too); every other option keeps its
    price. ``joint``: every option whose price is the same estimate, or derived the same way, moves
    too (:func:`shares_price_estimate`, any part). ``limit``: the largest factor searched (for a
    price derived with a discount, the discount at none:
    :func:`workbook.catalog.derived.undiscounted_factor`; else :data:`HEADROOM_MAX`)."""
    best = o.iloc[pos]
    name = "buy_price_factor" if best["is_buy"] else "rent_price_factor"

    def same(sub: pd.DataFrame) -> np.ndarray:
        moves = sub["is_buy"].to_numpy(bool) == bool(best["is_buy"])
        if best["price_derivation"]:
            moves &= sub["price_derivation"].to_numpy(object) == best["price_derivation"]
        else:
            moves &= ~sub["price_sourced"].to_numpy(bool)
            if joint:
                moves &= sub["price_basis"].to_numpy(object) == best["price_basis"]
        if joint:
            return moves
        return moves & (sub["accelerator"].to_numpy(object) == best["accelerator"])

    return _headroom(s, o, pos, rule, name, same, limit)


def time_headroom(s, o: pd.DataFrame, pos: int, rule: TieRule, joint: bool = False) -> Headroom:
    """How many times its estimated run time the pick at row position ``pos`` can take before the
    same rule (:func:`best_index`) picks another option.

    The speed is the part's and its stack's, not one cluster's: every option on the same part,
    rented or bought, runs that many times longer (and so costs more where it pays by the hour,
    and meets the deadline less often); every other option keeps its time. ``joint``: every
    option whose speed is estimated the same way moves too (:func:`shares_speed_estimate`,
    any part)."""
    best = o.iloc[pos]

    def same(sub: pd.DataFrame) -> np.ndarray:
        if joint:
            return _same_speed_estimate(sub, best)
        return sub["accelerator"].to_numpy(object) == best["accelerator"]

    return _headroom(s, o, pos, rule, "time_factor", same)


def shares_price_estimate(best: pd.Series, other: pd.Series) -> bool:
    """``other`` is on another part, rented or bought as the pick ``best`` is, and its price is
    the same estimate: neither sourced, and the same basis in the same words (one method on one
    date, data/prices.csv: MI350X's and MI355X's rent are both MI300X's on-demand rent scaled by
    one MI350-series purchase price); or, for a derived pick, derived by the same formula
    (``price_derivation``: every 1-year reservation is its part's on-demand price less one
    discount). A quote that finds one low finds the other low too."""
    if other["accelerator"] == best["accelerator"] or bool(other["is_buy"]) != bool(best["is_buy"]):
        return False
    if best["price_derivation"]:
        return other["price_derivation"] == best["price_derivation"]
    return not (best["price_sourced"] or other["price_sourced"]) and (
        other["price_basis"] == best["price_basis"]
    )


def shares_speed_estimate(best: pd.Series, other: pd.Series) -> bool:
    """``other`` is on another part whose speed is estimated the same way as the pick's ``best``:
    the same architecture and software stack (data/accelerators.csv), and published evidence on
    neither part or on both (``time_band_widened`` alike): a pilot run that finds one slower
    than estimated would find the other slower too (MI350X and MI355X, both CDNA 4 on ROCm)."""
    same = _same_speed_estimate(other.to_frame().T, best)
    return other["accelerator"] != best["accelerator"] and bool(same[0])


def _same_speed_estimate(sub: pd.DataFrame, best: pd.Series) -> np.ndarray:
    """The rows of ``sub`` on the architecture and software stack of ``best``'s part, with
    published evidence as it has or has not."""
    return (
        (sub["architecture"].to_numpy(object) == best["architecture"])
        & (sub["software_stack"].to_numpy(object) == best["software_stack"])
        & (sub["time_band_widened"].to_numpy(bool) == bool(best["time_band_widened"]))
    )


def _headroom(
    s, o: pd.DataFrame, pos: int, rule: TieRule, knob: str, same, limit: float = HEADROOM_MAX
) -> Headroom:
    """The smallest factor of :func:`evaluate_arrays` keyword ``knob``, applied to the options
    ``same(options)`` selects, at which the pick at row position ``pos`` stops being the pick
    (searched up to ``limit``).

    Only options that pass every static constraint are evaluated (as the Monte Carlo: a price or
    a run time cannot make another one feasible on memory, scale or power), and only the moved
    ones over the grid (each option's figures are its own: the others' are evaluated once)."""
    keep = np.flatnonzero(o["static_ok"].to_numpy(bool))
    sub = o.iloc[keep]
    cols = np.flatnonzero(same(sub))
    moved_sub = sub.iloc[cols]
    here = int(np.flatnonzero(keep == pos)[0])
    base = evaluate_arrays(s, sub)
    keys = [k for k in _HEADROOM_KEYS if k in base]

    def picks(grid: np.ndarray) -> np.ndarray:
        ev_moved = evaluate_arrays(s, moved_sub, **{knob: grid[:, None]})
        ev = {}
        for k in keys:
            a = np.repeat(np.broadcast_to(base[k], (len(sub),))[None, :], len(grid), axis=0)
            a[:, cols] = np.broadcast_to(ev_moved[k], (len(grid), len(cols)))
            ev[k] = a
        return best_index(s, sub, ev, rule)

    lo, hi, other = 1.0, limit, None
    while other is None or hi / lo > HEADROOM_RESOLUTION:
        grid = np.geomspace(lo, hi, HEADROOM_POINTS)
        got = picks(grid)
        moved = np.flatnonzero(got != here)
        if not len(moved):  # only on the first pass: the bracket's top end has moved it since
            return Headroom(math.inf, -1, limit)
        i = int(moved[0])
        lo, hi, other = float(grid[max(i - 1, 0)]), float(grid[i]), int(got[i])
        if i == 0:
            break
    return Headroom(lo, -1 if other < 0 else int(keep[other]))


#: The :func:`evaluate_arrays` arrays :func:`best_index` reads (the probabilities for near-ties).
_HEADROOM_KEYS = ("feasible", "cost_per_run_usd", "time_to_result_days", "p_deadline", "p_budget")
