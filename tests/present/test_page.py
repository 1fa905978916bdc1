"""The app's logic without a browser (workbook.present.app.page): widgets drive the scenario,
errors land next to the field, the charts follow the recommendation. (tests/e2e/test_browser.py and
tests/e2e/test_app_browser.py open the real page; tests/present/test_charts.py checks the charts'
numbers.)"""

import base64
import html
import json
import re

import pytest

from workbook import presets, recommend
from workbook.calibrate import time_model_trust
from workbook.decide import option_row
from workbook.decide.scenario import Scenario
from workbook.present.app.page import WorkbookApp, build_app, open_app
from workbook.present.app.serve import PREVIEW_KEY
from workbook.present.format import usd_short
from workbook.text import days_text, keep_together


@pytest.fixture(scope="module")
def app():
    return WorkbookApp("funded-startup-30b-domain")


def test_app_opens_with_the_recommendation_first(app):
    rec = recommend(presets["funded-startup-30b-domain"], sensitivity=False)
    top = rec.top
    assert html.escape(keep_together(rec.verdict)) in app.headline.value
    assert top.sentence.startswith("Rent on demand") and "AMD Instinct MI355X" in top.sentence
    assert "wb-recommendation" in app.headline.value
    # Its caveat (a widened band; an estimated price too until 2026-12-08) is set apart under the
    # risk line, not run on in the bold headline.
    assert len(top.caveats) == 1 and not any(c in app.headline.value for c in top.caveats)
    caveats = app.risk_line.value.split("<div class='wb-caveats'", 1)[1]
    assert all(html.escape(keep_together(c)) in caveats for c in top.caveats)
    assert app.chart_names == [
        "risk_days",
        "risk_cost",
        "wins",
        "frontier",
        "rent_vs_buy",
        "power",
        "tornado",
    ]
    assert "Updated in" in app.status.value
    assert not any(
        "wb-stale" in part._dom_classes for part in (app.headline, app.evidence)
    )  # busy state cleared


def test_charts_are_sent_once_the_page_reports_it_rendered():
    """The ~0.9 MB chart widget is created only when the page's PageReady view says it is on screen,
    then updated in place: one widget, its spec always the current recommendation's."""
    app = WorkbookApp("funded-startup-30b-domain")
    assert app.chart_widget is None and app.page_ready in app.chart_box.children
    app.page_ready._handle_custom_msg({"event": "rendered"}, [])  # what the browser sends
    jc = app.chart_widget
    # PageReady stays beside the charts: its view carries the page's heartbeat.
    assert app.chart_box.children == (jc, app.page_ready, app.column_width)
    assert jc.spec == app.chart.to_dict()
    app.page_ready._handle_custom_msg({"event": "rendered"}, [])  # a second view of the same output
    assert app.chart_widget is jc
    before = jc.spec
    app.inputs["runs_per_year"].value = "12"
    assert jc.spec == app.chart_spec and jc.spec != before
    assert any(
        v.get("x") == 12 for v in sum(jc.spec["datasets"].values(), [])
    )  # the "your runs" rule moved


@pytest.mark.parametrize("name", list(presets))
def test_app_chart_specs_are_valid_vega_lite(app, name):
    """The app builds specs without Altair's validation (speed); they must equal the validated
    ones."""
    app.apply_preset(name)
    assert app.chart_spec == app.chart.to_dict(validate=True)


def test_preview_is_the_headline_hidden_until_the_template_shows_it(app):
    from IPython.core.interactiveshell import InteractiveShell

    app.apply_preset("band-400b-plus")
    preview = app.preview_html()
    assert preview.startswith("<div class='wb-preview' hidden data-preset='band-400b-plus'")
    # band-400b-plus reserves its B200 for a year since owning pays support and spares (issue 15)
    assert (
        html.escape(keep_together(app.rec.verdict)) in preview
        and "Rent with a 1-year reservation" in preview
    )
    shell = InteractiveShell.instance()
    published = []
    shell.display_pub.publish = lambda data, metadata=None, **kw: published.append((data, metadata))
    app.show()
    assert published[0][0]["text/html"] == preview and published[0][1] == {PREVIEW_KEY: True}
    assert "application/vnd.jupyter.widget-view+json" in published[1][0]
    app.apply_preset("funded-startup-30b-domain")  # an estimated price and a widened band
    preview = app.preview_html()
    assert app.rec.caveats and all(
        html.escape(keep_together(c)) in preview for c in app.rec.caveats
    )


