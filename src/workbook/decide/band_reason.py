"""The pick's time band in words: its p10-p90 and where the band comes from (the reason
:func:`workbook.decide.explain.why_top` gives), and the p10-p90 text of any days or cost column."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..model import ModelShape
from ..model.shape import MOE_REFERENCE_EXPERT_WIDTH, moe_routing_factor
from ..text import TUNED_RECIPES, days_text, duration_text, money_text


def band_text(r: pd.Series, column: str) -> str:
    """The p10-p90 of a days or cost column: ``p10-p90 3.1-7.4 days``,
    ``p10-p90 $20,100-$25,000``; a cost the run time does not move (a reservation paid for the
    year), or moves by less than its three figures show, says so instead of printing the same
    dollar figure twice."""
    lo, hi = r[f"{column}_p10"], r[f"{column}_p90"]
    if column.endswith("_usd"):
        low, high = money_text(lo), money_text(hi)
        if low == high:
            moved = round(lo) != round(hi)
            return "the same at p10 and p90" + (
                " to three figures" if moved else ": the run time does not move it"
            )
        return f"p10-p90 {low}-{high}"
    if lo >= 1:
        return f"p10-p90 {days_text(lo, unit=False)}-{days_text(hi)}"
    return f"p10-p90 {duration_text(lo)} to {duration_text(hi)}"


@dataclass(frozen=True)
class BandBasis:
    """Where the time band comes from, for the reasons (:func:`workbook.calibrate.realized_band`
    and data/assumptions.csv)."""

    #: Held-out runs the typical band was measured on [count].
    runs: int
    #: Benchmark rows the tuned band was measured on [count].
    benchmarks: int
    #: ``time_band_widening_no_evidence`` [x].
    widening: float
    #: The tuned level on the MoE benchmarks, leave-one-out (``n``, ``mdape``, ``fastest``,
    #: ``slowest``: :func:`workbook.calibrate.tuned_moe_loo`); None without such rows.
    moe_loo: dict | None = None
    #: The tuned level on the held-out FP4 benchmarks (``n``, ``mdape``, ``median_error``:
    #: :func:`workbook.calibrate.tuned_fp4_holdout`); None without such rows.
    fp4_holdout: dict | None = None
    #: The tuned level on the FP4 benchmarks that fitted a vendor's FP4 speedup, leave-one-out
    #: (``n``, ``mdape``, ``vendors``, ``parts``: :func:`workbook.calibrate.tuned_fp4_loo`).
    fp4_loo: dict | None = None
    #: The tuned level on the held-out dense benchmarks beyond 256 GPUs, per accelerator
    #: (``n``, ``median_error``, ``gpus``: :func:`workbook.calibrate.tuned_scale_holdout`).
    scale_holdout: dict | None = None
    #: Each level's MoE factor per part ("typical" / "tuned" -> accelerator id -> factor:
    #: :func:`workbook.model.uncertainty.level_moe_efficiency`).
    moe_factors: dict | None = None
    #: ``moe_efficiency``, the whole-run MoE factor fitted on Hopper [x].
    moe_whole_run: float = 0.0
    #: Each part with no MoE benchmark of its own -> its dense BF16 peak [TFLOP/s], whether its
    #: class is rack-scale, and its class's benchmarked parts as (name, peak, tuned factor)
    #: (:func:`workbook.model.moe_by_class`).
    moe_carry: dict | None = None
    #: The tuned level on the held-out benchmarks of trainers that are not a vendor's recipe, per
    #: table (``n``, ``median_error``, ``parts``: :func:`workbook.calibrate.tuned_other_stacks`).
    other_stacks: dict | None = None
    #: The parts with a published whole run (``used_full_runs``): the typical level's evidence.
    run_parts: frozenset = frozenset()
    #: ``moe_routing_width`` (:func:`workbook.model.shape.moe_routing_factor`) [units of width].
    routing_width: float = 0.0
    #: The narrowest and widest expert it was fitted on
    #: (:func:`workbook.calibrate.moe_routing.routing_width_range`) [units of width].
    routing_widths: tuple = (0.0, float("inf"))
    #: The tuned level on each part's held-out dense benchmarks of vendor recipes, at any GPU
    #: count (``n``, ``median_error``, ``gpus``: :func:`workbook.calibrate.tuned_part_holdout`).
    part_holdout: dict | None = None


def missing_evidence(best: pd.Series, run_parts: frozenset = frozenset()) -> str:
    """What a widened pick's part lacks, at its level (``time_band_widened``:
    :func:`workbook.model.uncertainty.time_band`): ``no published run``, ``no published MoE
    benchmark``, ... A typical mixture of experts on a part with no published whole run lacks
    that first (``run_parts``: the parts with one), whatever MoE benchmarks it has."""
    is_moe = best["moe_factor"] < 1
    if best["stack_level"] == "tuned":
        return "no published MoE benchmark" if is_moe else "no published benchmark"
    if is_moe and best["accelerator"] in run_parts:
        return "no published MoE run or MoE benchmark"
    return "no published run"


def band_reason(best: pd.Series, basis: BandBasis, shape: ModelShape | None = None) -> str:
    """The pick's p10-p90 days and where the band comes from (and that it is widened where the
    part has no evidence of its own; that a tuned mixture of experts has the MoE benchmarks' own,
    wider band, and how far they were off; where a tuned FP4 pick's speedup comes from; how far
    the tuned level was on the held-out benchmarks of a large dense pick's part at that scale;
    what a mixture of experts' exact ``shape`` does to its MoE factor: :func:`_routing_clause`)."""
    moe = basis.moe_loo
    is_moe = best["moe_factor"] < 1
    if best["stack_level"] == "tuned":
        dense = basis.benchmarks - (moe["n"] if moe else 0)
        whose = "the MoE ones" if is_moe and moe else f"the {dense} dense ones"
        level = (
            "the tuned stack (a vendor's reference recipe): steady-state throughput calibrated on "
            f"{basis.benchmarks} published benchmarks, the band from the leave-one-out errors of "
            f"{whose}"
        )
    else:
        level = (
            "the typical stack (what published whole runs realized): split-conformal quantiles of "
            f"published / predicted GPU-hours over {basis.runs} held-out runs"
        )
    text = (
        f"Its run time is a band, not a point: {band_text(best, 'wall_days')} per run (median "
        f"{duration_text(best['wall_days'])}), from {level}."
    )
    if best["time_band_widened"]:
        text += (
            f" There is {missing_evidence(best, basis.run_parts)} on {best['name']}: its estimate "
            "rests on the spec sheet and constants fitted on other parts, so its band is widened "
            f"{basis.widening:g}x."
        )
    if best["stack_level"] == "tuned" and is_moe and moe:
        text += (
            " It is a mixture of experts, where the tuned level is least sure: its band is the "
            f"{moe['n']} MoE benchmarks' own, wider than a dense plan's (each predicted without "
            f"itself, they were off by a median {moe['mdape']:.0%}, from "
            f"{moe['slowest']:.1f}x too slow to {moe['fastest']:.1f}x too fast)."
        )
    if is_moe:
        text += _moe_level_clause(best, basis) + _routing_clause(shape, basis)
    if best["stack_level"] == "tuned" and best["precision"] == "fp4":
        text += _fp4_clause(best, basis)
    if best["stack_level"] == "tuned" and not is_moe:
        text += _held_out_clause(best, basis)
    if best["stack_level"] == "tuned":
        text += _overhead_clause(best) + _other_stack_clause(basis)
    return text


