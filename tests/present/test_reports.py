"""Memo files from scenarios in this process (workbook.present.reports): a failure of any step
leaves no file behind and says what failed in one line; a batch exports the notebook once.
tests/e2e/test_report.py renders real memos through the command line."""

from __future__ import annotations

import time

import nbformat
import pytest

from workbook.decide import presets
from workbook.present import reports
from workbook.present.memo import Memo
from workbook.present.render import REPORT_NOTEBOOK, ReportError

SCENARIO = presets["small-team-instruction-tuning"]


def _fake_memo(scenario, preset="", catalog=None):
    return Memo(scenario, "Rent 8 x H100 for $5 per run.", '<div class="memo"><p>$5</p></div>')


@pytest.fixture
def out_dir(tmp_path):
    d = tmp_path / "out"
    d.mkdir()
    (d / "keep.html").write_text("an older report")
    return d


def test_memo_goes_into_the_notebook_cell_tagged_memo(monkeypatch, tmp_path):
    monkeypatch.setattr(reports, "memo", _fake_memo)
    job = reports.MemoJob(SCENARIO, "", tmp_path / "r.html")
    assert reports.render_memo(job) == [tmp_path / "r.html"]
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert '<div class="memo"><p>$5</p></div>' in page
    assert f"<title>Decision memo: {SCENARIO.name}</title>" in page
    assert reports.BODY_MARK not in page and reports.TITLE_MARK not in page
    # No code, no parameters: the exported notebook shows only the memo.
    assert "scenario_yaml" not in page and "from workbook" not in page


def test_a_failing_engine_leaves_no_partial_report(monkeypatch, out_dir):
    def explode(scenario, preset="", catalog=None):
        raise RuntimeError("engine exploded\nsecond line")

    monkeypatch.setattr(reports, "memo", explode)
    job = reports.MemoJob(SCENARIO, "", out_dir / "report.html")
    with pytest.raises(ReportError, match=r"^the memo failed: RuntimeError: engine exploded$"):
        reports.render_memo(job)
    assert sorted(p.name for p in out_dir.iterdir()) == ["keep.html"]


def test_a_memo_past_its_time_limit_stops_and_writes_nothing(monkeypatch, out_dir):
    def slow(scenario, preset="", catalog=None):
        time.sleep(5)

    monkeypatch.setattr(reports, "memo", slow)
    job = reports.MemoJob(SCENARIO, "", out_dir / "report.html")
    t0 = time.perf_counter()
    with pytest.raises(ReportError, match="did not finish within 0.3 s"):
        reports.render_memo(job, timeout_s=0.3)
    assert time.perf_counter() - t0 < 3
    assert sorted(p.name for p in out_dir.iterdir()) == ["keep.html"]


def test_a_notebook_without_a_memo_cell_is_a_clear_error(monkeypatch, tmp_path, out_dir):
    monkeypatch.setattr(reports, "memo", _fake_memo)
    nb = nbformat.read(str(REPORT_NOTEBOOK), as_version=4)
    for c in nb.cells:
        c.metadata["tags"] = [t for t in c.metadata.get("tags", []) if t != "memo"]
    broken = tmp_path / "no-memo-cell.ipynb"
    nbformat.write(nb, str(broken))
    job = reports.MemoJob(SCENARIO, "", out_dir / "report.html")
    with pytest.raises(ReportError, match="has no cell tagged 'memo'"):
        reports.render_memo(job, notebook=broken)
    assert sorted(p.name for p in out_dir.iterdir()) == ["keep.html"]


def test_pdf_without_chromium_is_a_clear_error_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(reports, "CHROMIUM", tmp_path / "no-chromium")
    job = reports.MemoJob(SCENARIO, "", tmp_path / "r.html")
    with pytest.raises(ReportError, match="apt-get install chromium"):
        reports.render_memo(job, pdf=True)
    assert list(tmp_path.iterdir()) == []


def test_the_page_is_exported_once_per_notebook_version(monkeypatch, tmp_path):
    """A batch pays nbconvert's export once: the second memo reuses the page, and so does the
    next process (the page kept in the cache folder); an edited notebook is exported again."""
    monkeypatch.setattr(reports, "memo", _fake_memo)
    monkeypatch.setattr(reports, "CACHE_DIR", tmp_path / "cache")
    calls = []
    real = reports.export
    monkeypatch.setattr(reports, "export", lambda *a, **k: calls.append(1) or real(*a, **k))
    nb = tmp_path / "report.ipynb"
    nb.write_bytes(REPORT_NOTEBOOK.read_bytes())
    for i in range(3):
        reports.render_memo(reports.MemoJob(SCENARIO, "", tmp_path / f"r{i}.html"), notebook=nb)
    assert len(calls) == 1 and len(list((tmp_path / "cache").iterdir())) == 1
    reports._shell.cache_clear()  # as in a new process
    reports.render_memo(reports.MemoJob(SCENARIO, "", tmp_path / "again.html"), notebook=nb)
    assert len(calls) == 1
    assert (tmp_path / "again.html").read_text() == (tmp_path / "r0.html").read_text()
    edited = nbformat.read(str(nb), as_version=4)
    edited.cells[0].source += "\n\nEdited."
    nbformat.write(edited, str(nb))
    reports.render_memo(reports.MemoJob(SCENARIO, "", tmp_path / "edited.html"), notebook=nb)
    assert len(calls) == 2


def test_a_batch_goes_on_past_a_failed_memo(monkeypatch, tmp_path):
    def sometimes(scenario, preset="", catalog=None):
        if preset == "band-under-7b":
            raise ValueError("no luck")
        return _fake_memo(scenario, preset, catalog)

    monkeypatch.setattr(reports, "memo", sometimes)
    names = ["small-team-instruction-tuning", "band-under-7b", "band-7b-to-70b"]
    jobs = [reports.MemoJob(presets[n], n, tmp_path / f"{n}.html") for n in names]
    results = list(reports.render_batch(jobs))
    assert [r.index for r in results] == [0, 1, 2]
    assert results[1].error == "the memo failed: ValueError: no luck" and not results[1].written
    assert [r.written for r in (results[0], results[2])] == [[jobs[0].target], [jobs[2].target]]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{n}.html" for n in names[::2])


def test_a_job_recommends_from_its_own_catalog(monkeypatch, tmp_path):
    """The catalog of a job (a user's overrides) is the one the memo recommends from."""
    seen = []
    monkeypatch.setattr(
        reports, "memo", lambda s, preset="", catalog=None: seen.append(catalog) or _fake_memo(s)
    )
    marker = object()
    reports.render_memo(reports.MemoJob(SCENARIO, "", tmp_path / "r.html", catalog=marker))
    assert seen == [marker]
