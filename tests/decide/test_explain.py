"""The reasons in words: every failure of an option, and how far to trust the pick's deadline at
the slow end of published runs."""

import math

import pandas as pd
import pytest
from decide_cases import BASE

from workbook import Scenario, load_catalog, presets, recommend
from workbook.decide import option_row
from workbook.decide.explain import delta_text, option_phrase
from workbook.model import assumption_values
from workbook.text import MODE_PHRASE, days_text, duration_text, money_text


def test_every_infeasible_option_names_its_failed_constraints():
    o = recommend(Scenario(**BASE), sensitivity=False).options
    bad = o[~o["feasible"]]
    assert (bad["failed"].str.len() > 0).all()


def test_option_phrase_and_delta_text():
    assert option_phrase("rent-on-demand", 16.0, "NVIDIA H200") == "rent on demand 16 x NVIDIA H200"
    assert delta_text(1.1, 1.0) == "+10% vs the pick"
    assert delta_text(1.0, 0.0) == delta_text(math.nan, 1.0) == "n/a"


def test_pick_says_whether_it_still_makes_the_deadline_at_the_slow_end_of_its_band():
    """The slow end is the pick's own p90: its median days times exp(z90 x sigma_above)
    (workbook.model.uncertainty), with the typical band's p90 / p50 from data/assumptions.csv
    (1.9599 / 1.1389 = 1.72x the median on a part a published run checks)."""
    a = assumption_values(load_catalog())
    for name, fits in (("funded-startup-30b-domain", True), ("band-70b-to-400b", False)):
        s = presets[name]
        rec = recommend(s, sensitivity=False)
        top = option_row(rec.options, rec.top.accelerator, rec.top.n_gpus, rec.top.acquisition)
        ratio = a["realized_time_ratio_p90"] / a["realized_time_ratio_p50"]
        if not top["time_band_widened"]:
            assert top["wall_days_p90"] == pytest.approx(top["wall_days"] * ratio, rel=1e-9)
        slow, ttr = top["wall_days_p90"], top["lead_time_days"] + top["wall_days_p90"]
        assert bool(ttr <= s.deadline_days) is fits  # one pick keeps its margin, one loses it
        line = [r for r in rec.reasons if r.startswith("At the slow end of its band")]
        assert len(line) == 1
        assert f"{days_text(slow)} per run, {days_text(ttr)} to a finished run" in line[0]
        margin = abs(s.deadline_days - ttr)
        word = (
            f"still inside the {s.deadline_days:g}-day deadline by {days_text(margin)}"
            if fits
            else f"{days_text(margin)} past the {s.deadline_days:g}-day deadline"
        )
        # Several runs a year: the year's runs at that pace (6 x the p90 days, inside 365).
        year = (
            f"; its 6 runs a year take {days_text(6 * slow)} at that pace, inside the year"
            if s.runs_per_year == 6
            else ""
        )
        assert s.runs_per_year in (1, 6)
        assert word + year + "." in line[0]


def _least(o: pd.DataFrame) -> pd.Series:
    """The lowest of each option's three probabilities, by hand."""
    return o[["p_deadline", "p_budget", "p_schedule"]].min(axis=1)


@pytest.mark.parametrize(
    ("name", "what"),
    [
        # 512 B200 on demand at 88 % for the 200-day deadline: its p90 ends 9 days past it.
        ("band-70b-to-400b", "the deadline and the budget"),
        # 2 RTX A6000: p90 inside the 60-day deadline, but delivery and the year's 50 runs
        # (81 %) keep it under 90 %.
        ("series-a-healthcare-17b-lora", "the deadline, the budget and the year's 50 runs"),
    ],
)
def test_a_pick_under_90_percent_names_the_price_of_more_certainty(name, what):
    """surer_probability 0.9 (data/assumptions.csv): a pick that meets the deadline, the budget
    or the year's runs with less than 90 % is followed by the cheapest feasible option that meets
    all three with at least 90 %, its cost per run against the pick's and its odds."""
    s = presets[name]
    assert assumption_values(load_catalog())["surer_probability"] == 0.9
    rec = recommend(s, sensitivity=False)
    o = rec.options
    top = option_row(o, rec.top.accelerator, rec.top.n_gpus, rec.top.acquisition)
    assert _least(o)[top.name] < 0.9
    surer = (
        o[o["feasible"] & (_least(o) >= 0.9)]
        .sort_values(["cost_per_run_usd", "time_to_result_days"])
        .iloc[0]
    )
    assert surer["cost_per_run_usd"] > top["cost_per_run_usd"]  # else it would be the pick
    delta = surer["cost_per_run_usd"] / top["cost_per_run_usd"] - 1
    said = (
        f"To meet each of {what} with 90 % probability or more: "
        f"{MODE_PHRASE[surer['acquisition']]} "
        f"{int(surer['n_gpus'])} x {surer['name']}, {duration_text(surer['wall_days'])} per run, "
        f"{money_text(surer['cost_per_run_usd'])} per run"
        # a 1-year reservation's price is derived from the on-demand price, and said so
        f"{' at a derived price' if surer['price_derivation'] else ''} "
        f"({delta:+.0%} vs the pick); it finishes by day {s.deadline_days:g} with "
        f"{surer['p_deadline'] * 100:.0f} % probability"
    )
    assert said in rec.caveats[-1]
    assert rec.headline.endswith(rec.caveats[-1])


