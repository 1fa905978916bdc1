"""Notebook 05's tables (workbook.guides.team): software maturity, team rules, team risk.

Values are checked by hand calculation from the catalog (data/*.csv) or against the engine
function each table wraps, so a table can never drift from the engine it claims to show.
"""

import pytest

from workbook import presets, recommend
from workbook.guides.team import (
    TEAM_PROFILES,
    software_maturity_table,
    team_risk_matrix,
    team_risk_reasons,
    team_risk_table,
    team_rules_table,
)


def test_software_maturity_and_rules_come_from_assumptions(cat):
    m = software_maturity_table(cat).set_index("software_stack")
    assert m.loc["rocm", "value"] == cat.param("assumptions", "software_maturity_rocm") == 0.7
    assert "mi350x" in m.loc["rocm", "accelerators"] and m.loc["cuda", "value"] == 1.0
    r = team_rules_table(cat).set_index("parameter")
    assert r.loc["rocm_min_platform_engineers", "value"] == 2
    assert r.loc["nodes_per_platform_engineer", "value"] == 16
    assert r.loc["stack_debug_weeks_rocm", "value"] == 4  # charged as the software line


@pytest.fixture(scope="module")
def team(cat):
    return team_risk_table(catalog=cat)


def test_team_risk_follows_the_articles_rules(team):
    """'If your team is 5 people, do not pick AMD'; Gaudi 3 never across nodes; ROCm experience
    lifts the AMD rule."""
    small = team[team["profile"] == "5 people, no platform eng."].set_index("accelerator")
    for amd in ("mi300x", "mi350x", "mi355x"):
        assert small.loc[amd, "allowed"] == "no" and "ROCm" in small.loc[amd, "reason"]
    assert small.loc["h100-sxm", "allowed"] == "rent; own <= 1 node"
    assert (team.loc[team["accelerator"] == "gaudi3", "allowed"] == "<= 1 node").all()
    rocm = team[team["profile"] == "12 people, ROCm experience"].set_index("accelerator")
    assert rocm.loc["mi350x", "allowed"] != "no"
    m = team_risk_matrix(team)
    assert m.index[-1] == "(engine's pick)" and list(m.columns) == list(TEAM_PROFILES)
    assert set(team_risk_reasons(team)["allowed"]) <= set(team["allowed"])


def test_team_pick_is_recommends_pick(team, cat):
    s = presets["band-7b-to-70b"].replace(**TEAM_PROFILES["5 people, no platform eng."])
    top = recommend(s, catalog=cat, sensitivity=False).top
    pick = team[team["profile"] == "5 people, no platform eng."]["pick"].iloc[0]
    assert pick == f"{top.acquisition} {top.n_gpus} x {top.accelerator}"


def test_team_bad_input():
    with pytest.raises(ValueError, match=r"preset='nope' is not a preset; allowed: small-team"):
        team_risk_table("nope")
    with pytest.raises(ValueError, match=r"profiles\['x'\]=.*allowed keys: team_size"):
        team_risk_table(profiles={"x": {"budget_usd": 1}})
    with pytest.raises(ValueError, match=r"profiles=\{\} is not a non-empty dict"):
        team_risk_table(profiles={})
