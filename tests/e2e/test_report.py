"""The papermill report: ``python -m workbook report`` end to end, the memo's content, its failures.

One batch run of the CLI (module fixture) renders three presets and a scenario file through
papermill and nbconvert; the tests then read the HTML. A notebook that raises shows that a failed
run leaves no file behind. Parameter errors (they stop before any kernel starts) are checked in
tests/cli/test_cli_report.py, the memo's structure without a kernel in tests/present/test_memo.py.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from workbook.calibrate import time_model_trust
from workbook.decide import presets, recommend
from workbook.present import render as rp

REPO = Path(__file__).resolve().parents[2]

#: A rented pick, a bought pick, and the article's impossible headline (nothing feasible).
PRESETS = (
    "small-team-instruction-tuning",
    "series-a-healthcare-17b-lora",
    "article-70b-5t-48-days",
)
#: A scenario file with its own name and an edited field (the file form of SCENARIO).
CUSTOM = presets["small-team-instruction-tuning"].replace(name="my-team-30-day", deadline_days=30)


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> SimpleNamespace:
    """One CLI batch run: three presets and a YAML file into one folder."""
    work = tmp_path_factory.mktemp("reports")
    CUSTOM.save(work / "custom.yaml")
    out = work / "out"
    cmd = [
        sys.executable,
        "-m",
        "workbook",
        "report",
        *PRESETS,
        str(work / "custom.yaml"),
        "--out-dir",
        str(out),
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=work, check=False)
    return SimpleNamespace(
        result=r, out=out, html={p.stem: p.read_text(encoding="utf-8") for p in out.glob("*.html")}
    )


def _text(page: str) -> str:
    """The visible text of an HTML page (tags dropped, entities decoded, whitespace collapsed)."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def test_batch_run_succeeds(batch):
    r = batch.result
    assert r.returncode == 0, r.stderr[-2000:]
    assert sorted(batch.html) == sorted([*PRESETS, "custom"])
    assert "reports" in r.stderr  # the tqdm bar of the batch form
    assert not [p for p in batch.out.iterdir() if p.suffix != ".html"]  # no temporary files left


@pytest.mark.parametrize("name", PRESETS)
def test_memo_opens_with_the_recommendation(batch, name):
    rec = recommend(presets[name])
    expected = rec.top.sentence if rec.feasible else rec.headline
    text = _text(batch.html[name])
    assert expected in text
    # The one sentence comes first: before the runners-up, the trade-offs and the assumptions.
    first = text.index(expected)
    assert first < text.index("Assumptions and sources")
    if rec.feasible:
        assert rec.top.accelerator in text
        assert first < text.index("Runners-up and why they were not chosen")


def test_scenario_file_with_edited_field(batch):
    rec = recommend(CUSTOM)
    text = _text(batch.html["custom"])
    assert rec.top.sentence in text
    assert "Recommendation: my-team-30-day" in text
    assert re.search(r"deadline_days 30 ", text)


@pytest.mark.parametrize("name", [*PRESETS, "custom"])
def test_memo_is_offline_and_has_no_code(batch, name):
    page = batch.html[name]
    assert re.findall(r"<script[^>]*\bsrc\s*=", page, flags=re.IGNORECASE) == []
    assert "<script" not in page.lower()  # no JavaScript at all: charts are static SVG
    for needle in ("cdn.", "unpkg", "jsdelivr"):
        assert needle not in page.lower(), needle
    # No input code, prompts, parameters or nbval markers reach the memo.
    body = page[page.index("<body") :]
    for code in ("from workbook", "scenario_yaml", "NBVAL_CHECK_OUTPUT", "In&nbsp;[", "Out["):
        assert code not in body, code


def test_memo_lists_assumptions_with_sources_and_snapshot(batch):
    rec = recommend(presets[PRESETS[0]])
    text = _text(batch.html[PRESETS[0]])
    # Rows of data/assumptions.csv and data/facility.csv, with the pick's prices.
    assert "gemm_efficiency" in text and "pue_air" in text
    assert f"Prices of {rec.top.accelerator}" in text
    assert f"data hash {rec.snapshot['data_hash']}" in text
    assert '<a href="https://' in batch.html[PRESETS[0]]  # sources are links


def test_memo_says_how_far_to_trust_the_time_estimate(batch):
    rec = recommend(presets[PRESETS[0]])
    text = _text(batch.html[PRESETS[0]])
    assert "How far to trust the time estimate" in text
    trust = time_model_trust(rec.top.accelerator, wall_days=rec.top.wall_days)
    assert (
        trust in text and "For the predicted " in trust
    )  # the range applied to the pick's own days


# --- failures leave nothing behind ---------------------------------------------------------------
def _notebook_that_raises(path: Path) -> Path:
    import nbformat as nbf

    nb = nbf.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    params = nbf.v4.new_code_cell('scenario_yaml: str = ""\npreset: str = ""')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbf.v4.new_code_cell("raise RuntimeError('engine exploded')")]
    nbf.write(nb, path)
    return path


def test_failed_run_leaves_no_partial_report(tmp_path):
    broken = _notebook_that_raises(tmp_path / "broken.ipynb")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "keep.html").write_text("an older report")
    with pytest.raises(rp.ReportError, match="RuntimeError: engine exploded"):
        rp.render_report(
            presets[PRESETS[0]], out_dir / "report.html", notebook=broken, timeout_s=60
        )
    assert sorted(p.name for p in out_dir.iterdir()) == ["keep.html"]


@pytest.mark.skipif(
    not rp.CHROMIUM.exists(),
    reason=f"PDF printing needs chromium at {rp.CHROMIUM} (apt-get install chromium)",
)
def test_pdf_of_the_memo(batch, tmp_path):
    src = batch.out / f"{PRESETS[0]}.html"
    pdf = tmp_path / "memo.pdf"
    rp.print_pdf(src, pdf)
    data = pdf.read_bytes()
    assert data[:5] == b"%PDF-" and len(data) > 20_000


def test_memo_with_an_overrides_file_lists_it_and_the_derived_prices_it_moved(tmp_path):
    """``--overrides FILE`` reaches the report notebook (issue 14, part 5); an override without a
    source is marked so (issue 13)."""
    quotes = tmp_path / "quotes.csv"
    quotes.write_text(
        "table,key,column,value,source,notes\n"
        "prices,h100-sxm:rent-on-demand,price_usd_per_gpu_hour,1.2,our Q4 quote,\n"
        "facility,electricity_usd_per_kwh,value,0.1,,\n"
    )
    out = tmp_path / "memo.html"
    cmd = [sys.executable, "-m", "workbook", "report", PRESETS[0], "--overrides", str(quotes)]
    r = subprocess.run(
        [*cmd, "-o", str(out)], capture_output=True, text=True, timeout=600, check=False
    )
    assert r.returncode == 0, r.stderr
    text = _text(out.read_text(encoding="utf-8"))
    assert (
        "prices:h100-sxm:rent-on-demand:price_usd_per_gpu_hour=1.2 (source: our Q4 quote)" in text
    )
    assert "facility:electricity_usd_per_kwh:value=0.1 (user override, no source)" in text
    assert "derived prices recomputed: h100-sxm rent-reserved-1y 1.74 -> 0.708" in text
