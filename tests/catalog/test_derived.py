"""Derived prices follow overrides (workbook.catalog.derived; issue 14, part 4).

Expected values are hand-computed from the shipped rows: H100 default on-demand 2.95, purchase
27,500, 1-year contract 2.35 (published); H200 on-demand 4.00; Gaudi 3 purchase 15,625; B200
on-demand 5.25; the discounts 0.41 (1 year) and 0.64 (3 years) of data/assumptions.csv; signwl's
GB200 / B200 ratio 12.47 / 7.52.
"""

import math

import pytest

from workbook import Scenario, recommend
from workbook.catalog import CatalogError, Override, load_catalog
from workbook.catalog.derived import check_derivations, parse_formula
from workbook.text import snapshot_line

OD = "price_usd_per_gpu_hour"


def _od(acc, value, source="our quote"):
    return Override("prices", f"{acc}:rent-on-demand", OD, str(value), source)


def test_shipped_derived_prices_are_their_stated_values():
    """H100: the published 1-year contract (SemiAnalysis, Mar 2026) 2.35 and the 3-year derived
    from it, 2.35 x 0.36 / 0.59 = 1.43; H200: both from its on-demand 4.00 (x 0.59, x 0.36)."""
    cat = load_catalog()
    assert cat.price("h100-sxm", "rent-reserved-1y") == 2.35
    assert cat.price("h100-sxm", "rent-reserved-3y") == 1.43
    assert cat.price("h200-sxm", "rent-reserved-1y") == 2.36
    assert cat.price("h200-sxm", "rent-reserved-3y") == 1.44
    assert cat.derived == [] and cat.snapshot()["derived"] == []


def test_h200_on_demand_override_moves_the_reservations_below_it():
    cat = load_catalog().with_overrides([_od("h200-sxm", 2.00)])
    assert cat.price("h200-sxm", "rent-reserved-1y") == pytest.approx(2.00 * (1 - 0.41))  # 1.18
    assert cat.price("h200-sxm", "rent-reserved-3y") == pytest.approx(2.00 * (1 - 0.64))  # 0.72
    assert cat.price("h200-sxm", "rent-reserved-1y") < cat.price("h200-sxm", "rent-on-demand")
    # Other accelerators' derived prices do not move.
    assert cat.price("b200-hgx", "rent-reserved-1y") == 3.1


def test_h100_on_demand_override_moves_the_estimates_from_it_not_the_published_contract():
    """Gaudi 3's rent is estimated from the H100's: 1.20 x 15,625 / 27,500 = 0.6818; the H100's
    1-year contract is a published price (no formula), and its 3-year follows that."""
    cat = load_catalog().with_overrides([_od("h100-sxm", 1.20)])
    assert cat.price("gaudi3", "rent-on-demand") == pytest.approx(1.20 * 15625 / 27500)
    assert cat.price("h100-sxm", "rent-reserved-1y") == 2.35
    assert cat.price("h100-sxm", "rent-reserved-3y") == 1.43
    one_year = Override("prices", "h100-sxm:rent-reserved-1y", OD, "2.00", "our quote")
    quoted = load_catalog().with_overrides([one_year])
    assert quoted.price("h100-sxm", "rent-reserved-3y") == pytest.approx(2.00 * 0.36 / 0.59)


def test_snapshot_lists_the_override_and_the_derived_values_it_moved():
    cat = load_catalog().with_overrides([_od("h200-sxm", 2.00)])
    moved = {d["price_id"]: d for d in cat.snapshot()["derived"]}
    assert set(moved) == {"h200-sxm-r1y-derived-2026-05", "h200-sxm-r3y-derived-2026-05"}
    assert moved["h200-sxm-r1y-derived-2026-05"]["from"] == 2.36
    line = snapshot_line(cat.snapshot())
    assert "prices:h200-sxm:rent-on-demand:price_usd_per_gpu_hour=2.0 (source: our quote)" in line
    assert "h200-sxm rent-reserved-1y 2.36 -> 1.18" in line
    assert "h200-sxm rent-reserved-3y 1.44 -> 0.72" in line


def test_a_users_override_of_the_derived_row_itself_wins():
    cat = load_catalog().with_overrides(
        [_od("h200-sxm", 2.00), Override("prices", "h200-sxm:rent-reserved-1y", OD, "0.9", "q")]
    )
    assert cat.price("h200-sxm", "rent-reserved-1y") == 0.9
    assert cat.price("h200-sxm", "rent-reserved-3y") == pytest.approx(0.72)
    # ... also when the base moves again later: the row no longer follows its formula.
    again = cat.with_overrides([_od("h200-sxm", 1.00)])
    assert again.price("h200-sxm", "rent-reserved-1y") == 0.9
    assert again.price("h200-sxm", "rent-reserved-3y") == pytest.approx(0.36)


def test_discount_override_moves_every_reservation_of_that_term():
    cat = load_catalog().with_overrides(
        [Override("assumptions", "reserved_1y_discount", "value", "0.3", "our negotiation")]
    )
    assert cat.price("b200-hgx", "rent-reserved-1y") == pytest.approx(5.25 * 0.7)  # 3.675
    assert cat.price("a100-80gb-sxm", "rent-reserved-1y") == pytest.approx(1.3 * 0.7)  # 0.91
    assert cat.price("b200-hgx", "rent-reserved-3y") == 1.89  # the 3-year rows stay
    # ... but the H100's 3-year, derived from its published 1-year price by the two discounts
    assert cat.price("h100-sxm", "rent-reserved-3y") == pytest.approx(2.35 * 0.36 / 0.7)
    # A100 80GB, H200, B200, MI300X 1-year, the H100's former derived 1-year row (no longer the
    # default, kept with its formula) and the H100 3-year
    assert len(cat.derived) == 6