def test_the_price_of_more_certainty_for_the_band_70b_to_400b_pick():
    """By hand from the options table: 768 B200 on a 1-year reservation, 99 % for day 200,
    $21.5M a run (the year's reservation) against the pick's $8.42M on demand (+155 %; $7.88M
    and +173 % before the typical median ratio moved 1.1389 -> 1.2178 on 2026-12-07): what 11
    more points of certainty cost."""
    rec = recommend(presets["band-70b-to-400b"], sensitivity=False)
    assert "reservation 768 x NVIDIA B200" in rec.caveats[-1]
    assert "(+155% vs the pick)" in rec.caveats[-1]
    assert "with 99 % probability" in rec.caveats[-1]


def test_no_surer_option_is_said_and_none_for_a_pick_already_at_90_percent():
    """Only on-demand rent: no feasible option reaches 90 % for band-70b-to-400b, and the
    headline says so; band-400b-plus's pick is at 92 %: nothing is added."""
    s = presets["band-70b-to-400b"].replace(acquisition_modes=["rent-on-demand"])
    rec = recommend(s, sensitivity=False)
    o = rec.options
    assert (_least(o[o["feasible"]]) < 0.9).all()
    assert rec.caveats[-1] == (
        "No feasible option meets each of the deadline and the budget with 90 % probability or "
        "more."
    )
    rec = recommend(presets["band-400b-plus"], sensitivity=False)
    top = option_row(rec.options, rec.top.accelerator, rec.top.n_gpus, rec.top.acquisition)
    assert 0.9 <= _least(rec.options)[top.name] < 0.99
    assert not any("probability or more" in c for c in rec.caveats)


def test_the_headline_gives_the_probability_of_the_deadline():
    """Issue 19: "finishes by day 200 with 88 % probability" (the pick's p_deadline)."""
    s = presets["band-70b-to-400b"]
    rec = recommend(s, sensitivity=False)
    o = rec.options
    top = option_row(o, rec.top.accelerator, rec.top.n_gpus, rec.top.acquisition)
    assert 0.8 <= top["p_deadline"] < 0.99
    assert f"finishes by day 200 with {top['p_deadline'] * 100:.0f} % probability" in rec.headline


def test_the_articles_headline_is_called_physically_impossible_with_its_implied_peak():
    """The article's 70B / 5T tokens / 48 days on 128 H200: 6 N D = 6 x 70e9 x 5e12 = 2.1e24 FLOP
    against 128 GPUs x 48 days x 86,400 s x the H200's dense BF16 peak (catalog) = 4.0x (the
    article-claims check, data/article_claims.csv c58, says the same)."""
    from workbook import load_catalog

    peak = float(load_catalog().accelerator("h200-sxm")["tflops_dense_bf16"]) * 1e12
    need = 6 * 70e9 * 5e12 / (128 * 48 * 86400 * peak)
    assert round(need, 1) == 4.0
    rec = recommend(presets["article-70b-5t-48-days"], sensitivity=False)
    assert rec.top is None
    assert rec.headline.startswith(rec.reasons[0])
    assert rec.headline.startswith(
        "Physically impossible: 70B parameters on 5T tokens in 48 days needs "
        f"{need:.1f}x the dense BF16 peak of 128 x NVIDIA H200 SXM5 141GB"
    )
    # A scenario that is only too tight or too poor is not called impossible.
    tight = presets["article-70b-5t-48-days"].replace(deadline_days=400, max_gpus=1024)
    assert not recommend(tight, sensitivity=False).headline.startswith("Physically impossible")


def test_no_nan_reaches_a_reader_for_parts_without_the_precision():
    """FP8 on parts that lack it: the precision reason says so; no 'nan' days or '$nan' follows."""
    rec = recommend(presets["band-7b-to-70b"].replace(precision="fp8"), sensitivity=False)
    o = rec.options
    lacking = o[~o["supported"]]
    assert len(lacking) and (lacking["why_precision"] == "no FP8 support").all()
    texts = list(o["failed"]) + rec.reasons + [t for v in rec.rejected.values() for t in v]
    assert not [t for t in texts if "nan" in t]


