"""What would make an infeasible scenario feasible, one change at a time.

"Nothing meets every constraint" and five nearest misses leave the reader to guess which input to
move: a five-person team buying a 7B pre-training cluster saw misses that failed on the deadline
(276 days against 120) and would have moved the deadline, when allowing a rental (67 days) or one
platform engineer was the change that worked. :func:`remedies` tries each input the reader can
change, alone, and says what the engine would then pick:

- the scenario's own restrictions, lifted: every way to pay, every accelerator, estimated prices,
  used hardware, a liquid-cooling retrofit, a longer wait for hardware;
- the team: the fewest platform engineers that work, ROCm experience;
- the site: the site power the new pick needs;
- the numbers: the shortest deadline, the smallest budget, the lowest confidence (down to even
  odds), the largest cluster and the fewest training tokens that make something feasible, each
  found by bisection between the scenario's value and the first step that works
  (:func:`workbook.decide.remedy_search.least`);
- when none of these works alone, and no deadline and budget together: each change that is not
  a number with the smallest budget, and with the shortest deadline, that it needs; and when no
  one of those is enough, the levers needed together with the numbers they need
  (:mod:`workbook.decide.remedy_levers`).

Each change is evaluated as the engine evaluates any scenario (the same sweep, constraints and
:func:`workbook.decide.best_index`), so the option named is the one the reader gets after making
that change.

The remedies come in the order of :func:`_order`: those whose pick has a price a buyer can check
first, then one change before two, then the kind of change (restrictions, team, site, time and
money, confidence, tokens), the smaller move first among time and money. The headline names two
(:func:`headline_remedies`), the second to a different accelerator when one exists. A five-person
team with no platform engineer, 70B on 2T tokens in 60 days for $2M, read first "2 platform
engineers, and the pick is ... AMD Instinct MI355X ... at an estimated price", then "a team with
ROCm experience" for the same pick; a budget of $2.3M for B200 at published prices came fourth.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..catalog import Catalog
from ..text import (
    amount_text,
    days_text,
    money_text,
    params_label,
)
from .allowed import MAX_GPUS
from .explain import deadline_odds_text, option_phrase, price_note
from .remedy_levers import (
    BUDGET,
    DEADLINE,
    LONGEST,
    NO_BUDGET,
    days_words,
    lever_and_number,
    levers,
    lower_first,
    many_levers,
)
from .remedy_search import Trial, feasible, least, nearest_working
from .scenario import Scenario


@dataclass
class Remedy:
    """One change and what the engine picks after it."""

    #: The change in words: ``a deadline of 139 days (today 120)``.
    change: str
    #: The scenario fields changed.
    update: dict
    #: The option the engine picks after the change, in a sentence.
    outcome: str
    #: The picked option's accelerator (its name) and whether its price has a public source.
    part: str
    price_sourced: bool

    @property
    def sentence(self) -> str:
        """``Allow every way to pay (today: buy new), and the pick is rent ..., $167,673 per
        run.``"""
        return f"{self.change}, and the pick is {self.outcome}."


#: The kind of change a scenario field makes, in the order the remedies are told
#: (:func:`_order`): the reader's own restrictions, the team, the site, time and money (the
#: smaller move first), the odds asked for, and last what is trained and how often.
KIND = {
    **dict.fromkeys(
        (
            "acquisition_modes",
            "accelerators",
            "sourced_prices_only",
            "used_hardware_allowed",
            "allow_liquid_retrofit",
        ),
        0,
    ),
    "platform_engineers": 1,
    "rocm_experience": 1,
    "site_power_kw": 2,
    **dict.fromkeys(("lead_time_tolerance_weeks", "deadline_days", "budget_usd", "max_gpus"), 3),
    "confidence": 4,
    "n_tokens": 5,
    "runs_per_year": 5,
}


def headline_remedies(rs: list[Remedy]) -> list[Remedy]:
    """The two remedies the headline names (the reasons give them all): the first, then the
    next to a different accelerator when there is one (a second way to the same pick tells the
    reader less than a second pick), else the next."""
    if len(rs) <= 2:
        return list(rs)
    return [rs[0], next((r for r in rs[1:] if r.part != rs[0].part), rs[1])]


THINGS = {1: "one thing", 2: "two things", 3: "three things", 4: "four things"}


def remedy_reason(r: Remedy) -> str:
    """One remedy as a reason: ``Change one thing and it is feasible: allow ...`` (``two
    things`` for a deadline or a cluster size with the budget, or a lever with a number; more
    for the levers needed together)."""
    things = THINGS.get(len(r.update), f"{len(r.update)} things")
    return f"Change {things} and it is feasible: {lower_first(r.sentence)}"


def remedies_text(rs: list[Remedy]) -> str:
    """The headline's remedies after its first sentence ('' for none): `` Change one thing and
    it is feasible: allow ...; or: a deadline of ...``."""
    if not rs:
        return ""
    return " " + remedy_reason(rs[0]) + "".join(f" Or: {lower_first(r.sentence)}" for r in rs[1:])


def remedies(s: Scenario, cat: Catalog, o: pd.DataFrame) -> list[Remedy]:
    """Each single change of this module's that makes the infeasible scenario ``s`` (its options
    ``o``) feasible, with the option the engine then picks; when no deadline, budget or cluster
    size alone does, the pairs: the shortest deadline with money no object and then the smallest
    budget at it, the smallest budget with time no object and then the shortest deadline within
    it, and the smallest cluster with its budget; when none of those works, each lever with the
    number it needs, then the levers needed together (:mod:`workbook.decide.remedy_levers`). In
    the order of :func:`_order`."""
    trial = Trial(s, cat)
    out = []
    for change, update in _changes(s, o, trial):
        got = trial.pick(update)
        if got is not None:
            out.append(_remedy(change, update, *got))
    alone = {k for r in out for k in r.update}
    if not alone & {"deadline_days", "budget_usd", "max_gpus"}:
        for pair in (
            _time_and_money(s, trial),
            _money_and_time(s, trial),
            _size_and_money(s, trial),
        ):
            got = trial.pick(pair[1]) if pair is not None else None
            # Both ends of the time-and-money trade may meet at the same deadline and budget.
            if got is not None and all(r.update != pair[1] for r in out):
                out.append(_remedy(*pair, *got))
    for more in (lever_and_number, many_levers):  # each only when nothing before works
        if out:
            break
        for change, update in more(s, o, trial):
            got = trial.pick(update)
            if got is not None and all(r.update != update for r in out):
                out.append(_remedy(change, update, *got))
    return _order(s, out)


def _remedy(change: str, update: dict, s2: Scenario, r: pd.Series) -> Remedy:
    return Remedy(change, update, _outcome(s2, r), str(r["name"]), bool(r["price_sourced"]))


def _order(s: Scenario, rs: list[Remedy]) -> list[Remedy]:
    """The remedies in the order they are told: a pick at a price a buyer can check before one
    at an estimated price (the run's odds already carry the thinner evidence of a part, its
    price does not), one change before two, then by :data:`KIND`, and among time and money the
    smaller move first (the ratio to today's value, either way: a budget 15 % up before a
    deadline 4.6 times as long). The sort is stable: equal keys keep the order tried."""

    def move(r: Remedy) -> float:
        (field, v), *more = r.update.items()
        today = getattr(s, field)
        if more or KIND[field] != 3 or not today or not v:
            return 0.0
        return abs(math.log(float(v) / float(today)))

    return sorted(
        rs,
        key=lambda r: (
            not r.price_sourced,
            len(r.update) > 1,
            min(KIND[k] for k in r.update),
            move(r),
        ),
    )


def _outcome(s2: Scenario, r: pd.Series) -> str:
    """The changed scenario's pick, with every odds the headline gives: "accept 69% odds" read
    "(by day 60 with 98 % probability)", and the 70 % on the budget that needed it was not said."""
    return (
        f"{option_phrase(r['acquisition'], r['n_gpus'], r['name'])}, "
        f"{days_text(r['time_to_result_days'])} from the decision to a finished run "
        f"({deadline_odds_text(s2, r)}), {money_text(r['cost_per_run_usd'])} per run"
        f"{price_note(r)}"
    )


def _changes(s: Scenario, o: pd.DataFrame, trial: Trial) -> Iterator[tuple[str, dict]]:
    """(change in words, scenario update) for every lever that may matter: the scenario's own
    restrictions, the team and the site (:func:`workbook.decide.remedy_levers.levers`), then
    the numbers."""
    yield from levers(s, o, trial)
    if s.lead_time_tolerance_weeks is not None:
        yield from least(s, trial, "lead_time_tolerance_weeks", _weeks, "accept a wait of")
    yield from least(s, trial, *DEADLINE)
    yield from least(s, trial, *BUDGET)
    if s.max_gpus < MAX_GPUS:
        yield from _fewest_gpus(s, trial)
    if s.confidence > 0.5:
        yield from _confidence(s, trial)
    yield from _fewer_tokens(s, trial)
    yield from _fewer_runs(s, trial)


def _weeks(v: float) -> str:
    return f"{v:g} weeks"


def _gpus(v: float) -> str:
    return f"{v:,.0f} GPUs"


def _fewest_gpus(s: Scenario, trial: Trial, base: dict | None = None):
    """The smallest cluster limit that makes something feasible (with ``base`` changed too): the
    fewest GPUs of a feasible option with no limit but the sweep's, checked at that limit."""
    base = base or {}
    _, o = trial.options({**base, "max_gpus": MAX_GPUS})
    n = o.loc[o["feasible"], "n_gpus"]
    if n.empty or not feasible(trial, {**base, "max_gpus": int(n.min())}):
        return
    least = int(n.min())
    yield f"Clusters up to {_gpus(least)} (today {_gpus(s.max_gpus)})", {"max_gpus": least}


