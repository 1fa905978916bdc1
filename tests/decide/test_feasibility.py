"""The static constraints (hardware, availability, site, team): each failure named in words."""

import numpy as np
from decide_cases import BASE
from hypothesis import given, settings
from hypothesis import strategies as st

from workbook import Scenario, recommend
from workbook.decide.feasibility import reason_texts


def test_reason_texts_formats_only_the_failing_rows():
    calls = []

    def fmt(x):
        calls.append(x)
        return f"x={x}"

    out = reason_texts(np.array([True, False, True]), fmt, np.array([1, 2, 3]))
    assert list(out) == ["x=1", "", "x=3"] and calls == [1, 3]
    assert list(reason_texts(np.array([False, True]), lambda: "no")) == ["", "no"]


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


@settings(max_examples=15, deadline=None)
@given(st.floats(0.05, 0.95))
def test_an_option_rejected_for_power_stays_rejected_when_power_shrinks(k):
    s = Scenario(**dict(BASE, budget_usd=50e6, deadline_days=365, platform_engineers=10))
    a = recommend(s, sensitivity=False).options
    b = recommend(s.replace(site_power_kw=s.site_power_kw * k), sensitivity=False).options
    rejected = a["why_site_power"] != ""
    assert (b.loc[rejected, "why_site_power"] != "").all()
