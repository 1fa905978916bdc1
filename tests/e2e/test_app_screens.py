"""The app on a phone, a laptop and a desktop, and when its kernel dies (issue 16), in Debian's
chromium against its own Voila server (this module kills that server's kernels at the end).

At 400, 1024 and 1400 px no element of the page is wider than the viewport, no table scrolls
sideways or breaks a word inside its cells, and the headline is on screen without scrolling
sideways; below 900 px the recommendation comes before the inputs.
A dead kernel greys the results and says "Connection lost" (the heartbeat of
workbook.present.app.heartbeat). Screenshots go to artifacts/screenshots/screen-*.png.
"""

from __future__ import annotations

import os
import signal
import subprocess

import pytest

pytest.register_assert_rewrite("browser")
from browser import TOO_WIDE_JS, needs_chromium, screenshot  # noqa: E402

from workbook.present.app.heartbeat import HEARTBEAT_S, LOST_AFTER_S  # noqa: E402

pytest_plugins = ["browser"]
pytestmark = needs_chromium

HEADLINE = "#wb-recommendation"

#: Table cells a word does not fit in, so the browser breaks it inside ("Sup/port cont/ract" at
#: 400 px): each word's width in the cell's font, against the cell's content width. A hyphen is a
#: break like a space ("a100-/80gb-/sxm", "GPU-/hours").
WORDS_CUT_JS = """() => {
  const ctx = document.createElement('canvas').getContext('2d'), cut = [];
  document.querySelectorAll('.wb-table td, .wb-table th').forEach(c => {
    if (!c.offsetParent) return;
    const cs = getComputedStyle(c);
    ctx.font = cs.font;
    const room = c.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    c.innerText.split(/\\s+|(?<=-)/).forEach(w => {
      if (w && ctx.measureText(w).width > room + 1) cut.push(w);
    });
  });
  return cut;
}"""


def _open(browser, url: str, width: int):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(url, wait_until="domcontentloaded", timeout=180_000)
    page.wait_for_selector(HEADLINE, timeout=180_000)
    page.wait_for_selector(".wb-charts svg.marks", timeout=120_000)
    page.wait_for_timeout(1000)
    return page


@pytest.mark.parametrize("width", [400, 1024, 1400])
def test_nothing_is_wider_than_the_screen(voila_app, browser, width):
    page = _open(browser, voila_app.url, width)
    try:
        assert page.evaluate(TOO_WIDE_JS) == []
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        assert page.evaluate(WORDS_CUT_JS) == []  # table cells break between words only
        tables = page.eval_on_selector_all(
            ".wb-table", "els => els.filter(e => e.scrollWidth > e.clientWidth + 1).length"
        )
        assert tables == 0  # and every table fits without scrolling sideways
        box = page.locator(HEADLINE).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
        inputs = page.locator(".wb-inputs").bounding_box()
        if width < 900:  # stacked: the recommendation first, the inputs below it, full width
            assert box["y"] < inputs["y"] and inputs["width"] > 0.8 * width
        else:  # side by side
            assert inputs["x"] < box["x"]
        screenshot(page, f"screen-{width}px", full_page=False)
    finally:
        page.close()


#: The titles of the risk pictures (workbook.present.charts risk_days, risk_cost, wins, tornado).
RISK_TITLES = (
    "Days to a finished run, p10 - p50 - p90",
    "First-year cost, p10 - p50 - p90",
    "How often each accelerator wins",
    "Sensitivity: the pick",
)


@pytest.mark.parametrize("width", [400, 1024, 1400])
def test_risk_pictures_render_inside_the_screen(voila_app, browser, width):
    """The risk charts are drawn (their titles in the chart's SVG, bars and the deadline rule as
    marks), the chart fits the screen, the tornado speaks in units, and the pick's chances are
    under the headline."""
    page = _open(browser, voila_app.url, width)
    try:
        svg = page.locator(".wb-charts svg.marks").first
        text = svg.inner_html()
        for title in RISK_TITLES:
            assert title in text.replace("&nbsp;", " "), title
        assert "per GPU-hour" in text and " MFU" in text  # tornado labels in units
        assert "0.181818" not in text
        box = svg.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1 and box["width"] > 200
        risk = page.locator("#wb-risk")
        assert "chance of a finished run by day 120" in risk.inner_text()
        rbox = risk.bounding_box()
        assert rbox["x"] >= 0 and rbox["x"] + rbox["width"] <= width
        assert page.evaluate(TOO_WIDE_JS) == []
        svg.evaluate("(e) => e.scrollIntoView({block: 'start'})")  # the risk charts on screen
        page.wait_for_timeout(300)
        screenshot(page, f"screen-risk-{width}px", full_page=False)
    finally:
        page.close()


def test_a_dead_kernel_greys_the_results_and_says_reload(voila_app, browser):
    """Last in this module: it kills every kernel of the module's server."""
    page = _open(browser, voila_app.url, 1024)
    try:
        assert page.locator("#wb-lost-banner").count() == 0
        kernels = subprocess.run(
            ["pgrep", "-P", str(voila_app.process.pid)], capture_output=True, text=True
        ).stdout.split()
        assert kernels, "the server has no kernel processes"
        for pid in kernels:
            os.kill(int(pid), signal.SIGKILL)
        page.wait_for_selector("#wb-lost-banner", timeout=(LOST_AFTER_S + 3 * HEARTBEAT_S) * 1000)
        assert page.inner_text("#wb-lost-banner").startswith("Connection lost")
        assert page.evaluate("() => document.body.classList.contains('wb-lost')")
        opacity = page.evaluate(
            "() => getComputedStyle(document.querySelector('.wb-results')).opacity"
        )
        assert float(opacity) < 0.5
        screenshot(page, "screen-connection-lost", full_page=False)
    finally:
        page.close()
