"""The report: ``python -m workbook report`` end to end, the memo's content, its PDF.

One batch run of the CLI (module fixture) renders three presets and a scenario file (the engine in
the command's process, nbconvert's export of notebooks/report.ipynb); the tests then read the HTML
and print it to PDF on Letter and A4. Parameter errors are checked in tests/cli/test_cli_report.py,
failures while rendering in tests/present/test_reports.py, the memo's structure in
tests/present/test_memo.py.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from workbook.calibrate import time_model_trust
from workbook.decide import presets, recommend
from workbook.present import render as rp
from workbook.present.format import readable

pytest.register_assert_rewrite("browser")
from browser import needs_chromium  # noqa: E402

#: The ``browser`` fixture (playwright, Debian's chromium) comes from tests/e2e/browser.py.
pytest_plugins = ["browser"]

REPO = Path(__file__).resolve().parents[2]
PDFTOTEXT, PDFTOPPM = shutil.which("pdftotext"), shutil.which("pdftoppm")


def pdf_pages(pdf: Path) -> list[tuple[float, str]]:
    """(width [pt], text) of every page of ``pdf`` (``pdftotext -bbox``: one word per element)."""
    out = subprocess.run(
        [PDFTOTEXT, "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    pages = re.findall(r'<page width="([\d.]+)" height="[\d.]+">(.*?)</page>', out, re.S)
    return [
        (float(w), " ".join(html.unescape(x) for x in re.findall(r"<word [^>]*>([^<]*)</word>", b)))
        for w, b in pages
    ]


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
    env = {**os.environ, "WORKBOOK_CACHE_DIR": str(work / "cache")}  # a fresh page export
    r = subprocess.run(
        cmd, capture_output=True, text=True, timeout=600, cwd=work, check=False, env=env
    )
    return SimpleNamespace(
        result=r, out=out, html={p.stem: p.read_text(encoding="utf-8") for p in out.glob("*.html")}
    )


def _text(page: str) -> str:
    """The visible text of an HTML page (tags dropped, entities decoded, whitespace collapsed,
    no-break hyphens read as the hyphens they print: ``workbook.text.keep_together``)."""
    text = html.unescape(re.sub(r"<[^>]+>", " ", page)).replace("\u2011", "-")
    return re.sub(r"\s+", " ", text)


def test_batch_run_succeeds(batch):
    r = batch.result
    assert r.returncode == 0, r.stderr[-2000:]
    assert sorted(batch.html) == sorted([*PRESETS, "custom"])
    assert "reports" in r.stderr  # the tqdm bar of the batch form
    assert not [p for p in batch.out.iterdir() if p.suffix != ".html"]  # no temporary files left


@pytest.mark.parametrize("name", PRESETS)
def test_memo_opens_with_the_recommendation(batch, name):
    rec = recommend(presets[name])
    # The engine's sentence, its scientific notation written out (2.10e+24 -> 2.1 x 10^24).
    expected = readable(rec.verdict)  # its caveats follow in their own box
    text = _text(batch.html[name])
    assert expected in text
    assert all(readable(c) in text for c in rec.caveats)
    # The one sentence comes first: before the runners-up, the trade-offs and the assumptions.
    first = text.index(expected)
    assert first < text.index("Assumptions and sources")
    if rec.feasible:
        assert rec.top.accelerator in text
        assert first < text.index("Runners-up and why they were not chosen")


def test_scenario_file_with_edited_field(batch):
    rec = recommend(CUSTOM)
    text = _text(batch.html["custom"])
    assert rec.verdict in text and all(c in text for c in rec.caveats)
    assert "Decision memo: my-team-30-day" in text
    assert re.search(r"deadline_days 30 days ", text)


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


@pytest.mark.parametrize("name", [*PRESETS, "custom"])
def test_memo_has_no_scientific_notation_or_local_paths(batch, name):
    """Numbers are for people (30B parameters, $3.0M, not 3e+10) and sources are URLs or titles,
    never a file on the machine that wrote the memo (issue 17)."""
    text = _text(batch.html[name][batch.html[name].index("<body") :])
    assert not re.findall(r"\b\d+(?:\.\d+)?e[+-]?\d+\b", text)
    for path in ("../", "/work/", "shared/seed", "file://"):
        assert path not in text, path


def test_memo_opens_with_an_executive_summary(batch):
    """Page 1: the decision, what it costs (capex against running costs, each figure saying what
    it includes), the days, the risks that could flip it, the article beside the engine, the date,
    the scenario and the data snapshot."""
    name = "small-team-instruction-tuning"
    rec = recommend(presets[name])
    page = batch.html[name]
    summary = _text(page[page.index('<section id="summary">') : page.index("</section>")])
    assert rec.verdict in summary and all(c in summary for c in rec.caveats)
    for needle in (
        "Capex (purchase)",
        "Cost per run",
        "Cost per year",
        "First-year cost",
        "Decision to finished run",
        "What could change the decision",
        f"data snapshot {rec.snapshot['data_hash']}",
        "overrides: none",
        f"scenario {name}",
    ):
        assert needle in summary, needle
    assert re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", summary)
    assert "the run's GPU-hours at the rental price" in summary  # a rental: all of it is opex
    assert "Monte Carlo" in summary


def test_memo_says_how_far_to_trust_the_time_estimate(batch):
    rec = recommend(presets[PRESETS[0]])
    text = _text(batch.html[PRESETS[0]])
    assert "How far to trust the time estimate" in text
    trust = time_model_trust(rec.top.accelerator, wall_days=rec.top.wall_days)
    assert (
        trust in text and "For the predicted " in trust
    )  # the range applied to the pick's own days


@pytest.mark.skipif(
    not rp.CHROMIUM.exists() or not PDFTOTEXT,
    reason=f"needs chromium at {rp.CHROMIUM} and pdftotext (poppler-utils)",
)
@pytest.mark.parametrize("paper", ["Letter", "A4"])
@pytest.mark.parametrize("name", PRESETS)
def test_pdf_prints_the_summary_first_and_clips_no_column(batch, tmp_path, paper, name):
    """The memo printed on each paper: page 1 holds the summary (not a blank page before it), no
    page is blank, and every column title of every table reaches the PDF whole (a column run off
    the page loses its title, or keeps a stump of it: 'feas' for 'feasible', issue 17). The
    nothing-feasible memo has the widest table (the nearest misses)."""
    page = batch.html[name].replace("</head>", f"<style>@page {{ size: {paper}; }}</style></head>")
    src = tmp_path / "memo.html"
    src.write_text(page, encoding="utf-8")
    pdf = tmp_path / "memo.pdf"
    rp.print_pdf(src, pdf)
    pages = pdf_pages(pdf)
    width = {"Letter": 612, "A4": 595}[paper]
    assert {round(w) for w, _ in pages} == {width}
    texts = [t for _, t in pages]
    rec = recommend(presets[name])
    first = texts[0]
    figures = ("Cost per run", "Cost per year", "First-year cost", "Deadline") if rec.top else ()
    for needle in ("Decision memo", *figures):
        assert needle in first, needle
    assert f"data snapshot {rec.snapshot['data_hash']}" in first
    sentence = readable(rec.verdict)
    assert re.sub(r"\s+", " ", sentence)[:50] in first
    # No blank page: every page carries text (the last one may hold only the data snapshot's
    # line, ~19 words).
    assert all(len(t.split()) > 10 for t in texts), str([len(t.split()) for t in texts])
    printed = set(" ".join(texts).split())  # a title may wrap over two lines of its cell
    titles = {html.unescape(t).strip() for t in re.findall(r"<th[^>]*>([^<]+)</th>", page)}
    missing = [t for t in titles if not set(t.split()) <= printed]
    assert not missing, missing


#: The printable width of each paper at 96 px/inch inside the memo's 14 mm side margins [px].
PRINTABLE_PX = {"Letter": round(8.5 * 96 - 2 * 14 / 25.4 * 96), "A4": round((210 - 28) / 25.4 * 96)}


@needs_chromium
@pytest.mark.parametrize("paper", ["Letter", "A4"])
@pytest.mark.parametrize("name", [*PRESETS, "custom"])
def test_no_table_or_chart_is_wider_than_the_paper(batch, browser, paper, name):
    """Laid out for print at the paper's printable width, no table or chart runs past the page
    (what chromium would clip: the frontier table lost its feasibility columns, issue 17)."""
    page = browser.new_page(viewport={"width": PRINTABLE_PX[paper], "height": 1000})
    try:
        page.emulate_media(media="print")
        page.goto((batch.out / f"{name}.html").as_uri())
        over = page.evaluate(
            """() => [...document.querySelectorAll('.memo table, .memo figure svg')]
                .map(e => [e.tagName, Math.round(e.getBoundingClientRect().right)])
                .filter(([, right]) => right > document.documentElement.clientWidth + 1)"""
        )
    finally:
        page.close()
    assert over == [], over


@pytest.mark.skipif(
    not rp.CHROMIUM.exists() or not PDFTOPPM,
    reason=f"needs chromium at {rp.CHROMIUM} and pdftoppm (poppler-utils)",
)
def test_pdf_pages_render_to_images_with_ink(batch, tmp_path):
    """Every page of the PDF rendered to an image (``pdftoppm``) has ink on it: no blank page."""
    pdf = tmp_path / "memo.pdf"
    rp.print_pdf(batch.out / f"{PRESETS[0]}.html", pdf)
    subprocess.run(
        [PDFTOPPM, "-r", "30", "-gray", str(pdf), str(tmp_path / "p")], check=True, timeout=120
    )
    images = sorted(tmp_path.glob("p-*.pgm"))
    assert images
    for image in images:
        assert _ink_fraction(image) > 0.0002, image.name  # a blank page: 0


def _ink_fraction(pgm: Path) -> float:
    """Share of pixels darker than mid-grey in a binary PGM (P5, 8-bit) image."""
    data = pgm.read_bytes()
    fields = data.split(maxsplit=4)  # P5, width, height, maxval, pixels
    pixels = fields[4]
    return sum(1 for b in pixels if b < 128) / len(pixels)


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
