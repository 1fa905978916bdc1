"""The tornado (one assumption at a time over its range) and the Monte Carlo (all at once)."""

import numpy as np
import pandas as pd
import pytest

from workbook import presets, recommend
from workbook.decide import option_row
from workbook.decide.sensitivity import factors


@pytest.fixture(scope="module")
def rec():
    return recommend(presets["funded-startup-30b-domain"], monte_carlo_samples=200)


def test_tornado_and_monte_carlo(rec):
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


def test_every_factor_is_a_row_of_the_tornado(rec, cat):
    fs = factors(rec, cat)
    assert sorted(f.parameter for f in fs) == sorted(rec.sensitivity["parameter"])
    assert all(f.at_low.keys() == f.at_high.keys() for f in fs)


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


def test_add_sensitivity_uses_the_recommendations_own_catalog_by_default():
    """A recommendation computed with overrides moves its assumptions over the overridden ranges:
    add_sensitivity() without a catalog used to fall back to the shipped tables."""
    from workbook import load_catalog
    from workbook.decide import presets, recommend

    wide = load_catalog(
        [{"table": "assumptions", "key": "gemm_efficiency", "column": "low", "value": "0.3"}]
    )
    rec = recommend(presets["band-7b-to-70b"], catalog=wide, sensitivity=False)
    default = rec.add_sensitivity(samples=0).sensitivity.set_index("parameter")
    shipped = rec.add_sensitivity(load_catalog(), samples=0).sensitivity.set_index("parameter")
    assert default.loc["gemm_efficiency", "low"] == 0.3
    assert shipped.loc["gemm_efficiency", "low"] != 0.3


def test_engineer_cost_moves_an_owned_picks_staff_line():
    """band-400b-plus, owning only, buys 3,456 GB200 NVL72 (864 four-GPU compute trays:
    ceil(864 / 16) = 54 engineers, $16.2M a year, 1 run a year). Engineer cost $190K-$450K
    (data/assumptions.csv) around $300K moves its cost per run by 54 x ($190K - $300K) = -$5.94M
    and 54 x ($450K - $300K) = +$8.1M. (Since 2026-12-07 the expert width enters the MoE
    factors: H100's own tuned factor, which every part's typical MoE factor is carried by, rose
    0.4858 -> 0.5022 and the 8-GPU class's B200 / B300 mean fell 0.3455 -> 0.3424, so MI355X,
    with no MoE benchmark, is carried at 0.477 (was 0.498) and its 4,096 bought, the pick until
    then at $83.0M a run, finish within the year with 79.6 %, under the 80 % asked; GB200 costs
    1.9 % more, $84.6M, and finishes with 81 %.)"""
    owned = presets["band-400b-plus"].replace(acquisition_modes=["buy-new"])
    r = recommend(owned, monte_carlo_samples=0)
    top = (r.top.accelerator, r.top.n_gpus, r.top.acquisition)
    assert top == ("gb200-nvl72", 3456, "buy-new")
    assert r.top.nodes == 864 and r.top.staff_usd_per_year == 54 * 300_000
    mi355x = option_row(r.options, "mi355x", 4096, "buy-new")
    assert 0.79 < mi355x["p_deadline"] < 0.80 and not mi355x["feasible"]
    assert mi355x["moe_factor"] == pytest.approx(0.7 * 0.3424 / 0.5022, abs=1e-4)
    row = r.sensitivity.set_index("parameter").loc["engineer_cost_usd_per_year"]
    assert row["cost_per_run_at_low"] - r.top.cost_per_run_usd == pytest.approx(-5_940_000)
    assert row["cost_per_run_at_high"] - r.top.cost_per_run_usd == pytest.approx(8_100_000)


