"""Whether the page and its kernel still reach each other.

:class:`PageReady` is an invisible widget: its view tells the kernel the page is on screen (with
the URL query, for ``?preset=`` links) and then sends a heartbeat; :class:`Liveness` answers it and
keeps a kernel that was just handed to a visitor from being culled before its page connects.
"""

from __future__ import annotations

import threading
import time

import anywidget

#: Seconds between the page's heartbeats, and without an answer before it says the connection is
#: lost (a recomputation takes under 3 s here; the kernel answers between callbacks).
HEARTBEAT_S, LOST_AFTER_S = 5, 20
#: Until its page is first heard from (its ``rendered`` message), the kernel marks itself
#: active every KEEPALIVE_S (so Voila's culler, voila.json cull_idle_timeout 45 s, cannot take a
#: kernel just handed to a visitor whose page is still loading), for at most KEEPALIVE_MAX_S from
#: its start (a plain request that never loads the page's scripts is then culled). Once heard,
#: the open page's connection protects it (cull_connected false); a closed tab's beacon shuts its
#: kernel down and a tab killed without one is culled within a minute. (Waiting for the first
#: ping instead, 5 s after rendering, kept a tab killed in those 5 s alive for KEEPALIVE_MAX_S:
#: seen in tests/e2e/test_app_room.py.)
KEEPALIVE_S, KEEPALIVE_MAX_S = 10, 1800


class PageReady(anywidget.AnyWidget):
    """Invisible; its view tells the kernel the page is on screen, and the page's URL query (the app
    then applies a ``?preset=`` link and sends the charts)."""

    #: The view also sends a heartbeat (``ping``, answered ``pong`` by :meth:`Liveness.answer`)
    #: every :data:`HEARTBEAT_S`; with no answer for :data:`LOST_AFTER_S` (longer than any
    #: recomputation), the page greys its results and says the connection is lost.
    _esm = """
export default { render({ model }) {
  model.send({ event: 'rendered', search: window.location.search });
  let last = Date.now();
  model.on('msg:custom', (m) => { if (m && m.event === 'pong') { last = Date.now(); } });
  const lost = () => {
    if (document.getElementById('wb-lost-banner')) { return; }
    document.body.classList.add('wb-lost');
    const b = document.createElement('div');
    b.id = 'wb-lost-banner';
    b.textContent = 'Connection lost: the results below are stale. Reload the page.';
    const r = document.createElement('button');
    r.textContent = 'Reload';
    r.onclick = () => window.location.reload();
    b.appendChild(r);
    document.body.appendChild(b);
  };
  const timer = setInterval(() => {
    try { model.send({ event: 'ping' }); } catch (e) { lost(); }
    if (Date.now() - last > LOST_MS) { lost(); }
  }, HEARTBEAT_MS);
  return () => clearInterval(timer);
} };
""".replace("LOST_MS", str(LOST_AFTER_S * 1000)).replace("HEARTBEAT_MS", str(HEARTBEAT_S * 1000))


class Liveness:
    """The kernel's side of the heartbeat of ``widget`` (a :class:`PageReady`)."""

    def __init__(self, widget: PageReady):
        self.widget = widget
        self.heard = threading.Event()
        threading.Thread(target=self._keepalive, name="wb-keepalive", daemon=True).start()

    def answer(self, content: dict) -> bool:
        """Answer a heartbeat (``ping`` -> ``pong``); False for any other message. Any message
        of the page ends the keepalive: the page is connected."""
        self.heard.set()
        if content.get("event") != "ping":
            return False
        self.widget.send({"event": "pong"})
        return True

    def _keepalive(self):
        """Mark the kernel active until the page is first heard from (see :data:`KEEPALIVE_S`)."""
        end = time.monotonic() + KEEPALIVE_MAX_S
        while not self.heard.wait(KEEPALIVE_S) and time.monotonic() < end:
            self.widget.send({"event": "alive"})  # an iopub message: the server sees activity
