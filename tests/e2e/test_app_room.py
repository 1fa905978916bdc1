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


def _live_page(browser, server):
    """A visitor's page once Voila's script runs (its ``beforeunload`` beacon is then set: a page
    left during the static preview sends none); returns (context, page, kernel id)."""
    # Not offline_page: Playwright's request routing drops a beacon sent as the page unloads
    # (seen here with a one-line page: routed, no beacon arrives), which a browser delivers.
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(server.url, wait_until="commit", timeout=180_000)
    page.wait_for_selector("#wb-recommendation", state="visible", timeout=180_000)
    page.wait_for_selector(".wb-charts svg.marks", timeout=120_000)
    kernel_id = page.evaluate(KERNEL_ID)
    assert _alive(server.url, kernel_id)
    return context, page, kernel_id


def _gone_within(url: str, kernel_ids: list[str], limit_s: float) -> dict[str, float]:
    """Seconds until each kernel is gone (404), polled every 0.5 s for at most ``limit_s``."""
    t0, gone = time.monotonic(), {}
    while len(gone) < len(kernel_ids) and time.monotonic() - t0 < limit_s:
        for k in kernel_ids:
            if k not in gone and not _alive(url, k):
                gone[k] = time.monotonic() - t0
        time.sleep(0.5)
    return gone


def test_a_closed_tab_frees_its_kernel_at_once_and_a_killed_one_within_a_minute(browser, tmp_path):
    """Two visitors: one closes the tab (``beforeunload``: Voila's shutdown beacon, which must
    pass the XSRF check) and one whose tab dies without it (a phone killing its browser: Voila's
    culler, voila.json cull_idle_timeout 45 s checked every 10 s)."""
    small = ("--VoilaConfiguration.default_pool_size=2", "--CappedKernelManager.max_kernels=4")
    with start_voila(extra_args=small, log_dir=tmp_path) as server:
        closer, closed_page, closed_kernel = _live_page(browser, server)
        killer, killed_page, killed_kernel = _live_page(browser, server)
        try:
            assert closed_kernel != killed_kernel
            assert any(c["name"] == "_xsrf" for c in closer.cookies())  # for the beacon
            closed_page.close(run_before_unload=True)  # as a tab closes: the beacon
            killed_page.close(run_before_unload=False)  # no beforeunload: only the culler
            # The culler takes a kernel 45-55 s after its last message (the page's last
            # heartbeat, <= 5 s before the tab died, or a reply still on its way): 70 s at most.
            gone = _gone_within(server.url, [closed_kernel, killed_kernel], limit_s=70)
            log = server.log()
            assert "403 POST" not in log and "_xsrf' argument missing" not in log
            assert gone.get(closed_kernel, 99) < 10, f"the closed tab's kernel: {gone}"
            assert f"Culling 'idle' kernel 'python3' ({closed_kernel})" not in log
            assert killed_kernel in gone, f"the killed tab's kernel still runs after 70 s: {gone}"
            print(
                f"kernel gone after (s): closed {gone[closed_kernel]:.1f}, "
                f"killed {gone[killed_kernel]:.1f}"
            )
        finally:
            closer.close()
            killer.close()


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