def test_changing_cooling_budget_and_preset_changes_the_recommendation(app):
    before = app.headline.value
    app.inputs["budget_usd"].value = "50000"  # far below any 30B option
    assert app.headline.value != before and "Nothing in the catalog" in app.headline.value
    assert app.status.value.startswith("<div class='wb-small'>Updated in")
    app.inputs["budget_usd"].value = "3000000"
    app.inputs["cooling"].value = "liquid"
    assert app.scenario.cooling == "liquid"
    app._on_preset(
        next(b for b in app.preset_buttons if b.description == "series-a-healthcare-17b-lora")
    )
    # Two RTX A6000 in a tower workstation (issue 14, part 6: no 8-GPU server for 1-4 cards); one
    # RTX 6000 Ada's 50 runs fit the year with only 72 % (tests/decide/test_presets.py).
    assert "2 x NVIDIA RTX A6000 (one tower workstation)" in app.headline.value
    assert "its 50 runs fit in the year with 82\u00a0%" in app.headline.value
    assert app.inputs["n_params"].value == "17"  # shown in billions


def test_bad_value_shows_a_readable_message_next_to_the_field(app):
    good = app.headline.value
    app.inputs["n_params"].value = "-5"
    assert "allowed: a value greater than 0" in app.errors["n_params"].value
    assert "Fix the highlighted field" in app.status.value
    assert app.headline.value == good  # the last valid recommendation stays
    app.inputs["n_params"].value = "17"
    assert app.errors["n_params"].value == ""


def test_a_failing_update_says_so_and_leaves_the_stale_part_greyed(monkeypatch):
    """Voila swallows exceptions in callbacks: the app must show one, and mark what is out of
    date."""
    app = WorkbookApp("funded-startup-30b-domain")
    headline = app.headline.value

    def broken(*args, **kwargs):
        raise RuntimeError("tornado failed")

    monkeypatch.setattr(type(app.rec), "add_sensitivity", broken)
    app.inputs["runs_per_year"].value = "12"
    assert "Something went wrong: tornado failed" in app.status.value
    assert "greyed-out parts are from before this change" in app.status.value
    assert (
        app.headline.value != headline and "wb-stale" not in app.headline._dom_classes
    )  # the new conclusion
    assert "wb-stale" in app.evidence._dom_classes  # the charts are not


def test_downloads_hold_the_options_csv_and_the_scenario_yaml(app):
    assert "options.csv" not in app.downloads.value  # built on request only
    app.csv_button.click()
    links = dict(
        re.findall(
            r"download='([^']+)' href='data:[^;]+;base64,([^']+)'",
            app.downloads.value + app.csv_link.value,
        )
    )
    csv = base64.b64decode(links["options.csv"]).decode()
    assert csv.splitlines()[0].startswith("accelerator,name,n_gpus,acquisition,feasible")
    assert len(csv.splitlines()) == len(app.rec.options) + 1
    yml = base64.b64decode(links["scenario.yaml"]).decode()
    assert Scenario.from_yaml(yml) == app.rec.scenario


def test_assumptions_table_shows_sources_and_snapshot(app):
    assert "Data snapshot" in app.assumptions.value and "gemm_efficiency" in app.assumptions.value
    assert "arxiv.org" in app.assumptions.value


def test_robustness_says_how_far_to_trust_the_time_estimate(app):
    text = time_model_trust(app.rec.top.accelerator, app.catalog, wall_days=app.rec.top.wall_days)
    assert "For the predicted " in text  # the pick's own days, with the range to plan for
    assert "How far to trust the time estimate" in app.robustness.value
    assert html.escape(text) in app.robustness.value
    assert f"No published dense run on the {app.rec.top.name}" in text  # MI355X: no published run


