"""The decision engine: sweep every option, mark what is infeasible and why, rank, explain.

``recommend(scenario)`` sweeps every catalog accelerator x sensible GPU counts (node multiples, whole
NVL72 racks, up to ``max_gpus``) x acquisition mode, estimates each through the vectorised engine,
checks every constraint (memory, deadline with lead time, budget, site power, rack power and cooling,
team and software risk, availability), ranks the feasible options by the scenario's objective and
explains the pick, the runners-up and why every other accelerator lost.

Costs and times are kept as components so that sensitivity (one assumption at a time over its stated
range) and the Monte Carlo re-evaluate the whole option table without re-running the sweep.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..calibrate import time_model_trust
from ..catalog import Catalog, load_catalog
from ..text import MODE_PHRASE
from . import sensitivity
from .evaluate import breakeven_for, evaluate, option_row
from .explain import (
    _delta,
    _infeasible_summary,
    _moving_reasons,
    _robust_option,
    _sentence,
    _why_top,
)
from .options import Option, _options, sweep
from .scenario import Scenario


@dataclass
class Recommendation:
    scenario: Scenario
    top: Option | None
    options: pd.DataFrame
    reasons: list[str]
    runners_up: list[Option]
    rejected: dict[str, list[str]]
    pareto: pd.DataFrame
    breakeven_runs_per_year: float
    sensitivity: pd.DataFrame = field(default_factory=pd.DataFrame)
    monte_carlo: pd.DataFrame = field(default_factory=pd.DataFrame)
    nearest: pd.DataFrame = field(default_factory=pd.DataFrame)
    snapshot: dict = field(default_factory=dict)
    elapsed_s: float = 0.0
    #: The catalog (shipped tables with the overrides) every figure above was computed from.
    catalog: Catalog | None = field(default=None, repr=False)

    @property
    def trust(self) -> str:
        """How far to trust the pick's time estimate (:func:`workbook.calibrate.time_model_trust`
        for its accelerator and planned days), computed once per recommendation."""
        if "_trust" not in self.__dict__:
            top = self.top
            self.__dict__["_trust"] = time_model_trust(
                top.accelerator if top is not None else None,
                self.catalog,
                wall_days=top.wall_days if top is not None else None,
                time_factor=self.scenario.time_factor,
            )
        return self.__dict__["_trust"]

    @property
    def feasible(self) -> bool:
        return self.top is not None

    @property
    def headline(self) -> str:
        if self.top is None:
            return "Nothing in the catalog meets every constraint of this scenario. " + (
                self.reasons[0] if self.reasons else ""
            )
        return self.top.sentence

    def add_sensitivity(
        self,
        catalog: Catalog | None = None,
        samples: int = 1000,
        seed: int = 0,
        tornado: bool = True,
    ) -> Recommendation:
        """Attach the tornado (one assumption at a time over its range) and a Monte Carlo of ``samples``
        draws (0: none) for the pick.

        :func:`recommend` calls this unless ``sensitivity=False``. The app calls it in two steps after it
        has shown the conclusion: the tornado (needed by the charts), then the Monte Carlo (text only).
        """
        if self.top is not None:
            cat = catalog or load_catalog()
            if tornado:
                self.sensitivity = sensitivity.tornado(self, cat)
            if samples:
                self.monte_carlo = sensitivity.monte_carlo(self, cat, samples=samples, seed=seed)
        return self


# ----------------------------------------------------------------------------------------------
# sweep


# ----------------------------------------------------------------------------------------------
# costs and the moving constraints (re-evaluated by sensitivity and Monte Carlo)


def _rank_key(s: Scenario, df: pd.DataFrame) -> list[str]:
    if s.objective == "fastest-within-budget":
        return ["time_to_result_days", "cost_per_run_usd"]
    return ["cost_per_run_usd", "time_to_result_days"]


def _pareto(df: pd.DataFrame) -> pd.DataFrame:
    d = df[["time_to_result_days", "cost_per_run_usd"]].sort_values(
        ["time_to_result_days", "cost_per_run_usd"]
    )
    best, keep = np.inf, []
    for i, c in zip(d.index, d["cost_per_run_usd"]):
        if c < best:
            keep.append(i)
            best = c
    return df.loc[keep]


def recommend(
    s: Scenario,
    *,
    catalog: Catalog | None = None,
    sensitivity: bool = True,
    monte_carlo_samples: int = 1000,
    seed: int = 0,
) -> Recommendation:
    """Recommend an option for the scenario; never raises for an infeasible scenario."""
    if not isinstance(s, Scenario):
        raise ValueError(
            f"scenario={s!r} is not a workbook.Scenario; build one with Scenario(...) or presets[name]"
        )
    t0 = time.perf_counter()
    cat = catalog or load_catalog()
    est = sweep(s, cat)
    o = _options(s, est, cat)
    ev = evaluate(s, o)
    o = pd.concat([o.drop(columns=[c for c in ev.columns if c in o.columns]), ev], axis=1)
    o = _moving_reasons(s, o)
    keys = _rank_key(s, o)
    # Sort narrow key frames and take only the rows needed (full-width takes of ~150 columns are slow).
    narrow = o[["accelerator", "acquisition", "feasible", "shortfall"] + keys]
    feas_pos = np.flatnonzero(o["feasible"].to_numpy(bool))
    ranked_pos = feas_pos[np.lexsort([narrow[k].to_numpy(float)[feas_pos] for k in reversed(keys)])]
    reasons: list[str] = []
    rejected: dict[str, list[str]] = {}
    pareto = _pareto(o[o["static_ok"] & np.isfinite(o["cost_per_run_usd"])])
    if len(ranked_pos) == 0:
        finite = np.flatnonzero(np.isfinite(o["cost_per_run_usd"].to_numpy(float)))
        order = finite[
            np.lexsort([narrow[k].to_numpy(float)[finite] for k in reversed(["shortfall"] + keys)])
        ]
        nearest = o.iloc[order[:5]]
        top = None
        runners: list[Option] = []
        reasons.append(_infeasible_summary(s, o))
        for _, r in nearest.iterrows():
            reasons.append(
                f"Nearest: {MODE_PHRASE[r['acquisition']]} {int(r['n_gpus'])} x {r['name']} fails on {r['failed']}"
            )
        breakeven = math.nan
    else:
        best = o.iloc[ranked_pos[0]]
        top = Option.from_row(best)
        breakeven = breakeven_for(s, o, best)
        top.sentence = _sentence(s, best, breakeven)
        buy_row = option_row(o, best["accelerator"], best["n_gpus"], "buy-new")
        buy_failed = buy_row["failed"] if buy_row is not None else ""
        from ..calibrate.validate import (
            holdout_time_range,  # lazily: `python -m workbook.validate` must not find it preloaded
        )

        # A time factor set by the reader replaces the published runs' range as the planning margin.
        rng = holdout_time_range(cat) if s.time_factor == 1.0 else None
        reasons += _why_top(
            s,
            best,
            len(ranked_pos),
            breakeven,
            buy_failed,
            rng,
            _robust_option(s, o, ranked_pos, rng),
        )
        pairs = narrow.iloc[ranked_pos][["accelerator", "acquisition"]]
        first_of_pair = ranked_pos[~pairs.duplicated().to_numpy()]
        runners = [Option.from_row(o.iloc[i]) for i in first_of_pair[1:4]]
        for r in runners:
            r.sentence = (
                f"{MODE_PHRASE[r.acquisition]} {r.n_gpus} x {r.name}: {r.wall_days:,.1f} days, "
                f"${r.cost_per_run_usd:,.0f} per run ({_delta(r.cost_per_run_usd, top.cost_per_run_usd)})"
            )
        nearest = pd.DataFrame()
    # Per accelerator: its best feasible option, else its nearest miss (fewest failed constraints).
    sorted_narrow = narrow.assign(_infeasible=~narrow["feasible"]).sort_values(
        ["accelerator", "_infeasible", "shortfall"] + keys
    )
    for i in sorted_narrow.drop_duplicates("accelerator").index:
        b = o.loc[i]
        if top is not None and b["accelerator"] == top.accelerator:
            continue
        if b["feasible"]:
            rejected[b["accelerator"]] = [
                f"feasible but not the best: {MODE_PHRASE[b['acquisition']]} {int(b['n_gpus'])} GPUs costs "
                f"${b['cost_per_run_usd']:,.0f} per run and takes {b['time_to_result_days']:,.0f} days"
            ]
        else:
            rejected[b["accelerator"]] = [
                f"best try {MODE_PHRASE[b['acquisition']]} {int(b['n_gpus'])} GPUs: {b['failed']}"
            ]
    rec = Recommendation(
        scenario=s,
        top=top,
        options=o,
        reasons=reasons,
        runners_up=runners,
        rejected=rejected,
        pareto=pareto,
        breakeven_runs_per_year=breakeven,
        nearest=nearest,
        snapshot=cat.snapshot(),
        catalog=cat,
    )
    if sensitivity:
        rec.add_sensitivity(cat, samples=monte_carlo_samples, seed=seed)
    rec.elapsed_s = time.perf_counter() - t0
    return rec
