"""Memo files from scenarios, in this process: the engine runs here, the report notebook is the
presentation.

A memo used to be a papermill run of ``notebooks/report.ipynb``: a kernel started, imported the
workbook and altair, ran the engine and was shut down, for every memo (9-14 s each, most of it
start-up). :func:`render_memo` instead calls :func:`workbook.present.memo.memo` (the same call the
notebook's code cell makes) in the calling process, puts the memo into the notebook as the output
of its cell tagged ``memo`` (:func:`memo_notebook`), and exports that with nbconvert's offline
``memo`` template (:func:`workbook.present.render.export_html`), exported once and kept
(:func:`page_shell`); ``--pdf`` prints it with chromium. :func:`render_batch` runs a batch in turn
in one process, so it pays the imports once (``tools/bench_memo.py`` prints ``memo_one_s`` and
``memo_batch_10_s``). Files reach their path only when the whole memo succeeded. The notebook
itself still runs anywhere (JupyterLab, papermill, nbval) with its ``parameters`` cell.
"""

from __future__ import annotations

import hashlib
import html
import os
import signal
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path

from ..catalog import Catalog
from ..decide import Scenario
from .memo import Memo, memo
from .render import (
    CHROMIUM,
    DEFAULT_TIMEOUT_S,
    MEMO_TAG,
    REPORT_NOTEBOOK,
    TEMPLATE_DIR,
    ReportError,
    export,
    first_line,
    install,
    print_pdf,
)


@dataclass
class MemoJob:
    """One memo to write: its scenario, the preset it came from ('' for a file), the HTML path,
    and the catalog to recommend from (None: the shipped tables; a user's overrides otherwise)."""

    scenario: Scenario
    preset: str
    target: Path
    catalog: Catalog | None = None


class _TimeLimit(BaseException):
    """Raised inside a memo that ran past its time limit (a BaseException, so that no handler
    for the engine's errors swallows it)."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`ReportError` when the block runs longer than ``seconds`` [s] (SIGALRM; only in
    the main thread of a POSIX process, elsewhere no limit)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        yield
        return

    def on_alarm(_signum, _frame):
        raise _TimeLimit

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except _TimeLimit:
        raise ReportError(f"the memo did not finish within {seconds:g} s") from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


#: Stand-ins exported in place of the memo and its title (:func:`page_shell`).
BODY_MARK, TITLE_MARK = "WORKBOOK-MEMO-BODY-7f3a", "WORKBOOK-MEMO-TITLE-7f3a"


def memo_notebook(html: str, notebook: Path = REPORT_NOTEBOOK):
    """The report notebook with ``html`` as the output of its cell tagged :data:`MEMO_TAG` (what
    running the notebook leaves there: the memo's ``_repr_html_``)."""
    import nbformat

    nb = nbformat.read(str(notebook), as_version=4)
    cells = [c for c in nb.cells if MEMO_TAG in c.get("metadata", {}).get("tags", [])]
    if not cells:
        raise ReportError(f"{notebook.name} has no cell tagged {MEMO_TAG!r} to show the memo in")
    cells[0].outputs = [
        nbformat.v4.new_output("execute_result", data={"text/html": html}, execution_count=1)
    ]
    return nb


#: Where exported pages are kept between runs (``WORKBOOK_CACHE_DIR``, else the XDG cache).
CACHE_DIR = Path(
    os.environ.get("WORKBOOK_CACHE_DIR")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "workbook"
)


def _shell_key(notebook: Path) -> str:
    """What the exported page depends on: the notebook, the template, nbconvert's version."""
    h = hashlib.sha256(notebook.read_bytes())
    for f in sorted(TEMPLATE_DIR.rglob("*")):
        if f.is_file():
            h.update(f.name.encode() + f.read_bytes())
    h.update(version("nbconvert").encode())
    return h.hexdigest()[:20]


@lru_cache(maxsize=4)
def _shell(notebook: Path, key: str) -> str:
    cached = CACHE_DIR / f"memo-page-{key}.html"
    if cached.is_file():
        return cached.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="workbook-shell-") as tmp:
        path = Path(tmp) / "shell.html"
        export(memo_notebook(f"<div>{BODY_MARK}</div>", notebook), path, TITLE_MARK)
        page = path.read_text(encoding="utf-8")
        for mark in (BODY_MARK, TITLE_MARK):
            if page.count(mark) != 1:
                raise ReportError(f"the exported {notebook.name} does not hold the memo once")
        with suppress(OSError):  # no cache where the folder cannot be written: export each run
            install(path, cached)
    return page


