"""The decision engine: sweep every option, mark what is infeasible and why, rank, explain.

``recommend(scenario)`` sweeps every catalog accelerator x sensible GPU counts (node multiples,
whole NVL72 racks, up to ``max_gpus``) x acquisition mode, estimates each through the vectorised
engine, checks every constraint (memory, deadline with lead time, budget, site power, rack power and
cooling, team and software risk, availability), ranks the feasible options by the scenario's
objective and explains the pick, the runners-up and why every other accelerator lost.

Steps: :func:`evaluated_options` (sweep -> options -> evaluate -> moving reasons), :func:`rank`,
:func:`explain_pick` or :func:`explain_infeasible`, the runners-up and why-not lines of
:mod:`workbook.decide.alternatives`, then :meth:`Recommendation.add_sensitivity`.

Costs and times are kept as components so that sensitivity (one assumption at a time over its stated
range) and the Monte Carlo re-evaluate the whole option table without re-running the sweep.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import cached_property, partial

import numpy as np
import pandas as pd

from ..calibrate import (
    band_basis_counts,
    time_model_trust,
    tuned_evidence_cached,
)
from ..calibrate.moe_routing import routing_width_range
from ..catalog import Catalog, load_catalog
from ..catalog.derived import derivation_sentence, undiscounted_factor
from ..model import (
    assumption_values,
    evidence_parts,
    level_moe_efficiency,
    moe_classes,
    used_full_runs,
)
from ..model.estimate import ROUTING
from . import sensitivity as sensitivity_analysis
from .alternatives import best_among, rejected_accelerators, runners_up
from .band_reason import BandBasis
from .caveats import (
    derived_caveat,
    estimate_caveat,
    evidence_caveat,
    least_probability,
    surer_caveat,
    thin_time_caveat,
)
from .evaluate import (
    TieRule,
    best_index,
    breakeven_for,
    evaluated,
    option_row,
    pick_inputs,
    rank_columns,
)
from .explain import (
    impossibility,
    infeasible_summary,
    moving_reasons,
    nearest_line,
    pick_sentence,
    why_top,
)
from .headroom import (
    margins,
    price_headroom,
    shares_price_estimate,
    shares_speed_estimate,
    time_headroom,
)
from .option_record import Option
from .options import build_options, option_sweep, price_kind
from .remedies import Remedy, headline_remedies, remedies, remedies_text, remedy_reason
from .scenario import Scenario


@dataclass
class Recommendation:
    """What :func:`recommend` returns: the pick, the reasons, and the whole option table.

    Attributes
    ----------
    scenario : Scenario
        The scenario recommended for.
    top : Option or None
        The best feasible option by the scenario's objective; None when nothing is feasible.
    options : DataFrame
        Every option, one row each; its columns are declared in :mod:`workbook.decide.columns`.
    reasons : list of str
        Why the pick wins (:func:`workbook.decide.explain.why_top`); when nothing is feasible, the
        constraints that rule out the most options, then the nearest misses.
    runners_up : list of Option
        The next three (accelerator, acquisition) pairs in rank order, each with its sentence.
    rejected : dict of str to list of str
        Accelerator id -> why it lost (its best feasible option, or its nearest miss).
    pareto : DataFrame
        Options on the time-to-result / cost-per-run frontier (statically feasible, finite cost),
        by ``time_to_result_days`` [days] ascending and ``cost_per_run_usd`` [USD] descending.
    breakeven_runs_per_year : float
        Runs per year above which buying the pick's cluster new beats renting it on demand
        [runs/yr]; NaN when nothing is feasible or either price is missing.
    sensitivity : DataFrame
        The tornado (:func:`workbook.decide.sensitivity.tornado`); empty until
        :meth:`add_sensitivity`.
    monte_carlo : DataFrame
        ``option``, ``share`` [fraction of draws] (:func:`workbook.decide.sensitivity.monte_carlo`);
        empty until :meth:`add_sensitivity`.
    nearest : DataFrame
        The five options nearest to feasible when nothing is (fewest and smallest failures); empty
        otherwise.
    remedies : list of Remedy
        When nothing is feasible, each single change that would make something feasible and what
        the engine would then pick (:func:`workbook.decide.remedies.remedies`); empty otherwise.
    snapshot : dict
        Which data and overrides were used (:meth:`workbook.catalog.Catalog.snapshot`).
    elapsed_s : float
        Time :func:`recommend` took, sensitivity included [s].
    catalog : Catalog or None
        The catalog (shipped tables with the overrides) every figure above was computed from.
    """

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
    remedies: list[Remedy] = field(default_factory=list)
    snapshot: dict = field(default_factory=dict)
    elapsed_s: float = 0.0
    catalog: Catalog | None = field(default=None, repr=False)

    @cached_property
    def trust(self) -> str:
        """How far to trust the pick's time estimate (:func:`workbook.calibrate.time_model_trust`
        for its accelerator and planned days), computed once per recommendation."""
        top = self.top
        return time_model_trust(
            top.accelerator if top is not None else None,
            self.catalog,
            wall_days=top.wall_days if top is not None else None,
            time_factor=self.scenario.time_factor,
        )

    @property
    def feasible(self) -> bool:
        """Something meets every constraint."""
        return self.top is not None

    @property
    def headline(self) -> str:
        """The pick in one sentence, or why nothing is feasible and the first
        changes that would make it so (:func:`workbook.decide.remedies.headline_remedies`)."""
        if self.top is None:
            return self._infeasible_line() + remedies_text(headline_remedies(self.remedies))
        return self.top.sentence

    @property
    def reasons_beside_headline(self) -> list[str]:
        """:attr:`reasons` without the remedies the headline already names: a short list beside
        the headline (the memo's first page) then gives the other changes that work. It gave the
        first two in order, and missed the second the headline names when that is the next to
        another accelerator (:func:`workbook.decide.remedies.headline_remedies`)."""
        if self.top is not None:
            return self.reasons
        said = {remedy_reason(r) for r in headline_remedies(self.remedies)}
        return [r for r in self.reasons if r not in said]

    def _infeasible_line(self) -> str:
        if self.reasons and self.reasons[0].startswith("Physically impossible"):
            return self.reasons[0]
        first = self.reasons[0] if self.reasons else ""
        lead = "No option meets every constraint: "  # explain.infeasible_summary
        if first.startswith(lead):  # one sentence, not the same one twice
            return (
                "Nothing in the catalog meets every constraint of this scenario: "
                + (first[len(lead) :])
            )
        return "Nothing in the catalog meets every constraint of this scenario. " + first

    @property
    def verdict(self) -> str:
        """The headline without its caveats (:attr:`caveats`): the pick, its days, odds, cost and
        power; the headline itself when nothing is feasible."""
        if self.top is None:
            return self.headline
        return self.top.sentence.removesuffix("".join(" " + c for c in self.top.caveats))

    @property
    def caveats(self) -> list[str]:
        """What the pick rests on that is unchecked, each with the best option that does not
        (:attr:`Option.caveats`); the headline ends with them. Empty with no pick."""
        return list(self.top.caveats) if self.top is not None else []

    def add_sensitivity(
        self,
        catalog: Catalog | None = None,
        samples: int | None = None,
        seed: int = 0,
        tornado: bool = True,
    ) -> Recommendation:
        """Attach the tornado (one assumption at a time over its range) and a Monte Carlo of
        ``samples`` draws (0: none; None: data/assumptions.csv ``monte_carlo_draws``, the same
        for the app and the memo) for the pick.

        :func:`recommend` calls this unless ``sensitivity=False``. The app calls it in two steps
        after it has shown the conclusion: the tornado (needed by the charts), then the Monte Carlo
        (text only). ``catalog`` defaults to the one the recommendation was computed from (its
        overrides included).
        """
        if self.top is not None:
            cat = catalog or self.catalog or load_catalog()
            if tornado:
                self.sensitivity = sensitivity_analysis.tornado(self, cat)
            if samples is None:
                samples = sensitivity_analysis.monte_carlo_draws(cat)
            if samples:
                self.monte_carlo = sensitivity_analysis.monte_carlo(
                    self, cat, samples=samples, seed=seed
                )
        return self


@dataclass
class Ranking:
    """The options in rank order."""

    #: Columns ranked by, primary first (:func:`workbook.decide.evaluate.rank_columns`).
    keys: list[str]
    #: The identity, feasibility, ``shortfall`` and rank columns of every option (sorting and taking
    #: rows of these is fast; of all ~115 columns it is slow).
    narrow: pd.DataFrame
    #: Row positions of the feasible options, the pick first (:func:`workbook.decide.best_index`),
    #: then in the objective's order.
    ranked_pos: np.ndarray
    #: Row position of the best option on the objective alone, when a near-tie or a dominating
    #: option made another the pick (:class:`workbook.decide.evaluate.TieRule`); else None.
    objective_best: int | None = None
    #: The rule that decided (None with nothing feasible).
    rule: TieRule | None = None


@dataclass
class Explanation:
    """The pick and its reasons, or why nothing is feasible (the fields of :class:`Recommendation`
    of the same names)."""

    top: Option | None
    reasons: list[str]
    runners_up: list[Option]
    nearest: pd.DataFrame
    breakeven_runs_per_year: float
    remedies: list[Remedy] = field(default_factory=list)


def recommend(
    s: Scenario,
    *,
    catalog: Catalog | None = None,
    sensitivity: bool = True,
    monte_carlo_samples: int | None = None,
    seed: int = 0,
    with_remedies: bool = True,
) -> Recommendation:
    """Recommend an option for the scenario; never raises for an infeasible scenario.

    ``monte_carlo_samples``: draws of the Monte Carlo (None: data/assumptions.csv
    ``monte_carlo_draws``; 0: none). ``with_remedies``: when nothing is feasible, try each single
    change that could make something feasible (:mod:`workbook.decide.remedies`; about a second)."""
    if not isinstance(s, Scenario):
        raise ValueError(
            f"scenario={s!r} is not a workbook.Scenario; "
            "build one with Scenario(...) or presets[name]"
        )
    t0 = time.perf_counter()
    cat = catalog or load_catalog()
    o = evaluated_options(s, cat)
    ranking = rank(s, o, TieRule.from_catalog(cat))
    if len(ranking.ranked_pos):
        why = explain_pick(s, o, ranking, cat)
    else:
        why = explain_infeasible(s, o, ranking, cat, with_remedies)
    rec = Recommendation(
        scenario=s,
        top=why.top,
        options=o,
        reasons=why.reasons,
        runners_up=why.runners_up,
        rejected=rejected_accelerators(s, o, ranking.narrow, ranking.keys, ranking.rule, why.top),
        pareto=pareto_frontier(o[o["static_ok"] & np.isfinite(o["cost_per_run_usd"])]),
        breakeven_runs_per_year=why.breakeven_runs_per_year,
        nearest=why.nearest,
        remedies=why.remedies,
        snapshot=cat.snapshot(),
        catalog=cat,
    )
    if sensitivity:
        rec.add_sensitivity(cat, samples=monte_carlo_samples, seed=seed)
    rec.elapsed_s = time.perf_counter() - t0
    return rec


def evaluated_options(s: Scenario, cat: Catalog) -> pd.DataFrame:
    """The options table: the estimated sweep, expanded to acquisition modes with the static
    constraints, evaluated at base values (its ``wall_days`` and ``lead_time_days`` replace the
    sweep's), with the moving constraints in words (:mod:`workbook.decide.columns`)."""
    return moving_reasons(s, evaluated(s, build_options(s, option_sweep(s, cat), cat)))


def rank(s: Scenario, o: pd.DataFrame, rule: TieRule) -> Ranking:
    """The feasible options sorted by the scenario's objective (ties by the other key), with the
    pick of :func:`workbook.decide.best_index` (near-ties and dominance, ``rule``) moved first."""
    keys = list(rank_columns(s))
    # Sort narrow key frames and take only the rows needed (full-width takes are slow).
    narrow = o[["accelerator", "acquisition", "feasible", "shortfall"] + keys]
    feas_pos = np.flatnonzero(o["feasible"].to_numpy(bool))
    order = np.lexsort([narrow[k].to_numpy(float)[feas_pos] for k in reversed(keys)])
    ranked = feas_pos[order]
    if not len(ranked):
        return Ranking(keys=keys, narrow=narrow, ranked_pos=ranked)
    pick = int(best_index(s, o, pick_inputs(o), rule)[0])
    first = int(ranked[0])
    ranked = np.concatenate([[pick], ranked[ranked != pick]])
    return Ranking(
        keys=keys,
        narrow=narrow,
        ranked_pos=ranked,
        objective_best=None if pick == first else first,
        rule=rule,
    )


def explain_pick(s: Scenario, o: pd.DataFrame, ranking: Ranking, cat: Catalog) -> Explanation:
    """The best-ranked option, its sentence and reasons, the break-even and the runners-up."""
    ranked_pos = ranking.ranked_pos
    best = o.iloc[ranked_pos[0]]
    top = Option.from_row(best)
    breakeven = breakeven_for(s, o, best)
    basis = band_basis(cat)
    sourced = None
    pos = int(ranked_pos[0])
    if not best["price_sourced"]:
        sourced = best_among(s, o, ranking.rule, o["price_sourced"])
        dearer = margins(s, o, pos, ranking.rule, price_headroom, shares_price_estimate)
        top.price_headroom, top.price_headroom_joint = dearer.factor, dearer.joint_factor
        top.caveats.append(estimate_caveat(best, sourced, dearer))
    elif best["price_derivation"]:  # sourced, but derived from other prices: not a quote
        kind = price_kind(best["acquisition"])
        pid = cat.default_prices("price_id").loc[best["accelerator"], kind]
        room = undiscounted_factor(cat.tables, pid)  # a discount shrinks to none, not below
        dearer_by = partial(price_headroom, limit=room) if math.isfinite(room) else price_headroom
        dearer = margins(s, o, pos, ranking.rule, dearer_by, shares_price_estimate)
        top.price_headroom, top.price_headroom_joint = dearer.factor, dearer.joint_factor
        top.caveats.append(derived_caveat(best, derivation_sentence(cat.tables, pid), dearer))
    slower = margins(s, o, pos, ranking.rule, time_headroom, shares_speed_estimate)
    top.time_headroom, top.time_headroom_joint = slower.factor, slower.joint_factor
    if best["time_band_widened"]:
        checked = best_among(s, o, ranking.rule, ~o["time_band_widened"].to_numpy(bool))
        same = sourced is not None and checked is not None and sourced.name == checked.name
        top.caveats.append(
            evidence_caveat(best, checked, basis.widening, same, slower, basis.run_parts)
        )
    elif slower.factor < best["wall_days_p90"] / best["wall_days"]:  # its own p90 changes it
        top.caveats.append(thin_time_caveat(best, slower))
    level = assumption_values(cat)["surer_probability"]
    least = least_probability(o)
    if least[pos] < level:  # the price of more certainty (a level over the confidence asked)
        surer = best_among(s, o, ranking.rule, least >= level)
        top.caveats.append(surer_caveat(s, best, surer, level))
    top.sentence = " ".join([pick_sentence(s, best), *top.caveats])
    # The same cluster the other way (bought for a rented pick, rented on demand for a bought
    # one): why it fails, for the rent-vs-buy reason.
    other = "rent-on-demand" if best["is_buy"] else "buy-new"
    other_row = option_row(o, best["accelerator"], best["n_gpus"], other)
    other_failed = other_row["failed"] if other_row is not None else ""
    first = None if ranking.objective_best is None else o.iloc[ranking.objective_best]
    reasons = why_top(
        s,
        best,
        len(ranked_pos),
        breakeven,
        other_failed,
        basis,
        first,
        ranking.rule,
    )
    return Explanation(
        top=top,
        reasons=reasons,
        runners_up=runners_up(s, o, ranking.rule, top),
        nearest=pd.DataFrame(),
        breakeven_runs_per_year=breakeven,
    )


def band_basis(cat: Catalog) -> BandBasis:
    """Where the time bands of ``cat`` come from, for the reasons."""
    runs, benchmarks = band_basis_counts(cat)
    a = assumption_values(cat)
    tuned = tuned_evidence_cached(cat)
    parts = cat.tables["accelerators"]["accelerator_id"].to_numpy(object)
    moe = {
        level: dict(zip(parts, level_moe_efficiency(cat, parts, np.full(len(parts), level), a)))
        for level in ("typical", "tuned")
    }
    return BandBasis(
        runs, benchmarks, a["time_band_widening_no_evidence"], tuned.moe_loo, tuned.fp4_holdout,
        tuned.fp4_loo, tuned.scale_holdout, moe, a["moe_efficiency"], _moe_carry(cat),
        _named_parts(cat, tuned.other_stacks), evidence_parts(cat, used_full_runs), a[ROUTING],
        routing_width_range(cat), tuned.part_holdout,
    )  # fmt: skip


def _named_parts(cat: Catalog, per_source: dict) -> dict:
    """:attr:`BandBasis.other_stacks`: each table's parts by their catalog names."""
    names = cat.tables["accelerators"].set_index("accelerator_id")["name"]
    return {
        src: {**v, "parts": tuple(names[p] for p in v["parts"])} for src, v in per_source.items()
    }


def _moe_carry(cat: Catalog) -> dict:
    """:attr:`BandBasis.moe_carry`: each part with no MoE benchmark of its own, its peak, class
    and its class's benchmarked parts (names without their parenthesis)."""
    spec = cat.tables["accelerators"]
    own = cat.own_values("assumptions", "moe_efficiency_tuned")
    by_id = spec.set_index("accelerator_id")
    out = {}
    for rack, (parts, known) in zip((True, False), moe_classes(spec, own)):
        evidence = [
            (by_id.at[p, "name"].split(" (")[0], float(by_id.at[p, "tflops_dense_bf16"]), f)
            for p, f in sorted(known.items(), key=lambda kv: by_id.at[kv[0], "tflops_dense_bf16"])
        ]
        for p in parts:
            if p not in own and evidence:
                out[p] = (float(by_id.at[p, "tflops_dense_bf16"]), rack, evidence)
    return out


def explain_infeasible(
    s: Scenario, o: pd.DataFrame, ranking: Ranking, cat: Catalog, with_remedies: bool = True
) -> Explanation:
    """No pick: the constraints that rule out the most, each single change that would make
    something feasible (:mod:`workbook.decide.remedies`, unless not ``with_remedies``), and the
    five nearest misses (by ``shortfall``, then the rank keys) among the options with a finite
    cost."""
    keys = ["shortfall"] + ranking.keys
    finite = np.flatnonzero(np.isfinite(o["cost_per_run_usd"].to_numpy(float)))
    order = finite[np.lexsort([ranking.narrow[k].to_numpy(float)[finite] for k in reversed(keys)])]
    nearest = o.iloc[order[:5]]
    impossible = impossibility(s, cat)
    fixes = remedies(s, cat, o) if with_remedies else []
    reasons = [impossible] if impossible else []
    reasons += [infeasible_summary(s, o)] + [remedy_reason(r) for r in fixes]
    reasons += [nearest_line(r) for _, r in nearest.iterrows()]
    return Explanation(
        top=None,
        reasons=reasons,
        runners_up=[],
        nearest=nearest,
        breakeven_runs_per_year=math.nan,
        remedies=fixes,
    )


def pareto_frontier(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``df`` no other row beats on both time to result and cost per run."""
    d = df[["time_to_result_days", "cost_per_run_usd"]].sort_values(
        ["time_to_result_days", "cost_per_run_usd"]
    )
    best, keep = np.inf, []
    for i, c in zip(d.index, d["cost_per_run_usd"]):
        if c < best:
            keep.append(i)
            best = c
    return df.loc[keep]
