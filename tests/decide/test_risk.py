"""The leading options' p10 / p50 / p90 of days and first-year cost (workbook.decide.risk)."""

import pytest

from workbook import presets, recommend
from workbook.decide import option_bands, option_row


@pytest.fixture(scope="module")
def rec():
    return recommend(presets["funded-startup-30b-domain"], sensitivity=False)


def test_bands_are_the_pick_then_its_runners_up(rec):
    b = option_bands(rec)
    assert len(b) == 1 + len(rec.runners_up) <= 4
    assert list(b["pick"]) == [True] + [False] * (len(b) - 1)
    keys = [(r.accelerator, r.acquisition) for r in [rec.top, *rec.runners_up]]
    assert list(zip(b["accelerator"], b["acquisition"])) == keys


def test_days_and_probabilities_are_the_options_own(rec):
    b = option_bands(rec).iloc[0]
    row = option_row(rec.options, rec.top.accelerator, rec.top.n_gpus, rec.top.acquisition)
    assert (b["days_p10"], b["days_p50"], b["days_p90"]) == (
        row["time_to_result_days_p10"],
        row["time_to_result_days"],
        row["time_to_result_days_p90"],
    )
    assert b["days_p10"] < b["days_p50"] < b["days_p90"]
    assert (b["p_deadline"], b["p_budget"]) == (row["p_deadline"], row["p_budget"])


def test_first_year_of_an_on_demand_rental_is_its_runs_at_each_quantile(rec):
    """Hand check: renting on demand pays only its runs (no reservation, no purchase, no staff;
    the pick needs no port), so the first year = 6 runs x the cost per run at p10, p50 and p90."""
    b = option_bands(rec).iloc[0]
    assert b["acquisition"] == "rent-on-demand" and rec.scenario.runs_per_year == 6
    for q in ("p10", "p50", "p90"):
        assert b[f"first_year_usd_{q}"] == pytest.approx(6 * b[f"cost_per_run_usd_{q}"])


def test_first_year_of_a_purchase_is_mostly_its_price(cat):
    """An owned cluster's first year is its purchase plus a year's running costs: the band moves
    only the energy, so p10 < p50 < p90 differ by well under the purchase."""
    owned = presets["band-400b-plus"].replace(acquisition_modes=["buy-new"])
    rec = recommend(owned, sensitivity=False)
    bands = option_bands(rec)
    b = bands[bands["acquisition"] == "buy-new"].iloc[0]  # the pick: buying only
    assert b["first_year_usd_p10"] < b["first_year_usd_p50"] < b["first_year_usd_p90"]
    assert b["first_year_usd_p90"] - b["first_year_usd_p10"] < 0.05 * b["first_year_usd_p50"]


def test_no_pick_no_bands():
    rec = recommend(presets["article-70b-5t-48-days"], sensitivity=False)
    assert rec.top is None and option_bands(rec).empty
