"""Notebook 06's tables (workbook.guides.claims): the article's claims and the inference advice.

Values are checked by hand calculation from the catalog (data/*.csv) or against the engine
function each table wraps, so a table can never drift from the engine it claims to show.
"""

import numpy as np
import pytest

from workbook import check_claim, inference_frame
from workbook.guides.claims import claims_overview, claims_table, inference_table, inference_verdict


@pytest.fixture(scope="module")
def claims(cat):
    return claims_table(cat).set_index("claim_id")


def test_claims_table_has_every_csv_row(claims, cat):
    assert list(claims.index) == list(cat.tables["article_claims"]["claim_id"])
    assert {"verdict", "explanation", "engine_says", "engine_verdict", "engine_agrees"} <= set(
        claims.columns
    )


def test_headline_is_physically_impossible_at_implied_mfu_4(claims):
    """6 x 70e9 x 5e12 = 2.1e24 FLOP; 128 x 48 d x 86,400 s x 989e12 = 5.25e23 FLOP at peak:
    4.0x."""
    c = claims.loc["c58-70b-5t-48days-128-h200"]
    assert c["verdict"] == c["engine_verdict"] == "physically-impossible"
    assert "needs 4.0x the dense BF16 peak" in c["engine_says"]
    assert 6 * 70e9 * 5e12 / (128 * 48 * 86400 * 989e12) == pytest.approx(4.0, abs=0.01)
    assert check_claim(70e9, 5e12, "h200-sxm", 128, days=48).implied_mfu == pytest.approx(
        4.0, abs=0.01
    )


def test_engine_recomputes_b300_fp8_and_rack_power(claims):
    assert "4,500 / 4,500 = 1.00x" in claims.loc["c11-b300-fp8-doubled", "engine_says"]
    assert claims.loc["c13-b300-fp8-dense", "engine_verdict"] == "wrong"
    assert "6 x 14.3 kW = 85.8 kW" in claims.loc["c52-rack-b200-48kw", "engine_says"]
    assert claims.loc["c52-rack-b200-48kw", "engine_verdict"] == "wrong"


def test_engine_never_contradicts_a_checked_verdict(claims):
    """Where the table is not 'unverifiable', the engine's verdict lands on the same side
    (holds / fails)."""
    judged = claims[claims["engine_agrees"].notna()]
    assert len(judged) >= 25
    assert judged["engine_agrees"].all(), judged[~judged["engine_agrees"]].index.tolist()
    o = claims_overview(claims.reset_index())
    assert o["claims"].sum() == len(claims)
    assert o["engine_disagrees"].sum() == 0


def test_inference_table_is_inference_frame(cat):
    t = inference_table([8e9, 70e9], catalog=cat)
    f = inference_frame(70e9, ["h200-sxm", "l40s", "b300-hgx", "mi350x"], catalog=cat)
    got = t[t["model"] == "70B"].reset_index(drop=True)
    np.testing.assert_allclose(got["usd_per_million_tokens"], f["usd_per_million_tokens"])
    assert list(got["rank"]) == [1, 2, 3, 4]
    assert set(t.loc[t["accelerator"].isin(["h200-sxm", "l40s"]), "article_says"]) == {"better"}
    v = inference_verdict(t)
    assert list(v["claim_holds"]) == list(v["pick_usd_per_m"] < v["other_usd_per_m"])
    with pytest.raises(ValueError, match=r"price_basis='free' is not allowed"):
        inference_table(price_basis="free")
    with pytest.raises(ValueError, match=r"model_sizes=None is not a list of numbers"):
        inference_table(None)
    with pytest.raises(ValueError, match=r"catalog=.* is not a workbook Catalog"):
        claims_table(catalog={"accelerators": None})
