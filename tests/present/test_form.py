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