def test_fp4_plans_on_the_parts_with_an_fp4_peak():
    """FP4 (Scenario.precision, the article's "FP4" on Blackwell): parts without an FP4 peak in
    data/accelerators.csv (H100, MI300X) fail on precision and say so; B200 runs."""
    rec = recommend(presets["band-70b-to-400b"].replace(precision="fp4"), sensitivity=False)
    o = rec.options
    lacking = set(o.loc[~o["supported"], "accelerator"])
    assert {"h100-sxm", "h200-sxm"} <= lacking and "b200-hgx" not in lacking
    assert (o.loc[~o["supported"], "why_precision"] == "no FP4 support").all()


def test_band_text_names_a_cost_the_run_time_does_not_move():
    """A 1-year reservation costs the year whatever the run time: the memo printed
    "p10-p90 $42,077,664-$42,077,664"; a real band keeps both ends."""
    from workbook.decide.explain import band_text

    fixed = pd.Series({"cost_per_run_usd_p10": 42_077_664.2, "cost_per_run_usd_p90": 42_077_663.9})
    assert band_text(fixed, "cost_per_run_usd") == (
        "the same at p10 and p90: the run time does not move it"
    )
    moving = pd.Series({"cost_per_run_usd_p10": 20_117.0, "cost_per_run_usd_p90": 25_001.0})
    assert band_text(moving, "cost_per_run_usd") == "p10-p90 $20,100-$25,000"
    # $57.04M and $57.01M: both ends print $57.0M, and the text does not claim nothing moved.
    close = pd.Series({"cost_per_run_usd_p10": 57_011_904.0, "cost_per_run_usd_p90": 57_040_000.0})
    assert band_text(close, "cost_per_run_usd") == "the same at p10 and p90 to three figures"
    days = pd.Series({"wall_days_p10": 3.1, "wall_days_p90": 7.4})
    assert band_text(days, "wall_days") == "p10-p90 3.1-7.4 days"


def test_a_tuned_moe_pick_says_the_tuned_level_is_least_sure_on_moe():
    """At the tuned level a mixture of experts' reasons say its band is the MoE benchmarks' own and
    carry their leave-one-out figures (MdAPE, the worst too-slow and too-fast ratios, from
    workbook.calibrate.tuned_moe_loo); a dense pick at the tuned level and a MoE pick at the
    typical level do not. The MoE pick's p10-p90 is wider than the dense one's by the two bands'
    ratio (data/assumptions.csv tuned_time_ratio_moe_* against tuned_time_ratio_*)."""
    from workbook.calibrate import tuned_moe_loo

    cat = load_catalog()
    moe = tuned_moe_loo(cat)
    # All 50 MoE benchmark rows (NeMo 25.09, 25.11 and 26.02, NeMo AutoModel) fit the MoE
    # factor; the most over-predicted is 25.11's Qwen3-30B-A3B on B200 (9,299 published tokens/s
    # per GPU, near 3x below 26.02's B300 at 29,521 on the same 8-GPU recipe), the most
    # under-predicted 25.09's tokendrop Qwen3-235B-A22B on H100 (CHANGELOG.md 2026-12-05).
    assert moe["n"] == 50 and moe["fastest"] > 2.0 and moe["slowest"] > 1.5
    sentence = (
        f"its band is the 50 MoE benchmarks' own, wider than a dense plan's (each predicted "
        f"without itself, they were off by a median {moe['mdape']:.0%}, from "
        f"{moe['slowest']:.1f}x too slow to {moe['fastest']:.1f}x too fast)"
    )
    base = presets["band-7b-to-70b"]
    tuned_moe = base.replace(n_params=30.5e9, n_active_params=3.3e9, software_stack="tuned")
    rec = recommend(tuned_moe, sensitivity=False)
    assert any(sentence in r for r in rec.reasons)
    assert any("the leave-one-out errors of the MoE ones" in r for r in rec.reasons)
    dense = recommend(base.replace(software_stack="tuned"), sensitivity=False).reasons
    assert any("the leave-one-out errors of the 89 dense ones" in r for r in dense)  # 139 - 50
    typical = recommend(tuned_moe.replace(software_stack="typical"), sensitivity=False).reasons
    for reasons in (dense, typical):
        assert not any("MoE benchmarks" in r for r in reasons)


