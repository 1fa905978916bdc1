"""What the headline adds to a pick that rests on something unchecked: an estimated price, or a
time band widened because its part has no published evidence; each with the best option that
does not rest on it (:func:`workbook.decide.recommend.best_among`). Each caveat is its own
sentences (no leading space): the headline ends with them, and the app and the memo set them
apart from the pick (:attr:`workbook.decide.Recommendation.caveats`)."""

from __future__ import annotations

import math

import pandas as pd

from ..text import duration_text
from .band_reason import missing_evidence
from .explain import delta_text, option_phrase
from .headroom import Headroom


def estimate_caveat(
    best: pd.Series,
    sourced: pd.Series | None,
    headroom: Headroom | None = None,
    then: pd.Series | None = None,
) -> str:
    """Appended to the headline of a pick whose price is not sourced: its basis, how far that
    price can rise before another option is the pick (``headroom``; ``then``: that option's row,
    None when nothing is feasible there), and the option the same rule picks among those with a
    sourced price (``sourced``) with the difference."""
    basis = best["price_basis"].removeprefix("estimate: ")  # the sentence says it already
    said = f"Its price is an estimate, not a quote: {basis}."
    if headroom is not None:
        said += headroom_sentence(best, headroom, then)
    if sourced is None:
        return said + " No feasible option has a sourced price."
    return said + alternative_sentence("with sourced prices", sourced, best)


def headroom_sentence(best: pd.Series, h: Headroom, then: pd.Series | None) -> str:
    """`` It stays the pick up to $2.79 per GPU-hour, 6.6 % above the estimated $2.62; above
    that, rent on demand 128 x AMD Instinct MI350X is the pick (its price an estimate too).``

    The price and the percentage are rounded down (a quote at the figure said keeps the pick)."""
    if not math.isfinite(h.factor):
        return f" It stays the pick even at {h.limit:g}x its estimated price."
    unit = "per GPU" if best["is_buy"] else "per GPU-hour"
    said = (
        f" It stays the pick up to {_price_down(best['price'] * h.factor, best['is_buy'])} {unit}, "
        f"{math.floor((h.factor - 1) * 1000) / 10:g} % above the estimated "
        f"{_price_down(best['price'], best['is_buy'])}; above that, "
    )
    if then is None:
        return said + "no option is feasible."
    also = " (its price an estimate too)" if not then["price_sourced"] else ""
    return said + f"{_then_phrase(then)} is the pick{also}."


def time_headroom_sentence(best: pd.Series, h: Headroom, then: pd.Series | None) -> str:
    """`` It stays the pick if its runs take up to 6.4 % longer than estimated (2.9 days, not
    2.8 days); longer than that, rent on demand 128 x AMD Instinct MI350X is the pick.``

    Under 2x the margin is a percentage, from 2x a factor (``up to 2.45x the estimate``), both
    rounded down (a run at the figure said keeps the pick); the two durations only where they
    read differently."""
    if not math.isfinite(h.factor):
        return f" It stays the pick even if its runs take {h.limit:g}x the estimate."
    if h.factor < 2:
        margin = math.floor((h.factor - 1) * 1000) / 10
        said, factor = f"up to {margin:g} % longer than estimated", 1 + margin / 100
    else:
        factor = math.floor(h.factor * 100) / 100
        said = f"up to {factor:.2f}x the estimate"
    longer, now = (duration_text(best["wall_days"] * f) for f in (factor, 1.0))
    if longer != now:
        said += f" ({longer}, not {now})"
    said = f" It stays the pick if its runs take {said}; longer than that, "
    if then is None:
        return said + "no option is feasible."
    return said + f"{_then_phrase(then)} is the pick."


def _then_phrase(then: pd.Series) -> str:
    """The option picked beyond a headroom, as the headline names an option."""
    return option_phrase(then["acquisition"], then["n_gpus"], then["name"])


def _price_down(usd: float, per_gpu: bool) -> str:
    """A price rounded down: to the dollar per GPU (``$24,150``), to the cent per GPU-hour."""
    if per_gpu:
        return f"${math.floor(usd):,.0f}"
    return f"${math.floor(usd * 100) / 100:,.2f}"


def evidence_caveat(
    best: pd.Series,
    checked: pd.Series | None,
    widening: float,
    said_already: bool = False,
    headroom: Headroom | None = None,
    then: pd.Series | None = None,
) -> str:
    """Appended to the headline of a pick whose time band is widened (its part has no published
    evidence of its level's kind): what it lacks, how many times its estimated run time it can
    take before another option is the pick (``headroom``; ``then``: that option's row, None when
    nothing is feasible there), and the option the same rule picks among those whose band is not
    (``checked``) with the difference; ``said_already``: that option is the sourced-price one
    the headline has just named."""
    said = (
        f"Its time rests on {missing_evidence(best)} on {best['name']}: its probabilities are "
        f"on a band widened {widening:g}x."
    )
    if headroom is not None:
        said += time_headroom_sentence(best, headroom, then)
    if checked is None:
        return said + " No feasible option has published evidence on its part."
    if said_already:
        return said + " The option with sourced prices has published evidence on its part."
    return said + alternative_sentence("with published evidence on its part", checked, best)


def thin_time_caveat(best: pd.Series, headroom: Headroom, then: pd.Series | None) -> str:
    """Appended to the headline of a pick with published evidence on its part whose runs, taking
    longer than estimated by less than its own band allows (the time headroom under its p90 /
    p50), make another option the pick: ``Its run time decides the pick within its own band
    (p90 422 days per run). It stays the pick if ...``."""
    return (
        f"Its run time decides the pick within its own band (p90 "
        f"{duration_text(best['wall_days_p90'])} per run)."
        + time_headroom_sentence(best, headroom, then)
    )


def alternative_sentence(label: str, other: pd.Series, best: pd.Series) -> str:
    """`` The best option {label}: rent on demand 512 x ..., 6.3 days per run, $173,407 per run
    (+36% vs the pick).``"""
    phrase = option_phrase(other["acquisition"], other["n_gpus"], other["name"])
    return (
        f" The best option {label}: {phrase}, {duration_text(other['wall_days'])} per run, "
        f"${other['cost_per_run_usd']:,.0f} per run "
        f"({delta_text(other['cost_per_run_usd'], best['cost_per_run_usd'])})."
    )
