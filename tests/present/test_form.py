"""The app's inputs (workbook.present.app.form): every preset survives widgets -> scenario, numbers
are shown in convenient units, 0 means "default" for the optional ones, and deep links name a
preset."""

import ipywidgets as w
import pytest

from workbook import presets
from workbook.decide import ScenarioError
from workbook.present.app.form import (
    FIELDS,
    OPTIONAL_ZERO,
    STEP_TITLES,
    build_form,
    preset_in,
    scenario_from_values,
    widget_values,
)
from workbook.present.app.page import preset_from_query


@pytest.mark.parametrize("name", list(presets))
def test_every_preset_round_trips_through_the_inputs(name):
    s = presets[name]
    assert scenario_from_values(s, widget_values(s), name) == s


def test_numbers_are_shown_in_billions_and_optional_zero_is_default():
    s = presets["funded-startup-30b-domain"].replace(rack_limit_kw=None)
    values = widget_values(s)
    assert float(values["n_params"]) == pytest.approx(s.n_params / 1e9)
    assert values["rack_limit_kw"] == "0"
    assert scenario_from_values(s, values, "").rack_limit_kw is None


def test_an_edited_value_makes_the_scenario_custom():
    s = presets["band-under-7b"]
    values = {**widget_values(s), "deadline_days": "3"}
    edited = scenario_from_values(s, values, "band-under-7b")
    assert edited.name == "custom" and edited.deadline_days == 3.0


def test_a_bad_value_raises_scenario_error_naming_the_field():
    s = presets["band-under-7b"]
    with pytest.raises(ScenarioError, match="n_params"):
        scenario_from_values(s, {**widget_values(s), "n_params": "-5"}, "band-under-7b")


def test_form_has_one_input_and_one_error_line_per_field():
    changes = []
    form = build_form(changes.append, lambda v="", layout=None: w.HTML(v), w.Layout())
    fields = [f for step in FIELDS.values() for f, *_ in step]
    assert list(form.inputs) == fields and list(form.errors) == fields
    assert len(form.steps) == len(STEP_TITLES) and OPTIONAL_ZERO <= set(fields)
    form.load(presets["band-400b-plus"])
    assert changes and form.values()["cooling"] == presets["band-400b-plus"].cooling


def test_preset_in_reads_the_url_query():
    assert preset_in("?preset=band-400b-plus") == "band-400b-plus"
    assert preset_in("") is None


def test_query_string_deep_link(monkeypatch):
    monkeypatch.setenv("QUERY_STRING", "preset=band-under-7b")
    assert preset_from_query() == "band-under-7b"
    monkeypatch.setenv("QUERY_STRING", "preset=nonsense")
    assert preset_from_query() == "funded-startup-30b-domain"


# --- every decision input of the article (issue 16) ----------------------------------------------
ARTICLE_INPUTS = (
    "fabric",
    "pue",
    "lead_time_tolerance_weeks",
    "accelerators",
    "max_gpus",
    "precision",
    "used_price_factor",
)


def test_every_article_input_has_a_field():
    fields = {f for step in FIELDS.values() for f, *_ in step}
    assert set(ARTICLE_INPUTS) <= fields
    precision = next(x for x in FIELDS["model"] if x[0] == "precision")
    assert "fp4" in precision[3]


def test_unset_means_the_scenarios_default():
    s = presets["band-70b-to-400b"]
    values = widget_values(s)
    assert values["fabric"] == "" and values["accelerators"] == ()
    assert values["lead_time_tolerance_weeks"] == "" and values["pue"] == "0"
    back = scenario_from_values(s, values, "band-70b-to-400b")
    assert (back.fabric, back.accelerators, back.lead_time_tolerance_weeks, back.pue) == (
        None,
        None,
        None,
        None,
    )


def test_set_article_inputs_land_in_the_scenario():
    s = presets["band-70b-to-400b"]
    values = {
        **widget_values(s),
        "fabric": "roce-400",
        "pue": "1.2",
        "lead_time_tolerance_weeks": "12",
        "accelerators": ("h200-sxm", "b200-hgx"),
        "max_gpus": "512",
        "precision": "fp4",
        "used_price_factor": "0.84",
    }
    got = scenario_from_values(s, values, "band-70b-to-400b")
    assert got.name == "custom" and got.fabric == "roce-400" and got.pue == 1.2
    assert got.lead_time_tolerance_weeks == 12.0 and got.accelerators == ["h200-sxm", "b200-hgx"]
    assert (got.max_gpus, got.precision, got.used_price_factor) == (512, "fp4", 0.84)


@pytest.mark.parametrize(
    "field, text, words",
    [
        ("pue", "0.5", "greater than or equal to 1"),
        ("pue", "abc", "is not a number"),
        ("used_price_factor", "5", "less than or equal to 2"),
        ("used_price_factor", "", "is empty"),
        ("max_gpus", "0", "greater than or equal to 1"),
        ("max_gpus", "2.5", "not a whole number"),
        ("max_gpus", "99999", "less than or equal to 16384"),
        ("lead_time_tolerance_weeks", "-1", "greater than or equal to 0"),
        ("lead_time_tolerance_weeks", "1,5", "has a comma"),
    ],
)
def test_a_bad_article_input_gives_one_message_naming_its_field(field, text, words):
    s = presets["band-70b-to-400b"]
    with pytest.raises(ScenarioError) as e:
        scenario_from_values(s, {**widget_values(s), field: text}, "band-70b-to-400b")
    assert len(e.value.errors) == 1
    name, value, msg = e.value.errors[0]
    assert name == field and str(value) == text and words in msg
    assert "Traceback" not in str(e.value) and field in str(e.value)


def test_the_more_sections_hold_the_rarer_inputs_collapsed():
    from workbook.present.app.form import MORE

    form = build_form(lambda _c: None, lambda v="", layout=None: w.HTML(v), w.Layout())
    for step, names in MORE.items():
        section = form.sections[names[0]]
        assert section.selected_index is None  # collapsed
        assert set(names) == {f for f, sec in form.sections.items() if sec is section}
    form.reveal("fabric")
    assert form.sections["fabric"].selected_index == 0