def test_a_tuned_fp4_pick_says_where_its_fp4_speedup_comes_from():
    """At the tuned level an FP4 pick's reasons say where its FP4 speedup comes from. On an NVIDIA
    part: NVIDIA's own, fitted on NeMo 26.02's 4 NVFP4 rows, with their leave-one-out MdAPE
    (workbook.calibrate.tuned_fp4_loo). On an AMD part: FP8's, with the median signed error of
    the 2 held-out MXFP4 LoRA rows (tuned_fp4_holdout: MLPerf v6.0 MI355X -4 %, MI350X +14 %, a
    median 5 % too fast). An FP8 pick at the tuned level and an FP4 pick at the typical level
    say neither."""
    from workbook.calibrate import tuned_fp4_holdout, tuned_fp4_loo

    cat = load_catalog()
    fitted, held = tuned_fp4_loo(cat), tuned_fp4_holdout(cat)
    assert fitted["n"] == 4 and fitted["vendors"] == ("NVIDIA",) and fitted["mdape"] < 0.1
    assert "gb300-nvl72" in fitted["parts"] and "mi355x" not in fitted["parts"]
    assert held["n"] == 2 and 0.0 < held["median_error"] < 0.1
    nvidia = (
        "It is planned at FP4 with NVIDIA's own tuned FP4 speedup, fitted on 4 FP4 benchmarks "
        f"(each predicted without itself, they were off by a median {fitted['mdape']:.0%})."
    )
    amd = (
        f"on the 2 held-out FP4 benchmarks the tuned level was a median "
        f"{held['median_error']:.0%} too fast, so read this time as optimistic"
    )
    tuned_fp4 = presets["band-7b-to-70b"].replace(precision="fp4", software_stack="tuned")
    for parts, sentence in ((["b200-hgx", "gb300-nvl72"], nvidia), (["mi355x"], amd)):
        rec = recommend(tuned_fp4.replace(accelerators=parts), sensitivity=False)
        top = option_row(rec.options, rec.top.accelerator, rec.top.n_gpus, rec.top.acquisition)
        assert top["precision"] == "fp4" and top["stack_level"] == "tuned"
        assert top["accelerator"] in parts
        assert any(sentence in r for r in rec.reasons), rec.reasons
    for other in (
        tuned_fp4.replace(precision="fp8"),
        tuned_fp4.replace(software_stack="typical"),
    ):
        reasons = recommend(other, sensitivity=False).reasons
        assert not any("FP4 benchmarks" in r for r in reasons)


def test_a_large_tuned_pick_says_how_far_the_tuned_level_was_at_that_scale():
    """At the tuned level a dense pick as large as its part's held-out benchmarks beyond 256 GPUs
    says how far the tuned level was on them (workbook.calibrate.tuned_scale_holdout; MLPerf
    v5.0, declared 2026-12-03): GB200's 7 rows at 512-2,496 GPUs (405B Tyche +15.7, Carina
    +14.3 / +14.4 / +15.0 / +15.8 / +16.8 %, LoRA +4.7 %, with the tuned per-step overhead) a
    median 15 % too fast, so optimistic; H100's 7 at 512-8,192 (MLPerf 405B -10.5 / -10.3 /
    -10.3 / -4.2 %, NeMo 25.09 405B -4.5 %, 26.02 405B -4.0 %, 24.12 GPT-3 175B -0.4 %) a median
    4.5 % too slow, said as 5 %. A smaller pick, or one on a part without such rows, does not
    say it."""
    from workbook.calibrate import tuned_scale_holdout

    seen = tuned_scale_holdout(load_catalog())
    gb200 = seen["gb200-nvl72"]
    assert (gb200["n"], gb200["gpus"]) == (7, (512, 2496))
    assert gb200["median_error"] == pytest.approx(0.150, abs=0.002)  # the middle of the seven
    big = presets["enterprise-frontier-pretraining"].replace(
        software_stack="tuned", budget_usd=2e9, deadline_days=2000
    )
    rec = recommend(big.replace(accelerators=["gb200-nvl72"]), sensitivity=False)
    assert rec.top.n_gpus >= 512
    said = " at 512-2,496 GPUs the tuned level was a median 15% too fast on the 7 held-out"
    assert any(said in r and "read this time as optimistic" in r for r in rec.reasons)
    h100 = recommend(big.replace(accelerators=["h100-sxm"]), sensitivity=False).reasons
    assert any("a median 5% too slow on the 7 held-out" in r for r in h100)
    assert seen["h100-sxm"]["median_error"] == pytest.approx(-0.045, abs=0.001)
    small = presets["band-7b-to-70b"].replace(software_stack="tuned", accelerators=["gb200-nvl72"])
    small_rec = recommend(small, sensitivity=False)
    assert small_rec.top.n_gpus < 512
    assert not any("held-out benchmarks there" in r for r in small_rec.reasons)