def test_time_factor_field_plans_for_a_measured_stack():
    app = WorkbookApp("funded-startup-30b-domain")
    top = app.rec.top
    app.inputs["time_factor"].value = "0.1"
    assert "allowed: a value greater than or equal to 0.25" in app.errors["time_factor"].value
    app.inputs["time_factor"].value = "1.5"
    assert app.errors["time_factor"].value == "" and app.scenario.time_factor == 1.5
    same = option_row(app.rec.options, top.accelerator, top.n_gpus, top.acquisition)
    assert same["wall_days"] == pytest.approx(1.5 * top.wall_days)
    assert "time factor of 1.5x" in app.reasons.value
    days = app.rec.top.wall_days  # the pick at 1.5x (scaled days can move a near-tie)
    assert (
        html.escape(
            f"You set a time factor of 1.5x, so the recommendation plans for {days_text(days)} "
            f"where the engine predicts {days_text(days / 1.5)}."
        )
        in app.robustness.value
    )


def test_deep_link_applied_when_the_page_reports_its_url(monkeypatch):
    """Voila's preheated kernel builds the default app before the request; the page then sends its
    URL query (PageReady) and the app applies ?preset= before it sends the charts."""
    monkeypatch.delenv("QUERY_STRING", raising=False)
    app = open_app()
    assert app.preset == "funded-startup-30b-domain" and app.chart_widget is None
    app.page_ready._handle_custom_msg({"event": "rendered", "search": "?preset=band-400b-plus"}, [])
    assert app.preset == "band-400b-plus" and float(app.inputs["n_params"].value) == pytest.approx(
        presets["band-400b-plus"].n_params / 1e9
    )
    assert "2048 x NVIDIA B200" in app.headline.value  # the preset's pick (test_presets.py)
    assert (
        app.chart_widget is not None and app.chart_widget.spec == app.chart.to_dict()
    )  # charts of the linked preset
    app.page_ready._handle_custom_msg({"event": "rendered", "search": "?preset=nonsense"}, [])
    assert (
        "preset &#x27;nonsense&#x27;, which does not exist; showing band-400b-plus"
        in app.status.value
    )
    assert "2048 x NVIDIA B200" in app.headline.value  # the preset's pick (test_presets.py)
    app.follow_link("")  # no link: nothing changes
    assert app.preset == "band-400b-plus"


def test_unknown_preset_gives_a_message_not_a_traceback():
    view = build_app("no-such-preset")
    assert "could not start" in view.value and "allowed:" in view.value


def test_risk_line_and_charts_show_the_picks_chances(app):
    """The deadline and budget probabilities under the headline are the pick's own (p_deadline,
    p_budget of the options table), and the headline says the deadline probability too; the
    confidence they must reach is written as every probability is ("80 %")."""
    app.apply_preset("band-400b-plus")
    top = app.rec.top
    row = option_row(app.rec.options, top.accelerator, top.n_gpus, top.acquisition)
    assert f"<b>{row['p_deadline'] * 100:.0f}\u00a0%</b> chance of a finished run by day 365" in (
        app.risk_line.value
    )
    assert f"by day 365 with {row['p_deadline'] * 100:.0f} % probability" in app.rec.headline
    assert "within $600M" in app.risk_line.value
    # the confidence written as the memo and the headline write a probability (issue 19)
    risk = app.risk_line.value.split("<div class='wb-caveats'", 1)[0]  # the caveats follow it
    assert risk.endswith("&middot; 80\u00a0% required.</div>")  # kept together on the page
    assert "(p10\u2011p90 days " in risk and "(p10\u2011p90 $" in risk


def test_app_and_memo_run_the_same_number_of_draws(app):
    """One draw count (data/assumptions.csv monte_carlo_draws) for the app and the memo: the app's
    Monte Carlo equals recommend()'s (the memo's) share for share."""
    from workbook.decide import monte_carlo_draws

    app.apply_preset("funded-startup-30b-domain")
    memo_rec = recommend(presets["funded-startup-30b-domain"])
    assert monte_carlo_draws(app.catalog) == 1000
    assert f"Monte Carlo, {monte_carlo_draws(app.catalog):,} draws" in app.robustness.value
    assert app.rec.monte_carlo.equals(memo_rec.monte_carlo)
    # and the same sentence as the memo's last risk: the pick's share, then its part's at any size,
    # with parts named (not "rent-on-demand 128 x mi355x")
    from workbook.present.summary import monte_carlo_shares_text, risks

    shares = monte_carlo_shares_text(memo_rec)
    assert shares.startswith("the pick wins ") and shares in risks(memo_rec)[-1]
    assert html.escape(shares) in app.robustness.value
    assert "x mi355x" not in app.robustness.value


