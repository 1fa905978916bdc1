"""A room full of visitors: the app as ``make app`` serves it, N simultaneous visitors in real
chromium (one browser, one context per visitor, every outside request blocked).

Starts the app's server as ``make app`` does (:func:`workbook.present.app.serve.voila_command`)
on a free port and waits for the line it prints once it can serve ("Serving the workbook on
http://..."), then, in order:

1. **first visitor** right after that line: seconds from navigation to the recommendation visible
   (the static preview or the live headline) and to the live page (the live headline widget);
2. **closed tab**: a visitor opens the page, waits for the live page, closes the tab; seconds
   until its kernel is gone (``GET /api/kernels/<id>`` answers 404) and whether the tab's shutdown
   request was accepted (no 403 in the server's log);
3. **rooms** of N visitors (``--visitors 10 20``) opening the link at the same moment, each once
   the pool has refilled: per visitor the seconds to the recommendation and to the live page (p50,
   p95, max), the visitors turned away with the busy page, failures (timeouts, errors), the
   peak memory (the summed RSS of the server and its kernels, sampled every 0.25 s), and the CPU
   seconds of the server with its kernels and of the browsers (every process sampled every
   0.25 s, so a closed tab's renderer and a shut-down kernel still count), with the CPU floor:
   all of it over the machine's CPUs, the soonest the last visitor could be live here.

Run: PYTHONPATH=$PWD/src .venv/bin/python tools/bench_visitors.py [--visitors 10 20]
     [--timeout 180] [--settle 120] [--skip-first] [--skip-closed]

Settings are the committed voila.json's; ``--set Class.trait=value`` overrides one for this run
(e.g. ``--set VoilaConfiguration.default_pool_size=4``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "e2e"))  # the shared helpers in tests/e2e/browser.py

from browser import CHROMIUM, CHROMIUM_ARGS, free_port, is_local  # noqa: E402

RECOMMENDATION = re.compile(r"^\s*(Rent|Buy|Nothing in the catalog)")
LIVE = "#wb-recommendation"
BUSY = "#wb-busy-page"
WAIT = "#wb-wait-page"
ANNOUNCED = "Serving the workbook on "


class Server:
    """The app's server on ``port`` in its own session (``extra``: Voila options); its log in
    memory."""

    def __init__(self, port: int, extra: list[str]):
        from workbook.present.app.serve import voila_command

        cmd, env = voila_command(port=port)
        paths = [str(REPO / "src"), env.get("PYTHONPATH")]
        env["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
        self.url = f"http://127.0.0.1:{port}/"
        self.lines: list[str] = []
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            [*cmd, "--Voila.port_retries=0", *extra],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.announced = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip())
            if line.startswith(ANNOUNCED):
                self.announced_s = time.perf_counter() - self.t0
                self.announced.set()

    def log(self) -> str:
        return "\n".join(self.lines)

    def rss_mb(self) -> float:
        """Summed RSS of the server and every process under it (its kernels), MB."""
        try:
            root = psutil.Process(self.proc.pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return 0.0
        total = 0
        for p in procs:
            try:
                total += p.memory_info().rss
            except psutil.NoSuchProcess:
                pass
        return total / 2**20

    def cpu_s(self) -> float:
        """CPU seconds used so far by the server and its live kernels."""
        return tree_cpu_s(self.proc.pid)

    def kernels(self) -> int:
        """Kernel processes under the server."""
        try:
            return sum(
                "ipykernel" in " ".join(p.cmdline())
                for p in psutil.Process(self.proc.pid).children(recursive=True)
            )
        except psutil.NoSuchProcess:
            return 0

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()  # Voila shuts its kernels down on SIGTERM
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)


class Peak:
    """The largest value of ``sample()`` seen every ``every_s`` while running."""

    def __init__(self, sample, every_s: float = 0.25):
        self.sample, self.every_s, self.peak = sample, every_s, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.wait(self.every_s):
            self.peak = max(self.peak, self.sample())

    def __enter__(self):
        self.peak = self.sample()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


class CpuTally:
    """CPU seconds of ``pid``'s process tree since :meth:`start`, sampled every ``every_s``:
    each process's last figure counts after it exits (a closed tab's chromium renderer, a shut
    down kernel), which a look at the live processes at the end missed (it counted ten visitors'
    browsers as 52 CPU-s where they used ~70)."""

    def __init__(self, pid: int, every_s: float = 0.25):
        self.pid, self.every_s = pid, every_s
        self.last: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self):
        try:
            root = psutil.Process(self.pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return
        for p in procs:
            try:
                t = p.cpu_times()
                self.last[p.pid] = t.user + t.system
            except psutil.NoSuchProcess:
                pass

    def _run(self):
        while not self._stop.wait(self.every_s):
            self.sample()

    def start(self) -> CpuTally:
        self.sample()
        self.first = dict(self.last)
        self._thread.start()
        return self

    def stop(self) -> float:
        """CPU seconds used by the tree (its exited processes included) since :meth:`start`."""
        self._stop.set()
        self._thread.join()
        self.sample()
        return sum(v - self.first.get(pid, 0.0) for pid, v in self.last.items())


async def _block_outside(context, blocked: list[str]):
    async def handle(route):
        if is_local(route.request.url):
            await route.continue_()
        else:
            blocked.append(route.request.url)
            await route.abort("blockedbyclient")

    await context.route("**/*", handle)


async def visit(browser, url: str, timeout_s: float, blocked: list[str], keep: bool = False):
    """One visitor: a fresh context; returns a dict of seconds (rec, live), busy, error, and the
    open (context, page) when ``keep``."""
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    await _block_outside(context, blocked)
    page = await context.new_page()
    out: dict = {"rec": None, "live": None, "busy": False, "waited": False, "error": None}
    t0 = time.perf_counter()
    try:
        await page.goto(url, wait_until="commit", timeout=timeout_s * 1000)
        out["first_byte"] = time.perf_counter() - t0  # the server's answer began to arrive
        rec = page.get_by_text(RECOMMENDATION).filter(visible=True).first
        busy = page.locator(BUSY)
        await rec.or_(busy).first.wait_for(state="visible", timeout=timeout_s * 1000)
        if await busy.count():
            out["busy"] = True
        else:
            out["rec"] = time.perf_counter() - t0
            out["waited"] = await page.locator(WAIT).count() > 0  # the wait room's page first
            await page.wait_for_selector(LIVE, state="visible", timeout=timeout_s * 1000)
            out["live"] = time.perf_counter() - t0
    except Exception as e:  # a timeout or a broken page: counted and shown, never fatal
        out["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
    if keep:
        out["open"] = (context, page)
    else:
        await page.close(run_before_unload=True)  # as a closing tab: its kernel is shut down
        await context.close()
    return out


def pcts(xs: list[float]) -> str:
    if not xs:
        return "p50 -, p95 -, max -"
    s = sorted(xs)
    p95 = s[min(len(s) - 1, max(0, round(0.95 * len(s) + 0.5) - 1))]
    return f"p50 {statistics.median(s):.2f}, p95 {p95:.2f}, max {s[-1]:.2f}"


def kernel_alive(url: str, kernel_id: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}api/kernels/{kernel_id}", timeout=5) as r:
            return r.status == 200
    except urllib.error.HTTPError as e:
        return e.code != 404
    except OSError:
        return False


def wait_for_pool(server: Server, pool: int, settle_s: float, quiet: float = 0.15):
    """Until ``pool`` more kernels run than visitors hold and the server and its kernels are
    quiet (under ``quiet`` of a CPU over 2 s: the pool has run the notebook), or ``settle_s``."""
    deadline = time.monotonic() + settle_s
    while time.monotonic() < deadline:
        c0 = server.cpu_s()
        time.sleep(2)
        if server.kernels() >= pool and (server.cpu_s() - c0) / 2 < quiet:
            return True
    return False


async def closed_tab(browser, server: Server, timeout_s: float, blocked: list[str]):
    res = await visit(browser, server.url, timeout_s, blocked, keep=True)
    context, page = res["open"]
    if res["live"] is None:
        print(f"closed_tab: the page did not go live ({res['error']})")
        await context.close()
        return
    kid = await page.evaluate(
        "() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId"
    )
    n403 = server.log().count("403 POST")
    await page.close(run_before_unload=True)  # as a tab closes: beforeunload sends the shutdown
    t0 = time.perf_counter()
    while kernel_alive(server.url, kid) and time.perf_counter() - t0 < 120:
        await asyncio.sleep(0.25)
    gone = time.perf_counter() - t0
    await context.close()
    for line in server.lines:
        if kid in line or "403" in line:
            print(f"  log: {line[:160]}")
    print(f"closed_tab_kernel_gone_s: {gone:.1f}")
    print(f"closed_tab_shutdown_refused_403: {server.log().count('403 POST') - n403}")


def tree_cpu_s(pid: int) -> float:
    """CPU seconds of ``pid`` and every live process under it."""
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    total = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


async def room(browser, server: Server, n: int, timeout_s: float, blocked: list[str]):
    t0, load0 = time.perf_counter(), os.getloadavg()[0]
    server_tally, all_tally = CpuTally(server.proc.pid).start(), CpuTally(os.getpid()).start()
    with Peak(server.rss_mb) as mem:
        results = await asyncio.gather(
            *(visit(browser, server.url, timeout_s, blocked) for _ in range(n))
        )
        peak_kernels = server.kernels()
    wall, server_cpu = time.perf_counter() - t0, server_tally.stop()
    browser_cpu = all_tally.stop() - server_cpu  # this script, playwright and chromium
    rec = [r["rec"] for r in results if r["rec"] is not None]
    live = [r["live"] for r in results if r["live"] is not None]
    busy = sum(r["busy"] for r in results)
    errors = [r["error"] for r in results if r["error"]]
    first = [r["first_byte"] for r in results if r.get("first_byte") is not None]
    print(f"visitors_{n}_first_byte_s: {pcts(first)} (the answer began; the rest is the browser)")
    print(f"visitors_{n}_recommendation_s: {pcts(rec)} ({len(rec)} of {n})")
    print(f"visitors_{n}_live_s: {pcts(live)} ({len(live)} of {n})")
    print(f"visitors_{n}_busy_page: {busy}")
    waited = sum(r["waited"] for r in results)
    print(f"visitors_{n}_wait_room: {waited} (the recommendation there, then live by itself)")
    print(f"visitors_{n}_failures: {len(errors)}")
    for e in errors:
        print(f"  {e}")
    print(f"visitors_{n}_peak_memory_mb: {mem.peak:.0f} (server + {peak_kernels} kernels)")
    print(
        f"visitors_{n}_cpu_s: server and kernels {server_cpu:.0f}, browser {browser_cpu:.0f} "
        f"over {wall:.0f} s of {os.cpu_count()} CPUs; load average {load0:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after"
    )
    # The room's CPU over the machine's CPUs: no schedule gets every visitor live sooner here.
    cpus = os.cpu_count() or 1
    print(
        f"visitors_{n}_cpu_floor_s: {(server_cpu + browser_cpu) / cpus:.0f} (browser "
        f"{browser_cpu / n:.1f} CPU-s per visitor, server and kernels {server_cpu / n:.1f})"
    )


async def run(args) -> int:
    from playwright.async_api import async_playwright

    server = Server(free_port(), [f"--{s}" for s in args.set])
    blocked: list[str] = []
    try:
        if not server.announced.wait(args.timeout):
            print(f"error: no address announced after {args.timeout:g} s:\n{server.log()[-3000:]}")
            return 1
        print(f"server_announced_s: {server.announced_s:.2f} (launch -> address printed)")
        print(f"server_memory_mb: {server.rss_mb():.0f} at the announcement")
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            if not args.skip_first:
                r = await visit(browser, server.url, args.timeout, blocked)
                print(f"first_visitor_recommendation_s: {r['rec'] or float('nan'):.2f}")
                print(f"first_visitor_live_s: {r['live'] or float('nan'):.2f}")
                if r["error"] or r["busy"]:
                    print(f"  first visitor: {r['error'] or 'busy page'}")
            pool = int(args.pool)
            if not wait_for_pool(server, pool, args.settle):
                print(f"  the pool was not full and quiet after {args.settle:g} s")
            idle = server.rss_mb()
            print(f"idle_memory_mb: {idle:.0f} (server + {server.kernels()} pool kernels)")
            if not args.skip_closed:
                await closed_tab(browser, server, args.timeout, blocked)
            for n in args.visitors:
                if not wait_for_pool(server, pool, args.settle):
                    print(f"  the pool was not full and quiet after {args.settle:g} s")
                await room(browser, server, n, args.timeout, blocked)
            await browser.close()
    finally:
        server.stop()
    print(f"outside_requests: {len(blocked)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--visitors", type=int, nargs="*", default=[10, 20], help="room sizes")
    p.add_argument("--timeout", type=float, default=180.0, help="seconds per visitor at most")
    p.add_argument("--settle", type=float, default=120.0, help="seconds to wait for the pool")
    p.add_argument("--pool", type=int, default=None, help="pool size (default: voila.json's)")
    p.add_argument("--skip-first", action="store_true", help="no first-visitor measurement")
    p.add_argument("--skip-closed", action="store_true", help="no closed-tab measurement")
    p.add_argument("--set", action="append", default=[], help="Class.trait=value for Voila")
    args = p.parse_args(argv)
    if not CHROMIUM.exists():
        print(f"error: needs Debian's chromium at {CHROMIUM}", file=sys.stderr)
        return 2
    if args.pool is None:
        import json

        conf = json.loads((REPO / "voila.json").read_text())
        args.pool = conf["VoilaConfiguration"]["default_pool_size"]
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
