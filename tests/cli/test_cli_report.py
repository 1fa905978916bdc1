"""``python -m workbook report`` in-process (workbook.cli.report): every parameter is validated
before anything runs, so these tests start no kernel. tests/e2e/test_report.py renders memos."""

import pytest

from workbook.cli import main
from workbook.cli.report import parse_set, scenario_stem
from workbook.decide import ScenarioError, presets
from workbook.present.render import resolve_scenario

#: A rented pick, a bought pick, and the article's impossible headline (nothing feasible).
PRESETS = (
    "small-team-instruction-tuning",
    "series-a-healthcare-17b-lora",
    "article-70b-5t-48-days",
)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["small-team-instruction-tuning", "--set", "n_params=-5"], "n_params"),
        (["small-team-instruction-tuning", "--set", "deadline_dayz=30"], "deadline_dayz"),
        (["small-team-instruction-tuning", "--set", "cooling=water"], "cooling"),
        (["small-team-instruction-tuning", "--set", "budget_usd"], "--set"),
        (["no-such-preset"], "no-such-preset"),
    ],
)
def test_bad_parameter_stops_before_running(tmp_path, capsys, args, named):
    out = tmp_path / "report.html"
    code = main(["report", *args, "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert named in err and err.startswith("error: ")
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_bad_field_in_scenario_file(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(presets[PRESETS[0]].to_yaml().replace("deadline_days: 14", "deadline_days: -3"))
    out = tmp_path / "out" / "bad.html"
    assert main(["report", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "deadline_days=-3" in err and "greater than 0" in err
    assert not out.parent.exists()


def test_one_bad_scenario_stops_the_whole_batch(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("n_params: 7e9\n")  # missing required fields
    assert main(["report", PRESETS[0], str(bad), "--out-dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "deadline_days" in err and "is required" in err
    assert not (tmp_path / "out").exists()


def test_output_flag_takes_one_scenario(tmp_path, capsys):
    assert main(["report", *PRESETS[:2], "-o", str(tmp_path / "x.html")]) == 2
    assert "--out-dir" in capsys.readouterr().err


def test_set_values_are_read_as_yaml():
    s, preset = resolve_scenario(
        PRESETS[0],
        parse_set(
            ["deadline_days=21", "rocm_experience=true", "acquisition_modes=[rent-spot, buy-new]"]
        ),
    )
    assert preset == PRESETS[0]
    assert (s.deadline_days, s.rocm_experience, s.acquisition_modes) == (
        21,
        True,
        ["rent-spot", "buy-new"],
    )
    with pytest.raises(ScenarioError, match="--set"):
        parse_set(["no_equals_sign"])


def test_scenario_stem_is_the_file_stem_or_the_preset():
    assert scenario_stem("runs/my-team.yaml") == "my-team"
    assert scenario_stem("band-under-7b") == "band-under-7b"


def test_timeout_must_be_positive(capsys):
    assert main(["report", PRESETS[0], "--timeout", "0"]) == 2
    assert "--timeout=0.0: allowed: > 0 and <= 86400 seconds" in capsys.readouterr().err


def test_two_scenarios_writing_one_file_stop_the_batch(tmp_path, capsys):
    code = main(["report", PRESETS[0], PRESETS[0], "--out-dir", str(tmp_path / "out")])
    assert code == 2 and "several scenarios would write the same file" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "overrides file not found"),
        ("table,key\nprices,x\n", "the header lacks column, value"),
        ("table,key,column,value\nprices,h100-sxm:rent-on-demand\n", "line 2: has 2 cells"),
        (
            "table,key,column,value\naccelerators,h100-sxm,tdp_w,-5\n",
            "below the allowed minimum",
        ),
    ],
)
def test_bad_overrides_file_stops_before_running(tmp_path, capsys, content, says):
    f = tmp_path / "quotes.csv"
    if content is not None:
        f.write_text(content)
    out = tmp_path / "out.html"
    code = main(["report", PRESETS[0], "--overrides", str(f), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: --overrides: ") and says in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


def test_overrides_file_that_is_a_folder_is_refused(tmp_path, capsys):
    code = main(["report", PRESETS[0], "--overrides", str(tmp_path), "-o", str(tmp_path / "a")])
    assert code == 2 and "is a folder" in capsys.readouterr().err
