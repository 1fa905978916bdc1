"""The memo's file formats: nbconvert exports the report notebook, chromium prints it.

:func:`export_html` turns the report notebook, with the memo as its output, into one
self-contained HTML file with the offline ``memo`` template in ``templates/nbconvert`` (no code, no
``<script src>``, print styles for A4 and Letter); :func:`print_pdf` prints that file with
Debian's chromium; :func:`install` moves a finished file into place, so a failed run leaves no
partial report. :func:`resolve_scenario` reads the scenario argument (a file or a preset name).
:mod:`workbook.present.reports` runs the engine and puts the memo into the notebook.

The command line is ``python -m workbook report`` (:mod:`workbook.cli.report`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from ..decide import Scenario, ScenarioError, presets
from ..shipped import NOTEBOOK_DIR

REPORT_NOTEBOOK = NOTEBOOK_DIR / "report.ipynb"
#: nbconvert template folder (``memo`` = lab without CDN scripts, input code or prompts).
TEMPLATE_DIR = Path(__file__).resolve().parent / "templates" / "nbconvert"
TEMPLATE_NAME = "memo"
#: Debian's chromium (``apt-get install chromium``); WORKBOOK_CHROMIUM overrides it.
CHROMIUM = Path(os.environ.get("WORKBOOK_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_PDF_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-pdf-header-footer",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
#: Cells with this tag run (nbval checks them) but are left out of the exported memo.
HIDDEN_TAG = "remove-from-memo"
#: The report notebook's cell whose output is the memo (the cell that displays it).
MEMO_TAG = "memo"
#: Limit of one memo's engine run and export [s].
DEFAULT_TIMEOUT_S = 300
#: Limit of chromium's PDF print [s].
PDF_TIMEOUT_S = 120


class ReportError(RuntimeError):
    """Rendering failed after the parameters were accepted (notebook error, timeout, export,
    PDF)."""


def resolve_scenario(spec: str, overrides: dict[str, Any] | None = None) -> tuple[Scenario, str]:
    """A scenario from a YAML/JSON file or a preset name, with ``overrides`` applied.

    Returns ``(scenario, preset)``; ``preset`` is ``""`` for a file. Raises :class:`ScenarioError`
    naming the bad field (or the unknown file / preset).
    """
    path = Path(spec)
    preset = ""
    if path.suffix.lower() in (".yaml", ".yml", ".json") or path.exists():
        scenario = Scenario.load(path)
    else:
        if spec not in presets:
            known = ", ".join(sorted(presets))
            raise ScenarioError(
                [("scenario", spec, f"is neither a scenario file nor a preset; presets: {known}")]
            )
        scenario, preset = presets[spec], spec
    if overrides:
        scenario = scenario.replace(**overrides)
    return scenario, preset


def first_line(text: str) -> str:
    """The first non-empty line of ``text``, stripped (one line for the command line)."""
    lines = [ln.strip() for ln in str(text).strip().splitlines() if ln.strip()]
    return lines[0] if lines else ""


# --- nbconvert and chromium ---------------------------------------------------------------------
def export_html(nb, title: str) -> str:
    """A notebook with its outputs (an ``nbformat`` node) -> self-contained HTML memo (template
    ``memo``: no code, no CDN scripts)."""
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    nb.metadata["title"] = title
    nb.metadata.pop("widgets", None)  # widget state would bring the widget manager from a CDN
    c = Config()
    c.HTMLExporter.extra_template_basedirs = [str(TEMPLATE_DIR)]
    c.HTMLExporter.template_name = TEMPLATE_NAME
    c.HTMLExporter.exclude_input = True
    c.HTMLExporter.exclude_input_prompt = True
    c.HTMLExporter.exclude_output_prompt = True
    c.TagRemovePreprocessor.enabled = True
    c.TagRemovePreprocessor.remove_cell_tags = {HIDDEN_TAG, "parameters", "injected-parameters"}
    body, _ = HTMLExporter(config=c).from_notebook_node(nb)
    return body


def print_pdf(html_path: Path, pdf_path: Path, timeout_s: float = PDF_TIMEOUT_S) -> None:
    """Print an HTML file to PDF with Debian's chromium (headless, no network, no header/footer)."""
    if not CHROMIUM.exists():
        raise ReportError(
            f"--pdf needs chromium at {CHROMIUM} (apt-get install chromium); PDF not written"
        )
    with tempfile.TemporaryDirectory(prefix="workbook-chromium-") as profile:
        cmd = [
            str(CHROMIUM),
            *CHROMIUM_PDF_ARGS,
            f"--user-data-dir={profile}",
            f"--print-to-pdf={pdf_path}",
            html_path.resolve().as_uri(),
        ]
        try:
            r = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise ReportError(f"chromium did not print the PDF within {timeout_s:g} s") from None
    if r.returncode != 0 or not pdf_path.exists() or pdf_path.read_bytes()[:4] != b"%PDF":
        raise ReportError(
            f"chromium could not print the PDF (exit {r.returncode}): {first_line(r.stderr)}"
        )


# --- the files ----------------------------------------------------------------------------------
def _lock_path(output: Path) -> Path:
    return output.parent / f".{output.name}.lock"


@contextlib.contextmanager
def claim_outputs(outputs: list[Path]):
    """Claim every output for this run (a ``.NAME.lock`` file beside it, created exclusively), and
    release them on every exit, Ctrl-C included. A path another run has claimed raises
    :class:`ReportError` before anything runs."""
    claimed: list[Path] = []
    try:
        for out in outputs:
            lock = _lock_path(Path(out))
            lock.parent.mkdir(parents=True, exist_ok=True)
            try:
                fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                raise ReportError(
                    f"another report is writing {out} (its lock {lock} exists; delete it if no "
                    "report is running)"
                ) from None
            with os.fdopen(fd, "w") as f:
                f.write(f"{os.getpid()}\n")
            claimed.append(lock)
        yield
    finally:
        for lock in claimed:
            lock.unlink(missing_ok=True)


def install(src: Path, dest: Path) -> None:
    """Copy ``src`` beside ``dest`` under a temporary name, then rename: ``dest`` is whole or
    absent."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a report is an ordinary file
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def export(nb, html_path: Path, title: str) -> None:
    """:func:`export_html` into ``html_path``; any exporter failure becomes a
    :class:`ReportError`."""
    try:
        body = export_html(nb, title=title)
    except Exception as e:  # noqa: BLE001 - any exporter failure becomes one line for the CLI
        raise ReportError(f"HTML export failed: {type(e).__name__}: {first_line(str(e))}") from None
    html_path.write_text(body, encoding="utf-8")
