"""The app's server for a room, in a real browser (workbook.present.app.gate): a closed tab
frees its kernel (its shutdown request passes the XSRF check, which stays on), and a visitor
beyond the cap on kernels gets the busy page instead of a kernel."""

import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.register_assert_rewrite("browser")
from browser import needs_chromium, offline_page, start_voila  # noqa: E402

pytest_plugins = ["browser"]
pytestmark = needs_chromium

REPO = Path(__file__).resolve().parents[2]
KERNEL_ID = "() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId"


def _alive(url: str, kernel_id: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}api/kernels/{kernel_id}", timeout=5) as r:
            return r.status == 200
    except urllib.error.HTTPError as e:
        return e.code != 404


def test_a_closed_tab_frees_its_kernel_within_a_minute(browser, tmp_path):
    small = ("--VoilaConfiguration.default_pool_size=1", "--CappedKernelManager.max_kernels=3")
    with start_voila(extra_args=small, log_dir=tmp_path) as server:
        context, page = offline_page(browser, [])
        try:
            page.goto(server.url, wait_until="commit", timeout=180_000)
            page.wait_for_selector("#wb-recommendation", state="visible", timeout=180_000)
            # The live page, not the preview shown before Voila's script has loaded: the beacon
            # is Voila's, so a tab closed during the preview sends none (its kernel is culled
            # once idle instead, 45 s + the 10 s check interval: too close to this test's minute).
            page.wait_for_selector(".wb-charts svg.marks", timeout=120_000)
            assert any(c["name"] == "_xsrf" for c in context.cookies())  # for the beacon
            kernel_id = page.evaluate(KERNEL_ID)
            assert _alive(server.url, kernel_id)
            page.close(run_before_unload=True)  # as a tab closes: the shutdown beacon
            t0 = time.monotonic()
            while _alive(server.url, kernel_id) and time.monotonic() - t0 < 60:
                time.sleep(0.5)
            assert not _alive(server.url, kernel_id), "the closed tab's kernel still runs"
            log = server.log()
            assert "403 POST" not in log and "_xsrf' argument missing" not in log
            assert f"Kernel shutdown: {kernel_id}" in log
        finally:
            context.close()


def test_a_visitor_beyond_the_cap_gets_the_busy_page(tmp_path):
    one = ("--VoilaConfiguration.default_pool_size=1", "--CappedKernelManager.max_kernels=1")
    with start_voila(extra_args=one, log_dir=tmp_path) as server:
        t0 = time.monotonic()  # the address is announced once the pool's kernel is ready
        while "Serving the workbook on" not in server.log() and time.monotonic() - t0 < 180:
            time.sleep(0.5)
        with urllib.request.urlopen(server.url, timeout=60) as r:  # takes the only kernel
            assert r.status == 200 and "wb-preview" in r.read().decode()
        with pytest.raises(urllib.error.HTTPError) as busy:
            urllib.request.urlopen(server.url, timeout=30)
        assert busy.value.code == 503 and busy.value.headers["Retry-After"] == "15"
        body = busy.value.read().decode()
        assert "The workbook is busy: try again in a moment" in body
        assert "1 people are using it" in body
        assert server.log().count("Kernel started") == 1  # no kernel beyond the cap


def test_a_visitor_without_a_ready_kernel_waits_with_the_recommendation_and_goes_live(
    browser, tmp_path
):
    """Pool of 1: the first visitor takes it; the second is answered at once with the wait page
    (the default recommendation from the kernel's preview, their place), and the page goes live
    by itself once the refill has run the notebook; it never saw a blank tab."""
    small = ("--VoilaConfiguration.default_pool_size=1", "--CappedKernelManager.max_kernels=3")
    with start_voila(extra_args=small, log_dir=tmp_path) as server:
        t0 = time.monotonic()
        while "Serving the workbook on" not in server.log() and time.monotonic() - t0 < 180:
            time.sleep(0.5)
        with urllib.request.urlopen(server.url, timeout=60) as r:  # takes the pool's kernel
            assert "wb-preview" in r.read().decode()
        t1 = time.monotonic()
        with urllib.request.urlopen(server.url, timeout=10) as r:
            waiting = r.read().decode()
            cookies = " ".join(r.headers.get_all("Set-Cookie") or [])
            assert r.status == 200 and "wb_wait=" in cookies
        assert time.monotonic() - t1 < 5 and "wb-wait-page" in waiting and "you are next" in waiting
        assert "Recommendation for" in waiting and "wb-preview' hidden" not in waiting
        context, page = offline_page(browser, [])
        try:
            page.goto(server.url, wait_until="commit", timeout=30_000)
            page.get_by_text("Recommendation for").first.wait_for(state="visible", timeout=10_000)
            page.wait_for_selector("#wb-recommendation", state="visible", timeout=180_000)
            assert not page.locator("#wb-wait-page").count()
        finally:
            context.close()


def test_without_a_pool_nobody_is_sent_to_the_wait_room(tmp_path):
    """Pool size 0: every visitor's kernel starts for them (Voila's own way), so the second
    visitor, after the first kernel has left its preview, gets the page, not the wait room."""
    none = ("--VoilaConfiguration.default_pool_size=0",)
    with start_voila(extra_args=none, log_dir=tmp_path) as server:
        for _ in range(2):
            with urllib.request.urlopen(server.url, timeout=120) as r:
                page = r.read().decode()
            assert "wb-preview" in page and "wb-wait-page" not in page
        preview = REPO / "build" / "cache" / f"preview-{server.port}.html"
        assert preview.is_file()  # the kernels' preview, for the wait room
    assert not preview.exists()  # removed when the server stopped