def test_tornado_table_in_the_app_has_no_raw_floats(app):
    app.apply_preset("funded-startup-30b-domain")
    assert "per GPU-hour" in app.robustness.value and " MFU" in app.robustness.value
    assert not re.search(r"\b0\.\d{5,}", app.robustness.value)  # no 0.181818, 0.000010


def test_active_preset_is_marked_and_reset_brings_its_values_back(app):
    app.apply_preset("band-7b-to-70b")
    marked = [b.description for b in app.preset_buttons if b.button_style == "primary"]
    assert marked == ["band-7b-to-70b"] and "edited" not in app.preset_note.value
    app.inputs["deadline_days"].value = "400"
    app.inputs["fabric"].value = "roce-400"
    assert app.rec.scenario.name == "custom" and app.rec.scenario.fabric == "roce-400"
    assert "edited" in app.preset_note.value
    app.reset_button.click()
    assert app.rec.scenario == presets["band-7b-to-70b"]
    assert app.inputs["fabric"].value == "" and "edited" not in app.preset_note.value


def test_every_article_input_reaches_the_scenario(app):
    """Fabric, PUE, lead-time tolerance, accelerator restriction, largest cluster, FP4 and the
    used price: each input lands in its Scenario field."""
    app.apply_preset("band-400b-plus")
    changes = {
        "fabric": "roce-400",
        "pue": "1.25",
        "lead_time_tolerance_weeks": "20",
        "accelerators": ("b200-hgx", "b300-hgx"),
        "max_gpus": "1024",
        "precision": "fp4",
        "used_price_factor": "0.84",
    }
    for field, value in changes.items():
        app.inputs[field].value = value
    s = app.rec.scenario
    assert (s.fabric, s.pue, s.lead_time_tolerance_weeks) == ("roce-400", 1.25, 20.0)
    assert (s.accelerators, s.max_gpus, s.precision) == (["b200-hgx", "b300-hgx"], 1024, "fp4")
    assert s.used_price_factor == 0.84
    assert set(app.rec.options["accelerator"]) <= {"b200-hgx", "b300-hgx"}
    assert app.rec.options["n_gpus"].max() <= 1024
    app.reset()


def test_a_bad_value_in_a_more_section_opens_it(app):
    app.apply_preset("funded-startup-30b-domain")
    section = app.form.sections["pue"]
    assert section.selected_index is None
    app.inputs["pue"].value = "0.5"
    assert "0.5" in app.errors["pue"].value and "greater than or equal to 1" in (
        app.errors["pue"].value
    )
    assert section.selected_index == 0
    app.reset()


@pytest.mark.parametrize("px", [370, 520, 900])
def test_charts_are_drawn_at_the_width_the_page_reports(px):
    """ColumnWidth's message redraws the charts for that column: every chart's plotting area plus
    its y labels fits the column; legends go under the charts below 900 px."""
    from workbook.present.chart_style import MIN_WIDTH

    app = WorkbookApp("funded-startup-30b-domain")
    app.column_width._handle_custom_msg({"event": "width", "px": px}, [])
    spec = app.chart_spec
    width = {part["width"] for part in spec["vconcat"]}
    labels = spec["config"]["axisY"]["labelLimit"]
    assert len(width) == 1 and (width.pop() + labels <= px or width == {MIN_WIDTH})
    assert spec["config"]["legend"]["orient"] == ("bottom" if px < 900 else "right")
    app.column_width._handle_custom_msg({"event": "width", "px": "wide"}, [])  # not a width
    assert app.chart_spec == spec and "wrong" not in app.status.value


