"""Notebook 08 (workbook.guides.recommendation): the reader's saved choices replace the
parameters, and the pick is the decision engine's own (Scenario + recommend, as the app)."""

import html

import pytest

from workbook import Scenario, recommend
from workbook.guides.choices import save_choices
from workbook.guides.recommendation import recommendation_guide, starting_values

PARAMS = dict(
    workload="pretrain",
    n_params=70e9,
    n_tokens=1e12,
    seq_len=4096,
    time_factor=1.0,
    budget_usd=3e6,
    deadline_days=180,
    runs_per_year=2.0,
    cooling="air",
    site_power_kw=500.0,
    rack_limit_kw=40.0,
    team_size=5,
    platform_engineers=0,
    rocm_experience=False,
)


def test_saved_choices_replace_the_parameters(tmp_path):
    path = tmp_path / "c.json"
    save_choices(path, "01_model_sizing_and_memory", {"n_params": 8e9, "method": "qlora"})
    save_choices(path, "03_rent_vs_buy", {"budget_usd": 5e5})
    values, source = starting_values(PARAMS, str(path))
    assert values["n_params"] == 8e9 and values["budget_usd"] == 5e5
    assert values["workload"] == "qlora"  # notebook 01's method
    assert source["n_params"] == "01_model_sizing_and_memory"
    assert source["workload"] == "01_model_sizing_and_memory (method qlora)"
    assert source["deadline_days"] == "this notebook's parameters"
    assert starting_values(PARAMS, None)[0] == PARAMS
    save_choices(path, "01_model_sizing_and_memory", {"method": "full"})  # full: back to pretrain
    assert starting_values({**PARAMS, "workload": "lora"}, str(path))[0]["workload"] == "pretrain"


def _same_pick(panel, scenario, cat):
    want = recommend(scenario, catalog=cat, monte_carlo_samples=None)
    got = panel.result.data["rec"]
    assert (got.top.accelerator, got.top.n_gpus, got.top.acquisition) == (
        want.top.accelerator,
        want.top.n_gpus,
        want.top.acquisition,
    )
    assert got.top.cost_per_run_usd == pytest.approx(want.top.cost_per_run_usd)
    assert panel.result.headline == want.verdict  # its caveats are a part of their own
    return want


def test_the_pick_is_the_engines_and_follows_the_widgets(tmp_path, cat):
    path = tmp_path / "c.json"
    save_choices(path, "05_team_and_software_risk", {"team_size": 12, "platform_engineers": 2})
    p = recommendation_guide(PARAMS, choices_file=str(path), catalog=cat)
    s = Scenario(name="your-choices", **{**PARAMS, "team_size": 12, "platform_engineers": 2})
    _same_pick(p, s, cat)
    assert p.widgets["team_size"].value == 12
    before = p.result.headline
    p.widgets["n_params"].value = 30  # the reader moves the model to 30 billion parameters
    p.widgets["budget_usd"].value = 1.0  # and cuts the budget to $1M
    want = _same_pick(p, s.replace(n_params=30e9, budget_usd=1e6), cat)
    assert want.top.first_year_cost_usd <= 1e6 and p.result.headline != before
    assert html.escape(want.verdict) in p.view.value
    assert all(html.escape(c) in p.view.value for c in want.caveats)
    origin = p.result.data["origin"].set_index("field")
    assert origin.loc["budget_usd", "from"] == "changed here"
    assert origin.loc["team_size", "from"] == "05_team_and_software_risk"
    assert origin.loc["budget_usd", "value"] == "$1,000,000"
