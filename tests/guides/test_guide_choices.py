"""The choices file the guides hand to notebook 08 (workbook.guides.choices): merged across
guides, never written over a file that is not one, refused with the file named."""

import json

import pytest

from workbook.guides.choices import CARRIED, load_choices, save_choices


def test_choices_merge_across_guides(tmp_path):
    path = tmp_path / "c.json"
    save_choices(path, "01_model_sizing_and_memory", {"n_params": 30e9, "method": "lora"})
    save_choices(path, "05_team_and_software_risk", {"team_size": 12, "rocm_experience": True})
    save_choices(path, "01_model_sizing_and_memory", {"n_params": 8e9})
    got = load_choices(path)
    assert got["n_params"] == {"value": 8e9, "from": "01_model_sizing_and_memory"}
    assert got["method"]["value"] == "lora"
    assert got["team_size"] == {"value": 12, "from": "05_team_and_software_risk"}
    assert got["rocm_experience"]["value"] is True
    assert not list(tmp_path.glob(".choices-*"))  # the temporary file was moved into place


def test_a_missing_file_is_no_choices(tmp_path):
    assert load_choices(tmp_path / "none.json") == {}


def test_another_json_file_is_never_overwritten(tmp_path):
    path = tmp_path / "scenario.json"
    path.write_text('{"n_params": 7e9}')
    with pytest.raises(ValueError, match="scenario.json.*is not a choices file"):
        save_choices(path, "01_model_sizing_and_memory", {"n_params": 30e9})
    assert path.read_text() == '{"n_params": 7e9}'


@pytest.mark.parametrize(
    "text, message",
    [
        ("{not json", "cannot be read"),
        ('{"kind": "workbook-guide-choices", "choices": {"gpus": {"value": 8}}}', "gpus"),
        ('{"kind": "workbook-guide-choices", "choices": {"n_params": 7}}', "n_params"),
    ],
)
def test_bad_files_are_refused_naming_the_file(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=f"choices_file='.*bad.json'.*{message}|{message}"):
        load_choices(path)


def test_only_carried_fields_and_json_paths(tmp_path):
    with pytest.raises(ValueError, match="not choices: n_gpus"):
        save_choices(tmp_path / "c.json", "x", {"n_gpus": 8})
    with pytest.raises(ValueError, match="does not end in .json"):
        save_choices(tmp_path / "my_quotes.csv", "x", {"n_params": 8e9})
    assert set(CARRIED) >= {
        "n_params",
        "n_tokens",
        "budget_usd",
        "deadline_days",
        "cooling",
        "site_power_kw",
        "team_size",
        "rocm_experience",
        "time_factor",
    }
    # every owner is a guided notebook that exists
    assert {v[:2] for v in CARRIED.values()} == {"01", "02", "03", "04", "05"}
    json.dumps(CARRIED)
