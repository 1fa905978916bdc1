"""The memo's content without a kernel (workbook.present.memo): the sections in order, everything
escaped, the charts as inline SVG. tests/e2e/test_report.py renders real memos through papermill."""

from __future__ import annotations

import dataclasses
import re

import pandas as pd
import pytest

from workbook import presets
from workbook.decide import Scenario, recommend
from workbook.present import memo as rp
from workbook.text import money_text

SCENARIO = Scenario(n_params=7e9, deadline_days=30, budget_usd=1e6, site_power_kw=100)


@pytest.fixture(scope="module")
def base_rec():
    return recommend(SCENARIO, sensitivity=False)


def _stub_rec(base_rec, sentence: str):
    """A real recommendation with a pick whose sentence and figures the test chooses."""
    top = dataclasses.replace(
        base_rec.top,
        accelerator="h100-sxm",
        n_gpus=64,
        acquisition="buy-new",
        wall_days=12.34,
        cost_per_run_usd=123456.7,
        cost_per_year_usd=1e6,
        facility_kw=95.5,
        racks=3,
        sentence=sentence,
        caveats=[],
    )
    return dataclasses.replace(
        base_rec,
        top=top,
        reasons=["cheapest <b>within</b> the deadline"],
        pareto=pd.DataFrame(),
        sensitivity=pd.DataFrame(),
    )


def test_memo_escapes_and_orders_sections(monkeypatch, base_rec):
    monkeypatch.setattr(rp, "chart_specs", lambda rec: [])  # charts need a real Recommendation
    m = rp.memo(SCENARIO, rec=_stub_rec(base_rec, "Buy 64 x H100 <script>alert(1)</script>."))
    assert m.recommendation.startswith("Buy 64 x H100")
    assert "<script>" not in m.html and "&lt;script&gt;" in m.html
    assert "&lt;b&gt;within&lt;/b&gt;" in m.html
    assert "$123,457" in m.html and "12.3" in m.html
    assert (
        m.html.index('id="summary"')
        < m.html.index('id="recommendation"')
        < m.html.index('id="assumptions"')
    )
    assert m._repr_html_() == m.html


def test_charts_are_inline_svg(monkeypatch, base_rec):
    """A chart of ``chart_specs`` becomes static SVG in the memo."""
    import altair as alt

    chart = (
        alt.Chart(pd.DataFrame({"days": [1, 2], "usd": [3, 4]}))
        .mark_point()
        .encode(x="days", y="usd")
    )
    monkeypatch.setattr(rp, "chart_specs", lambda rec: [("Cost against time", chart)])
    m = rp.memo(SCENARIO, rec=_stub_rec(base_rec, "Buy."))
    assert '<section id="charts">' in m.html and "<svg" in m.html and "Cost against time" in m.html
    assert "<script" not in m.html


def test_memo_of_a_preset_name_and_of_yaml_text(base_rec):
    """The report notebook passes either ``scenario_yaml`` or only a ``preset``."""
    m = rp.memo("", preset="band-under-7b", rec=base_rec)
    assert "Decision memo: band-under-7b" in m.html
    m = rp.memo(SCENARIO.to_yaml(), rec=base_rec)
    assert m.scenario == SCENARIO and m.recommendation == base_rec.verdict


def test_the_memo_sets_the_picks_caveats_apart_from_its_sentence():
    """enterprise-frontier-pretraining's pick has a derived price, a run time that decides it
    within its own band and odds under 90 %: the bold opening sentence is the verdict, and the
    three caveats follow in their own box, each whole."""
    from workbook.decide import presets
    from workbook.present.format import escape, readable
    from workbook.text import keep_together

    rec = recommend(presets["enterprise-frontier-pretraining"], sensitivity=False)
    m = rp.memo(presets["enterprise-frontier-pretraining"], rec=rec)
    bold = m.html.split('<p class="recommendation">', 1)[1].split("</p>", 1)[0]
    assert bold == escape(keep_together(readable(rec.verdict))) and m.recommendation == rec.verdict
    box = m.html.split('<div class="caveats"><b>Before you commit</b><ul>', 1)[1].split("</ul>")[0]
    assert box == "".join(f"<li>{escape(keep_together(readable(c)))}</li>" for c in rec.caveats)
    assert len(rec.caveats) == 3


def test_memo_without_scenario_or_preset_names_the_parameter():
    with pytest.raises(ValueError, match="scenario_yaml"):
        rp.memo("")


def test_memo_says_how_far_to_trust_the_pick(base_rec):
    m = rp.memo(SCENARIO, rec=base_rec)
    assert '<section id="trust">' in m.html and "For the predicted " in base_rec.trust


def test_runners_up_come_from_the_recommendation(base_rec):
    ru = rp.runners_up(base_rec)
    assert list(ru["summary"]) == [o.sentence for o in base_rec.runners_up]


def test_an_inline_model_shape_is_listed_field_by_field():
    """A scenario's model_shape (Qwen3-30B-A3B's, its config.json) is one row of the scenario
    table, its fields in order with thousands separators, set by the scenario."""
    shape = dict(
        n_layers=48, d_model=2048, n_heads=32, n_kv_heads=4, ffn_hidden=768, vocab_size=151936,
        n_experts=128, experts_per_token=8, head_dim=128, tie_embeddings=False,
    )  # fmt: skip
    s = Scenario(
        name="qwen", workload="pretrain", n_tokens=2e12, deadline_days=90, budget_usd=4e6,
        site_power_kw=2000, model_shape=shape,
    )  # fmt: skip
    row = rp._scenario_table(s).set_index("field").loc["model_shape"]
    assert row["value"] == (
        "n_layers 48, d_model 2,048, n_heads 32, n_kv_heads 4, ffn_hidden 768, vocab_size "
        "151,936, n_experts 128, experts_per_token 8, head_dim 128, tie_embeddings False"
    )
    assert row["source"] == "scenario"


def test_the_tornado_tables_millions_read_as_the_headline_writes_them():
    """band-400b-plus's tornado (app and memo) wrote "$114,363,072" beside a headline's "$57.2M",
    and its table ran 450 px wide on a 400 px phone; from a million its dollars are written to
    three figures (format.usd_short: text.money_text), under a million to the dollar."""
    rec = recommend(presets["band-400b-plus"])
    table = rp.tornado_table(rec).set_index("assumption")
    runs = table.loc["Runs per year (utilization)"]
    cost = rec.sensitivity.set_index("assumption").loc["Runs per year (utilization)"]
    assert runs["cost per run at low"] == money_text(cost["cost_per_run_at_low"]) == "$114M"
    assert runs["cost per run at high"] == "$34.7M" and runs["swing"] == "$79.7M"
    money = table[["cost per run at low", "cost per run at high"]].to_numpy().ravel()
    assert not [v for v in money if re.fullmatch(r"\$\d{1,3}(,\d{3}){2,}", v)]  # $114,363,072
