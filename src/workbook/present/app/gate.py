"""The app's server: Voila (``voila.json``) with a cap on kernels, a "busy" page beyond it, the
``_xsrf`` cookie a closing tab needs to free its kernel, and the address printed once the first
visitor can be served (``make app``; :func:`workbook.present.app.serve.voila_command` runs
:func:`main`).

* **A cap.** :class:`CappedKernelManager` (``VoilaConfiguration.multi_kernel_manager_class``)
  never holds more than ``max_kernels`` kernels, the pool's included: a refill of the pool waits
  for a freed kernel. A visitor who would need kernel number ``max_kernels + 1`` gets
  :data:`BUSY_PAGE` (HTTP 503, ``Retry-After``; the page retries by itself) instead of a kernel.
* **A closed tab frees its kernel.** Voila's page sends ``POST voila/api/shutdown/<id>`` with the
  ``_xsrf`` cookie's value when the tab closes, but a page served from a preheated kernel never
  set that cookie, so the request was refused (403 "'_xsrf' argument missing", voila#1458) and the
  kernel waited for the culler. :class:`GatedVoilaHandler` sets the cookie (tornado does when a
  handler reads ``xsrf_token``); XSRF checking stays on.
* **One warm-up per CPU, refills after the rush.** The pool's kernels start one after another
  (at most ``max_warming`` running the notebook at once), so the first is ready after its own
  start rather than after all of them; a refill waits until ``quiet_s`` after the last arrival
  (unless the pool ran dry), so it does not slow the pages that are going live.
* **A wait room, not a silent tab.** A visitor who finds no pool kernel that has run the whole
  notebook gets :data:`WAIT_PAGE` at once: the default recommendation (the static preview a
  kernel left, :func:`workbook.present.app.warm.leave_preview`) and their place in the queue; the
  page loads itself again every :data:`WAIT_S` seconds and is given the next ready kernel in the
  order of arrival (a ticket cookie). Voila alone sends nothing until a kernel has started.
* **The address once it answers.** :class:`WorkbookVoila` prints "Serving the workbook on ..."
  when the pool's first kernel has run the notebook, so the first visitor is served at once.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import html
import os
import secrets
import time
from pathlib import Path

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado import web
from tornado.ioloop import IOLoop
from traitlets import Float, Int
from voila.app import Voila
from voila.tornado.handler import TornadoVoilaHandler

from .serve import PREVIEW_FILE_ENV
from .warm import STARTUP_SLOTS, bundle_path, write_vega_bundle

#: Seconds after which the busy page asks again (its Retry-After header and its refresh).
RETRY_S = 15
#: Seconds between two looks at the kernel count while a pool refill waits for a freed kernel.
CAP_POLL_S = 0.5

#: The head of the server's own pages (busy, wait): they load themselves again after ``retry``.
PAGE_HEAD = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="{retry}">
"""

BUSY_PAGE = (
    PAGE_HEAD
    + """<title>The workbook is busy</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 15vh auto; padding: 0 16px;">
<h1 style="font-size: 1.4em;">The workbook is busy: try again in a moment</h1>
<p id="wb-busy-page">{visitors} people are using it, the most this server takes at once
({cap}). This page tries again by itself in {retry} s.</p>
<p style="color: #555; font-size: 0.9em;">Serving more people at once: see "Serving a room"
in the workbook's README.</p>
</body></html>
"""
)


#: Seconds between two loads of the wait page (a waiting visitor's place is kept meanwhile).
WAIT_S = 2
#: A waiting visitor whose page has not asked again for this long has left the queue [s].
WAIT_GONE_S = 3 * WAIT_S + 2
#: The cookie holding a waiting visitor's ticket (their place in the queue).
WAIT_COOKIE = "wb_wait"

WAIT_PAGE = (
    PAGE_HEAD
    + """<title>GPU training decision workbook</title></head>
<body style="font-family: sans-serif; margin: 0; padding: 0 16px;">
<p id="wb-wait-page" style="max-width: 1100px; margin: 16px auto; color: #555;">Your interactive
workbook is being prepared ({place}): this page opens it by itself.</p>
{preview}
</body></html>
"""
)