def test_a_tuned_pick_that_spreads_its_batch_thin_says_what_the_per_step_overhead_costs():
    """At the tuned level a step costs 150 more tokens of each GPU's work
    (step_overhead_tuned_tokens, CHANGELOG.md 2026-12-03). A 7B plan of 2T tokens due in 5 days
    picks 1,536 B200: its default 4M-token batch gives each GPU 4,000,000 / 1,536 = 2,604 tokens a
    step, so the overhead adds 150 / 2,604 = 5.8 % (said from 5 %). The same plan at the typical
    level (no overhead), and the 34B preset's 128 GPUs (4,000,000 / 128 = 31,250 tokens: 0.5 %),
    do not say it."""
    base = presets["band-7b-to-70b"]
    thin = base.replace(
        software_stack="tuned", n_params=7e9, n_tokens=2e12, deadline_days=5, budget_usd=5e8
    )
    rec = recommend(thin, sensitivity=False)
    top = rec.options.iloc[0] if rec.top is None else rec.top
    assert (top.accelerator, top.n_gpus) == ("b200-hgx", 1536)
    assert 150 / (4e6 / 1536) == pytest.approx(0.0576, abs=1e-4)
    said = "gives each of its 1,536 GPUs 2,604 tokens a step, so the per-step overhead"
    assert any(said in r and "adds 6% to its time" in r for r in rec.reasons), rec.reasons
    for other in (thin.replace(software_stack="typical"), base.replace(software_stack="tuned")):
        assert not any("tokens a step" in r for r in recommend(other, sensitivity=False).reasons)


def test_a_moe_pick_says_where_its_moe_factor_comes_from_when_the_levels_part():
    """A typical MoE pick on B200 says its factor is Hopper's whole-run 0.70 carried by the MoE
    benchmarks (0.3233 / 0.5022 = 64 % of H100's: 0.7 x 0.644 = 0.45); at the tuned level it
    says its factor (B200's own 0.32) is below the typical level's, so a tuned stack is not the
    fast end for a MoE. On H100, the part the whole-run factor was fitted on, the typical pick
    says neither."""
    moe = presets["band-400b-plus"]
    typical = recommend(moe.replace(accelerators=["b200-hgx"]), sensitivity=False).reasons
    carried = (
        "the MoE benchmarks put NVIDIA B200 (HGX B200, 180 GB) at 64% of H100's MoE efficiency"
    )
    assert any(f"{carried}, so it plans at 0.45." in r for r in typical)
    tuned = moe.replace(accelerators=["b200-hgx"], software_stack="tuned")
    below = "Its MoE factor at this level is 0.32, below the typical level's 0.45"
    assert any(below in r for r in recommend(tuned, sensitivity=False).reasons)
    h100 = recommend(moe.replace(accelerators=["h100-sxm"]), sensitivity=False).reasons
    assert not any("MoE efficiency" in r or "MoE factor at this level" in r for r in h100)


def test_a_moe_pick_without_moe_benchmarks_says_its_class_gave_its_factor():
    """MI300X has no MoE benchmark: its reasons say its factor is interpolated on its compute
    between its class's benchmarked parts (tests/model/test_uncertainty.py by hand: 0.45 tuned,
    0.7 x 0.4479 / 0.5022 = 0.62 typical), naming them with their factors and peaks."""
    moe = presets["band-400b-plus"].replace(accelerators=["mi300x"])
    said = (
        "Its MoE factor is interpolated, on its 1,307 dense BF16 TFLOP/s, between the MoE "
        "benchmarks of its class (8-GPU servers: NVIDIA H100 SXM5 80GB 0.50 at 989, NVIDIA B200 "
        "0.32 at 2,250, NVIDIA B300 0.36 at 2,250; tuned level; held at the ends, averaged at one "
        "peak): 0.45 at the tuned level, 0.62 at the typical."
    )
    for stack in ("typical", "tuned"):
        reasons = recommend(moe.replace(software_stack=stack), sensitivity=False).reasons
        assert any(said in r for r in reasons), reasons
        assert not any("the MoE benchmarks put AMD" in r for r in reasons)


