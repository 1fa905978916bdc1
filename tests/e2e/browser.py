"""Real-browser test helpers: the Voila app on a free local port, Debian's chromium driven by
playwright.

Every request that does not go to 127.0.0.1 / localhost is blocked and recorded, so a test can
assert that the app works offline (../shared/reference/jupyter_stack.md). Chromium is the Debian
package at /usr/bin/chromium; never ``playwright install`` (it downloads a browser and fails
offline). Browser tests skip, with the reason, only when that binary is missing.

Fixtures (a test module loads them with ``pytest_plugins = ["browser"]``):

* ``voila_app``        module scope: the committed app notebook served by Voila; yields a
                       :class:`VoilaServer`.
* ``browser``          session scope: a playwright ``Browser`` (chromium, offline flags).
* ``outside_requests`` function scope: the list of outside URLs blocked in this test.
* ``page``             function scope: a fresh page whose outside requests are blocked and recorded.

Helpers: :func:`wait_for_text`, :func:`screenshot`, :func:`start_voila` (a context manager, also
used by ``tools/bench_app.py``), :func:`jupyter_lab` (a context manager), :func:`launch_chromium`,
:func:`block_outside`.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("WORKBOOK_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SCREENSHOTS = REPO / "artifacts" / "screenshots"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}
#: Seconds to wait for Voila to listen (it starts two preheated kernels first).
SERVER_START_TIMEOUT_S = 60.0
#: The test servers preheat two kernels, not voila.json's room-sized pool: ten warming kernels per
#: test module would slow the whole suite on a 2-core machine (tools/bench_visitors.py measures
#: the committed pool).
TEST_POOL = ("--VoilaConfiguration.default_pool_size=2",)

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)",
)


# --- the Voila server ----------------------------------------------------------------------------
def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now: the first free one of ``WORKBOOK_PORTS``
    (``8890-8899``: a machine shared by several test runs gives each its own range), else one the
    OS picks."""
    first, _, last = os.environ.get("WORKBOOK_PORTS", "").partition("-")
    candidates = range(int(first), int(last or first) + 1) if first else [0]
    for port in candidates:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise RuntimeError(f"WORKBOOK_PORTS={os.environ['WORKBOOK_PORTS']}: no free port")


@dataclass
class VoilaServer:
    url: str
    port: int
    process: subprocess.Popen
    log_path: Path
    started_s: float = 0.0  # seconds from launch until it answered HTTP

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:  # a local URL we built
            return r.status < 500
    except urllib.error.HTTPError as e:
        return e.code < 500
    except (urllib.error.URLError, OSError):
        return False


def _stop(proc: subprocess.Popen, timeout_s: float = 15.0) -> None:
    """Stop the server and its kernels: SIGTERM to its own process group, then SIGKILL."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=timeout_s)


@contextlib.contextmanager
def start_voila(
    notebook: Path | None = None,
    port: int | None = None,
    timeout_s: float = SERVER_START_TIMEOUT_S,
    log_dir: Path | None = None,
    extra_args: tuple[str, ...] = (),
) -> Iterator[VoilaServer]:
    """Serve ``notebook`` (default: the app) with the committed settings on 127.0.0.1; stop it on
    exit. ``extra_args`` are added to Voila's command line (settings that override voila.json).

    Uses :func:`workbook.present.app.serve.voila_command` (offline template, ``voila.json`` read
    from the repo root). The server runs in its own process group so that its kernels stop with it.
    """
    from workbook.present.app.serve import APP_NOTEBOOK, voila_command

    port = port or free_port()
    cmd, env = voila_command(notebook or APP_NOTEBOOK, port)
    cmd = [*cmd, *extra_args]
    log_dir = log_dir or Path(tempfile.mkdtemp(prefix="voila-"))
    log_path = log_dir / f"voila-{port}.log"
    t0 = time.perf_counter()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            cmd, env=env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = VoilaServer(f"http://127.0.0.1:{port}/", port, proc, log_path)
    try:
        # Any static file answers once Tornado listens, without rendering the notebook.
        probe = f"{server.url}voila/static/"
        deadline = time.monotonic() + timeout_s
        while not _answers(probe):
            if proc.poll() is not None:
                raise RuntimeError(
                    f"voila exited with {proc.returncode} before serving:\n{server.log()[-3000:]}"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"voila did not answer on {server.url} within {timeout_s:g} s:\n"
                    f"{server.log()[-3000:]}"
                )
            time.sleep(0.2)
        server.started_s = time.perf_counter() - t0
        yield server
    finally:
        _stop(proc)


# --- JupyterLab ---------------------------------------------------------------------------------
@contextlib.contextmanager
def jupyter_lab(root: Path, port: int | None = None):
    """JupyterLab serving ``root`` on 127.0.0.1 (``port``, or ``WORKBOOK_LAB_PORT``, or a free
    one), no token, a fresh workspace; yields its URL. The kernels inherit the environment
    (an absolute ``PYTHONPATH`` imports this checkout)."""
    port = port or int(os.environ.get("WORKBOOK_LAB_PORT") or 0) or free_port()
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        f"--port={port}",
        "--ip=127.0.0.1",
        "--IdentityProvider.token=",
        "--LabApp.news_url=None",
        f"--LabApp.app_settings_dir={REPO / 'deploy' / 'lab-settings'}",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.workspaces_dir={root / '.workspaces'}",
        *(["--allow-root"] if os.geteuid() == 0 else []),
    ]
    log = (root / "lab.log").open("w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 90
        while not _answers(url + "api"):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not start: {(root / 'lab.log').read_text()[-2000:]}")
            time.sleep(0.5)
        yield url
    finally:
        _stop(proc)
        log.close()


@contextlib.contextmanager
def lab_over_copies(root: Path, names):
    """JupyterLab over copies of ``notebooks/<name>.ipynb`` put in ``root`` (what a notebook
    writes lands there, never in the checkout); yields its URL."""
    for name in names:
        shutil.copy(REPO / "notebooks" / f"{name}.ipynb", root)
    with jupyter_lab(root) as url:
        yield url


def open_notebook(page, url: str, name: str) -> None:
    """Open ``name``.ipynb in the JupyterLab at ``url`` with a fresh layout and wait until its
    kernel is idle."""
    page.goto(f"{url}lab/tree/{name}.ipynb?reset", timeout=120_000)
    page.wait_for_selector(".jp-Notebook", timeout=120_000)
    page.get_by_text(re.compile(r"\| Idle$")).first.wait_for(timeout=120_000)


def lab_menu(page, menu: str, command: str) -> None:
    """Click JupyterLab's menu ``menu`` (``Run``) then its item ``command``
    (``runmenu:run-all``), as a reader does."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{menu}$")).click()
    page.locator(f"[data-command='{command}']").click()


