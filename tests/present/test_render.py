"""The memo's file formats (workbook.present.render): reading the scenario argument. Writing
memos is in tests/present/test_reports.py, real memos and their PDFs in tests/e2e/test_report.py."""

import pytest

from workbook.decide import ScenarioError, presets
from workbook.present import render


def test_resolve_scenario_reads_a_file_or_a_preset(tmp_path):
    s = presets["band-under-7b"].replace(name="mine")
    s.save(tmp_path / "mine.yaml")
    assert render.resolve_scenario(str(tmp_path / "mine.yaml")) == (s, "")
    assert render.resolve_scenario("band-under-7b", {"deadline_days": 9})[0].deadline_days == 9
    with pytest.raises(ScenarioError, match="is neither a scenario file nor a preset; presets: "):
        render.resolve_scenario("no-such-preset")
