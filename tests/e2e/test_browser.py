"""The Voila app in a real browser (Debian chromium via playwright), fully offline.

Fixtures and helpers live in tests/e2e/browser.py; app-specific assertions go in further tests here.
"""

from __future__ import annotations

import time
import warnings

import pytest

pytest.register_assert_rewrite("browser")  # before the import below: it is also the fixture plugin
from browser import needs_chromium, screenshot, wait_for_text  # noqa: E402

#: The fixtures (voila_app, browser, page, outside_requests, page_errors) come from
#: tests/e2e/browser.py.
pytest_plugins = ["browser"]

pytestmark = needs_chromium

#: Text the app shows once Voila has rendered the notebook (its markdown title).
LANDING_TEXT = "GPU training decision workbook"


def test_app_loads_offline(voila_app, page, outside_requests, page_errors):
    response = page.goto(voila_app.url, wait_until="domcontentloaded", timeout=120_000)
    assert response is not None and response.ok, response and response.status
    wait_for_text(page, LANDING_TEXT, timeout=120)
    page.wait_for_load_state("networkidle", timeout=60_000)
    shot = screenshot(page, "app_landing")
    body = page.inner_text("body")
    assert "Traceback" not in body and "There was an error when executing" not in body, body[:2000]
    assert outside_requests == [], f"requests outside 127.0.0.1 (blocked): {outside_requests}"
    assert shot.stat().st_size > 10_000
    # JavaScript exceptions are surfaced, not failed on: app-specific checks belong to the app's
    # tests.
    if page_errors.exceptions:
        warnings.warn(
            f"JavaScript exceptions on the app page: {page_errors.exceptions}", stacklevel=1
        )


def test_waiting_kernels_do_not_hit_the_cell_timeout(browser):
    """Preheated kernels run the notebook ahead of the visitor and then wait. A cell that blocks
    until the request arrives (as ``voila.utils.wait_for_request`` does) hits
    ``VoilaExecutor.timeout`` (120 s in voila.json) and the page then shows "Cell execution timed
    out". Here the timeout is cut to 30 s and the visitor comes after 40 s."""
    from browser import offline_page, start_voila

    with start_voila(extra_args=("--VoilaExecutor.timeout=30",)) as server:
        time.sleep(40)
        outside: list[str] = []
        context, page = offline_page(browser, outside)
        page.goto(server.url, wait_until="domcontentloaded", timeout=120_000)
        page.wait_for_selector("#wb-recommendation", state="visible", timeout=120_000)
        page.wait_for_load_state("networkidle", timeout=60_000)
        body = page.inner_text("body")
        context.close()
    assert "timed out" not in body and "There was an error when executing" not in body, body[-1500:]
    assert "timed out" not in server.log(), server.log()[-1500:]
