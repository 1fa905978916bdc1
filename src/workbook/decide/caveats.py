"""What the headline adds to a pick that rests on something unchecked: an estimated price, a
price derived from others (a 1-year reservation from the on-demand price and a discount), or a
time band widened because its part has no published evidence; each with the best option that
does not rest on it (:func:`workbook.decide.alternatives.best_among`); and, for a pick that meets
its deadline, budget or year's runs with less than ``surer_probability`` (data/assumptions.csv),
the best option that meets them all with at least that. Each caveat is its own sentences (no
leading space): the headline ends with them, and the app and the memo set them apart from the
pick (:attr:`workbook.decide.Recommendation.caveats`)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..text import duration_text, money_text, probability_text, runs_text, stack_name
from .band_reason import missing_evidence
from .explain import deadline_odds_text, delta_text, option_phrase, price_note
from .headroom import HEADROOM_MAX, Margins
from .scenario import Scenario


def estimate_caveat(
    best: pd.Series, sourced: pd.Series | None, margins: Margins | None = None
) -> str:
    """Appended to the headline of a pick whose price is not sourced: its basis, how far that
    price can rise before another option is the pick (``margins``: :func:`headroom_sentence`),
    and the option the same rule picks among those with a sourced price (``sourced``) with the
    difference."""
    basis = best["price_basis"].removeprefix("estimate: ")  # the sentence says it already
    said = f"Its price is an estimate, not a quote: {basis}."
    if margins is not None:
        said += headroom_sentence(best, margins)
    if sourced is None:
        return said + " No feasible option has a sourced price."
    named = _named_last(margins, sourced)
    return said + alternative_sentence("with sourced prices", sourced, best, named)


def derived_caveat(best: pd.Series, derivation: str, margins: Margins | None = None) -> str:
    """Appended to the headline of a pick whose price is derived from others, not quoted
    (``price_derivation``; ``derivation``: its formula in words and figures,
    :func:`workbook.catalog.derived.derivation_sentence`), with how far that price can rise
    before another option is the pick (``margins``: :func:`headroom_sentence`): ``Its price is
    derived, not quoted: 1-year reservation = default on-demand x (1 - the 1-year committed-use
    discount) = $5.25 x (1 - 0.41) = $3.10 per GPU-hour. It stays the pick up to $3.48 per
    GPU-hour, 12.4 % above the derived $3.10; above that, ...``."""
    said = f"Its price is derived, not quoted: {derivation} = "
    said += f"{_price_down(best['price'], best['is_buy'])} {_unit(best)}."
    return said + (headroom_sentence(best, margins) if margins is not None else "")


def _unit(best: pd.Series) -> str:
    """What the pick's price is per: ``per GPU`` bought, ``per GPU-hour`` rented."""
    return "per GPU" if best["is_buy"] else "per GPU-hour"


def _to_no_discount(h) -> bool:
    """The margin was searched only up to its price with no discount (a derived reservation:
    :func:`workbook.catalog.derived.undiscounted_factor`), not to :data:`HEADROOM_MAX`."""
    return h.limit != HEADROOM_MAX


def _unquoted(best: pd.Series) -> str:
    """How the pick's price is said in its margins: ``derived`` or ``estimated``."""
    return "derived" if best.get("price_derivation") else "estimated"