def test_monte_carlo_over_the_statically_feasible_options_picks_the_same_winners(rec, cat):
    """Skipping the options that fail a static constraint (no draw can make them feasible) leaves
    every draw's winner as it was: the same draws (same seed) evaluated over the whole table, as
    the Monte Carlo did before, give the same shares."""
    import numpy as np

    from workbook.decide.evaluate import TieRule, best_index, evaluate_arrays
    from workbook.decide.sensitivity import median_centred_draw, monte_carlo, monte_carlo_factors
    from workbook.text import option_labels

    o, n = rec.options, 200
    assert (~o["static_ok"]).sum() > 1000  # most of the 2,850 options fail a static constraint
    rng = np.random.default_rng(0)
    draws = {}
    for f in monte_carlo_factors(rec, cat):
        u = rng.uniform(size=(n, 1))
        for k in f.at_low:
            lo, hi = np.asarray(f.at_low[k], float), np.asarray(f.at_high[k], float)
            draws[k] = draws.get(k, 1.0) * median_centred_draw(lo, hi, u)
    ev = evaluate_arrays(rec.scenario, o, **draws, delivery_band=False)  # as the Monte Carlo
    winners = best_index(rec.scenario, o, ev, TieRule.from_catalog(cat))
    labels = option_labels(o).to_numpy(object)
    full = pd.Series(labels[winners]).value_counts(normalize=True)
    fast = monte_carlo(rec, cat, samples=n).set_index("option")["share"]
    pd.testing.assert_series_equal(fast.sort_index(), full.sort_index(), check_names=False)


def test_one_draw_count_for_recommend_and_add_sensitivity(cat):
    """data/assumptions.csv monte_carlo_draws (1,000: standard error of a share at most
    0.5 / sqrt(1000) = 1.6 percentage points) is what recommend() and add_sensitivity() draw by
    default: the shares are multiples of 1 / 1,000."""
    from workbook.decide import monte_carlo_draws

    assert monte_carlo_draws(cat) == 1000
    mc = recommend(presets["band-400b-plus"]).monte_carlo
    counts = mc["share"].to_numpy() * 1000
    assert counts.sum() == pytest.approx(1000) and (abs(counts - counts.round()) < 1e-6).all()


def test_tornado_ranges_in_the_readers_units(cat):
    """Hand check on the funded-startup pick (rent on demand 128 x MI355X) on an estimated price
    (the estimate world, decide_cases.estimate_world: MI355X's rent as the estimate it was until
    2026-12-08): its rental price moves over the sourced range widened
    estimated_price_range_widening times (0.6-1.5 widened 1.5x: 0.40-1.75), its MFU by base /
    moved matmul efficiency, runs per year 6 x 0.5-2."""
    from decide_cases import estimate_world

    from workbook.decide import option_row, tornado_ranges

    est = estimate_world()
    rec = recommend(presets["funded-startup-30b-domain"], catalog=est, monte_carlo_samples=200)
    top = rec.top
    row = option_row(rec.options, top.accelerator, top.n_gpus, top.acquisition)
    a = cat.global_rows("assumptions").set_index("parameter")
    w = a.loc["estimated_price_range_widening", "value"]
    lo, hi = a.loc["rent_price_factor", ["low", "high"]]
    assert not row["price_sourced"]
    p_lo, p_hi = row["price"] * (1 - (1 - lo) * w), row["price"] * (1 + (hi - 1) * w)
    r = tornado_ranges(rec, est)
    assert r["rent_price_factor"] == f"${p_lo:,.2f} - ${p_hi:,.2f} per GPU-hour"
    e = a.loc["gemm_efficiency"]
    mfu_lo, mfu_hi = row["mfu"] * e["low"] / e["value"], row["mfu"] * e["high"] / e["value"]
    assert r["gemm_efficiency"] == f"{mfu_lo:.2f} - {mfu_hi:.2f} MFU"
    assert r["runs_factor"] == "3 - 12 runs a year"
    assert r["buy_price_factor"] == "-20% to +30% (not the pick's)"  # a rental pays no purchase
    assert r["failure_rate_per_gpu_hour"].startswith("1 failure per ")
    # The bill's lines (data/assumptions.csv): support 0.05-0.15 of the hardware's price a year,
    # spares 0.005-0.05; storage and the network as factors of the catalog's price (low / value).
    assert r["support_fraction_per_year"] == "5% - 15% of the hardware's price a year"
    assert r["spare_gpu_fraction"] == "0.5% - 5.0% spare GPUs and servers"
    net = [f for f in factors(rec, cat) if f.parameter.startswith("network_cost")][0]
    assert r[net.parameter] == f"x {net.low:.2f} - {net.high:.2f} the fabric table's cost per GPU"
    assert next(v for k, v in r.items() if k.startswith("storage_")).endswith(
        " the catalog's storage price"
    )


