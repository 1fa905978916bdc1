"""The article's scenarios as presets: the engine's answers, compared with the article's."""

import pytest

from workbook import ARTICLE_ADVICE, article_comparison, presets, recommend

EXPECTED = {
    # name: (accelerator, acquisition) the engine picks; the tests below say why where it differs
    # from the article
    "small-team-instruction-tuning": ("rtx-pro-6000-server", "rent-spot"),
    "funded-startup-30b-domain": ("mi355x", "rent-on-demand"),
    # At 80 % confidence (issue 19) the MI355X purchase (no published run: its band is widened
    # 1.5x) and the B300-class purchases (189-day lead time) miss the year too often.
    "enterprise-frontier-pretraining": ("b200-hgx", "rent-reserved"),
    "modest-budget-token-efficient": ("mi355x", "rent-on-demand"),
    # One RTX 6000 Ada in a tower workstation ($10K chassis, 0.8 kW): $124 per run against $149
    # for 2 RTX A6000 (+20 %, not a near-tie), since 1-4 cards are no longer charged an 8-GPU
    # server (issue 14, part 6). Until then: 2 A6000, a near-tie over 1 Ada at $30K of server.
    "series-a-healthcare-17b-lora": ("rtx-6000-ada", "buy-new"),
    "band-under-7b": ("rtx-pro-6000-server", "rent-spot"),
    "band-7b-to-70b": ("mi355x", "rent-on-demand"),
    # 120 of the 200 days at the median: only parts a published run checks (B200) keep 80 %.
    "band-70b-to-400b": ("b200-hgx", "rent-on-demand"),
    # Owning 1,536 B200 now pays its support contract (10 % of the hardware a year, $10.2M),
    # spares and a two-layer network: $44.2M a year against $42.1M for a 1-year reservation
    # (issue 15).
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


def test_400b_band_picks_b200_because_a_published_run_checks_it(recs):
    """B300's dense BF16/FP8 equal B200's (the article's 'doubled FP8' is wrong), so the dearer
    Blackwell Ultra parts lose on cost per run; and at 80 % confidence GB200 NVL72, which no
    published whole run checks (its band widened 1.5x), needs 2,304 GPUs where B200 (OLMo Hybrid's
    512-GPU run checks it) needs 1,536. The comparison says how much dearer the article's
    Blackwell Ultra purchase is: since owned clusters pay one platform engineer per 16 nodes, its
    best match is 3,072 x B300 HGX (384 nodes, 24 engineers), not 3,456 x GB300 NVL72 (864 4-GPU
    trays, 54 engineers, $16.2M a year)."""
    rec = recs["band-400b-plus"]
    assert rec.top.accelerator == "b200-hgx"
    o = rec.options
    by = o.groupby("accelerator")["time_band_widened"].first()
    assert not by["b200-hgx"] and by["gb200-nvl72"] and by["gb300-nvl72"]
    assert rec.rejected["gb200-nvl72"][0].startswith("feasible but not the best")
    assert not any("widened" in r for r in rec.reasons)
    cmp = article_comparison(rec, "band-400b-plus")
    assert "buy-new 3072 x NVIDIA B300" in cmp and "is feasible" in cmp


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
