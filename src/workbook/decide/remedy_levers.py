"""The changes that are not a number: the scenario's restrictions, its team and its site.

:func:`levers` gives each alone (the fewest platform engineers and the site power that work);
:func:`lever_and_number` each with the smallest budget or the shortest deadline it needs;
:func:`many_levers` the levers needed together when no one is enough, with the numbers they
need. :mod:`workbook.decide.remedies` tells them and orders them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import pandas as pd

from ..text import MODE_PHRASE, amount_text, kw_text
from .allowed import ACQUISITIONS
from .remedy_search import Trial, feasible, largest, least, nearest_working
from .scenario import Scenario

#: A budget that is no limit [USD] (Scenario's largest) and a deadline that is none (its
#: longest, ten years).
NO_BUDGET, LONGEST_DEADLINE = largest("budget_usd"), largest("deadline_days")
LONGEST = {"deadline_days": LONGEST_DEADLINE}


def days_words(v: float) -> str:
    """``139 days``; a fraction to one decimal (``2.3 days``)."""
    return f"{v:,.0f} days" if v == int(v) else f"{v:,.1f} days"


#: How the budget and the deadline are searched and told: (field, how it is written, words
#: before it), the arguments of :func:`workbook.decide.remedy_search.least`.
BUDGET = ("budget_usd", amount_text, "a budget of")
DEADLINE = ("deadline_days", days_words, "a deadline of")
#: The numbers a lever is told with.
NUMBERS = (BUDGET, DEADLINE)


def lower_first(text: str) -> str:
    """``text`` with its first letter in lower case, to follow other words."""
    return text[:1].lower() + text[1:]


def levers(
    s: Scenario, o: pd.DataFrame, trial: Trial, base: dict | None = None
) -> Iterator[tuple[str, dict]]:
    """The changes that are not a number: the scenario's restrictions lifted, the fewest platform
    engineers and the site power that work (with ``base`` changed too), ROCm experience."""
    base = base or {}
    fails = {c: bool((o[f"why_{c}"] != "").any()) for c in ("team", "site_power", "cooling")}
    yield from _restrictions(s, fails["cooling"])
    if fails["team"]:
        yield from _engineers(s, trial, base)
        if not s.rocm_experience:
            yield "A team with ROCm experience", {"rocm_experience": True}
    if fails["site_power"]:
        yield from _site_power(s, trial, base)


def _restrictions(s: Scenario, cooling_fails: bool) -> Iterator[tuple[str, dict]]:
    """The scenario's own restrictions, each lifted."""
    if set(s.acquisition_modes) != set(ACQUISITIONS):
        today = ", ".join(MODE_PHRASE[m] for m in s.acquisition_modes)
        yield f"Allow every way to pay (today: {today})", {"acquisition_modes": list(ACQUISITIONS)}
    if s.accelerators:
        few = len(s.accelerators) <= 3
        today = ", ".join(s.accelerators) if few else f"{len(s.accelerators)} of them"
        yield f"Allow every accelerator in the catalog (today: {today})", {"accelerators": None}
    if s.sourced_prices_only:
        yield "Accept estimated prices (today: sourced prices only)", {"sourced_prices_only": False}
    if not s.used_hardware_allowed and "buy-used" in s.acquisition_modes:
        yield "Allow used hardware", {"used_hardware_allowed": True}
    if cooling_fails and s.cooling == "air" and not s.allow_liquid_retrofit:
        yield "Allow a liquid-cooling retrofit of the racks", {"allow_liquid_retrofit": True}


#: The team and site a scenario can be raised to when several changes are needed together
#: (:func:`_needed_levers`): ROCm experience, the whole team as platform engineers, site power
#: that limits nothing [kW]; each is then brought down to what the pick needs.
MOST_TEAM_AND_SITE = (
    ("rocm_experience", True),
    ("platform_engineers", None),
    ("site_power_kw", 1e7),
)


