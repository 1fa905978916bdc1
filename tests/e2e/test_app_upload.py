"""The model-config upload in the Voila app (issue 19 item 2), in Debian's chromium with the
network blocked, on a phone (400 px) and a desktop (1400 px).

The reader opens the model step's "More" section, uploads Llama 3 70B's published config.json
through the page's file chooser (playwright ``set_files``), and sees the headline move to the
file's 70,553,706,496 parameters (the default scenario plans 30B), the shape read beside the
upload and the parameter input disabled; then a file that cannot be used shows one message and
leaves the headline as it was. Screenshots: artifacts/screenshots/upload-*.png.
"""

from __future__ import annotations

import json

import pytest

pytest.register_assert_rewrite("browser")
from browser import TOO_WIDE_JS, block_outside, needs_chromium, screenshot  # noqa: E402
from hf_configs import LLAMA3_70B  # noqa: E402

pytest_plugins = ["browser"]
pytestmark = needs_chromium

HEADLINE = "#wb-recommendation"
#: The model config's upload button (the overrides upload sits outside the "More" sections).
MODEL_UPLOAD = ".wb-more .widget-upload"
MORE_MODEL = "More: sequence length, precision (FP8, FP4), your model's config file"


def _upload(page, path):
    """Click the upload button and give the browser's file chooser ``path`` (ipywidgets 8 makes
    its file input on the click, never in the page)."""
    with page.expect_file_chooser() as chooser:
        page.locator(MODEL_UPLOAD).click()
    chooser.value.set_files(str(path))


@pytest.mark.parametrize("width", [400, 1400])
def test_uploading_a_config_file_moves_the_headline(voila_app, browser, width, tmp_path):
    outside: list[str] = []
    context = browser.new_context(viewport={"width": width, "height": 900})
    block_outside(context, outside)
    page = context.new_page()
    try:
        page.goto(voila_app.url, wait_until="domcontentloaded", timeout=180_000)
        page.wait_for_selector(HEADLINE, timeout=180_000)
        page.wait_for_selector(".wb-charts svg.marks", timeout=120_000)
        before = page.inner_text(HEADLINE)
        page.get_by_text(MORE_MODEL).click()
        good = tmp_path / "config.json"
        good.write_text(json.dumps(LLAMA3_70B, indent=2), encoding="utf-8")
        _upload(page, good)
        page.wait_for_function(
            "(b) => document.querySelector('#wb-recommendation').innerText !== b",
            arg=before,
            timeout=120_000,
        )
        summary = page.locator("#wb-model-config")
        summary.wait_for(state="visible", timeout=30_000)
        text = summary.inner_text()
        assert "Read from config.json" in text and "70,553,706,496 parameters (70.6B)" in text
        assert "80 layers" in text and "8 KV heads" in text
        size = page.locator(".widget-text", has_text="Parameters (B; from your file)")
        assert size.locator("input").is_disabled()
        after = page.inner_text(HEADLINE)
        assert after != before
        assert page.evaluate(TOO_WIDE_JS) == []
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        box = summary.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
        summary.scroll_into_view_if_needed()
        screenshot(page, f"upload-{width}px", full_page=False)

        bad = tmp_path / "broken.json"
        bad.write_text("{not json", encoding="utf-8")
        _upload(page, bad)
        error = page.get_by_text("Model config not used: 'broken.json'")
        error.wait_for(state="visible", timeout=30_000)
        assert "is not JSON text; allowed: a config.json file" in error.inner_text()
        assert page.inner_text(HEADLINE) == after
        assert "Read from config.json" in summary.inner_text()
        assert page.evaluate(TOO_WIDE_JS) == []
        assert "Traceback" not in page.inner_text("body")
        error.scroll_into_view_if_needed()
        screenshot(page, f"upload-error-{width}px", full_page=False)
        assert outside == [], f"requests outside 127.0.0.1 were attempted: {outside}"
    finally:
        context.close()
