"""The memo's first page (workbook.present.summary): the risks in words and units, the money with
what each figure includes, the deadline against published runs. Hand-built tornado rows check the
wording; a real recommendation checks that the figures are the pick's own."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest
from infeasible_cases import NO_PLATFORM_TEAM

from workbook.decide import Scenario, presets, recommend
from workbook.decide.remedies import headline_remedies, remedy_reason
from workbook.present import summary as sm
from workbook.text import days_text, money_text


@pytest.fixture(scope="module")
def rec():
    return recommend(presets["funded-startup-30b-domain"])


def _row(**kw) -> pd.Series:
    base = {"assumption": "Matmul efficiency (MFU)", "base": 0.7, "low": 0.5, "high": 1.0}
    return pd.Series({**base, **kw})


@pytest.mark.parametrize(
    ("flips_at", "condition"),
    [
        (
            "gemm_efficiency = 0.45: buy-new 8 x h100-sxm",
            "matrix multiplies run 36% slower than the engine's constants say (matmul efficiency "
            "0.45, not 0.70)",
        ),
        (
            # 1 / 5e-05 = 20,000 GPU-hours; 1 / 1.97e-05 = 50,761, to three figures 50,800.
            "failure_rate_per_gpu_hour = 5e-05: rent-reserved 3072 x b200-hgx",
            "a GPU fails once per 20,000 GPU-hours instead of once per 50,800",
        ),
        (
            "rental prices +25%: buy-new 8 x b200-hgx",
            "rental prices are +25% against the catalog's",
        ),
        ("8.4 runs a year: buy-new 8 x b200-hgx", "you run 8.4 runs a year instead of 6"),
        (
            "lead times x0.84: buy-new 8 x mi350x",
            "new hardware arrives in 0.84x the catalog's lead time",
        ),
        ("electricity $0.150/kWh: buy-new 8 x mi350x", "electricity costs $0.150/kWh"),
        (
            "4.8 weeks a year are lost to ROCm per engineer: rent-spot 64 x rtx-pro-6000-server",
            "4.8 weeks a year are lost to ROCm per engineer",
        ),
        (
            "storage costs 1.75x the catalog's price: buy-new 8 x mi350x",
            "storage costs 1.75x the catalog's price",
        ),
        (
            "the network costs 1.20x the fabric table's price per GPU: buy-new 8 x mi350x",
            "the network costs 1.20x the fabric table's price per GPU",
        ),
        (
            "support_fraction_per_year = 0.15: buy-new 8 x mi350x",
            "the support contract costs 15% of the hardware's price a year instead of 10%",
        ),
        (
            "spare_gpu_fraction = 0.05: buy-new 8 x mi350x",
            "5.0% of the GPUs are spares instead of 2.0%",
        ),
    ],
)
def test_flip_points_read_as_conditions(flips_at, condition):
    bases = {"failure": 1.97e-05, "support": 0.10, "spare": 0.02}
    base = next((v for k, v in bases.items() if flips_at.startswith(k)), 0.7)
    assert (
        sm.flip_condition(_row(flips_at=flips_at, base=base), presets["funded-startup-30b-domain"])
        == condition
    )


def test_risks_say_when_no_single_assumption_flips_the_pick():
    """The small-team preset's RTX PRO 6000 spot rental holds at both ends of every range (the
    modest-budget preset's did until its 512 x MI355X pick, a near-tie, 2026-12-02): the first
    risk names the largest swing, then the Monte Carlo share."""
    rec = recommend(presets["small-team-instruction-tuning"])
    assert not rec.sensitivity["flips"].any()
    items = sm.risks(rec)
    big = rec.sensitivity.iloc[0]
    assert items[0].startswith("No single assumption over its stated range changes the pick.")
    cheap, dear = sorted((big["cost_per_run_at_low"], big["cost_per_run_at_high"]))
    assert (
        f"The largest swing: {big['assumption']}, {money_text(cheap)} to {money_text(dear)} "
        "per run." in items[0]
    )
    assert len(items) == 2 and items[1].startswith("When the assumptions move at once")


def test_risks_name_the_new_pick_in_words_and_the_monte_carlo_share():
    rec = recommend(presets["band-70b-to-400b"])
    flipping = rec.sensitivity[rec.sensitivity["flips"]]
    assert len(flipping) > 0
    items = sm.risks(rec)
    assert len(items) == min(len(flipping), sm.MAX_RISKS) + 1
    first = flipping.iloc[0]
    assert items[0].startswith(f"{first['assumption']}: if ")
    new_label = first["flips_at"].split(": ", 1)[1]
    assert sm.option_words(rec, new_label) in items[0]
    assert sm.option_words(rec, new_label) != new_label  # a name, not an id
    share = rec.monte_carlo["share"].iloc[0]
    assert items[-1].startswith("When the assumptions move at once") and f"{share:.0%}" in items[-1]


def test_no_flip_says_so_with_the_largest_swing(rec):
    calm = rec.sensitivity.assign(flips=False)
    r = dataclasses.replace(rec, sensitivity=calm)
    assert sm.risks(r)[0].startswith("No single assumption over its stated range changes the pick")


def test_money_rows_say_what_they_include(rec):
    figures = {k: (v, why) for k, v, why in sm.key_figures(rec.scenario, rec)}
    top = rec.top
    assert figures["Capex (purchase)"][0] == "$0"  # a rental
    assert figures["Cost per year"][1] == "6 runs x the cost per run"
    assert figures["Decision to finished run"][1].startswith("lead time 3.5 days")
    assert figures["Cost per run"][0] == f"${top.cost_per_run_usd:,.0f}"


def test_owned_cluster_splits_capex_from_opex():
    r = recommend(presets["series-a-healthcare-17b-lora"])
    if r.top is None or r.top.capex_usd <= 0:
        pytest.skip("the preset's pick is not bought any more")
    figures = {k: (v, why) for k, v, why in sm.key_figures(r.scenario, r)}
    assert "Opex, first year" in figures and "paid once, up front" in figures["Capex (purchase)"][1]
    assert figures["First-year cost"][1].startswith("cash out in year one: capex + first-year opex")


def test_the_deadline_row_says_the_pick_s_probability_and_its_p90_finish(rec):
    """The memo's Deadline row is the headline's probability (p_deadline against the scenario's
    confidence) and the day a run at the band's p90 finishes (lead time + wall_days_p90), by
    hand; an unmet confidence reads "at risk"."""
    from workbook.decide import option_row
    from workbook.text import probability_text

    top = option_row(rec.options, rec.top.accelerator, rec.top.n_gpus, rec.top.acquisition)
    late = top.lead_time_days + top.wall_days_p90
    assert top["time_to_result_days_p90"] == pytest.approx(late)
    text = sm.deadline_text(rec.scenario, rec)
    # 6 runs a year of at most 6.2 days at the p90: 37 of 365 days, so they fit with over 99 %.
    assert rec.scenario.runs_per_year == 6 and 6 * top.wall_days_p90 < 40
    assert text == (
        f"met with {probability_text(top.p_deadline)} probability (80 % required); at the slow "
        f"end of its band (p90) it finishes on day {days_text(late, unit=False)}; its 6 runs fit "
        "in the year with over 99 % probability"
    )
    unlikely = dataclasses.replace(rec, options=rec.options.assign(p_deadline=0.62))
    assert sm.deadline_text(rec.scenario, unlikely).startswith(
        "at risk: 62 % probability of a finished run by then (80 % required); at the slow end"
    )


def test_energy_and_carbon_of_the_pick_in_two_rows(rec):
    """The pick, 128 x MI355X on demand, counted at the cloud's PUE 1.15: 20,447 kWh a run (its
    2.95 days; 19,122 kWh at 2.76 days until the typical median ratio moved on 2026-12-07), x the
    default grid 0.473 kg CO2e/kWh = 9,672 kg = 9.67 t."""
    figures = {k: (v, why) for k, v, why in sm.key_figures(rec.scenario, rec)}
    assert rec.top.co2e_kg == pytest.approx(rec.top.energy_kwh * 0.473)
    assert figures["Energy per run"] == (
        "20,400 kWh",
        "IT power x the cloud's PUE 1.15 x the run's hours",
    )
    assert figures["CO2e per run"] == ("9.67 t CO2e", "the energy x the grid's 0.473 kg CO2e/kWh")
    assert "a run uses " in rec.top.sentence


def test_owned_opex_names_the_platform_engineers():
    owned = presets["band-400b-plus"].replace(acquisition_modes=["buy-new"])
    r = recommend(owned, monte_carlo_samples=0)
    figures = {k: (v, why) for k, v, why in sm.key_figures(r.scenario, r)}
    # 3,456 GB200 on 864 compute trays: ceil(864 / 16) = 54 engineers x $300K
    # (test_sensitivity.py).
    assert figures["Opex, first year"][1].endswith("and its platform engineers ($16.2M a year)")


def test_the_monte_carlo_risk_sums_the_picks_part_and_names_a_count_that_wins_more():
    """Hand-made Monte Carlo for the band-70b-to-400b pick (512 B200 on demand): the pick 30 %,
    768 B200 on demand 40 %, so B200 on demand at any size 70 % and 768 wins more draws; the
    most frequent winner of another part or acquisition, 768 B200 reserved, 20 %."""
    rec = recommend(presets["band-70b-to-400b"])
    assert (rec.top.acquisition, rec.top.n_gpus, rec.top.accelerator) == (
        "rent-on-demand",
        512,
        "b200-hgx",
    )
    mc = pd.DataFrame(
        {
            "option": [
                "rent-on-demand 768 x b200-hgx",
                "rent-on-demand 512 x b200-hgx",
                "rent-reserved 768 x b200-hgx",
                "rent-on-demand 512 x mi355x",
            ],
            "share": [0.4, 0.3, 0.2, 0.1],
        }
    )
    text = sm.risks(dataclasses.replace(rec, monte_carlo=mc))[-1]
    assert text == (
        "When the assumptions move at once (Monte Carlo: each assumption within its range around "
        "its stated value, except matmul efficiency and failure rate, whose uncertainty the "
        "run-time band already holds), the pick wins 30% of the draws, and NVIDIA B200 (HGX B200, "
        "180 GB) rented on demand, at any cluster size, 70%; 768 GPUs win more draws (40%) than "
        "the pick's 512; the most frequent other choice is rent with a 1-year reservation 768 x "
        "NVIDIA B200 (HGX B200, 180 GB) (20%)."
    )
    # The pick alone on its part and acquisition: no sum, no count.
    alone = mc.iloc[1:].assign(share=[0.6, 0.3, 0.1])
    text = sm.risks(dataclasses.replace(rec, monte_carlo=alone))[-1]
    assert "the pick wins 60% of the draws; the most frequent other choice" in text
    assert "any cluster size" not in text and "win more draws" not in text
    # A share that is neither none nor all is never rounded to 0 % or 100 %.
    near = mc.assign(share=[0.002, 0.996, 0.001, 0.001])
    text = sm.risks(dataclasses.replace(rec, monte_carlo=near))[-1]
    assert "the pick wins over 99% of the draws" in text and "(0.1%)" in text


def test_a_flips_cost_range_is_written_cheapest_first():
    """enterprise's memo read "today's pick costs $114M to $38.1M per run": the runs-per-year
    row's low end (fewer runs share the year's reservation) costs more than its high end. The
    range is written cheapest first."""
    rec = recommend(presets["enterprise-frontier-pretraining"])
    row = rec.sensitivity.set_index("parameter").loc["runs_factor"]
    assert row["flips"] and row["cost_per_run_at_low"] > row["cost_per_run_at_high"]
    cheap, dear = money_text(row["cost_per_run_at_high"]), money_text(row["cost_per_run_at_low"])
    line = next(x for x in sm.risks(rec) if x.startswith(row["assumption"]))
    assert f"today's pick costs {cheap} to {dear} per run" in line


def test_the_first_page_lists_the_changes_the_headline_does_not_name():
    """70B on 2T tokens in 60 days for $2M, a five-person team with no platform engineer: the
    headline names a budget of $2.3M (B200) and 2 platform engineers (MI355X, the next remedy to
    another accelerator). The first page's list gave the first three reasons: the budget again,
    and a deadline the headline did not name, but not the engineers. It now gives what rules
    options out and the changes beside the headline's, each change once on the page."""
    r = recommend(Scenario(**NO_PLATFORM_TEAM), sensitivity=False)
    html = sm.summary_section(r.scenario, r, r.headline, "")
    named = headline_remedies(r.remedies)
    assert len(named) == 2 and named[1] is not r.remedies[1]
    others = [x for x in r.remedies if x not in named]
    listed = html.split("Why nothing qualifies", 1)[1].split("</ul>", 1)[0].replace("\xa0", " ")
    said = html.split("Why nothing qualifies", 1)[0].replace("\xa0", " ")
    for x in named:  # in the headline, not again in the list
        change = x.change[:1].lower() + x.change[1:]
        assert change in said and change not in listed
    assert others[0].change[:1].lower() + others[0].change[1:] in listed
    assert r.reasons_beside_headline[0] == r.reasons[0]
    assert remedy_reason(others[0]) == r.reasons_beside_headline[1]
