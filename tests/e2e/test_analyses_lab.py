"""The two analysis notebooks without widgets (06, the article's claims checked; 07, the estimate
against published runs) in JupyterLab (a real server, Debian's chromium, offline): each runs in
the browser to its checked summary with no error output, as an analyst opens it (issue 17: every
notebook opened in a real browser by the suite; 01-05 and 08 in test_guides_lab, the report in
test_memo_lab). Screenshots (1400 px wide) go to artifacts/screenshots/analysis-*.png.
"""

from __future__ import annotations

import re

import pytest

pytest.register_assert_rewrite("browser")
from browser import (  # noqa: E402
    SHUT_DOWN_KERNELS,
    lab_menu,
    lab_over_copies,
    needs_chromium,
    offline_page,
    open_notebook,
    screenshot,
)

pytest_plugins = ["browser"]
pytestmark = needs_chromium

#: Seconds for an analysis to run in a fresh kernel (07 refits leave-one-out).
RUN_TIMEOUT_S = 240

#: notebook -> a line its checked summary prints (the stored output nbval compares).
SUMMARY = {
    "06_article_claims_checked": "engine_recomputes",
    "07_estimate_accuracy": "baseline_error",
}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    with lab_over_copies(tmp_path_factory.mktemp("analyses"), SUMMARY) as url:
        yield url


@pytest.mark.parametrize("name", list(SUMMARY))
def test_an_analysis_runs_to_its_summary_in_jupyterlab(browser, lab, name):
    outside: list[str] = []
    context, page = offline_page(browser, outside)
    try:
        open_notebook(page, lab, name)
        # clear the stored outputs first, so the summary seen is the one this run printed
        lab_menu(page, "Edit", "editmenu:clear-all")
        assert page.locator(".jp-OutputArea-output").count() == 0
        lab_menu(page, "Run", "runmenu:run-all")
        # the summary cell (the one nbval checks) shows this run's output
        summary = page.locator(".jp-CodeCell", has_text="NBVAL_CHECK_OUTPUT").first
        summary.scroll_into_view_if_needed()
        summary.locator(".jp-OutputArea-output", has_text=SUMMARY[name]).first.wait_for(
            state="attached", timeout=RUN_TIMEOUT_S * 1000
        )
        page.get_by_text(re.compile(r"\| Idle$")).first.wait_for(timeout=RUN_TIMEOUT_S * 1000)
        errors = page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']")
        assert errors.count() == 0, errors.first.text_content()
        summary.locator(".jp-OutputArea-output").first.scroll_into_view_if_needed()
        screenshot(page, f"analysis-{name}-lab", full_page=False)
    finally:
        page.evaluate(SHUT_DOWN_KERNELS)
        context.close()
    assert outside == []