class CappedKernelManager(AsyncMappingKernelManager):
    """Voila's kernel manager (the preheated pool is added on top by Voila) with at most
    :attr:`max_kernels` kernels."""

    max_kernels = Int(
        16,
        config=True,
        help="Most kernels at once, the pool's included; a visitor beyond gets the busy page.",
    )
    max_warming = Int(
        STARTUP_SLOTS,
        config=True,
        help="Pool kernels that run the notebook at the same time (default: the CPUs less one, "
        "left for the pages going live); the pool's next kernel starts when one is done, so "
        "the first is ready soonest.",
    )

    quiet_s = Float(
        20.0,
        config=True,
        help="Seconds after the last visitor's arrival before the pool refills, unless it has no "
        "ready kernel left: a refill then does not compete with the pages going live.",
    )

    #: time.monotonic() of the last visitor's arrival (GatedVoilaHandler).
    last_visit = float("-inf")
    #: Kernel starts in flight (from the check that let them through until started).
    _starting = 0

    async def start_kernel(self, *args, **kwargs) -> str:
        """Start a kernel once :meth:`_must_wait` lets it (a pool refill waits here). Starts
        for a waiting visitor go before the pool's own refills."""
        me = asyncio.current_task()
        self._waiting().add(me)
        try:
            while self._must_wait(me):
                await asyncio.sleep(CAP_POLL_S)
        finally:
            self._waiting().discard(me)
        self._starting += 1  # no await since the check: no other start passed in between
        try:
            return await super().start_kernel(*args, **kwargs)
        finally:
            self._starting -= 1

    def _waiting(self) -> set:
        if "_waiting_starts" not in self.__dict__:
            self.__dict__["_waiting_starts"] = set()
        return self.__dict__["_waiting_starts"]

    def _queue(self) -> dict[str, list[float]]:
        """Waiting visitors: ticket -> [arrival number, last time.monotonic() their page asked]."""
        if "_wait_queue" not in self.__dict__:
            self.__dict__["_wait_queue"] = {}
        return self.__dict__["_wait_queue"]

    def queued(self) -> int:
        """Visitors in the wait room (those whose page asked within :data:`WAIT_GONE_S`)."""
        now = time.monotonic()
        q = self._queue()
        for ticket in [t for t, (_, last) in q.items() if now - last > WAIT_GONE_S]:
            del q[ticket]
        return len(q)

    def place(self, ticket: str | None) -> tuple[str, int]:
        """A visitor's ticket (a new one unless ``ticket`` is in the queue) and how many visitors
        came before them and still wait."""
        self.queued()  # forget those who left
        q, now = self._queue(), time.monotonic()
        if ticket not in q:
            ticket = secrets.token_hex(8)
            self.__dict__["_arrivals"] = self.__dict__.get("_arrivals", 0) + 1
            q[ticket] = [self.__dict__["_arrivals"], now]
        q[ticket][1] = now
        return ticket, sum(1 for n, _ in q.values() if n < q[ticket][0])

    def leave(self, ticket: str) -> None:
        """The visitor holding ``ticket`` is given a kernel."""
        self._queue().pop(ticket, None)

    def _finished(self, task) -> bool:
        """Whether pool entry ``task`` is a started kernel that has run the whole notebook."""
        if not task.done() or task.cancelled() or task.exception() is not None:
            return False
        return task.result()["task"].done()

    def finished_in_pool(self) -> int:
        """Pool kernels that have run the whole notebook (a visitor sees their page at once)."""
        return sum(self._finished(t) for pool in getattr(self, "_pools", {}).values() for t in pool)

    def finished_first(self) -> None:
        """Put the pool's finished kernels first, where Voila takes the next visitor's kernel."""
        for pool in getattr(self, "_pools", {}).values():
            pool.sort(key=lambda t: not self._finished(t))

    def _in_pool(self, task) -> bool:
        """Whether ``task`` is a pool refill nobody waits for yet (not taken by a visitor)."""
        return any(task in pool for pool in getattr(self, "_pools", {}).values())

    def waiting_visitors(self) -> int:
        """Starts waiting for a slot that a visitor waits for."""
        return sum(1 for t in self._waiting() if not self._in_pool(t))

    def _must_wait(self, task=None) -> bool:
        """Whether a kernel start (for ``task``) waits: at the cap, while :attr:`max_warming`
        pool kernels run the notebook; a refill nobody waits for also while a visitor's start
        waits, when it would take the slot of one, and within :attr:`quiet_s` of a visitor's
        arrival while the pool has a ready kernel."""
        total = len(self.list_kernel_ids()) + self._starting
        if total >= self.max_kernels or self.warming() >= self.max_warming:
            return True
        if task is None or not self._in_pool(task):
            return False
        visitors = self.waiting_visitors()
        if visitors or total + visitors >= self.max_kernels:
            return True
        if self.queued():  # visitors in the wait room: refill now
            return False
        return self.ready_in_pool() > 0 and time.monotonic() - self.last_visit < self.quiet_s

    def _pooled(self) -> list[dict]:
        """What Voila's pool holds for each started kernel (``kernel_id``, ``task``: the
        notebook's run)."""
        out = []
        for pool in getattr(self, "_pools", {}).values():
            for task in pool:
                if task.done() and not task.cancelled() and task.exception() is None:
                    out.append(task.result())
        return out

    def ready_in_pool(self) -> int:
        """Kernels started and waiting in Voila's preheated pool (not yet a visitor's)."""
        return len(self._pooled())

    def warming(self) -> int:
        """Kernels starting, and pool kernels still running the notebook."""
        return self._starting + sum(1 for c in self._pooled() if not c["task"].done())

    def visitors(self) -> int:
        """Kernels handed to visitors: all but the ready ones in the pool and those starting."""
        return len(self.list_kernel_ids()) - self.ready_in_pool() - self._starting

    def busy(self) -> bool:
        """Whether a new visitor would need a kernel beyond the cap (counting the visitors whose
        kernel is still to start)."""
        return self.visitors() + self.waiting_visitors() >= self.max_kernels


