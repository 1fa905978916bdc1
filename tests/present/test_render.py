"""Rendering a memo to files (workbook.present.render), the parts that start no kernel: reading
the scenario argument and refusing a PDF without chromium. The papermill runs are in
tests/e2e/test_report.py."""

import pytest

from workbook.decide import ScenarioError, presets
from workbook.present import render


def test_pdf_without_chromium_is_a_clear_error_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(render, "CHROMIUM", tmp_path / "no-chromium")
    with pytest.raises(render.ReportError, match="apt-get install chromium"):
        render.render_report(
            presets["small-team-instruction-tuning"], tmp_path / "r.html", pdf=True
        )
    assert list(tmp_path.iterdir()) == []


def test_resolve_scenario_reads_a_file_or_a_preset(tmp_path):
    s = presets["band-under-7b"].replace(name="mine")
    s.save(tmp_path / "mine.yaml")
    assert render.resolve_scenario(str(tmp_path / "mine.yaml")) == (s, "")
    assert render.resolve_scenario("band-under-7b", {"deadline_days": 9})[0].deadline_days == 9
    with pytest.raises(ScenarioError, match="is neither a scenario file nor a preset; presets: "):
        render.resolve_scenario("no-such-preset")