def _with_money(s: Scenario, trial: Trial, first: tuple[str, dict] | None, today: str):
    """``first`` (found with money no object) and the smallest budget with it."""
    if first is None:
        return None
    money = next(least(s, trial, "budget_usd", amount_text, "", first[1]), None)
    if money is None:
        return None
    change = first[0].split(" (today")[0]
    return (
        f"{change} and a budget of {amount_text(money[1]['budget_usd'])} (today {today} and "
        f"{amount_text(s.budget_usd)})",
        {**first[1], **money[1]},
    )


def _time_and_money(s: Scenario, trial: Trial) -> tuple[str, dict] | None:
    """The shortest deadline with money no object, then the smallest budget at that deadline."""
    free = {"budget_usd": NO_BUDGET}
    days = next(least(s, trial, *DEADLINE, free), None)
    return _with_money(s, trial, days, days_words(s.deadline_days))


def _money_and_time(s: Scenario, trial: Trial) -> tuple[str, dict] | None:
    """The other end of the same trade: the smallest budget with time no object (the longest
    deadline a scenario takes), then the shortest deadline within that budget."""
    money = next(least(s, trial, *BUDGET, LONGEST), None)
    if money is None:
        return None
    days = next(least(s, trial, "deadline_days", days_words, "", money[1]), None)
    if days is None:
        return None
    b, d = money[1]["budget_usd"], days[1]["deadline_days"]
    return (
        f"A budget of {amount_text(b)} and a deadline of {days_words(d)} (today "
        f"{amount_text(s.budget_usd)} and "
        f"{days_words(s.deadline_days)})",
        {"budget_usd": b, "deadline_days": d},
    )