def test_a_pick_on_a_widened_band_says_so_in_the_headline_and_names_the_checked_option():
    """funded-startup-30b-domain picks 128 MI355X on demand, whose band is widened (no published
    run on MI355X). The headline says so and names what the same rule picks among the options
    whose band is not widened: 512 B200 on demand, $39,722 against $32,067, +23.9 % (128 of
    them cost $38,816 but take 5.9 days to a finished run against 4.1: 2.3 % more for 31 %
    sooner is worth its premium by the pick's rule, applied until no option is; $37,209 against
    $30,800 until the typical median ratio moved 1.1389 -> 1.2178 on 2026-12-07; against
    $32,338 until MI355X's public rent, $2.59, replaced the estimated $2.62 on 2026-12-08), and
    how much longer its runs may take before another is the pick, saying that one's price is an
    estimate (test_price_provenance.py does that by hand on the estimate world). A pick on a
    checked part (enterprise's B200) says nothing of it."""
    rec = recommend(presets["funded-startup-30b-domain"], sensitivity=False)
    said = (
        "Its time rests on no published run on AMD Instinct MI355X: its probabilities are on a "
        "band widened 1.5x. It stays the pick if its runs take up to 7.7 % longer than "
        "estimated (3.2 days, not 2.9 days); longer than that, rent on demand 128 x AMD "
        "Instinct MI350X is the pick (its price an estimate). The speed of AMD Instinct MI350X "
        "is estimated the same way (CDNA 4 on ROCm, no published run on either): if both run "
        "slower together, it stays the pick if its runs take up to 10 % longer than estimated; "
        "longer than that, rent on spot 64 x NVIDIA RTX PRO 6000 Blackwell Server Edition is "
        "the pick. The best option with published evidence on its part: rent on demand 512 x "
        "NVIDIA B200 (HGX B200, 180 GB), 14 hours per run, $39,700 per run (+24% vs the pick)."
    )
    assert rec.headline.endswith(said) and rec.caveats[-1] == said
    other = option_row(rec.options, "b200-hgx", 512, "rent-on-demand")
    assert not other["time_band_widened"] and other["feasible"]
    more = other["cost_per_run_usd"] / rec.top.cost_per_run_usd - 1
    assert more == pytest.approx(39_722 / 32_067 - 1, abs=1e-3)
    fewer = option_row(rec.options, "b200-hgx", 128, "rent-on-demand")
    premium = other["cost_per_run_usd"] / fewer["cost_per_run_usd"] - 1
    sooner = 1 - other["time_to_result_days"] / fewer["time_to_result_days"]
    assert 0.02 < premium < 0.1 * sooner  # 1 % per 10 % sooner (data/assumptions.csv)
    enterprise = recommend(presets["enterprise-frontier-pretraining"], sensitivity=False)
    assert "Its time rests on" not in enterprise.headline


def test_the_headline_is_the_verdict_then_its_caveats():
    """funded-startup-30b-domain picks 128 MI355X on demand: a widened band (an estimated price
    too until MI355X's public rent entered on 2026-12-08). The headline is the pick's sentence,
    then each caveat; ``verdict`` is the sentence alone (what the app and the memo set in bold),
    ``caveats`` in the headline's order. Enterprise's
    B200 (published runs on its part) has three: its price is derived, not quoted (since
    2026-12-08), its run time decides the pick within its own band, and at 81 % for the deadline,
    what 90 % would cost."""
    rec = recommend(presets["funded-startup-30b-domain"], sensitivity=False)
    (band,) = rec.caveats
    assert band.startswith("Its time rests on no published run on AMD Instinct MI355X:")
    assert rec.headline == f"{rec.verdict} {band}"
    assert rec.verdict.startswith("Rent on demand 128 x AMD Instinct MI355X (16 nodes):")
    assert rec.verdict.endswith("9.67 t CO2e.")
    enterprise = recommend(presets["enterprise-frontier-pretraining"], sensitivity=False)
    derived, thin, surer = enterprise.caveats
    assert derived.startswith("Its price is derived, not quoted: 1-year reservation = ")
    assert thin.startswith("Its run time decides the pick within its own band")
    assert surer.startswith(
        "To meet each of the deadline and the budget with 90 % probability or more:"
    )
    assert enterprise.headline == f"{enterprise.verdict} {derived} {thin} {surer}"
    assert rec.runners_up and all(r.caveats == [] for r in rec.runners_up)


def test_the_evidence_caveat_without_a_checked_option_or_when_the_sourced_one_is_it():
    from workbook.decide.caveats import evidence_caveat

    best = pd.Series({"moe_factor": 1.0, "stack_level": "tuned", "name": "AMD Instinct MI355X"})
    none = evidence_caveat(best, None, 1.5)
    assert none == (
        "Its time rests on no published benchmark on AMD Instinct MI355X: its probabilities are "
        "on a band widened 1.5x. No feasible option has published evidence on its part."
    )
    same = evidence_caveat(best, pd.Series(dtype=object), 1.5, said_already=True)
    assert same.endswith(" The option with sourced prices has published evidence on its part.")


