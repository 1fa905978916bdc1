"""Probe how often an infeasible scenario is told no change that would make it feasible.

Draws random scenarios (model size, tokens, deadline, budget, site power, team, runs per year,
racks, cooling, allowed accelerators and ways to pay, sourced prices only) from a fixed seed,
recommends each without the Monte Carlo, and prints how many are feasible, how many infeasible
ones name at least one remedy (``Recommendation.remedies``) and how many name none, with the
infeasible recommendations' mean, median and slowest time. With ``-v`` it prints each
scenario that names none.

The draws are harsh on purpose (a $50,000 budget for 70B on 15T tokens): a scenario that names
no remedy is either truly out of reach of one or two changes, or a gap in the remedies.

Run: PYTHONPATH=src .venv/bin/python tools/probe_remedies.py [--seed 1] [--n 80] [-v]

    80 scenarios (seed 1): 20 feasible, 60 infeasible: 50 name a remedy, 10 none; ...
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from workbook import Scenario, recommend

#: What each field is drawn from (uniformly).
CHOICES = {
    "n_params": (1e9, 7e9, 13e9, 70e9, 405e9),
    "n_tokens": (2e11, 1e12, 2e12, 5e12, 15e12),
    "deadline_days": (10, 30, 60, 120, 365),
    "budget_usd": (5e4, 2e5, 1e6, 5e6, 3e7, 2e8),
    "site_power_kw": (30, 200, 1000, 10000),
    "team_size": (3, 5, 20, 100),
    "platform_engineers": (0, 0, 1, 3, 10),
    "runs_per_year": (1, 2, 4),
    "rack_limit_kw": (15, 40, 130),
    "cooling": ("air", "liquid"),
}
ACCELERATOR_SETS = (None, ["h100-sxm"], ["b200-hgx", "h200-sxm"], ["mi355x", "mi300x"])
MODE_SETS = (
    None,
    ["buy-new"],
    ["buy-new", "buy-used"],
    ["rent-on-demand"],
    ["rent-reserved"],
)
#: Share of scenarios that accept sourced prices only.
SOURCED_ONLY_SHARE = 0.2


def draw(rng: random.Random) -> dict:
    """One random scenario's fields."""
    d = {k: rng.choice(v) for k, v in CHOICES.items()}
    d["platform_engineers"] = min(d["platform_engineers"], d["team_size"])
    accelerators, modes = rng.choice(ACCELERATOR_SETS), rng.choice(MODE_SETS)
    if accelerators:
        d["accelerators"] = accelerators
    if modes:
        d["acquisition_modes"] = modes
    if rng.random() < SOURCED_ONLY_SHARE:
        d["sourced_prices_only"] = True
    return d


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=80)
    ap.add_argument("-v", action="store_true", help="print each scenario that names no remedy")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    feasible, some, none, times = 0, 0, 0, []
    for _ in range(args.n):
        d = draw(rng)
        t0 = time.perf_counter()
        rec = recommend(Scenario(**d), sensitivity=False)
        if rec.top is not None:
            feasible += 1
            continue
        times.append(time.perf_counter() - t0)
        if rec.remedies:
            some += 1
        else:
            none += 1
            if args.v:
                print("none:", json.dumps(d))
    infeasible = some + none
    print(
        f"{args.n} scenarios (seed {args.seed}): {feasible} feasible, {infeasible} infeasible: "
        f"{some} name a remedy, {none} none"
        + (
            f"; infeasible recommendations take {statistics.mean(times):.2f} s on average, "
            f"{statistics.median(times):.2f} s median, {max(times):.2f} s at most"
            if times
            else ""
        )
    )


if __name__ == "__main__":
    main()
