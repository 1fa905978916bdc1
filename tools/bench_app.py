"""Time the Voila app's first render in a real browser (Debian chromium via playwright, offline).

Starts the app on a free 127.0.0.1 port with the committed settings, waits until the server answers,
opens the page in chromium with every outside request blocked, and prints the time from navigation
until TEXT is visible. Stops the browser and the server (and its kernels) at the end.

Run: .venv/bin/python tools/bench_app.py [TEXT] [--runs N] [--settle S] [--screenshot NAME]
     .venv/bin/python tools/bench_app.py --floor [--runs N] [--settle S]

``--floor`` serves a notebook holding one button instead of the app, with the same settings and
template: the time Voila itself needs on this machine, which no app on it can beat.

    voila_server_start_s: 6.1      launch -> the server answers HTTP
    voila_first_render_s: 1.0      navigation -> TEXT visible (first page view): the app's static
                                   preview of the recommendation, which the offline template shows
                                   before Voila's scripts have loaded
    voila_interactive_s: 3.0       navigation -> the live recommendation widget visible (inputs
                                   usable)
    voila_render_s_2: 1.9          further page views (--runs), each in a fresh browser context
    voila_charts_s: 2.9            navigation -> all four charts drawn (first view)
    voila_update_s_*: 0.6          an input change -> the new recommendation visible (preset click,
                                   budget change, cooling toggle), and their median
    voila_update_charts_s_*: 0.9   the same change -> the charts redrawn
    voila_update_done_s_*: 1.0     the same change -> the update finished (Monte Carlo text, status)
    voila_reload_warm_cache_s: 2.5 reload in the same browser profile (warm cache), a fresh kernel
    outside_requests: 0            requests to anything but 127.0.0.1 (blocked)
    page_errors: 0                 JavaScript exceptions and console errors on the page
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "e2e"))  # the shared helpers in tests/e2e/browser.py

from browser import (  # noqa: E402 (after the sys.path line)
    CHROMIUM,
    launch_chromium,
    offline_page,
    screenshot,
    start_voila,
    wait_for_text,
)

#: The app's recommendation sentence starts with one of these words.
DEFAULT_TEXT = re.compile(r"^(Rent|Buy|Nothing in the catalog)")
HEADLINE = "#wb-recommendation"


STATUS_DONE = "Updated in"
#: The update is done: the status says so and nothing is greyed.
SETTLED_JS = "(t) => document.body.innerText.includes(t) && !document.querySelector('.wb-stale')"


def measure_updates(page, timeout_s: float) -> dict[str, tuple[float, float, float]]:
    """For three kinds of input change: seconds until the new recommendation text shows, until the
    charts are redrawn, and until the whole update (incl. the Monte Carlo text) is done. Each change
    starts after the previous one finished."""

    def settled() -> None:
        page.wait_for_function(
            SETTLED_JS,
            arg=STATUS_DONE,
            timeout=timeout_s * 1000,
        )

    def timed(action) -> tuple[float, float]:
        settled()
        old = page.inner_text(HEADLINE)
        old_svg = page.eval_on_selector("svg.marks", "e => e.innerHTML")
        t = time.perf_counter()
        action()
        # The new recommendation is on screen when the headline changed, or (a change that keeps
        # the pick, e.g. cooling for a rented pick) when the status says it was recomputed.
        page.wait_for_function(
            "([sel, old]) => { const e = document.querySelector(sel); "
            "const said = document.body.innerText.includes('Recommendation updated in'); "
            "return e && (e.innerText !== old || said); }",
            arg=[HEADLINE, old],
            timeout=timeout_s * 1000,
        )
        headline = time.perf_counter() - t
        charts = None  # until the charts' SVG changes (an unchanged pick may redraw the same)
        while charts is None and not page.evaluate(SETTLED_JS, STATUS_DONE):
            if page.eval_on_selector("svg.marks", "e => e.innerHTML") != old_svg:
                charts = time.perf_counter() - t
            page.wait_for_timeout(50)
        settled()
        done = time.perf_counter() - t
        return headline, charts if charts is not None else done, done

    def budget():
        box = (
            page.locator(".widget-text, .widget-inline-hbox", has_text="Budget, first year (USD)")
            .locator("input")
            .first
        )
        box.fill("50000")
        box.press("Enter")

    return {
        "preset": timed(
            lambda: page.get_by_role("button", name="enterprise-frontier-pretraining").click()
        ),
        "cooling": timed(
            lambda: page.locator(
                ".widget-toggle-buttons button", has_text=re.compile(r"^\s*air\s*$")
            ).click()
        ),
        "budget": timed(budget),
    }


FLOOR_TEXT = "one button"


@contextmanager
def served(notebook: Path | None, settle: float):
    """Serve ``notebook`` (None: the app), wait ``settle`` s for the preheated kernels, and yield
    (server, browser); stop the browser, the server and its kernels at the end."""
    from playwright.sync_api import sync_playwright

    with start_voila(notebook) as server:
        if settle:
            time.sleep(settle)
        with sync_playwright() as pw:
            browser = launch_chromium(pw)
            try:
                yield server, browser
            finally:
                browser.close()


def floor(args) -> int:
    """Serve a one-button notebook from a temporary folder; print navigation -> button visible."""
    import nbformat

    with tempfile.TemporaryDirectory() as tmp:
        nb = nbformat.v4.new_notebook(
            metadata={
                "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
            }
        )
        nb.cells = [
            nbformat.v4.new_code_cell(
                f"import ipywidgets\nipywidgets.Button(description={FLOOR_TEXT!r})"
            )
        ]
        path = Path(tmp) / "floor.ipynb"
        nbformat.write(nb, path)
        times: list[float] = []
        blocked: list[str] = []
        with served(path, args.settle) as (server, browser):
            for i in range(args.runs):
                context, page = offline_page(browser, blocked)
                t0 = time.perf_counter()
                page.goto(server.url, wait_until="commit", timeout=args.timeout * 1000)
                page.get_by_role("button", name=FLOOR_TEXT).wait_for(timeout=args.timeout * 1000)
                times.append(time.perf_counter() - t0)
                print(f"voila_floor_s_{i + 1}: {times[-1]:.2f}", flush=True)
                context.close()
                time.sleep(args.settle)  # let the pool refill, as a visitor a little later would
    print(f"voila_floor_median_s: {statistics.median(times):.2f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "text",
        nargs="?",
        default=DEFAULT_TEXT,
        help="text to wait for (default: the recommendation sentence)",
    )
    p.add_argument(
        "--notebook",
        type=Path,
        default=None,
        help="notebook to serve (default: notebooks/app.ipynb)",
    )
    p.add_argument(
        "--runs", type=int, default=1, help="page views to time (each in a fresh context)"
    )
    p.add_argument(
        "--settle",
        type=float,
        default=0.0,
        help="seconds to wait after the server answers before navigating "
        "(lets preheated kernels finish)",
    )
    p.add_argument("--timeout", type=float, default=180.0, help="seconds to wait for the text [s]")
    p.add_argument(
        "--screenshot",
        default=None,
        help="save artifacts/screenshots/NAME.png after the first view",
    )
    p.add_argument(
        "--floor",
        action="store_true",
        help="time a one-button notebook instead (Voila's own floor on this machine)",
    )
    args = p.parse_args(argv)
    if args.floor:
        return floor(args)
    if not CHROMIUM.exists():
        print(
            f"error: needs Debian's chromium at {CHROMIUM} (apt-get install chromium)",
            file=sys.stderr,
        )
        return 2

    blocked: list[str] = []
    errors: list[str] = []
    times: list[float] = []
    live: list[float] = []
    with served(args.notebook, args.settle) as (server, browser):
        print(f"voila_server_start_s: {server.started_s:.2f}", flush=True)
        for i in range(args.runs):
            context, page = offline_page(browser, blocked)
            page.on("pageerror", lambda e: errors.append(f"exception: {e}"))
            page.on(
                "console",
                lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None,
            )
            page.on(
                "response",
                lambda r: (
                    errors.append(f"HTTP {r.status}: {r.request.method} {r.url}")
                    if r.status >= 400
                    else None
                ),
            )
            t0 = time.perf_counter()
            page.goto(server.url, wait_until="commit", timeout=args.timeout * 1000)
            wait_for_text(
                page,
                args.text if isinstance(args.text, re.Pattern) else args.text,
                timeout=args.timeout,
            )
            dt = time.perf_counter() - t0
            times.append(dt)
            print(
                f"voila_first_render_s: {dt:.2f}"
                if i == 0
                else f"voila_render_s_{i + 1}: {dt:.2f}",
                flush=True,
            )
            if args.notebook is None:
                page.wait_for_selector(HEADLINE, state="visible", timeout=args.timeout * 1000)
                dt_live = time.perf_counter() - t0
                live.append(dt_live)
                print(
                    f"voila_interactive_s{'' if i == 0 else f'_{i + 1}'}: {dt_live:.2f}", flush=True
                )
            if i == 0:
                page.wait_for_function(
                    "() => { const e = document.querySelector('svg.marks'); "
                    "return e && e.innerHTML.includes('Sensitivity'); }",
                    timeout=args.timeout * 1000,
                )
                print(f"voila_charts_s: {time.perf_counter() - t0:.2f}", flush=True)
                updates = measure_updates(page, args.timeout)
                for name, (dt_u, dt_c, dt_all) in updates.items():
                    print(f"voila_update_s_{name}: {dt_u:.2f}", flush=True)
                    print(f"voila_update_charts_s_{name}: {dt_c:.2f}", flush=True)
                    print(f"voila_update_done_s_{name}: {dt_all:.2f}", flush=True)
                for k, what in enumerate(("", "_charts", "_done")):
                    med = statistics.median(u[k] for u in updates.values())
                    print(f"voila_update{what}_median_s: {med:.2f}")
                # A returning visitor: same browser profile (warm HTTP cache), fresh kernel.
                time.sleep(args.settle)
                t1 = time.perf_counter()
                page.reload(wait_until="commit", timeout=args.timeout * 1000)
                wait_for_text(page, args.text, timeout=args.timeout)
                print(f"voila_reload_warm_cache_s: {time.perf_counter() - t1:.2f}", flush=True)
                page.wait_for_selector(HEADLINE, state="visible", timeout=args.timeout * 1000)
                print(f"voila_reload_interactive_s: {time.perf_counter() - t1:.2f}", flush=True)
            if i == 0 and args.screenshot:
                print(f"screenshot: {screenshot(page, args.screenshot)}")
            context.close()
    if len(times) > 1:
        print(f"voila_render_median_s: {statistics.median(times):.2f}")
    if len(live) > 1:
        print(f"voila_interactive_median_s: {statistics.median(live):.2f}")
    print(f"outside_requests: {len(blocked)}")
    print(f"page_errors: {len(errors)}")
    for e in errors:
        print(f"  {e}")
    for url in blocked:
        print(f"  blocked: {url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