def page_shell(notebook: Path = REPORT_NOTEBOOK) -> str:
    """The report notebook exported by nbconvert (template ``memo``) with stand-ins for the memo
    and the title. Exported once per notebook, template and nbconvert version, and kept in
    :data:`CACHE_DIR` (nbconvert's import and export take a second or two; filling the stand-ins
    nothing)."""
    notebook = Path(notebook).resolve()
    return _shell(notebook, _shell_key(notebook))


def memo_page(m: Memo, title: str, notebook: Path = REPORT_NOTEBOOK) -> str:
    """The memo's HTML page: :func:`page_shell` with the memo and the title filled in."""
    shell = page_shell(notebook)
    return shell.replace(TITLE_MARK, html.escape(title)).replace(f"<div>{BODY_MARK}</div>", m.html)


def build_memo(scenario: Scenario, preset: str = "", catalog: Catalog | None = None) -> Memo:
    """:func:`workbook.present.memo.memo` of a validated scenario; any failure of the engine or
    the charts becomes a one-line :class:`ReportError`."""
    try:
        return memo(scenario, preset=preset, catalog=catalog)
    except Exception as e:  # noqa: BLE001 - one line for the CLI, whatever broke
        raise ReportError(f"the memo failed: {type(e).__name__}: {first_line(str(e))}") from None


def render_memo(
    job: MemoJob,
    pdf: bool = False,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    notebook: Path = REPORT_NOTEBOOK,
) -> list[Path]:
    """Write the memo of ``job`` to ``job.target`` (with ``pdf``, a PDF beside it).

    Everything is produced in a temporary folder and moved into place only when the whole memo
    succeeded (the PDF, if asked for, is checked before either file is moved). ``timeout_s`` [s]
    limits the engine and the export; chromium has its own limit. Returns the paths written;
    raises :class:`ReportError` with a one-line message otherwise.
    """
    output = Path(job.target)
    if pdf and not CHROMIUM.exists():
        raise ReportError(
            f"--pdf needs chromium at {CHROMIUM} (apt-get install chromium); nothing written"
        )
    with tempfile.TemporaryDirectory(prefix="workbook-report-") as tmp:
        html_tmp, pdf_tmp = Path(tmp) / "memo.html", Path(tmp) / "memo.pdf"
        with time_limit(timeout_s):
            m = build_memo(job.scenario, job.preset, job.catalog)
            page = memo_page(m, f"Decision memo: {job.scenario.name}", notebook)
        html_tmp.write_text(page, encoding="utf-8")
        written = [output, output.with_suffix(".pdf")] if pdf else [output]
        if pdf:
            print_pdf(html_tmp, pdf_tmp)
        install(html_tmp, output)
        if pdf:
            install(pdf_tmp, written[1])
    return written


@dataclass
class MemoResult:
    """How one memo of a batch went: the paths written, or the error; and its seconds."""

    index: int
    written: list[Path]
    error: str
    seconds: float


def _render_one(args: tuple) -> MemoResult:
    """:func:`render_memo` of one job of a batch, its failure as text (a worker's return value)."""
    index, job, pdf, timeout_s, notebook = args
    t0 = time.perf_counter()
    try:
        written, error = render_memo(job, pdf, timeout_s, notebook), ""
    except ReportError as e:
        written, error = [], str(e)
    except Exception as e:  # noqa: BLE001 - a worker reports every failure as one line
        written, error = [], f"{type(e).__name__}: {first_line(str(e))}"
    return MemoResult(index, written, error, time.perf_counter() - t0)


def render_batch(
    jobs: Sequence[MemoJob],
    pdf: bool = False,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    notebook: Path = REPORT_NOTEBOOK,
) -> Iterator[MemoResult]:
    """Render every job in turn in this process, yielding each :class:`MemoResult` as it
    finishes; a failed memo does not stop the others.

    The imports, the start of vl-convert and nbconvert's export of the page are paid
    once for the whole batch. One process on purpose: forked workers (one per CPU) finished ten
    memos in 31.7 s against 19.9 s in one process on this 2-core machine while other work shared
    it (their CPU time: 16.5 s against 13.2 s), and would gain only on an idle machine."""
    for i, job in enumerate(jobs):
        yield _render_one((i, job, pdf, timeout_s, notebook))
