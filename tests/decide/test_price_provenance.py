"""A pick that rests on an estimated price says so in its headline and names the best option with
sourced prices; "sourced prices only" rules estimates out; a user's own quote counts as sourced
(issue 14, price provenance)."""

import numpy as np
import pytest

from workbook import load_catalog, presets, recommend
from workbook.catalog import price_is_sourced
from workbook.text import MODE_PHRASE


def test_which_price_sources_a_buyer_can_check():
    kinds = ["vendor", "aggregator", "press", "derived", "estimate", "article", "press", "estimate"]
    providers = [
        "AMD list",
        "median",
        "Reuters",
        "from on-demand",
        "estimate (none found)",
        "the article",
        "NVL72 ~$3M (press estimate)",
        "user override",
    ]
    urls = ["https://a"] * 7 + ["user override: my quote"]
    assert list(price_is_sourced(kinds, providers, urls)) == [
        True,
        True,
        True,
        True,
        False,
        False,
        False,
        True,
    ]


def test_a_pick_on_an_estimated_price_names_the_best_sourced_option():
    s = presets["funded-startup-30b-domain"]
    rec = recommend(s, sensitivity=False)
    assert rec.top.acquisition == "rent-on-demand" and rec.top.accelerator == "mi355x"
    assert (
        "Its price is an estimate, not a quote: no public price; rent assumed "
        "proportional to purchase price" in rec.headline
    )
    sourced = recommend(s.replace(sourced_prices_only=True), sensitivity=False).top
    d = sourced.cost_per_run_usd / rec.top.cost_per_run_usd - 1
    assert (
        f"The best option with sourced prices: {MODE_PHRASE[sourced.acquisition]} "
        f"{sourced.n_gpus} x {sourced.name}, " in rec.headline
    ) and f"${sourced.cost_per_run_usd:,.0f} per run ({d:+.0%} vs the pick)." in rec.headline


def test_sourced_prices_only_rules_out_every_estimate():
    rec = recommend(presets["band-7b-to-70b"].replace(sourced_prices_only=True), sensitivity=False)
    o = rec.options
    assert o.loc[o["feasible"], "price_sourced"].all()
    estimated = o["price"].notna() & ~o["price_sourced"]
    assert estimated.any()
    # Each constraint keeps its first reason: an estimate that is also, say, beyond on-demand
    # capacity says that; every estimate fails availability, and most say it is an estimate.
    why = o.loc[estimated, "why_availability"]
    assert not o.loc[estimated, "feasible"].any() and (why != "").all()
    said = why.str.contains("its price is an estimate; this scenario allows sourced prices only")
    assert said.sum() > len(why) / 2
    assert "Its price is an estimate" not in rec.headline


def test_your_own_quote_is_a_sourced_price():
    quote = load_catalog(
        [
            {
                "table": "prices",
                "key": "mi355x:rent-on-demand",
                "column": "price_usd_per_gpu_hour",
                "value": "2.62",
                "source": "our AMD partner's quote, 2026-11",
            }
        ]
    )
    s = presets["funded-startup-30b-domain"]
    rec = recommend(s, catalog=quote, sensitivity=False)
    assert rec.top.accelerator == "mi355x" and "Its price is an estimate" not in rec.headline
    row = rec.options[
        (rec.options["accelerator"] == "mi355x") & (rec.options["acquisition"] == "rent-on-demand")
    ]
    assert row["price_sourced"].all() and np.isclose(row["price"], 2.62).all()


def test_the_tornado_and_monte_carlo_move_an_estimated_price_further():
    """Rental prices move 0.6x-1.5x (data/assumptions.csv rent_price_factor); an estimate moves
    that range widened 1.5x around 1 (estimated_price_range_widening): 1 - 0.4 x 1.5 = 0.4x to
    1 + 0.5 x 1.5 = 1.75x. The pick's cost per run at each end of the tornado shows which."""
    for name, sourced in (
        ("funded-startup-30b-domain", False),
        ("small-team-instruction-tuning", True),
    ):
        rec = recommend(presets[name], monte_carlo_samples=200)
        row = rec.sensitivity.set_index("parameter").loc["rent_price_factor"]
        low, high = (0.6, 1.5) if sourced else (0.4, 1.75)
        # the project's storage (billed by the month) and the team's time on an immature stack
        # (by the year) do not move with the GPU price
        fixed = (
            rec.top.storage_usd_per_year + rec.top.software_usd_per_year
        ) / rec.scenario.runs_per_year
        rent = rec.top.cost_per_run_usd - fixed
        assert row["cost_per_run_at_low"] == pytest.approx(low * rent + fixed)
        assert row["cost_per_run_at_high"] == pytest.approx(high * rent + fixed)
        assert (row["low"], row["high"]) == (0.6, 1.5)  # the tornado shows the sourced range
    # With no widening the estimate moves like a quote, and the Monte Carlo changes with it.
    flat = load_catalog(
        [
            {
                "table": "assumptions",
                "key": "estimated_price_range_widening",
                "column": "value",
                "value": "1.0",
            }
        ]
    )
    s = presets["funded-startup-30b-domain"]
    wide = recommend(s, monte_carlo_samples=300).monte_carlo.set_index("option")["share"]
    same = recommend(s, catalog=flat, monte_carlo_samples=300).monte_carlo
    assert not wide.equals(same.set_index("option")["share"])
