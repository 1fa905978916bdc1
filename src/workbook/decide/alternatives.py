"""The options a reader is shown besides the pick, each the one the pick's own rule would take.

:func:`best_among`: what the rule picks among a subset (sourced prices only, a band not widened,
a higher probability); :func:`runners_up`: what it picks with the pick's (accelerator,
acquisition) pair ruled out, then the next; :func:`rejected_accelerators`: per accelerator, what it
picks among that part's options, or the nearest miss. The rule is
:class:`workbook.decide.TieRule` through :func:`workbook.decide.best_index`: near-ties and options
worth their premium, so no line shows an option the engine itself would pass over.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .evaluate import TieRule, best_in_groups, best_index, pick_inputs
from .explain import price_note, rejected_line, runner_up_sentence
from .option_record import Option
from .scenario import Scenario


def best_among(s: Scenario, o: pd.DataFrame, rule: TieRule, among) -> pd.Series | None:
    """The option the same rule picks among the feasible ones of the mask ``among`` (a sourced
    price: what the scenario would pick with ``sourced_prices_only``; a band not widened), or
    None."""
    ev = pick_inputs(o)
    ev["feasible"] = ev["feasible"].astype(bool) & np.asarray(among, bool)
    pos = int(best_index(s, o, ev, rule)[0])
    return None if pos < 0 else o.iloc[pos]


def runners_up(s: Scenario, o: pd.DataFrame, rule: TieRule, top: Option) -> list[Option]:
    """The next three picks: what the same rule (:func:`workbook.decide.best_index`, near-ties and
    options worth their premium included) picks with the pick's (accelerator, acquisition) pair
    ruled out, then with that one's ruled out too, and so on, each with its sentence. The option
    of a pair is the one the rule would choose, not merely its cheapest (which can take ten times
    longer for 3 % less)."""
    pair = o["accelerator"].to_numpy(object) + "|" + o["acquisition"].to_numpy(object)
    ev = pick_inputs(o)
    feasible = ev["feasible"].astype(bool)
    out = pair == f"{top.accelerator}|{top.acquisition}"
    runners = []
    for _ in range(3):
        ev["feasible"] = feasible & ~out
        pos = int(best_index(s, o, ev, rule)[0])
        if pos < 0:
            break
        r = Option.from_row(o.iloc[pos])
        r.sentence = runner_up_sentence(r, top, note=price_note(o.iloc[pos]))
        runners.append(r)
        out |= pair == pair[pos]
    return runners


def rejected_accelerators(
    s: Scenario,
    o: pd.DataFrame,
    narrow: pd.DataFrame,
    keys: list[str],
    rule: TieRule | None,
    top: Option | None,
) -> dict[str, list[str]]:
    """Per accelerator but the pick's: the option the same rule picks among its feasible ones
    (:func:`workbook.decide.best_in_groups`), else its nearest miss (fewest failed constraints),
    in words."""
    by_accelerator = narrow.assign(infeasible=~narrow["feasible"]).sort_values(
        ["accelerator", "infeasible", "shortfall"] + keys
    )
    chosen = {}
    if rule is not None:
        chosen = best_in_groups(s, o, pick_inputs(o), rule, o["accelerator"].to_numpy(object))
    rejected: dict[str, list[str]] = {}
    for i in by_accelerator.drop_duplicates("accelerator").index:
        b = o.loc[i]
        if top is not None and b["accelerator"] == top.accelerator:
            continue
        if b["accelerator"] in chosen:
            b = o.iloc[chosen[b["accelerator"]]]
        rejected[b["accelerator"]] = [rejected_line(b)]
    return rejected