def _moe_level_clause(best: pd.Series, basis: BandBasis) -> str:
    """Where a mixture-of-experts pick's MoE factor comes from when the two levels part ways:
    at the typical level, carried from Hopper's whole runs to its part by the part's MoE
    benchmarks; at the tuned level, that it is below the typical level's (vendors' MoE recipes ran
    slower in their own tables than the published MoE whole runs). Empty when neither applies."""
    factors, part = basis.moe_factors or {}, best["accelerator"]
    typical, tuned = (factors.get(level, {}).get(part) for level in ("typical", "tuned"))
    if typical is None or tuned is None:
        return ""
    carry = (basis.moe_carry or {}).get(part)
    off_hopper = abs(typical - basis.moe_whole_run) > 1e-9
    if carry is not None:  # no MoE benchmark of its own: its class's, even where held at H100's
        return _moe_carry_clause(carry, typical, tuned)
    if best["stack_level"] == "typical" and off_hopper:
        return (
            f" For a mixture of experts the typical level's factor ({basis.moe_whole_run:.2f}) "
            f"was fitted on published whole runs that are all on Hopper; the MoE benchmarks put "
            f"{best['name']} at {typical / basis.moe_whole_run:.0%} of H100's MoE efficiency, so "
            f"it plans at {typical:.2f}."
        )
    if best["stack_level"] == "tuned" and tuned < typical:
        return (
            f" Its MoE factor at this level is {tuned:.2f}, below the typical level's "
            f"{typical:.2f}: vendors' MoE recipes ran slower in their own benchmarks than the "
            "published MoE whole runs (on their labs' own stacks) imply, so a tuned stack is not "
            "the fast end for a mixture of experts."
        )
    return ""