def test_a_phone_column_draws_the_tornado_labels_and_titles_whole():
    """At 370 px the tornado's y labels had 140 px and read "Rental prices: $1.05 - $4.58 ...",
    its title "Sensitivity: the pick's cost per run across each a...". A label too long for its
    room is drawn in lines (name first, the range after, none wider than the room at 5.4 px a
    character), its chart grows to 50 px a row for them; a title goes on two lines."""
    app = WorkbookApp("funded-startup-30b-domain")
    app.column_width._handle_custom_msg({"event": "width", "px": 370}, [])
    spec = app.chart_spec
    axis = spec["config"]["axisY"]
    room = axis["labelLimit"]
    table = json.loads(axis["labelExpr"].split("[datum.label]")[0])
    rental = next(k for k in table if k.startswith("Rental prices: "))
    assert (
        table[rental][0] == "Rental prices"
        and " ".join(table[rental][1:]) == (rental.split(": ", 1)[1])
    )
    assert all(len(line) * 5.4 <= room for lines in table.values() for line in lines)
    tornado = next(p for p in spec["vconcat"] if "Sensitivity" in str(p.get("title")))
    assert tornado["title"] == [
        "Sensitivity: the pick's cost per run across",
        "each assumption's range",
    ]
    rows = len(app.rec.sensitivity)
    longest = max(len(v) for v in table.values())
    assert tornado["height"] == rows * (longest * 11 + 6)
    # The power chart's ids have no "name: range": drawn as they are, on one line.
    assert not any(k in table for k in ("h100-sxm", "gb200-nvl72"))


def _money(cell: str) -> float:
    """``$1.2M`` / ``$708,000`` / ``$3.4B`` / blank -> dollars (the app's people format)."""
    cell = html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()
    if not cell:
        return 0.0
    scale = {"M": 1e6, "B": 1e9}.get(cell[-1], 1.0)
    return float(cell.strip("$MB").replace(",", "")) * scale


@pytest.mark.parametrize("preset", ["funded-startup-30b-domain", "band-7b-to-70b"])
def test_the_app_shows_what_the_picks_money_buys(app, preset):
    """Beside the headline, the pick's bill: its lines add up (to the rounding of $0.1M a line)
    to the option row's first-year cost and cost per year, and its Total row is those two."""
    app.apply_preset(preset)
    top = app.rec.top
    row = option_row(app.rec.options, top.accelerator, top.n_gpus, top.acquisition)
    assert "What the money buys" in app.bill.value
    cells = [
        re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", tr, flags=re.S)
        for tr in re.findall(r"<tr>(.*?)</tr>", app.bill.value, flags=re.S)
    ]
    header, *body = cells
    first, per_year = header.index("First year"), header.index("Cost per year")
    lines, total = body[:-1], body[-1]
    assert "Total" in total[header.index("What")]
    for col, column in ((first, "first_year_cost_usd"), (per_year, "cost_per_year_usd")):
        assert total[col] == usd_short(row[column])
        assert sum(_money(r[col]) for r in lines) == pytest.approx(
            row[column], abs=0.05e6 * len(lines) + 1
        )


def test_robustness_without_a_monte_carlo_says_no_share(cat):
    """0 draws (monte_carlo_samples=0): the tornado, and no "Monte Carlo, 1,000 draws ...: ."."""
    from workbook.present.app.evidence import robustness_html

    rec = recommend(presets["funded-startup-30b-domain"], monte_carlo_samples=0)
    assert rec.monte_carlo.empty and not rec.sensitivity.empty
    page = robustness_html(rec, cat, "trust")
    assert "How robust is the pick?" in page and "Monte Carlo" not in page
    assert "per GPU-hour" in page  # the tornado is there


def test_the_odds_line_writes_the_first_years_band_as_the_headline_writes_money():
    """series-a's odds line read "within $250,000 (p10-p90 $23,568-$24,269)" under a headline
    that writes "$9,420 a year": the band is an estimate, in three figures; the budget is the
    reader's, as typed."""
    from workbook.present.app.evidence import option_bands
    from workbook.text import money_text

    app = WorkbookApp("series-a-healthcare-17b-lora")
    b = option_bands(app.rec, n=1).iloc[0]
    lo, hi = money_text(b["first_year_usd_p10"]), money_text(b["first_year_usd_p90"])
    assert keep_together(f"within $250,000 (p10-p90 {lo}-{hi})") in app.risk_line.value
    assert lo.endswith("00")  # $23,600: three figures, not $23,568