def test_a_draw_has_the_scenarios_value_as_its_median():
    """Weeks lost to an immature stack, 2-12 around 4: the factor runs 0.5x-3x around 1. Half the
    draws fall in 0.5-1, half in 1-3, each half uniform (hand: u = 0.25 -> 0.75, u = 0.75 -> 2)."""
    from workbook.decide.sensitivity import median_centred_draw

    u = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
    assert median_centred_draw(0.5, 3.0, u).tolist() == [0.5, 0.75, 1.0, 2.0, 3.0]
    # The direction of a range does not matter: MFU 0.5-1 around 0.7 is time x 1.4 to x 0.7.
    assert median_centred_draw(1.4, 0.7, u).tolist() == pytest.approx([1.4, 1.2, 1.0, 0.85, 0.7])


def test_the_monte_carlo_draws_around_the_scenario_not_the_middle_of_the_range(
    rec, cat, monkeypatch
):
    """What the Monte Carlo hands to evaluate_arrays: every factor's median is 1 (the headline's
    scenario), its ends the tornado's. One uniform draw over 0.5x-3x had a median of 1.75x."""
    from workbook.decide import sensitivity

    seen: dict[str, list] = {}
    real = sensitivity.evaluate_arrays

    def spy(s, sub, **kw):
        for k, v in kw.items():
            if k != "delivery_band":
                seen.setdefault(k, []).append(np.asarray(v).reshape(len(v), -1)[:, 0])
        return real(s, sub, **kw)

    monkeypatch.setattr(sensitivity, "evaluate_arrays", spy)
    sensitivity.monte_carlo(rec, cat, samples=4000)
    software = np.concatenate(seen["software_factor"])
    assert len(software) == 4000
    assert np.median(software) == pytest.approx(1.0, abs=0.05)
    assert software.min() == pytest.approx(0.5, abs=0.01)
    assert software.max() == pytest.approx(3.0, abs=0.01)
    # runs a year x 0.5 - x 2 around 1, electricity x 0.726 - x 2.3 around 1
    for k in ("runs_factor", "electricity_factor"):
        assert np.median(np.concatenate(seen[k])) == pytest.approx(1.0, abs=0.05), k


def test_the_monte_carlo_does_not_draw_what_the_run_time_band_already_holds(cat):
    """A draw of matmul efficiency moved every option's median run time and each draw's
    probabilities then put the whole band around the moved median: enterprise's pick (82 % by day
    365, 80 % asked) met its constraints in about a third of the draws. The typical level's band is
    of whole published runs (failures in them): neither efficiency nor the failure rate is drawn,
    so no draw moves a run time and the pick's deadline odds are the headline's in every draw but
    for its delivery. The tuned band is steady throughput between failures: it still draws them."""
    from workbook.decide.evaluate import evaluate_arrays
    from workbook.decide.sensitivity import median_centred_draw, monte_carlo_factors

    rec = recommend(presets["enterprise-frontier-pretraining"], sensitivity=False)
    names = {f.parameter for f in factors(rec, cat)}
    drawn = {f.parameter for f in monte_carlo_factors(rec, cat)}
    assert names - drawn == {"gemm_efficiency", "failure_rate_per_gpu_hour"}
    assert all("time_factor" not in f.at_low for f in monte_carlo_factors(rec, cat))
    tuned = recommend(
        presets["enterprise-frontier-pretraining"].replace(software_stack="tuned"),
        sensitivity=False,
    )
    assert names - {f.parameter for f in monte_carlo_factors(tuned, cat)} == {"gemm_efficiency"}
    # Every draw of the typical scenario, lead time held at its median: the pick's deadline odds
    # are the headline's 82 % in each (only costs moved).
    o, rng = rec.options, np.random.default_rng(0)
    draws = {}
    for f in monte_carlo_factors(rec, cat):
        if "lead_time_factor" in f.at_low:
            continue
        u = rng.uniform(size=(50, 1))
        for k in f.at_low:
            lo, hi = np.asarray(f.at_low[k], float), np.asarray(f.at_high[k], float)
            draws[k] = draws.get(k, 1.0) * median_centred_draw(lo, hi, u)
    ev = evaluate_arrays(rec.scenario, o, **draws)
    top = rec.top
    pos = np.flatnonzero(
        (o["accelerator"] == top.accelerator)
        & (o["acquisition"] == top.acquisition)
        & (o["n_gpus"] == top.n_gpus)
    )[0]
    p = np.broadcast_to(np.atleast_2d(ev["p_deadline"]), (50, len(o)))[:, pos]
    assert p == pytest.approx(np.full(50, o["p_deadline"].iloc[pos]))
    assert 0.8 <= p[0] < 0.83
