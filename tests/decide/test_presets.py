"""The article's scenarios as presets: the engine's answers, compared with the article's."""

import math
from statistics import NormalDist

import pytest

from workbook import ARTICLE_ADVICE, article_comparison, presets, recommend
from workbook.decide import option_row

EXPECTED = {
    # name: (accelerator, acquisition) the engine picks; the tests below say why where it differs
    # from the article
    "small-team-instruction-tuning": ("rtx-pro-6000-server", "rent-spot"),
    "funded-startup-30b-domain": ("mi355x", "rent-on-demand"),
    # At 80 % confidence (issue 19) the MI355X purchase (no published run: its band is widened
    # 1.5x) and the B300-class purchases (189-day lead time) miss the year too often.
    "enterprise-frontier-pretraining": ("b200-hgx", "rent-reserved"),
    "modest-budget-token-efficient": ("mi355x", "rent-on-demand"),
    # 2 RTX A6000 in a tower workstation: one RTX 6000 Ada is cheaper per run, but its 50 runs
    # of 4.9 days (median) fit in the year with only 73 % probability, under the 80 % the
    # scenario asks (test_one_ada_misses_the_years_50_runs_at_80_percent). Until 2026-12-03 the
    # year was checked at the median and the Ada won.
    "series-a-healthcare-17b-lora": ("rtx-a6000", "buy-new"),
    "band-under-7b": ("rtx-pro-6000-server", "rent-spot"),
    "band-7b-to-70b": ("mi355x", "rent-on-demand"),
    # 120 of the 200 days at the median: only parts a published run checks (B200) keep 80 %.
    "band-70b-to-400b": ("b200-hgx", "rent-on-demand"),
    # A 1.2T / 100B-active mixture of experts: since 2026-12-03 B200's typical MoE factor is
    # carried from Hopper's whole runs by NVIDIA's own MoE benchmarks, and 1,536 B200 reserved
    # misses the year at 80 % (test_400b_band_moe_takes_each_parts_own_moe_benchmarks).
    "band-400b-plus": ("b200-hgx", "rent-reserved"),
}


@pytest.fixture(scope="module")
def recs():
    """Every preset's recommendation (the sensitivity is tested in test_sensitivity.py)."""
    return {name: recommend(s, sensitivity=False) for name, s in presets.items()}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_preset_pick_and_its_reasons(recs, name):
    rec = recs[name]
    assert (rec.top.accelerator, rec.top.acquisition) == EXPECTED[name]
    assert rec.top.sentence and rec.reasons and rec.rejected
    cmp = article_comparison(rec, name)
    assert cmp.startswith(f'The article: "{ARTICLE_ADVICE[name]}"')
    assert "feasible" in cmp or "fails on" in cmp


def test_small_team_article_option_is_feasible_but_dearer(recs):
    """The article says rent 8x H100; the engine agrees renting wins but finds 2 RTX PRO 6000 on
    spot cheaper per run for an 8B fine-tune, and says how much dearer the article's pick is."""
    cmp = article_comparison(recs["small-team-instruction-tuning"], "small-team-instruction-tuning")
    assert "8 x NVIDIA H100" in cmp and "is feasible" in cmp and "vs the engine's pick" in cmp