def headroom_sentence(best: pd.Series, m: Margins) -> str:
    """`` It stays the pick up to $2.79 per GPU-hour, 6.6 % above the estimated $2.62; above
    that, rent on demand 128 x AMD Instinct MI350X is the pick (its price an estimate too).``

    ``m``: the margin and the option picked beyond it (:func:`workbook.decide.headroom.margins`).
    Where that option's price is the same estimate (``m.joint``: the margin with both moved, the
    pick beyond it ``m.joint_then``; :func:`workbook.decide.headroom.shares_price_estimate`),
    the first margin only chooses between the two, and the sentence goes on: ``The price of AMD
    Instinct MI350X is the same estimate: if the quotes for both come in higher together, it
    stays the pick up to $3.71 per GPU-hour, 41.9 % above the estimated $2.62; above that, ...``;
    a joint margin within :data:`SAME_MARGIN` of the first is said in the same sentence: ``...
    above that, rent on demand 128 x AMD Instinct MI350X is the pick, or, if the quotes for both
    come in higher together (the two prices are one estimate), rent on spot 64 x ...``.
    The prices and the percentages are rounded down (a quote at the figure said keeps the
    pick)."""
    h, then, joint, joint_then = m.said
    kind = _unquoted(best)
    same = "derived the same way" if kind == "derived" else "the same estimate"
    together = (
        "if every price derived that way comes in higher together"
        if kind == "derived"
        else "if the quotes for both come in higher together"
    )
    if not math.isfinite(h.factor):
        if _to_no_discount(h):
            price = _price_down(best["price"] * h.limit, best["is_buy"])
            return f" It stays the pick even with no discount, at {price} {_unit(best)}."
        return f" It stays the pick even at {h.limit:g}x its {kind} price."
    said = f" It stays the pick {_price_margin(best, h.factor)}; above that, "
    if then is None:
        return said + "no option is feasible."
    if joint is None:
        return said + f"{_then_phrase(then)} is the pick{_estimate_too(best, then)}."
    if _same_margin(h, joint, joint_then):
        return said + (
            f"{_then_phrase(then)} is the pick, or, {together} (the two prices are "
            f"{'one estimate' if kind == 'estimated' else same}), {_then_phrase(joint_then)}"
            f"{_estimate_too(best, joint_then)}."
        )
    said += f"{_then_phrase(then)} is the pick. The price of {then['name']} is {same}: {together}, "
    if not math.isfinite(joint.factor):
        if _to_no_discount(joint):
            return said + "it stays the pick even with no discount on any of them."
        what = "the estimate" if kind == "estimated" else "the derived prices"
        return said + f"it stays the pick even at {joint.limit:g}x {what}."
    said += f"it stays the pick {_price_margin(best, joint.factor)}; above that, "
    if joint_then is None:
        return said + "no option is feasible."
    return said + f"{_then_phrase(joint_then)} is the pick{_estimate_too(best, joint_then)}."


#: A joint margin less than this above the single one (a fraction of the estimate: one
#: percentage point) is said with it, in one sentence: the two figures would differ only in their
#: last decimal, and a reader who saw "6.5 %" and then "6.6 %" took the second for news. The
#: sentence says the single, smaller margin: a quote or a pilot run under it keeps the pick
#: whether or not the twin moves with it. A presentation rule, not an input of the decision.
SAME_MARGIN = 0.01


def _same_margin(h, joint, joint_then) -> bool:
    """The joint margin is finite, names an option, and is within :data:`SAME_MARGIN` of the
    single one."""
    return (
        joint_then is not None
        and math.isfinite(h.factor)
        and math.isfinite(joint.factor)
        and joint.factor - h.factor < SAME_MARGIN
    )


def _price_margin(best: pd.Series, factor: float) -> str:
    """``up to $2.79 per GPU-hour, 6.6 % above the estimated $2.62``, rounded down."""
    return (
        f"up to {_price_down(best['price'] * factor, best['is_buy'])} {_unit(best)}, "
        f"{math.floor((factor - 1) * 1000) / 10:g} % above the {_unquoted(best)} "
        f"{_price_down(best['price'], best['is_buy'])}"
    )


def _estimate_too(best: pd.Series, then: pd.Series) -> str:
    """`` (its price an estimate too)`` for an option on another part whose price is not
    sourced (`` (its price an estimate)`` beside a derived pick), `` (its price derived too)``
    for one whose price is derived beside a derived pick; '' otherwise (a quote, or the pick's
    own part: the sentence is about it)."""
    if then["accelerator"] == best["accelerator"]:
        return ""
    if not then["price_sourced"]:
        return (
            " (its price an estimate)" if best["price_sourced"] else " (its price an estimate too)"
        )
    if then["price_derivation"] and best["price_derivation"]:
        return " (its price derived too)"
    return ""


