"""Notebook 03's tables (workbook.guides.rent_vs_buy): costs by acquisition mode, break-even.

Values are checked by hand calculation from the catalog (data/*.csv) or against the engine
function each table wraps, so a table can never drift from the engine it claims to show.
"""

import math

import pytest

from workbook import check_claim, estimate_training, presets, recommend
from workbook.guides.rent_vs_buy import article_rent_vs_buy, rent_vs_buy_curve, rent_vs_buy_table


@pytest.fixture(scope="module")
def rvb(cat):
    return rent_vs_buy_table(
        "h200-sxm", 128, n_params=70e9, n_tokens=1e12, runs_per_year=2, catalog=cat
    ).set_index("acquisition")


def test_rent_vs_buy_costs_by_hand(rvb, cat):
    """On demand: GPU-hours x $4.00 plus the year's storage over its 2 runs: (1e12 tokens x 4 B +
    5 checkpoints x 70e9 x 14 B) = 8.9 TB x $186/TB-month x 12 = $19,864.80 a year. Capex:
    128 x $29,500 + 16 servers x $66,600 + 128 x $5,000 (NDR per GPU) x 0.675 (16 nodes: one
    switch layer) + 2 % spares of the GPUs and servers + 14 days of burn-in at 16 x 10.2 kW x
    PUE 1.54 x $0.0826/kWh (data/prices.csv, facility.csv, fabrics.csv, assumptions.csv)."""
    e = estimate_training(70e9, 1e12, "h200-sxm", 128, catalog=cat)
    storage = 8.9 * 186 * 12 / 2
    assert rvb.loc["rent-on-demand", "cost_per_run_usd"] == pytest.approx(
        e.gpu_hours * 4.00 + storage
    )
    assert rvb.loc["rent-spot", "cost_per_run_usd"] == pytest.approx(
        e.gpu_hours * 1.15 * 3.40 + storage
    )
    gpus_and_servers = 128 * 29_500 + 16 * 66_600
    setup = 16 * 10.2 * 1.54 * 24 * 14 * 0.0826
    assert rvb.loc["buy-new", "capex_usd"] == pytest.approx(
        gpus_and_servers * 1.02 + 128 * 5_000 * 0.675 + setup
    )
    assert "buy-used" not in rvb.index  # no buy-used H200 price in the catalog


def test_breakeven_is_where_buying_and_renting_cost_the_same(rvb, cat):
    be = rvb["breakeven_runs_per_year"].iloc[0]
    assert 0 < be < 365 / rvb.loc["rent-on-demand", "wall_days"]
    curve = rent_vs_buy_curve(
        "h200-sxm", 128, n_params=70e9, n_tokens=1e12, runs=[be], catalog=cat
    ).set_index("acquisition")
    assert curve.loc["buy-new", "cost_per_year_usd"] == pytest.approx(
        curve.loc["rent-on-demand", "cost_per_year_usd"], rel=1e-6
    )
    assert rvb["breakeven_busy_fraction"].iloc[0] == pytest.approx(
        be * rvb.loc["rent-on-demand", "wall_days"] / 365
    )


def test_rent_vs_buy_breakeven_matches_recommend_for_its_pick(cat):
    """The engine's own break-even (Recommendation.breakeven_runs_per_year) for its top option.

    Restricted to an air-cooled part: for liquid-only parts the table prices the owner's liquid
    retrofit (and liquid PUE), which an air-cooled preset without retrofit does not."""
    s = presets["funded-startup-30b-domain"].replace(accelerators=["h200-sxm"])
    rec = recommend(s, catalog=cat, sensitivity=False)
    t = rent_vs_buy_table(
        rec.top.accelerator,
        rec.top.n_gpus,
        n_params=s.n_params,
        n_tokens=s.tokens,
        runs_per_year=s.runs_per_year,
        cooling=s.cooling,
        catalog=cat,
    )
    assert math.isfinite(rec.breakeven_runs_per_year)
    assert t["breakeven_runs_per_year"].iloc[0] == pytest.approx(
        rec.breakeven_runs_per_year, rel=1e-6
    )


def test_article_rent_vs_buy(cat):
    """The article: 128 x 48 days x 24 h = 147,456 GPU-h; at its $3.40 spot that is $501,350 (its
    $502K)."""
    t = article_rent_vs_buy(cat).set_index("figure")
    assert t.loc["GPU-hours per run", "article"] == 147_456
    assert t.loc["rent on spot, per run (USD)", "article"] == pytest.approx(
        147_456 * 3.40, rel=0.002
    )
    c = check_claim(70e9, 5e12, "h200-sxm", 128, days=48, catalog=cat)
    assert t.loc["run length (days)", "engine"] == pytest.approx(c.realistic_days)
    assert t.loc["break-even (share of the year busy)", "article"] == pytest.approx(2.5 * 48 / 365)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"accelerator": "nope"}, r"accelerator='nope' is not an accelerator id"),
        (
            {"n_gpus": 100},
            r"n_gpus=100 is not a cluster size the engine prices for h200-sxm; "
            r"allowed: 1, 2, 4, 8, 16",
        ),
        ({"runs_per_year": 0}, r"runs_per_year=0"),
        ({"cooling": "water"}, r"cooling='water' is not allowed"),
        ({"n_tokens": -5}, r"n_tokens=-5"),
    ],
)
def test_rent_vs_buy_bad_input(kwargs, match):
    args = {"accelerator": "h200-sxm", "n_gpus": 128, "n_params": 70e9, "n_tokens": 1e12, **kwargs}
    with pytest.raises(ValueError, match=match):
        rent_vs_buy_table(args.pop("accelerator"), args.pop("n_gpus"), **args)