# --- the browser ---------------------------------------------------------------------------------
#: The page's elements whose right edge lies beyond the viewport (fixed banners excepted).
TOO_WIDE_JS = """() => { const W = window.innerWidth; const out = [];
  for (const e of document.querySelectorAll('body *')) {
    const r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > W + 1 && getComputedStyle(e).position !== 'fixed') {
      out.push(String(e.className && e.className.baseVal !== undefined ? e.tagName : e.className)
        + ' right=' + Math.round(r.right));
    }
  }
  return out; }"""

#: Shut down every session of a Jupyter server from its page (one kernel at a time in the
#: JupyterLab tests, ~250 MB each); the page's _xsrf cookie passes the server's XSRF check.
SHUT_DOWN_KERNELS = """async () => {
    const x = document.cookie.match(/_xsrf=([^;]+)/);
    const headers = x ? {"X-XSRFToken": decodeURIComponent(x[1])} : {};
    const sessions = await (await fetch("/api/sessions")).json();
    for (const s of sessions) await fetch("/api/sessions/" + s.id, {method: "DELETE", headers});
    return sessions.length;
}"""


def launch_chromium(playwright, headless: bool = True):
    """Debian's chromium through playwright (never a downloaded browser)."""
    return playwright.chromium.launch(
        executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=headless
    )


def is_local(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about"):
        return True
    return (parts.hostname or "") in LOCAL_HOSTS


def block_outside(context_or_page, record: list[str]) -> None:
    """Abort every request that is not to 127.0.0.1 / localhost, and append its URL to
    ``record``."""

    def handle(route):
        url = route.request.url
        if is_local(url):
            route.continue_()
        else:
            record.append(url)
            route.abort("blockedbyclient")

    context_or_page.route("**/*", handle)


def offline_page(browser, record: list[str]):
    """A page in a fresh context (cold HTTP cache, 1400 x 1000) whose requests outside 127.0.0.1 are
    blocked and recorded in ``record``; returns (context, page). Close the context when done."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    block_outside(context, record)
    return context, context.new_page()


def wait_for_text(page, text: str | re.Pattern, timeout: float = 30.0):
    """Wait until ``text`` (substring, or a compiled regex) is visible; return the locator.

    ``timeout`` in seconds. On timeout the error says what was awaited and what the page shows.
    """
    loc = page.get_by_text(text).filter(visible=True).first  # not a match that is (still) hidden
    try:
        loc.wait_for(state="visible", timeout=timeout * 1000)
    except Exception as e:  # re-raised with the page's text: a readable failure
        body = page.inner_text("body")[:1500] if page.query_selector("body") else ""
        raise AssertionError(
            f"{text!r} not visible after {timeout:g} s; the page shows:\n{body}"
        ) from e
    return loc


def screenshot(page, name: str, full_page: bool = True) -> Path:
    """Save a PNG under artifacts/screenshots/ (gitignored) and return its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "page"
    path = SCREENSHOTS / (safe if safe.endswith(".png") else f"{safe}.png")
    page.screenshot(path=str(path), full_page=full_page)
    return path


@dataclass
class PageErrors:
    """What the page complained about: uncaught exceptions and console errors."""

    exceptions: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)


# --- fixtures ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def voila_app(tmp_path_factory) -> Iterator[VoilaServer]:
    """The app notebook served by Voila on a free port (one server per test module)."""
    if not CHROMIUM.exists():
        pytest.skip(
            f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)"
        )
    with start_voila(log_dir=tmp_path_factory.mktemp("voila"), extra_args=TEST_POOL) as server:
        yield server


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.skip(
            f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch_chromium(p)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def outside_requests() -> list[str]:
    """URLs of the requests the page tried to make outside 127.0.0.1 (all blocked)."""
    return []


@pytest.fixture
def page_errors() -> PageErrors:
    return PageErrors()


@pytest.fixture
def page(browser, outside_requests, page_errors):
    """A fresh browser page (own context) that blocks and records outside requests."""
    context, pg = offline_page(browser, outside_requests)
    pg.on("pageerror", lambda exc: page_errors.exceptions.append(str(exc)))
    pg.on(
        "console", lambda msg: page_errors.console.append(msg.text) if msg.type == "error" else None
    )
    try:
        yield pg
    finally:
        context.close()