def _size_and_money(s: Scenario, trial: Trial) -> tuple[str, dict] | None:
    """The smallest cluster limit with money no object, then the smallest budget with it."""
    if s.max_gpus >= MAX_GPUS:
        return None
    gpus = next(_fewest_gpus(s, trial, {"budget_usd": NO_BUDGET}), None)
    return _with_money(s, trial, gpus, _gpus(s.max_gpus))


def _confidence(s: Scenario, trial: Trial) -> Iterator[tuple[str, dict]]:
    """The highest confidence under the scenario's (to even odds, in whole percent) at which
    something is feasible."""
    levels = np.round(np.arange(round(s.confidence * 100) - 1, 49, -1) / 100, 2)
    for c in levels:
        if feasible(trial, {"confidence": float(c)}):
            yield (
                f"Accept {c:.0%} odds on the deadline and budget (today {s.confidence:.0%})",
                {"confidence": float(c)},
            )
            return


def _fewer_tokens(s: Scenario, trial: Trial) -> Iterator[tuple[str, dict]]:
    """Train on fewer tokens: the first of three quarters, a half, a quarter that works."""
    tokens = s.n_tokens
    if not tokens:  # the default (20 x the parameters) is no number to shrink
        return
    for share in (0.75, 0.5, 0.25):
        if trial.pick({"n_tokens": tokens * share}) is not None:
            yield (
                f"Train on {params_label(tokens * share)} tokens (today {params_label(tokens)})",
                {"n_tokens": tokens * share},
            )
            return


def _fewer_runs(s: Scenario, trial: Trial) -> Iterator[tuple[str, dict]]:
    """The most whole runs a year, fewer than planned, at which something is feasible: a year
    of four 120-day runs cannot be, nor can a budget that pays for four runs when it pays for
    two. Bisected between one run (tried first) and one fewer than today."""
    today = s.runs_per_year
    hi = math.ceil(today) - 1
    if hi < 1 or trial.pick({"runs_per_year": 1.0}) is None:
        return
    lo = nearest_working(  # one run works; today's (rounded up) does not
        lambda n: trial.pick({"runs_per_year": float(n)}) is not None, 1, hi + 1
    )
    word = "run" if lo == 1 else "runs"
    yield f"Plan {lo} {word} a year (today {today:g})", {"runs_per_year": float(lo)}