def test_a_tuned_pick_says_how_far_torchtitan_was_from_the_tuned_level():
    """A pick at the tuned level says the level is what vendors' own recipes reached, and how far
    PyTorch's torchtitan was from it on its held-out H200 benchmarks (declared 2026-12-04): the
    time those runs took against the time it plans is 1 + the median of the two rows' signed
    errors (predicted / published throughput - 1), read from the tuned benchmark table. A pick
    at the typical level does not say it."""
    import numpy as np

    from workbook.calibrate import benchmark_throughput

    t = benchmark_throughput(load_catalog(), "tuned")
    rows = t[t["run"].str.startswith("torchtitan-")]
    assert list(rows["published_tok_s_gpu"]) == [10938.0, 10753.0]
    factor = 1 + float(np.median(rows["error"]))
    assert 1.3 < factor < 1.6  # the declared rows: the tuned level plans a NeMo-class rate
    tuned = presets["funded-startup-30b-domain"].replace(software_stack="tuned")
    said = (
        f"torchtitan (PyTorch) took a median {factor:.2f}x its time on 2 held-out benchmarks "
        "(NVIDIA H200 SXM5 141GB): on such a trainer, plan at the typical level"
    )
    assert any(said in r for r in recommend(tuned, sensitivity=False).reasons)
    typical = recommend(tuned.replace(software_stack="typical"), sensitivity=False).reasons
    assert not any("torchtitan" in r for r in typical)


def test_a_widened_moe_pick_names_what_its_part_lacks():
    """A typical-stack MoE plan is widened when its part has no published whole run, or has one
    but no MoE evidence (time_band). band-400b-plus bought only picks 3,456 GB200 NVL72: GB200
    has its own MoE benchmarks (moe_efficiency_tuned keyed gb200-nvl72) and no whole run, so the
    headline says it lacks a published run, not a MoE benchmark (until 2026-12-07 it said "no
    published MoE run or MoE benchmark"). A100 80GB has whole runs (data/published_runs.csv), no
    MoE run and no MoE benchmark: that is what a MoE on it lacks."""
    from workbook.decide.band_reason import missing_evidence
    from workbook.decide.recommend import band_basis

    cat = load_catalog()
    assert "gb200-nvl72" in cat.own_values("assumptions", "moe_efficiency_tuned")
    owned = presets["band-400b-plus"].replace(acquisition_modes=["buy-new"])
    rec = recommend(owned, monte_carlo_samples=0)
    assert rec.top.accelerator == "gb200-nvl72"
    said = "Its time rests on no published run on NVIDIA GB200 NVL72 (per Blackwell GPU):"
    assert said in rec.top.sentence and "MoE benchmark on NVIDIA GB200" not in rec.top.sentence
    parts = band_basis(cat).run_parts
    assert "a100-80gb-sxm" in parts and "gb200-nvl72" not in parts
    moe = {"moe_factor": 0.7, "stack_level": "typical"}
    a100 = pd.Series(moe | {"accelerator": "a100-80gb-sxm"})
    assert missing_evidence(a100, parts) == "no published MoE run or MoE benchmark"
    dense = pd.Series(moe | {"accelerator": "a100-80gb-sxm", "moe_factor": 1.0})
    assert missing_evidence(dense, parts) == "no published run"
    tuned = pd.Series(moe | {"accelerator": "gb200-nvl72", "stack_level": "tuned"})
    assert missing_evidence(tuned, parts) == "no published MoE benchmark"


def test_a_moe_pick_with_an_exact_shape_says_what_its_expert_width_does(tmp_path):
    """moe_routing_width 256 (data/assumptions.csv): Qwen3-30B-A3B's 768-wide experts (its
    config.json) run at (1 + 256 / 2048) / (1 + 256 / 768) = 0.84375 of a 2,048-wide expert's
    MoE throughput, 1 / 0.84375 - 1 = +18.5 % time; Mixtral 8x7B's 14,336-wide ones at 1.125 /
    (1 + 256 / 14336) = 1.1053, -9.5 %, beyond the 768-2,880-wide experts the width was fitted on
    (routing_width_range), which it says. The pick's reasons say it; a MoE given only by its size
    (band-400b-plus) and a dense model say nothing of expert width."""
    import json

    from hf_configs import MIXTRAL_8X7B, QWEN3_30B_A3B

    base = presets["band-7b-to-70b"].replace(n_tokens=2e12)
    said = {}
    for name, config in (("qwen", QWEN3_30B_A3B), ("mixtral", MIXTRAL_8X7B)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(config))
        s = base.replace(hf_config=str(path), n_params=None, n_active_params=None)
        said[name] = " ".join(recommend(s, sensitivity=False).reasons)
    assert (
        "Its experts are 768 wide, narrower than DeepSeek-V3's 2,048 that the MoE factors are "
        "referred to: routing a token to them (router, permutation, all-to-all and back) costs "
        "as much as a 256-wide matmul (fitted on the MoE benchmarks), so its MoE throughput is "
        "x 0.84 (+19% time)."
    ) in said["qwen"]
    assert "Its experts are 14,336 wide, wider than" in said["mixtral"]
    assert "x 1.11 (-10% time)." in said["mixtral"]
    beyond = "That is an extrapolation: the MoE benchmarks' experts are 768 to 2,880 wide."
    assert beyond in said["mixtral"] and "extrapolation" not in said["qwen"]
    for plain in (presets["band-400b-plus"], base):
        assert "Its experts are" not in " ".join(recommend(plain, sensitivity=False).reasons)