def test_400b_band_moe_takes_each_parts_own_moe_benchmarks(recs):
    """band-400b-plus is a 1.2T / 100B-active mixture of experts. B200's typical MoE factor is the
    whole-run 0.70 (fitted on Hopper) times NVIDIA's own MoE benchmarks of B200 over H100's (0.3233
    / 0.5022 in data/assumptions.csv: 0.451; 0.3240 / 0.4858 = 0.467 until the expert width entered
    on 2026-12-07, 0.3213 / 0.5211 = 0.43 until NeMo 25.09's rows joined the fit on 2026-12-05), so
    the 1-year reservation of 1,536 B200 runs 289 days at the median (270.6 x 1.2178 / 1.1389: the
    typical level's median ratio moved with the seventh batch's runs on 2026-12-07) and, 3.5 days of
    lead time on top, makes day 365 with Phi(ln(361.5 / 289.3) / 0.371) = 73 %, under the 80 %
    asked; 2,048 of them pass at $57.2M, the pick (90 %, on a part with MoE evidence: no evidence
    caveat; its price, B200's on-demand less the 1-year discount, is derived, and the headline says
    so, tests/decide/test_price_provenance.py). MI300X has no MoE benchmark: since 2026-12-04 it
    takes its class's factor at its compute, 0.7 x 0.4479 / 0.5022 = 0.624, not Hopper's 0.70, so
    the 4,096 MI300X reservation that was the pick until then runs 220.5 x 0.70 / 0.624 = 247 days
    (206.2 x 1.2178 / 1.1389 = 220.5 at Hopper's factor) and misses the 80 % (75 %). The article's
    B300 NVL72: its best match is buying 3,456 GB300 (typical factor 0.7 x 0.6067 / 0.5022 = 0.85;
    0.77 before H100's own factor fell, which left it at 78 %), feasible at 80 % (81 %); B300 HGX
    (0.7 x 0.3615 / 0.5022 = 0.50; 0.53 before 2026-12-07, when 4,096 were enough) is feasible from
    6,144 GPUs (4,096: 104 days after 203 of lead time, 78 %)."""
    rec = recs["band-400b-plus"]
    o = rec.options
    b200 = option_row(o, "b200-hgx", 1536, "rent-reserved")
    assert b200["moe_factor"] == pytest.approx(0.7 * 0.3233 / 0.5022)
    sigma = math.log(1.9599 / 1.2178) / NormalDist().inv_cdf(0.9)  # realized_time_ratio_*
    ratio = (365 - b200["lead_time_days"]) / b200["wall_days"]
    assert b200["p_deadline"] == pytest.approx(NormalDist().cdf(math.log(ratio) / sigma), abs=0.01)
    assert 0.72 < b200["p_deadline"] < 0.80 and not b200["feasible"]
    pick = option_row(o, "b200-hgx", 2048, "rent-reserved")
    assert rec.top.n_gpus == 2048 and pick["feasible"] and not pick["time_band_widened"]
    assert rec.top.cost_per_run_usd == pytest.approx(57_181_536, abs=1)
    # no evidence caveat; its derived price, then that runs 18.9 % longer (its p90 is +61 %)
    # make 3,072 H100 reserved the pick: by hand it stays at 80 % until 361.5 / (222.3 x
    # exp(0.8416 x 0.371)) = 1.190x its median (21.7 % before the typical median ratio moved on
    # 2026-12-07)
    derived, thin = rec.caveats
    assert derived.startswith("Its price is derived, not quoted:")
    assert "up to 18.9 % longer than estimated" in thin and "3072 x NVIDIA H100" in thin
    mi300x = option_row(o, "mi300x", 4096, "rent-reserved")
    assert mi300x["moe_factor"] == pytest.approx(0.7 * 0.4479 / 0.5022, abs=1e-4)
    assert mi300x["wall_days"] == pytest.approx(220.5 * 0.70 / 0.6244, abs=0.2)
    assert not mi300x["feasible"]
    assert mi300x["time_band_widened"]
    cmp = article_comparison(rec, "band-400b-plus")
    assert "buy-new 3456 x NVIDIA GB300" in cmp and "is feasible" in cmp
    gb300 = option_row(o, "gb300-nvl72", 3456, "buy-new")
    assert gb300["moe_factor"] == pytest.approx(0.7 * 0.6067 / 0.5022, abs=1e-4)
    b300 = option_row(o, "b300-hgx", 4096, "buy-new")
    assert b300["moe_factor"] == pytest.approx(0.7 * 0.3615 / 0.5022, abs=1e-4)
    assert 0.75 < b300["p_deadline"] < 0.80 and not b300["feasible"]
    assert option_row(o, "b300-hgx", 6144, "buy-new")["feasible"]


def test_enterprise_article_option_misses_the_year_at_80_percent(recs):
    """The article's B300-class purchase waits 189 days for delivery, leaving 176 of the 365 for
    a run of 130 days at the median: 68 % probability, under the 80 % the scenario asks."""
    rec = recs["enterprise-frontier-pretraining"]
    cmp = article_comparison(rec, "enterprise-frontier-pretraining")
    assert "B300" in cmp and "fails on" in cmp and "80 % required" in cmp
    assert rec.top.time_to_result_days < rec.scenario.deadline_days


def test_funded_startup_h200_cluster_misses_the_deadline_on_lead_time(recs):
    cmp = article_comparison(recs["funded-startup-30b-domain"], "funded-startup-30b-domain")
    assert "H200" in cmp and "lead time" in cmp


def test_article_headline_scenario_is_infeasible_and_says_why(recs):
    rec = recs["article-70b-5t-48-days"]
    assert not rec.feasible
    assert rec.reasons[0].startswith("Physically impossible")  # 4.0x the peak (test_explain.py)
    assert rec.reasons[1].startswith("No option meets every constraint: deadline rules out")
    assert any(
        "does not fit in a year" in r or "days (lead time + run)" in r for r in rec.reasons[1:]
    )


def test_series_a_does_not_need_two_b200_nodes(recs):
    rec = recs["series-a-healthcare-17b-lora"]
    assert rec.top.n_gpus <= 8 and rec.top.first_year_cost_usd < 250_000
    b200 = rec.options[
        (rec.options["accelerator"] == "b200-hgx")
        & (rec.options["n_gpus"] == 16)
        & (rec.options["acquisition"] == "buy-new")
    ]
    assert not b200["feasible"].any()  # 2 B200 nodes blow the $250K / 15 kW envelope