#: How far from 1 a MoE's expert-width factor must be before its reasons say it [ratio].
ROUTING_SAID_FROM = 0.02


def _routing_clause(shape: ModelShape | None, basis: BandBasis) -> str:
    """What the expert width of a mixture of experts with an exact ``shape`` does to its MoE
    factor (:func:`workbook.model.shape.moe_routing_factor`), when it moves it by at least
    :data:`ROUTING_SAID_FROM`; empty without a shape."""
    if shape is None or shape.n_experts <= 1:
        return ""
    factor = float(moe_routing_factor(shape.ffn_hidden, shape.n_experts, basis.routing_width))
    if not abs(factor - 1.0) >= ROUTING_SAID_FROM:
        return ""
    ref = MOE_REFERENCE_EXPERT_WIDTH
    how = "narrower" if shape.ffn_hidden < ref else "wider"
    lo, hi = basis.routing_widths
    beyond = (
        f" That is an extrapolation: the MoE benchmarks' experts are {lo:,.0f} to {hi:,.0f} wide."
        if not lo <= shape.ffn_hidden <= hi
        else ""
    )
    return (
        f" Its experts are {shape.ffn_hidden:,} wide, {how} than DeepSeek-V3's {ref:,.0f} that "
        "the MoE factors are referred to: routing a token to them (router, permutation, "
        f"all-to-all and back) costs as much as a {basis.routing_width:g}-wide matmul (fitted on "
        f"the MoE benchmarks), so its MoE throughput is x {factor:.2f} ({1 / factor - 1:+.0%} "
        "time)." + beyond
    )


def _moe_carry_clause(carry: tuple, typical: float, tuned: float) -> str:
    """`` Its MoE factor is interpolated, on its 2,500 dense BF16 TFLOP/s, between ...``: where
    the MoE factor of a part with no MoE benchmark of its own comes from."""
    peak, rack, evidence = carry
    cls = "rack-scale domains" if rack else "8-GPU servers"
    shown = ", ".join(f"{name} {factor:.2f} at {p:,.0f}" for name, p, factor in evidence)
    peaks = [p for _, p, _ in evidence]
    at = f"{tuned:.2f} at the tuned level, {typical:.2f} at the typical"
    if peaks and not min(peaks) <= peak <= max(peaks):  # beyond its class's parts: held
        slow = peak < min(peaks)
        which = "slowest benchmarked part's" if slow else "fastest benchmarked parts'"
        return (
            f" Its MoE factor is its class's {which}, its {peak:,.0f} dense BF16 TFLOP/s being "
            f"{'below' if slow else 'above'} them all ({cls}: {shown}; tuned level; the fastest "
            f"averaged at one peak), not an interpolation: {at}."
        )
    return (
        f" Its MoE factor is interpolated, on its {peak:,.0f} dense BF16 TFLOP/s, between the MoE "
        f"benchmarks of its class ({cls}: {shown}; tuned level; held at the ends, averaged at "
        f"one peak): {at}."
    )


#: The share of a tuned pick's time the per-step overhead must cost before its reasons say so.
OVERHEAD_SAID_FROM = 0.05


def _overhead_clause(best: pd.Series) -> str:
    """What the tuned level's per-step overhead (``step_overhead_factor``: its batch spread thin
    over its GPUs) costs the pick, when it costs at least :data:`OVERHEAD_SAID_FROM` of its time."""
    cost = 1.0 / best["step_overhead_factor"] - 1.0
    if not cost >= OVERHEAD_SAID_FROM:
        return ""
    per_gpu = best["global_batch_tokens"] / best["n_gpus"]
    return (
        f" Its global batch gives each of its {int(best['n_gpus']):,} GPUs {per_gpu:,.0f} tokens "
        f"a step, so the per-step overhead the tuned level was fitted with on published "
        f"benchmarks adds {cost:.0%} to its time: a larger batch, or fewer GPUs where the deadline "
        "allows, would waste less."
    )


