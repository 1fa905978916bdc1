"""The decision engine: scenarios, feasibility with named reasons, ranking, presets, sensitivity."""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbook import ARTICLE_ADVICE, Scenario, ScenarioError, article_comparison, presets, recommend
from workbook.decide import gpu_counts
from workbook.decide.scenario import ACQUISITIONS

BASE = dict(
    workload="pretrain",
    n_params=70e9,
    n_tokens=5e12,
    deadline_days=120,
    budget_usd=2_000_000,
    runs_per_year=2,
    site_power_kw=500,
    rack_limit_kw=40,
    cooling="air",
    team_size=5,
    platform_engineers=0,
    rocm_experience=False,
)


@pytest.fixture(scope="module")
def recs():
    return {name: recommend(s, monte_carlo_samples=200) for name, s in presets.items()}


# --- Scenario ------------------------------------------------------------------------------------


def test_scenario_round_trips_yaml_and_json(tmp_path):
    s = Scenario(**BASE)
    assert Scenario.from_yaml(s.to_yaml()) == s
    assert Scenario.from_json(s.to_json()) == s
    s.save(tmp_path / "s.yaml")
    assert Scenario.load(tmp_path / "s.yaml") == s
    assert set(json.loads(s.to_json())) == set(Scenario.model_fields)  # keys = field names


@pytest.mark.parametrize(
    "field, value, match",
    [
        ("n_params", -1, r"n_params=-1: allowed: a value greater than 0"),
        ("cooling", "water", r"cooling='water': is not allowed; allowed: 'air' or 'liquid'"),
        ("budget_usd", "a lot", r"budget_usd='a lot'"),
        ("team_size", 0, r"team_size=0"),
        ("acquisition_modes", ["lease"], r"acquisition_modes.0='lease'|acquisition_modes"),
        ("colour", "red", r"colour='red': is not a scenario field"),
        ("time_factor", 0, r"time_factor=0: allowed: a value greater than or equal to 0.25"),
        ("time_factor", 11, r"time_factor=11: allowed: a value less than or equal to 10"),
    ],
)
def test_bad_fields_raise_a_valueerror_naming_field_and_value(field, value, match):
    data = dict(BASE, **{field: value})
    with pytest.raises(ValueError, match=match) as e:
        Scenario(**data)
    assert isinstance(e.value, ScenarioError)


def test_contradictory_inputs_are_rejected_with_a_reason():
    with pytest.raises(ScenarioError, match="n_active_params=.* exceeds n_params"):
        Scenario(**dict(BASE, n_active_params=80e9))
    with pytest.raises(ScenarioError, match="n_tokens is required for workload='lora'"):
        Scenario(**dict(BASE, workload="lora", n_tokens=None))


def test_chinchilla_default_tokens():
    s = Scenario(**dict(BASE, n_tokens=None))
    assert s.tokens == pytest.approx(20 * 70e9)


def test_gpu_counts_are_node_multiples_and_whole_nvl72_racks():
    c = gpu_counts(8, 8, 16384)
    assert c[:4] == [1, 2, 4, 8] and c[-1] == 16384 and all(x % 8 == 0 for x in c[3:])
    n = gpu_counts(4, 72, 16384)
    assert 72 in n and 144 in n and all(x <= 72 or x % 72 == 0 for x in n)


# --- recommend -----------------------------------------------------------------------------------


def test_options_cover_every_accelerator_count_and_mode():
    rec = recommend(Scenario(**BASE), sensitivity=False)
    o = rec.options
    assert set(o["acquisition"]) == set(ACQUISITIONS)
    assert o["accelerator"].nunique() == 23
    assert o["n_gpus"].max() == 16384
    for col in (
        "wall_days",
        "cost_per_run_usd",
        "cost_per_year_usd",
        "facility_kw",
        "racks",
        "feasible",
        "failed",
    ):
        assert col in o.columns


def test_every_infeasible_option_names_its_failed_constraints():
    o = recommend(Scenario(**BASE), sensitivity=False).options
    bad = o[~o["feasible"]]
    assert (bad["failed"].str.len() > 0).all()


def test_five_person_team_gets_no_amd_with_the_articles_reason():
    rec = recommend(Scenario(**dict(BASE, budget_usd=50e6, deadline_days=365)), sensitivity=False)
    amd = rec.options[rec.options["software_stack"] == "rocm"]
    assert not amd["feasible"].any()
    assert amd["why_team"].str.contains("do not pick AMD").all()
    assert "do not pick AMD" in rec.rejected["mi350x"][0]