def test_a_moe_pick_beyond_its_classs_benchmarked_parts_says_its_factor_is_held():
    """moe_by_class holds a part outside its class's benchmarked peaks at the end (by hand in
    tests/model/test_uncertainty.py): RTX PRO 6000 (504 dense BF16 TFLOP/s, below H100's 989)
    takes H100's 0.5022 tuned, 0.7 x 0.5022 / 0.5022 = 0.70 typical; MI355X (2,500, above B200's
    and B300's 2,250) their mean 0.3424 tuned, 0.7 x 0.3424 / 0.5022 = 0.48 typical. Their
    reasons say so, not that the factor was interpolated (until 2026-12-07 RTX PRO 6000, at
    Hopper's 0.70, said nothing)."""
    moe = presets["band-400b-plus"].replace(n_params=30e9, n_active_params=3e9, n_tokens=2e12)
    cases = {
        "rtx-pro-6000-server": ("slowest benchmarked part's", "504", "below", "0.50", "0.70"),
        "mi355x": ("fastest benchmarked parts'", "2,500", "above", "0.34", "0.48"),
    }
    for part, (which, peak, side, tuned, typical) in cases.items():
        reasons = " ".join(recommend(moe.replace(accelerators=[part]), sensitivity=False).reasons)
        said = (
            f"Its MoE factor is its class's {which}, its {peak} dense BF16 TFLOP/s being {side} "
            "them all (8-GPU servers: NVIDIA H100 SXM5 80GB 0.50 at 989, NVIDIA B200 0.32 at "
            "2,250, NVIDIA B300 0.36 at 2,250; tuned level; the fastest averaged at one peak), "
            f"not an interpolation: {tuned} at the tuned level, {typical} at the typical."
        )
        assert said in reasons, reasons
        assert "interpolated" not in reasons


def test_a_tuned_pick_says_which_way_its_parts_held_out_benchmarks_lean():
    """A dense tuned pick on a part whose held-out benchmarks of vendor recipes (3 or more; they
    fit nothing) were a median 10 % or more off says which way to read its time
    (band_reason.PART_BIAS_SAID_FROM, declared 2026-12-07). MI325X's 5 rows by hand: Primus
    -13.8 / -13.3 / +7.2 / -17.2 %, MLPerf v5.0 LoRA -12.0 %, median -13.3 % (too slow:
    pessimistic); H200's 7 (MLPerf v5.0 LoRA +14.2 / +16.2 / +16.7 / +3.3 / +11.9 / +6.0 %, 405B
    Nebius +0.2 %) median +11.9 % (optimistic); H100's 15 a median 4 % off: nothing said, nor at
    the typical level."""
    from workbook.calibrate import tuned_part_holdout

    seen = tuned_part_holdout(load_catalog())
    assert (seen["mi325x"]["n"], seen["mi325x"]["gpus"]) == (5, (8, 64))
    assert seen["mi325x"]["median_error"] == pytest.approx(-0.133, abs=0.001)
    assert (seen["h200-sxm"]["n"], seen["h200-sxm"]["gpus"]) == (7, (8, 512))
    assert seen["h200-sxm"]["median_error"] == pytest.approx(0.119, abs=0.001)
    assert abs(seen["h100-sxm"]["median_error"]) < 0.10
    base = presets["band-7b-to-70b"].replace(software_stack="tuned")
    mi325x = recommend(base.replace(accelerators=["mi325x"]), sensitivity=False).reasons
    said = (
        "On AMD Instinct MI325X's 5 held-out benchmarks (8-64 GPUs; they fit nothing) the tuned "
        "level was a median 13% too slow, so read this time as pessimistic."
    )
    assert any(said in r for r in mi325x)
    h200 = recommend(base.replace(accelerators=["h200-sxm"]), sensitivity=False)
    assert h200.top.n_gpus < 512
    assert any("a median 12% too fast, so read this time as optimistic" in r for r in h200.reasons)
    for quiet in (
        base.replace(accelerators=["h100-sxm"]),
        base.replace(accelerators=["mi325x"], software_stack="typical"),
    ):
        reasons = recommend(quiet, sensitivity=False).reasons
        assert not any("; they fit nothing) the tuned level was" in r for r in reasons)