def test_article_comparison_of_a_name_that_is_not_an_article_preset_is_empty(recs):
    assert article_comparison(recs["band-under-7b"], "custom") == ""


def test_one_ada_misses_the_years_50_runs_at_80_percent(recs):
    """series-a-healthcare-17b-lora: 50 LoRA runs a year. One RTX 6000 Ada (no published run on
    it: the typical band widened 1.5x, sigma above the median 1.5 x ln(1.9599 / 1.2178) / 1.2816
    = 0.557) takes 5.258 days a run at the median (4.917 x 1.2178 / 1.1389), 262.9 days for the
    year's 50: by hand P(fit) = Phi(ln(365 / 262.9) / 0.557) = Phi(0.589) = 0.722, under 0.8;
    262.9 x 1.598 (the band's 80th percentile) = 420 days > 365. So it is not feasible, says why,
    and the pick is the next cheapest, 2 RTX A6000 (221 days, 82 %)."""
    rec = recs["series-a-healthcare-17b-lora"]
    o = rec.options
    ada = option_row(o, "rtx-6000-ada", 1, "buy-new")
    assert ada["wall_days"] == pytest.approx(5.258, abs=0.005)
    assert ada["time_sigma_above"] == pytest.approx(0.557, abs=0.001)
    assert ada["p_schedule"] == pytest.approx(0.722, abs=0.002)
    assert not ada["schedule_fits_year"] and not ada["feasible"]
    # Its 4-week delivery (1-12 weeks) as a band also leaves it 76 % by day 60 (delivery.py).
    assert ada["why_deadline"] == (
        "50 runs of 5.3 days (median) fit in a year with 72 % probability, 80 % required; takes "
        "31 + 5 = 36 days (lead time + run, median); finishes by day 60 with 76 % probability, "
        "80 % required"
    )
    top = option_row(o, rec.top.accelerator, rec.top.n_gpus, rec.top.acquisition)
    assert top["p_schedule"] >= 0.8 and top["cost_per_run_usd"] > ada["cost_per_run_usd"]
    assert "its 50 runs fit in the year with 82 %" in rec.top.sentence


def test_a_reservation_whose_year_of_runs_fits_only_at_the_median_is_not_picked():
    """funded-startup-30b-domain at the tuned level: a 1-year reservation of 4 B200 ($19,034 a
    run) runs its 6 runs in 6 x 59.08 = 354.5 days at the median, inside the year; by hand
    P(fit) = Phi(ln(365 / 354.5) / 0.1210) = Phi(0.241) = 0.595 (sigma above the median of the
    tuned dense band, ln(1.1677) / 1.2816; 1.1851 until AMD Primus v26.1's MI325X rows joined it
    on 2026-12-07, 1.2002 until NeMo 25.09's on 2026-12-05, 1.1677 until torchtitan's on
    2026-12-04), under the 80 % asked. Until
    2026-12-03 the year was checked at the median and this reservation was the pick; now it is
    infeasible and says why."""
    rec = recommend(presets["funded-startup-30b-domain"].replace(software_stack="tuned"))
    r = option_row(rec.options, "b200-hgx", 4, "rent-reserved")
    assert 6 * r["wall_days"] == pytest.approx(354.5, abs=0.1)
    assert r["time_sigma_above"] == pytest.approx(0.1210, abs=0.0005)
    assert r["p_schedule"] == pytest.approx(0.595, abs=0.002)
    assert not r["feasible"] and r["why_deadline"] == (
        "6 runs of 59 days (median) fit in a year with 60 % probability, 80 % required"
    )
    top = option_row(rec.options, rec.top.accelerator, rec.top.n_gpus, rec.top.acquisition)
    assert top["p_schedule"] >= 0.8
    assert (rec.top.accelerator, rec.top.n_gpus) != ("b200-hgx", 4)


def test_a_bought_pick_that_renting_would_beat_says_why_it_is_not_rented(recs):
    """series-a-healthcare-17b-lora allows only buying: its 2 A6000 bought cost $188 a run against
    $159 rented on demand (renting is cheaper at 50 runs a year, below the break-even), so the
    rent-vs-buy reason says why the cheaper way is not the pick instead of leaving it unsaid."""
    rec = recs["series-a-healthcare-17b-lora"]
    s = rec.scenario
    assert "rent-on-demand" not in s.acquisition_modes
    rented = option_row(rec.options, "rtx-a6000", 2, "rent-on-demand")
    assert rented["cost_per_run_usd"] < rec.top.cost_per_run_usd
    assert rec.breakeven_runs_per_year > s.runs_per_year
    line = next(r for r in rec.reasons if r.startswith("Rent vs buy at this size"))
    assert line.endswith(
        "at your 50 renting is cheaper, but renting it on demand fails on: acquisition mode not "
        "allowed in this scenario."
    )
