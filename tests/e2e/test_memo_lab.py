"""The report notebook in JupyterLab (a real server and Debian's chromium, offline): the memo's
dollar amounts stay dollar amounts. JupyterLab typesets TeX in HTML outputs with MathJax, which
read "$19,602 per run ($117,612 a year" as math (issue 17); the memo's outer element carries
MathJax's ignore classes. A markdown cell with real TeX beside it shows MathJax is working."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

pytest.register_assert_rewrite("browser")
from browser import jupyter_lab, needs_chromium  # noqa: E402

pytest_plugins = ["browser"]
pytestmark = needs_chromium

REPO = Path(__file__).resolve().parents[2]
CONTROL = "Control: $x^2$ is TeX."


@pytest.fixture(scope="module")
def lab_notebook(tmp_path_factory) -> Path:
    """The report notebook run headless (its stored outputs), with a TeX control cell."""
    from nbclient import NotebookClient

    root = tmp_path_factory.mktemp("lab")
    nb = nbformat.read(str(REPO / "notebooks" / "report.ipynb"), as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell(CONTROL))
    NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(REPO / "notebooks")}},
    ).execute()
    path = root / "report.ipynb"
    nbformat.write(nb, str(path))
    return path


def test_dollar_amounts_are_not_typeset_as_tex_in_jupyterlab(lab_notebook, page):
    with jupyter_lab(lab_notebook.parent) as url:
        page.goto(f"{url}lab/tree/{lab_notebook.name}?reset", timeout=120_000)
        page.wait_for_selector(".memo", timeout=120_000)
        page.wait_for_function(
            "document.querySelectorAll('mjx-container').length > 0", timeout=60_000
        )  # MathJax has typeset the control cell
        counts = page.evaluate(
            """() => ({
                memo_tex: document.querySelectorAll('.memo mjx-container').length,
                dollars: (document.querySelector('.memo').innerText.match(/[$]/g) || []).length,
            })"""
        )
    assert counts["memo_tex"] == 0, counts
    assert counts["dollars"] > 20, counts