def read_preview(environ=os.environ) -> str | None:
    """The static preview a kernel of this server left (shown, not hidden), or None."""
    path = environ.get(PREVIEW_FILE_ENV)
    try:
        text = Path(path).read_text(encoding="utf-8") if path else None
    except OSError:
        return None
    return text.replace("<div class='wb-preview' hidden ", "<div class='wb-preview' ", 1) or None


def forget_preview(path: str) -> None:
    """Remove a server's preview file (gone already: nothing to do)."""
    with contextlib.suppress(OSError):
        os.unlink(path)


def wait_page(preview: str, ahead: int, retry_s: int = WAIT_S) -> str:
    """The page of a visitor waiting for a kernel: their place and the default recommendation."""
    place = "you are next" if ahead == 0 else f"{ahead} visitor{'s' * (ahead > 1)} before you"
    return WAIT_PAGE.format(retry=retry_s, place=place, preview=preview)


def busy_page(visitors: int, cap: int, retry_s: int = RETRY_S) -> str:
    """The page a visitor beyond the cap sees (it reloads itself after ``retry_s``)."""
    return BUSY_PAGE.format(visitors=html.escape(str(visitors)), cap=cap, retry=retry_s)


class GatedVoilaHandler(TornadoVoilaHandler):
    """The notebook's page: the busy page beyond the cap; the ``_xsrf`` cookie always."""

    @web.authenticated
    async def get(self, path=None):
        # Reading the token sets the _xsrf cookie that the page's shutdown beacon sends back.
        self.xsrf_token  # noqa: B018 (a property read for its effect)
        km = self.kernel_manager
        if not isinstance(km, CappedKernelManager):
            await super().get(path)
            return
        km.last_visit = time.monotonic()
        if km.busy():
            self.log.warning("busy: %d visitors, cap %d", km.visitors(), km.max_kernels)
            self.set_status(503)
            self.set_header("Retry-After", str(RETRY_S))
            self.set_header("Cache-Control", "no-cache, no-store, must-revalidate")
            self.finish(busy_page(km.visitors(), km.max_kernels))
            return
        page = self._wait_room(km)
        if page is not None:
            self.set_header("Cache-Control", "no-cache, no-store, must-revalidate")
            self.finish(page)
            return
        await super().get(path)

    def _wait_room(self, km: CappedKernelManager) -> str | None:
        """The wait page, or None when this visitor is given a kernel now: one that has run
        the notebook is free for them and for everybody who came before."""
        if not any(getattr(km, "_pools", {}).values()) or (preview := read_preview()) is None:
            return None  # no pool (size 0: nothing to wait for), or no kernel has run yet
        ticket, ahead = km.place(self.get_cookie(WAIT_COOKIE))
        if km.finished_in_pool() > ahead:
            km.finished_first()
            km.leave(ticket)
            self.clear_cookie(WAIT_COOKIE)
            return None
        self.set_cookie(WAIT_COOKIE, ticket, httponly=True)
        asked = self.get_argument("preset", None)
        if asked and f"data-preset='{html.escape(asked)}'" not in preview:
            preview = ""  # a link to another scenario: the default's would mislead
        self.log.info("wait room: %d before this visitor", ahead)
        return wait_page(preview, ahead)


class WorkbookVoila(Voila):
    """Voila serving the app page through :class:`GatedVoilaHandler`, announcing its address
    once the first kernel is ready."""

    def init_handlers(self) -> list:
        return [
            (h[0], GatedVoilaHandler, *h[2:]) if h[1] is TornadoVoilaHandler else h
            for h in super().init_handlers()
        ]

    def start(self):
        preview = os.environ.get(PREVIEW_FILE_ENV)
        if preview:  # a previous server's: this one's kernels leave their own, removed at exit
            forget_preview(preview)
            atexit.register(forget_preview, preview)
        if not bundle_path().is_file():  # once per altair / vl-convert version (~2 s)
            write_vega_bundle()
        IOLoop.current().add_callback(self._announce)
        super().start()

    async def _announce(self):
        """Print the address when the pool's first kernel has run the notebook (at once when
        there is no pool)."""
        pools = getattr(self.kernel_manager, "_pools", {})
        first = next((p[0] for p in pools.values() if p), None)
        if first is not None:
            try:
                content = await first
                await content["task"]
            except Exception as e:  # the page will say what failed; still print the address
                self.log.warning("the first preheated kernel failed: %s", e)
        print(f"Serving the workbook on http://{self.ip}:{self.port} (Ctrl-C stops it)", flush=True)


def main() -> None:
    """Run :class:`WorkbookVoila` with the command line's arguments (see ``voila --help``)."""
    WorkbookVoila.launch_instance()