def test_gaudi_is_not_for_distributed_training():
    rec = recommend(
        Scenario(**dict(BASE, budget_usd=50e6, deadline_days=365, platform_engineers=5)),
        sensitivity=False,
    )
    g = rec.options[(rec.options["accelerator"] == "gaudi3") & (rec.options["nodes"] > 1)]
    assert g["why_team"].str.contains("not for distributed training").all()


def test_liquid_only_parts_are_rejected_in_air_racks_unless_retrofit_allowed():
    s = Scenario(**dict(BASE, budget_usd=50e6, deadline_days=365, platform_engineers=10))
    o = recommend(s, sensitivity=False).options
    gb = o[(o["accelerator"] == "gb300-nvl72") & (o["acquisition"] == "buy-new")]
    assert gb["why_cooling"].str.contains("needs liquid cooling; your racks are air").all()
    assert gb["why_rack_power"].str.contains("NVL72 rack draws").all()
    o2 = recommend(s.replace(allow_liquid_retrofit=True), sensitivity=False).options
    gb2 = o2[(o2["accelerator"] == "gb300-nvl72") & (o2["acquisition"] == "buy-new")]
    assert (gb2["why_cooling"] == "").all() and (gb2["retrofit_usd"] > 0).all()


def test_impossible_scenarios_return_nothing_feasible_with_reasons_not_an_exception():
    for changes in (
        dict(budget_usd=0),
        dict(deadline_days=0.5),
        dict(n_params=5e13, n_tokens=1e12),
    ):
        rec = recommend(Scenario(**dict(BASE, **changes)), sensitivity=False)
        assert not rec.feasible and rec.top is None
        assert rec.reasons[0].startswith("No option meets every constraint")
        assert len(rec.nearest) > 0
        assert "Nothing in the catalog" in rec.headline


def test_objective_fastest_within_budget_is_faster():
    s = Scenario(**dict(BASE, budget_usd=20e6, deadline_days=365))
    cheap = recommend(s, sensitivity=False).top
    fast = recommend(s.replace(objective="fastest-within-budget"), sensitivity=False).top
    assert fast.time_to_result_days <= cheap.time_to_result_days
    assert fast.cost_per_run_usd >= cheap.cost_per_run_usd


def test_pareto_frontier_is_non_dominated():
    p = recommend(
        Scenario(**dict(BASE, budget_usd=20e6, deadline_days=365)), sensitivity=False
    ).pareto
    assert len(p) >= 2
    assert (np.diff(p["time_to_result_days"].to_numpy()) >= 0).all()
    assert (np.diff(p["cost_per_run_usd"].to_numpy()) < 0).all()


@settings(max_examples=15, deadline=None)
@given(st.floats(0.05, 0.95))
def test_an_option_rejected_for_power_stays_rejected_when_power_shrinks(k):
    s = Scenario(**dict(BASE, budget_usd=50e6, deadline_days=365, platform_engineers=10))
    a = recommend(s, sensitivity=False).options
    b = recommend(s.replace(site_power_kw=s.site_power_kw * k), sensitivity=False).options
    rejected = a["why_site_power"] != ""
    assert (b.loc[rejected, "why_site_power"] != "").all()


# --- presets: the article's scenarios, the engine's answers, the reasons shown -------------------

