"""The executive's path through the Voila app, in Debian's chromium, with the network blocked.

Opens the app, checks the recommendation text and that every chart drew marks, then changes inputs
the way a reader would (cooling to air on the frontier preset, a smaller budget, another preset, a
bad value) and checks that the recommendation and the charts follow. Screenshots go to
artifacts/screenshots/app-*.png.
"""

from __future__ import annotations

import re

import pytest

pytest.register_assert_rewrite("browser")
from browser import needs_chromium, screenshot, wait_for_text  # noqa: E402

pytest_plugins = ["browser"]
pytestmark = needs_chromium

HEADLINE = "#wb-recommendation"


def _headline(page) -> str:
    return page.inner_text(HEADLINE)


CHART_TITLES = ("Time vs cost frontier", "Rent vs buy", "Power per rack", "Sensitivity")


def _charts_svg(page) -> str:
    return page.eval_on_selector("svg.marks", "e => e.innerHTML")


def _all_charts_drawn(page) -> bool:
    svg = _charts_svg(page)
    return all(t in svg for t in CHART_TITLES) and svg.count("<path") > 20


def _set_number(page, label: str, value: str):
    box = page.locator(".widget-text, .widget-inline-hbox", has_text=label).locator("input").first
    box.fill(value)
    box.press("Enter")


@pytest.fixture(scope="module")
def app_page(voila_app, browser):
    """One page for the whole walk-through (a Voila page costs a kernel)."""
    from browser import offline_page

    outside: list[str] = []
    context, page = offline_page(browser, outside)
    page.goto(voila_app.url, wait_until="domcontentloaded", timeout=180_000)
    page.wait_for_selector(HEADLINE, timeout=180_000)
    page.wait_for_function(
        "() => { const e = document.querySelector('svg.marks'); "
        "return e && e.innerHTML.includes('Sensitivity'); }",
        timeout=120_000,
    )
    yield page, outside
    context.close()


def test_recommendation_and_charts_render_offline(app_page):
    page, outside = app_page
    text = _headline(page)
    assert re.search(
        r"(Rent|Buy) .* x .*: [\d.,]+ (days|hours?) per run \(p10\u2011p90 .*\), .* lead time "
        r"included; finishes by day [\d.,]+ with .* probability.*\. \$[\d,]+ per run",
        text,
    ), text
    assert _all_charts_drawn(page), _charts_svg(page)[:500]
    body = page.inner_text("body")
    assert "Traceback" not in body and "Why not the other accelerators" in body
    html = page.content()
    assert "Data snapshot" in html
    for host in ("cdnjs.", "cdn.jsdelivr", "unpkg.com", "esm.sh", "fonts.googleapis"):
        assert host not in html, f"the page references {host}"
    assert outside == [], f"requests outside 127.0.0.1 were attempted: {outside}"
    # The static preview the template showed before the widgets loaded: the same sentence, now
    # hidden.
    preview = page.eval_on_selector("#wb-preview", "e => e.textContent")
    assert _expected("funded-startup-30b-domain") in preview
    assert not page.is_visible("#wb-preview")
    cut = page.eval_on_selector_all(
        ".widget-label",
        "els => els.filter(e => e.offsetParent && "
        "e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)",
    )
    assert cut == [], f"input labels cut off: {cut}"
    screenshot(page, "app-1-default")


def test_deep_link_opens_the_linked_preset_without_a_stale_preview(voila_app, browser):
    """?preset= must win over the scenario the preheated kernel ran ahead of the request."""
    from browser import offline_page

    outside: list[str] = []
    context, page = offline_page(browser, outside)
    page.goto(
        voila_app.url + "?preset=band-400b-plus", wait_until="domcontentloaded", timeout=180_000
    )
    text = _wait_headline(page, _expected("band-400b-plus"), timeout_s=180)
    assert "2048 x NVIDIA B200" in text, text  # the pick: tests/decide/test_presets.py
    assert page.query_selector("#wb-preview") is None  # no preview of the default scenario
    assert outside == []
    screenshot(page, "app-6-deep-link")
    context.close()


def _expected(name: str, **changes) -> str:
    """The headline the engine gives for a preset (with changes), its caveats set apart under it:
    what the page's bold headline must show (each number and its per cent sign joined by a
    no-break space: :func:`workbook.text.keep_together`)."""
    from workbook import presets, recommend
    from workbook.text import keep_together

    return keep_together(recommend(presets[name].replace(**changes), sensitivity=False).verdict)


def _wait_headline(page, expected: str, timeout_s: float = 60) -> str:
    page.wait_for_function(
        "([sel, want]) => { const e = document.querySelector(sel); "
        "return e && e.innerText.trim() === want.trim(); }",
        arg=[HEADLINE, expected],
        timeout=timeout_s * 1000,
    )
    return _headline(page)


def _click_preset(page, name: str) -> str:
    page.get_by_role("button", name=name).click()
    return _wait_headline(page, _expected(name))


def test_preset_then_cooling_to_air_keeps_the_rented_pick_and_redraws(app_page):
    """The 400B+ preset reserves 2,048 B200 for a year (a MoE: tests/decide/test_presets.py);
    with air racks the owned NVL72 options drop out but a rented
    cluster sits in the cloud's racks, so the pick and its headline stay the engine's for air and
    every chart is drawn again."""
    page, _ = app_page
    text = _click_preset(page, "band-400b-plus")
    assert text.startswith("Rent with a 1-year reservation") and "cloud's racks" in text, text
    page.locator(".widget-toggle-buttons button", has_text=re.compile(r"^\s*air\s*$")).click()
    text2 = _wait_headline(page, _expected("band-400b-plus", cooling="air"))
    assert text2.startswith("Rent with a 1-year reservation"), text2
    assert _all_charts_drawn(page)
    screenshot(page, "app-2-400b-air")


def test_smaller_budget_makes_nothing_feasible_and_says_why(app_page):
    page, _ = app_page
    _click_preset(page, "funded-startup-30b-domain")
    _set_number(page, "Budget, first year (USD)", "50000")
    text = _wait_headline(page, _expected("funded-startup-30b-domain", budget_usd=50_000))
    assert text.startswith("Nothing in the catalog meets every constraint"), text
    wait_for_text(page, "budget rules out", timeout=30)
    screenshot(page, "app-3-small-budget")


def test_series_a_preset_loads_its_scenario(app_page):
    page, _ = app_page
    text = _click_preset(page, "series-a-healthcare-17b-lora")
    assert "x NVIDIA" in text, text
    wait_for_text(page, "Four RTX PRO 6000", timeout=30)  # the article's advice shown next to it
    screenshot(page, "app-4-series-a")


def test_bad_value_shows_a_readable_message_next_to_the_field(app_page):
    page, _ = app_page
    good = _headline(page)
    _set_number(page, "Parameters (billions)", "-5")
    wait_for_text(page, "allowed: a value greater than 0", timeout=30)
    wait_for_text(page, "Fix the highlighted field", timeout=30)
    assert _headline(page) == good
    assert "Traceback" not in page.inner_text("body")
    screenshot(page, "app-5-bad-value")
    _set_number(page, "Parameters (billions)", "17")