def time_headroom_sentence(best: pd.Series, m: Margins) -> str:
    """`` It stays the pick if its runs take up to 6.4 % longer than estimated (2.9 days, not
    2.8 days); longer than that, rent on demand 128 x AMD Instinct MI350X is the pick.``

    Under 2x the margin is a percentage, from 2x a factor (``up to 2.45x the estimate``), both
    rounded down (a run at the figure said keeps the pick); the two durations only where they
    read differently. ``m``: the margin and the option picked beyond it
    (:func:`workbook.decide.headroom.margins`); where that option's speed is estimated the same
    way (``m.joint``: the margin with both slowed, the pick beyond it ``m.joint_then``;
    :func:`workbook.decide.headroom.shares_speed_estimate`) the sentence goes on: ``The speed
    of AMD Instinct MI350X is estimated the same way (CDNA 4 on ROCm, no published run on
    either): if both run slower together, it stays the pick if its runs take up to ...``, or,
    within :data:`SAME_MARGIN` of the first, ``...; longer than that, rent on demand 128 x AMD
    Instinct MI350X is the pick, or, if both run slower together (the two speeds are estimated
    the same way: CDNA 4 on ROCm, no published run on either), rent on spot 64 x ...``."""
    h, then, joint, joint_then = m.said
    if not math.isfinite(h.factor):
        return f" It stays the pick even if its runs take {h.limit:g}x the estimate."
    said = f" It stays the pick if its runs take {_time_margin(best, h.factor)}; longer than that, "
    if then is None:
        return said + "no option is feasible."
    if joint is None:
        return said + f"{_then_phrase(then)} is the pick{_estimate_too(best, then)}."
    evidence = (
        "no published run on either" if best["time_band_widened"] else "published evidence on both"
    )
    if _same_margin(h, joint, joint_then):
        return said + (
            f"{_then_phrase(then)} is the pick{_estimate_too(best, then)}, or, if both run "
            "slower together (the two speeds are estimated the same way: "
            f"{best['architecture']} on {stack_name(best['software_stack'])}, {evidence}), "
            f"{_then_phrase(joint_then)}"
            f"{_estimate_too(best, joint_then)}."
        )
    said += f"{_then_phrase(then)} is the pick{_estimate_too(best, then)}."
    said += (
        f" The speed of {then['name']} is estimated the same way ({best['architecture']} on "
        f"{stack_name(best['software_stack'])}, {evidence}): if both run slower together, "
    )
    if not math.isfinite(joint.factor):
        return said + f"it stays the pick even if its runs take {joint.limit:g}x the estimate."
    margin = _time_margin(best, joint.factor, durations=False)
    said += f"it stays the pick if its runs take {margin}; longer than "
    if joint_then is None:
        return said + "that, no option is feasible."
    return said + f"that, {_then_phrase(joint_then)} is the pick{_estimate_too(best, joint_then)}."


def _time_margin(best: pd.Series, factor: float, durations: bool = True) -> str:
    """``up to 6.4 % longer than estimated (2.9 days, not 2.8 days)`` or ``up to 2.45x the
    estimate``, rounded down; ``durations=False``: without the days (a second margin)."""
    if factor < 2:
        margin = math.floor((factor - 1) * 1000) / 10
        said, factor = f"up to {margin:g} % longer than estimated", 1 + margin / 100
    else:
        factor = math.floor(factor * 100) / 100
        said = f"up to {factor:.2f}x the estimate"
    longer, now = (duration_text(best["wall_days"] * f) for f in (factor, 1.0))
    if durations and longer != now:
        said += f" ({longer}, not {now})"
    return said


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
    margins: Margins | None = None,
    run_parts: frozenset = frozenset(),
) -> str:
    """Appended to the headline of a pick whose time band is widened (its part has no published
    evidence of its level's kind): what it lacks, how many times its estimated run time it can
    take before another option is the pick (``margins``: :func:`time_headroom_sentence`), and
    the option the same rule picks among those whose band is not (``checked``) with the
    difference; ``said_already``: that option is the sourced-price one the headline has just
    named; ``run_parts``: the parts with a published whole run (:func:`missing_evidence`)."""
    said = (
        f"Its time rests on {missing_evidence(best, run_parts)} on {best['name']}: its "
        f"probabilities are on a band widened {widening:g}x."
    )
    if margins is not None:
        said += time_headroom_sentence(best, margins)
    if checked is None:
        return said + " No feasible option has published evidence on its part."
    if said_already:
        return said + " The option with sourced prices has published evidence on its part."
    named = _named_last(margins, checked)
    return said + alternative_sentence("with published evidence on its part", checked, best, named)