def test_chained_derivation_b200_moves_gb200_and_its_reservations():
    cat = load_catalog().with_overrides([_od("b200-hgx", 6.0)])
    assert cat.price("gb200-nvl72", "rent-on-demand") == pytest.approx(6.0 * 12.47 / 7.52)  # 9.95
    assert cat.price("b200-hgx", "rent-reserved-1y") == pytest.approx(6.0 * 0.59)  # 3.54


def test_purchase_price_override_moves_the_rent_estimated_from_it():
    cat = load_catalog().with_overrides(
        [Override("prices", "h100-sxm:buy-new", "price_usd_per_gpu", "25000", "q")]
    )
    assert cat.price("gaudi3", "rent-on-demand") == pytest.approx(2.95 * 15625 / 25000)  # 1.844


def test_the_recommendation_uses_the_recomputed_reservation():
    cat = load_catalog().with_overrides([_od("h200-sxm", 2.00)])
    s = Scenario(
        n_params=7e9, n_tokens=1.4e11, deadline_days=60, budget_usd=5e6, site_power_kw=1000,
        accelerators=["h200-sxm"], max_gpus=64,
    )  # fmt: skip
    o = recommend(s, catalog=cat, sensitivity=False).options
    reserved = o.loc[o["acquisition"] == "rent-reserved", "price"].unique()
    assert list(reserved) == [pytest.approx(2.00 * 0.59)]  # was 2.36 on the shipped data


def test_a_stated_value_that_disagrees_with_its_formula_is_refused():
    tables = {k: v.copy() for k, v in load_catalog().tables.items()}
    p = tables["prices"]
    p.loc[p["price_id"] == "h200-sxm-r1y-derived-2026-05", OD] = 1.9
    with pytest.raises(CatalogError, match=r"states 1.9 but its formula .* gives 2.36"):
        check_derivations(tables)


@pytest.mark.parametrize(
    "formula",
    ["", "h100-sxm:rent-on-demand *", "* 2", "h100-sxm:rent-on-demand + 1", "2 3", "h100 " * 3000],
)
def test_a_malformed_formula_is_refused_with_the_text_shortened(formula):
    with pytest.raises(CatalogError) as e:
        parse_formula(formula, line=3)
    assert len(str(e.value)) < 400


def test_a_formula_naming_a_missing_price_is_refused():
    with pytest.raises(CatalogError, match="no default price for 'h100-sxm:rent-spotty'"):
        load_catalog().with_overrides(
            [
                Override(
                    "price_derivations",
                    "h200-sxm-r1y-derived-2026-05",
                    "formula",
                    "h100-sxm:rent-spotty * 0.5",
                )
            ]
        )


def test_a_derived_price_reads_as_its_rule_and_its_inputs():
    """The headline's words for a derived price (workbook.catalog.derived.derivation_sentence):
    the row's rule and the inputs' values, a purchase price to the dollar, a rent to the cent;
    the generic formula names the part's own prices by kind only, so B200's and H200's 1-year
    reservations read as one rule and GB200's (from B200's price) does not."""
    from workbook.catalog.derived import derivation_sentence, formula_figures, generic_formula

    t = load_catalog().tables
    assert derivation_sentence(t, "b200-hgx-r1y-derived-2026-03") == (
        "1-year reservation = default on-demand x (1 - the 1-year committed-use discount) "
        "= $5.25 x (1 - 0.41)"
    )
    assert formula_figures(t, "h100-sxm-r3y-derived-2026-03") == "$2.35 x (1 - 0.64) / (1 - 0.41)"
    assert formula_figures(t, "gb200-nvl72-od-derived-2026") == "$5.25 x 12.47 / 7.52"
    assert formula_figures(t, "mi355x-od-estimate") == "$1.99 x $23,000 / $17,500"
    assert derivation_sentence(t, "h100-sxm-od-lambda") == ""  # not a derived row
    from workbook.catalog.derived import undiscounted_factor

    assert undiscounted_factor(t, "b200-hgx-r1y-derived-2026-03") == pytest.approx(1 / 0.59)
    assert undiscounted_factor(t, "h100-sxm-r3y-derived-2026-03") == pytest.approx(0.59 / 0.36)
    assert math.isnan(undiscounted_factor(t, "gb200-nvl72-od-derived-2026"))  # a ratio, no discount
    rule = "rent-on-demand * (1 - reserved_1y_discount)"
    assert generic_formula(f"b200-hgx:{rule}", "b200-hgx") == rule
    assert generic_formula(f"h200-sxm:{rule}", "h200-sxm") == rule
    gb200 = "b200-hgx:rent-on-demand * 12.47 / 7.52"
    assert generic_formula(gb200, "gb200-nvl72") == gb200
    # A part id inside another's is not the part's own (gb200-nvl72 does not name b200-hgx).
    assert generic_formula("gb200-nvl72:buy-new", "b200-nvl72") == "gb200-nvl72:buy-new"