#: A part's held-out benchmarks are quoted to a tuned pick on it when their median signed error is
#: at least this far from 0 (CHANGELOG.md 2026-12-07; set after the medians were seen: it speaks
#: on H200 and MI325X today) [fraction].
PART_BIAS_SAID_FROM = 0.10
#: ... and they are at least this many [rows].
PART_BIAS_MIN_ROWS = 3


def _held_out_clause(best: pd.Series, basis: BandBasis) -> str:
    """How far the tuned level was on the held-out dense benchmarks of the pick's part (they fit
    nothing), so the reader knows which way to read its time. A pick as large as its part's rows
    beyond 256 GPUs hears those (the engine keeps a per-GPU rate that MLPerf's large runs did
    not: CHANGELOG.md, 2026-12-03); any other hears all its part's rows of vendor recipes, when
    they are :data:`PART_BIAS_MIN_ROWS` or more and a median :data:`PART_BIAS_SAID_FROM` or more
    off (CHANGELOG.md, 2026-12-07)."""
    part = best["accelerator"]
    scale = (basis.scale_holdout or {}).get(part)
    at_scale = scale is not None and best["n_gpus"] >= scale["gpus"][0]
    seen = scale if at_scale else (basis.part_holdout or {}).get(part)
    if seen is None or not (
        at_scale
        or seen["n"] >= PART_BIAS_MIN_ROWS
        and abs(seen["median_error"]) >= PART_BIAS_SAID_FROM
    ):
        return ""
    off, reading = _off_text(seen["median_error"])
    lo, hi = seen["gpus"]
    if at_scale:
        return (
            f" On {best['name']} at {lo:,}-{hi:,} GPUs the tuned level was {off} on the "
            f"{seen['n']} held-out benchmarks there, so at {int(best['n_gpus']):,} GPUs read this "
            f"time as {reading}."
        )
    return (
        f" On {best['name']}'s {seen['n']} held-out benchmarks ({lo:,}-{hi:,} GPUs; they fit "
        f"nothing) the tuned level was {off}, so read this time as {reading}."
    )


def _other_stack_clause(basis: BandBasis) -> str:
    """How far the tuned level was on the held-out benchmarks of trainers that are not a vendor's
    reference recipe (PyTorch's torchtitan: CHANGELOG.md 2026-12-04), as the time those runs took
    against the time it plans: a team on such a stack should not plan at the tuned level's rate."""
    seen = [
        f"{source} took a median {1 + v['median_error']:.2f}x its time on {v['n']} held-out "
        f"benchmarks ({', '.join(v['parts'])})"
        for source, v in sorted((basis.other_stacks or {}).items())
    ]
    if not seen:
        return ""
    return (
        f" The tuned level is what vendors' own recipes reached ({TUNED_RECIPES}); "
        f"{'; '.join(seen)}: on such a trainer, plan at the typical level or with a pilot run's "
        "time factor."
    )


def _off_text(median_error: float) -> tuple[str, str]:
    """A median signed error (predicted / published throughput - 1) in words, and how to read
    a time planned with it: ``("a median 19% too fast", "optimistic")``."""
    way = "fast" if median_error > 0 else "slow"
    reading = "optimistic" if way == "fast" else "pessimistic"
    return f"a median {abs(median_error):.0%} too {way}", reading


def _fp4_clause(best: pd.Series, basis: BandBasis) -> str:
    """Where a tuned FP4 pick's speedup comes from: its vendor's own FP4 benchmarks (and how far
    they were, each predicted without itself), or FP8's (and how far the held-out FP4 benchmarks
    were, which fitted nothing)."""
    fitted, held = basis.fp4_loo, basis.fp4_holdout
    if fitted and best["accelerator"] in fitted["parts"]:
        return (
            f" It is planned at FP4 with {' and '.join(fitted['vendors'])}'s own tuned FP4 "
            f"speedup, fitted on {fitted['n']} FP4 benchmarks (each predicted without itself, "
            f"they were off by a median {fitted['mdape']:.0%})."
        )
    if not held:
        return ""
    off, reading = _off_text(held["median_error"])
    return (
        " It is planned at FP4, which fitted no tuned constant for this vendor (FP4 takes FP8's "
        f"speedup on FP4's peak): on the {held['n']} held-out FP4 benchmarks the tuned level was "
        f"{off}, so read this time as {reading}."
    )