def thin_time_caveat(best: pd.Series, margins: Margins) -> str:
    """Appended to the headline of a pick with published evidence on its part whose runs, taking
    longer than estimated by less than its own band allows (the time headroom under its p90 /
    p50), make another option the pick: ``Its run time decides the pick within its own band
    (p90 422 days per run). It stays the pick if ...``."""
    return (
        f"Its run time decides the pick within its own band (p90 "
        f"{duration_text(best['wall_days_p90'])} per run)." + time_headroom_sentence(best, margins)
    )


def _named_last(margins: Margins | None, other: pd.Series) -> bool:
    """The margins' last sentence has just named ``other`` (the pick beyond the joint margin)."""
    last = None if margins is None or margins.joint is None else margins.joint_then
    return last is not None and last.name == other.name


def alternative_sentence(label: str, other: pd.Series, best: pd.Series, named: bool = False) -> str:
    """`` The best option {label}: rent on demand 512 x ..., 6.3 days per run, $173,407 per run
    (+36% vs the pick).``; ``named``: the sentence before has just named it (`` That is the best
    option {label}: 21 days per run, ...``)."""
    figures = (
        f"{duration_text(other['wall_days'])} per run, "
        f"{money_text(other['cost_per_run_usd'])} per run"
        f"{price_note(other)} ({delta_text(other['cost_per_run_usd'], best['cost_per_run_usd'])})."
    )
    if named:
        return f" That is the best option {label}: {figures}"
    phrase = option_phrase(other["acquisition"], other["n_gpus"], other["name"])
    return f" The best option {label}: {phrase}, {figures}"


def least_probability(o: pd.DataFrame) -> np.ndarray:
    """Each option's lowest probability of the deadline, the budget and the year's runs
    (``p_deadline``, ``p_budget``, ``p_schedule``): the one its odds stand or fall on."""
    cols = [c for c in ("p_deadline", "p_budget", "p_schedule") if c in o]
    return np.min(np.column_stack([o[c].to_numpy(float) for c in cols]), axis=1)


def surer_caveat(s: Scenario, best: pd.Series, surer: pd.Series | None, level: float) -> str:
    """Appended to the headline of a pick that meets the deadline, the budget or the year's runs
    with less than ``level``: the price of more certainty, ``surer`` (the option the same rule
    picks among those that meet them all with at least ``level``), or that no feasible option
    does: ``To meet each of the deadline and the budget with 90 % probability or more: rent
    with a 1-year reservation 3072 x NVIDIA B200 (HGX B200, 180 GB), 173 days per run,
    $85,419,648 per run (+50% vs the pick); it finishes by day 365 with 96 % probability.``
    "Each of": the level is asked of each probability, as feasibility asks the confidence of
    each (:func:`least_probability`), not of all three together."""
    what = (
        f"the deadline, the budget and the year's {runs_text(s.runs_per_year)}"
        if s.runs_per_year > 1
        else "the deadline and the budget"
    )
    said = f"{probability_text(level)} probability or more"
    if surer is None:
        return f"No feasible option meets each of {what} with {said}."
    phrase = option_phrase(surer["acquisition"], surer["n_gpus"], surer["name"])
    return (
        f"To meet each of {what} with {said}: {phrase}, "
        f"{duration_text(surer['wall_days'])} per run, "
        f"{money_text(surer['cost_per_run_usd'])} per run{price_note(surer)} "
        f"({delta_text(surer['cost_per_run_usd'], best['cost_per_run_usd'])}); it "
        f"{deadline_odds_text(s, surer)}."
    )