def _needed_levers(s: Scenario, trial: Trial, base: dict) -> tuple[list[str], dict] | None:
    """The levers needed together (with ``base`` changed too), when no one of them is enough:
    every restriction lifted and the team and site at :data:`MOST_TEAM_AND_SITE`, then each
    dropped in turn while something stays feasible (what is left is needed: without any one of
    them nothing is), then the platform engineers and the site power brought down to the fewest
    that work. None when even all of them are not enough."""
    levers = list(_restrictions(s, cooling_fails=True))
    for field, most in MOST_TEAM_AND_SITE:
        most = max(s.team_size, s.platform_engineers) if most is None else most
        if getattr(s, field) != most:
            levers.append(("", {field: most}))  # said once brought down (below)

    def merged(items) -> dict:
        return {k: v for _, u in items for k, v in u.items()}

    if not feasible(trial, {**base, **merged(levers)}):
        return None
    for item in list(levers):
        fewer = [x for x in levers if x is not item]
        if feasible(trial, {**base, **merged(fewer)}):
            levers = fewer
    changes, update = [], merged(levers)
    for change, u in levers:
        if not change:  # the team or the site: the fewest that work with everything else
            field, others = next(iter(u)), {**base, **update}
            found = {
                "rocm_experience": iter([("A team with ROCm experience", u)]),
                "platform_engineers": _engineers(s, trial, others),
                "site_power_kw": _site_power(s, trial, others),
            }[field]
            change, fewest = next(found, ("", u))
            if not change:
                return None
            update.update(fewest)
        changes.append(change)
    return changes, update


def many_levers(s: Scenario, o: pd.DataFrame, trial: Trial) -> Iterator[tuple[str, dict]]:
    """When no single change, no deadline and budget together and no lever with a number works:
    the levers needed together (:func:`_needed_levers`), alone if they are enough, else with the
    smallest budget at today's deadline, and with the shortest deadline within today's budget;
    if neither, with the shortest deadline money no object and then the smallest budget at it."""
    told = False
    for field, fmt, words in NUMBERS:
        got = _needed_levers(s, trial, {field: largest(field)})
        if got is None:
            continue
        changes, lift = got
        if feasible(trial, lift):
            yield _listed(changes), lift
            return
        number = next(least(s, trial, field, fmt, words, lift), None)
        if number is not None:
            told = True
            yield _listed(changes + [number[0]]), {**lift, **number[1]}
    got = None if told else _needed_levers(s, trial, {**LONGEST, "budget_usd": NO_BUDGET})
    if got is None:
        return
    changes, lift = got
    days = next(least(s, trial, *DEADLINE, {**lift, "budget_usd": NO_BUDGET}), None)
    money = days and next(least(s, trial, *BUDGET, {**lift, **days[1]}), None)
    if money:
        yield _listed(changes + [days[0], money[0]]), {**lift, **days[1], **money[1]}


def _listed(changes: list[str]) -> str:
    """``A, b and c``."""
    parts = [changes[0]] + [lower_first(c) for c in changes[1:]]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def lever_and_number(s: Scenario, o: pd.DataFrame, trial: Trial) -> Iterator[tuple[str, dict]]:
    """Each lever of :func:`levers` with the smallest budget at today's deadline, and with the
    shortest deadline within today's budget: a five-person team allowed only to buy, with
    $100,000 for four runs a year, can neither rent for $100,000 nor buy without a platform
    engineer."""
    for field, fmt, words in NUMBERS:
        for change, lift in levers(s, o, trial, {field: largest(field)}):
            got = next(least(s, trial, field, fmt, words, lift), None)
            if got is not None:
                yield f"{change} and {lower_first(got[0])}", {**lift, **got[1]}


def _engineers(s: Scenario, trial: Trial, base: dict | None = None) -> Iterator[tuple[str, dict]]:
    """The fewest platform engineers that work (with ``base`` changed too): the first of one
    more than today, two, four, eight and the whole team that does, then bisected down from it
    to the fewest (the whole team of 100 read "100 platform engineers" when 12 were enough)."""
    base = base or {}
    today = s.platform_engineers
    most = max(s.team_size, today + 1)

    def works(n: int) -> bool:
        return trial.pick({**base, "platform_engineers": n}) is not None

    lo = today
    for need in sorted({min(today + k, most) for k in (1, 2, 4, 8)} | {most}):
        if works(need):
            need = nearest_working(works, need, lo)  # lo fails, need works
            word = "engineer" if need == 1 else "engineers"
            yield f"{need} platform {word} (today {today})", {"platform_engineers": need}
            return
        lo = need


def _site_power(s: Scenario, trial: Trial, base: dict | None = None) -> Iterator[tuple[str, dict]]:
    """The site power the pick needs when power does not limit it (its ``facility_kw``), with
    ``base`` changed too."""
    base = base or {}
    got = trial.pick({**base, "site_power_kw": 1e7})
    if got is None:
        return
    kw = float(math.ceil(got[1]["facility_kw"]))
    if trial.pick({**base, "site_power_kw": kw}) is None:
        return
    yield (
        f"{kw_text(kw)} of site power (today {kw_text(s.site_power_kw)})",
        {"site_power_kw": kw},
    )