EXPECTED = {
    # name: (accelerator, acquisition) the engine picks, and why it differs from the article if it does
    "small-team-instruction-tuning": ("rtx-pro-6000-server", "rent-spot"),
    "funded-startup-30b-domain": ("mi355x", "rent-on-demand"),
    "enterprise-frontier-pretraining": ("mi355x", "buy-new"),
    "modest-budget-token-efficient": ("mi355x", "rent-on-demand"),
    "series-a-healthcare-17b-lora": ("rtx-6000-ada", "buy-new"),
    "band-under-7b": ("rtx-pro-6000-server", "rent-spot"),
    "band-7b-to-70b": ("mi355x", "rent-on-demand"),
    "band-70b-to-400b": ("mi355x", "rent-on-demand"),
    "band-400b-plus": ("gb200-nvl72", "buy-new"),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_preset_pick_and_its_reasons(recs, name):
    rec = recs[name]
    assert (rec.top.accelerator, rec.top.acquisition) == EXPECTED[name]
    assert rec.top.sentence and rec.reasons and rec.rejected
    cmp = article_comparison(rec, name)
    assert cmp.startswith(f'The article: "{ARTICLE_ADVICE[name]}"')
    assert "feasible" in cmp or "fails on" in cmp


def test_small_team_article_option_is_feasible_but_dearer(recs):
    """The article says rent 8x H100; the engine agrees renting wins but finds 2 RTX PRO 6000 on spot
    cheaper per run for an 8B fine-tune, and says how much dearer the article's pick is."""
    cmp = article_comparison(recs["small-team-instruction-tuning"], "small-team-instruction-tuning")
    assert "8 x NVIDIA H100" in cmp and "is feasible" in cmp and "vs the engine's pick" in cmp


def test_400b_band_prefers_gb200_because_b300_adds_no_bf16_flops(recs):
    """B300's dense BF16/FP8 equal B200's (the article's 'doubled FP8' is wrong), so for BF16 pretraining
    the dearer, later-shipping GB300 NVL72 loses to GB200 NVL72 on cost per run; the comparison says by
    how much."""
    rec = recs["band-400b-plus"]
    assert rec.top.accelerator == "gb200-nvl72"
    cmp = article_comparison(rec, "band-400b-plus")
    assert "GB300 NVL72" in cmp and "is feasible" in cmp


def test_enterprise_article_option_is_feasible_but_dearer(recs):
    """The enterprise team (40 platform engineers, liquid cooling) may run AMD; at the catalog's MI355X
    price (an analyst ASP estimate, flagged in the reasons) it undercuts the article's B300-class racks."""
    rec = recs["enterprise-frontier-pretraining"]
    assert any(r.startswith("Price basis:") and "estimate" in r for r in rec.reasons)
    cmp = article_comparison(rec, "enterprise-frontier-pretraining")
    assert "GB300" in cmp and "is feasible" in cmp


def test_funded_startup_h200_cluster_misses_the_deadline_on_lead_time(recs):
    cmp = article_comparison(recs["funded-startup-30b-domain"], "funded-startup-30b-domain")
    assert "H200" in cmp and "lead time" in cmp


def test_article_headline_scenario_is_infeasible_and_says_why(recs):
    rec = recs["article-70b-5t-48-days"]
    assert not rec.feasible
    assert "deadline" in rec.reasons[0]
    assert any(
        "do not fit in a year" in r or "days (lead time + run)" in r for r in rec.reasons[1:]
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


# --- sensitivity ---------------------------------------------------------------------------------


def test_tornado_and_monte_carlo(recs):
    rec = recs["funded-startup-30b-domain"]
    t = rec.sensitivity
    assert {
        "assumption",
        "low",
        "high",
        "cost_per_run_at_low",
        "cost_per_run_at_high",
        "flips",
        "flips_at",
    } <= set(t.columns)
    assert len(t) >= 6
    assert (t["swing_usd"].diff().dropna() <= 0).all()  # sorted like a tornado
    mc = rec.monte_carlo
    assert mc["share"].sum() == pytest.approx(1.0)
    assert mc["share"].iloc[0] > 0


def test_sensitivity_added_later_equals_recommend_with_it():
    """The app shows the conclusion first and adds the tornado and Monte Carlo afterwards."""
    s = presets["funded-startup-30b-domain"]
    full = recommend(s, monte_carlo_samples=200)
    later = recommend(s, sensitivity=False)
    assert later.sensitivity.empty and later.monte_carlo.empty and later.headline == full.headline
    later.add_sensitivity(samples=0)
    assert later.monte_carlo.empty
    pd.testing.assert_frame_equal(later.sensitivity, full.sensitivity)
    later.add_sensitivity(samples=200, tornado=False)
    pd.testing.assert_frame_equal(later.monte_carlo, full.monte_carlo)


def test_pick_says_whether_it_still_makes_the_deadline_at_the_slow_end_of_published_runs():
    """The slow end is the 90th percentile of published / predicted GPU-hours on the held-out runs
    (workbook.validate.time_range); the reason applies it to the pick's days by hand-checkable arithmetic."""
    from workbook.calibrate import validate
    from workbook.guides import analyses as A

    rng = validate.holdout_time_range()
    t = A.accuracy_table()
    hold = t[t["split"] == "holdout"]
    assert rng == validate.time_range(hold["published_gpu_hours"], hold["predicted_gpu_hours"])
    assert rng["n"] == len(hold) and rng["high"] > 1.0
    for name, fits in (("funded-startup-30b-domain", True), ("band-7b-to-70b", False)):
        s = presets[name]
        rec = recommend(s, sensitivity=False)
        slow = rec.top.wall_days * rng["high"]
        ttr = rec.top.lead_time_days + slow
        assert (
            ttr <= s.deadline_days
        ) is fits  # both cases: one pick keeps its margin, one loses it
        line = [r for r in rec.reasons if r.startswith("If the run overshoots its prediction")]
        assert len(line) == 1
        assert (
            f"({rng['high']:.2f}x, the 90th percentile of {rng['n']} held-out runs): {slow:,.0f} days, {ttr:,.0f} days"
            in line[0]
        )
        margin = abs(s.deadline_days - ttr)
        word = (
            f"still inside the {s.deadline_days:g}-day deadline by {margin:,.0f} days"
            if fits
            else f"{margin:,.0f} days past the {s.deadline_days:g}-day deadline"
        )
        assert word + "." in line[0]


def test_a_pick_that_misses_at_the_slow_end_names_the_cheapest_option_that_would_not():
    """band-7b-to-70b (cheapest within 90 days): the pick needs 86 of the 90 days. Among the feasible
    options whose run, at the slow end of the range (rng["high"] x its prediction), still ends before the
    deadline, the cheapest is named."""
    from workbook.calibrate import validate

    s = presets["band-7b-to-70b"]
    rng = validate.holdout_time_range()
    rec = recommend(s, sensitivity=False)
    o = rec.options
    slow_ok = o["feasible"] & (
        o["lead_time_days"] + o["wall_days"] * rng["high"] <= s.deadline_days
    )
    robust = o[slow_ok].sort_values(["cost_per_run_usd", "time_to_result_days"]).iloc[0]
    assert not (
        robust["accelerator"] == rec.top.accelerator
        and robust["n_gpus"] == rec.top.n_gpus
        and robust["acquisition"] == rec.top.acquisition
    )
    line = next(r for r in rec.reasons if r.startswith("If the run overshoots"))
    assert "past the 90-day deadline" in line
    assert (
        f"The best-ranked option that would: rent on demand {int(robust['n_gpus'])} x {robust['name']}, "
        f"{robust['wall_days']:,.1f} days, ${robust['cost_per_run_usd']:,.0f} per run"
    ) in line
    # Renting twice the GPUs for half the time costs about the same: the margin is nearly free here.
    assert robust["n_gpus"] == 2 * rec.top.n_gpus
    assert robust["cost_per_run_usd"] == pytest.approx(rec.top.cost_per_run_usd, rel=0.01)


def test_time_factor_scales_days_gpu_hours_and_rent_of_every_option():
    """A pilot run measured at 1.5x the engine's time: every option's days and GPU-hours x 1.5, its MFU
    / 1.5, and a rented run's cost x 1.5 (rent = GPUs x hours x $/GPU-h, linear). The published-runs
    slow-end reason gives way to one naming the factor."""
    from workbook.decide import option_row

    s = presets["funded-startup-30b-domain"]
    base, slow = (
        recommend(s, sensitivity=False),
        recommend(s.replace(time_factor=1.5), sensitivity=False),
    )
    top = base.top
    a = option_row(base.options, top.accelerator, top.n_gpus, "rent-on-demand")
    b = option_row(slow.options, top.accelerator, top.n_gpus, "rent-on-demand")
    assert b["wall_days"] == pytest.approx(1.5 * a["wall_days"]) and b[
        "gpu_hours"
    ] == pytest.approx(1.5 * a["gpu_hours"])
    assert b["mfu"] == pytest.approx(a["mfu"] / 1.5) and b["cost_per_run_usd"] == pytest.approx(
        1.5 * a["cost_per_run_usd"]
    )
    assert b["cost_per_run_usd"] == pytest.approx(b["n_gpus"] * b["wall_days"] * 24.0 * b["price"])
    assert (b["time_factor"], a["time_factor"]) == (1.5, 1.0)
    assert b["step_s"] == pytest.approx(
        a["step_s"]
    )  # the engine's step-time breakdown is unchanged
    reasons = " ".join(slow.reasons)
    assert (
        f"Planned at your time factor of 1.5x the engine's prediction: {slow.top.wall_days:.0f} days per run"
        in reasons
    )
    assert "If the run overshoots" not in reasons and "If the run overshoots" in " ".join(
        base.reasons
    )
    assert "time factor" not in " ".join(base.reasons)


def test_a_time_factor_can_move_the_pick_to_meet_the_deadline():
    """band-7b-to-70b: the pick's 86 predicted days make the 90-day deadline; at 1.95x (the slow end of
    the published runs) they would not, so the pick must change to one that still finishes in time."""
    s = presets["band-7b-to-70b"]
    base = recommend(s, sensitivity=False)
    slow = recommend(s.replace(time_factor=1.95), sensitivity=False)
    assert base.top.lead_time_days + 1.95 * base.top.wall_days > s.deadline_days
    assert slow.top is not None and slow.top.time_to_result_days <= s.deadline_days
    assert (slow.top.accelerator, slow.top.n_gpus, slow.top.acquisition) != (
        base.top.accelerator,
        base.top.n_gpus,
        base.top.acquisition,
    )
