"""A visitor's kernel starts warm: ``notebooks/app.ipynb`` calls :func:`warm_start` before it
imports the app.

Measured on the 2-core machine (``tools/bench_visitors.py --kernel``), a kernel spent ~8.5 s of CPU
before the app was on screen, and Voila's pool starts its kernels together, so ten arriving
visitors waited for ten of those at once. Three things change that:

* **The offline Vega bundle is built once.** ``altair.JupyterChart.enable_offline()`` asks
  vl-convert to bundle ~0.9 MB of JavaScript: 2.3 s of CPU in every kernel, always the same
  text for the same altair / vl-convert / Vega-Lite versions. :func:`use_cached_vega_bundle` reads
  it from ``build/cache/`` (written by the server at start, :func:`write_vega_bundle`, or by the
  first kernel that finds no file), keyed by those versions, and sets it the way
  ``enable_offline`` does (``_esm`` and ``_is_offline`` of the class), so the app's own
  ``enable_offline()`` call returns at once.
* **No 2-second optional import.** jsonschema (imported by altair) imports ``rfc3987_syntax``, if
  installed, for its ``iri`` / ``iri-reference`` format checkers; building that grammar takes
  2.0 s. The Vega-Lite schema altair validates charts against uses neither format
  (``tests/present/test_warm.py`` checks the shipped schema), so :func:`skip_slow_optional_imports`
  makes that optional import fail, as if the package were not installed.
* **One kernel per CPU at a time, one CPU left.** :class:`StartupSlot` holds one of
  :data:`STARTUP_SLOTS` (CPUs less one) lock files
  while a kernel imports and computes its first recommendation; the others wait their turn. The
  first kernel of a burst is then ready after its own ~4 s instead of after everybody's.
  A lock is released when the kernel finishes its start (:meth:`StartupSlot.release`) or dies (the
  operating system drops it).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
import time
from importlib.metadata import version
from pathlib import Path

from .serve import PREVIEW_FILE_ENV, REPO

#: Files computed once and reused by every kernel (gitignored, like the rest of build/).
CACHE = REPO / "build" / "cache"
#: Kernels that may do their heavy start at the same time: one per CPU but one, which is left for
#: the visitors whose pages are going live meanwhile (at least one).
STARTUP_SLOTS = max(1, (os.cpu_count() or 1) - 1)
#: Seconds a kernel waits for a slot before it starts anyway (Voila's cell timeout is 120 s).
SLOT_WAIT_S = 90.0

#: Optional imports of third-party packages that cost seconds and that the app never uses.
SLOW_OPTIONAL = ("rfc3987_syntax",)


def skip_slow_optional_imports() -> None:
    """Make the imports in :data:`SLOW_OPTIONAL` fail (``sys.modules[name] = None``) unless they
    already happened; call before altair / jsonschema are imported."""
    for name in SLOW_OPTIONAL:
        sys.modules.setdefault(name, None)


def bundle_path(cache: Path = CACHE) -> Path:
    """Where the Vega bundle of the installed altair and vl-convert lives (their versions, read
    from the installed packages' metadata without importing them; altair's version fixes the
    Vega-Lite version it bundles)."""
    key = f"altair{version('altair')}-vlc{version('vl-convert-python')}"
    return cache / f"vega-bundle-{key}.js"


def write_vega_bundle(cache: Path = CACHE) -> Path:
    """Build altair's offline bundle (``JupyterChart.enable_offline``) and write it to
    :func:`bundle_path` (a temporary file renamed into place: a reader never sees half a file)."""
    import altair as alt

    alt.JupyterChart.enable_offline()
    path = bundle_path(cache)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(alt.JupyterChart._esm, encoding="utf-8")
    os.replace(tmp, path)
    return path


def use_cached_vega_bundle(cache: Path = CACHE) -> bool:
    """Set ``JupyterChart`` offline from the cached bundle; True when the file was there (else the
    bundle is built here and written for the next kernel)."""
    import altair as alt

    path = bundle_path(cache)
    if not path.is_file():
        write_vega_bundle(cache)
        return False
    alt.JupyterChart._esm = path.read_text(encoding="utf-8")
    alt.JupyterChart._is_offline = True
    return True


class StartupSlot:
    """One of ``slots`` lock files under ``folder``, held from :meth:`acquire` to :meth:`release`
    (``fcntl.flock``: the operating system drops it when the process dies)."""

    def __init__(self, folder: Path = CACHE / "slots", slots: int = STARTUP_SLOTS):
        self.folder, self.slots = folder, max(1, int(slots))
        self._file = None
        self.waited_s = 0.0

    def acquire(self, wait_s: float = SLOT_WAIT_S, poll_s: float = 0.05) -> bool:
        """Take a free slot, waiting up to ``wait_s``; False when none freed in time (the caller
        then goes on without one)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        t0 = time.monotonic()
        while True:
            for i in range(self.slots):
                f = open(self.folder / f"slot-{i}.lock", "a")  # noqa: SIM115 (held until release)
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    f.close()
                    continue
                self._file, self.waited_s = f, time.monotonic() - t0
                return True
            if time.monotonic() - t0 > wait_s:
                self.waited_s = time.monotonic() - t0
                return False
            time.sleep(poll_s)

    def release(self) -> None:
        """Free the slot (no-op when none is held)."""
        if self._file is not None:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()
            self._file = None


def warm_start() -> StartupSlot:
    """What the app notebook runs first: wait for a startup slot, skip the slow optional imports,
    use the cached Vega bundle. Returns the slot; release it once the app is shown."""
    slot = StartupSlot()
    slot.acquire()
    skip_slow_optional_imports()
    use_cached_vega_bundle()
    return slot


def leave_preview(html: str, environ=os.environ) -> None:
    """Leave the default page's static preview where this server's wait page reads it (the file
    :data:`~workbook.present.app.serve.PREVIEW_FILE_ENV` names; not set outside the app server:
    nothing to do). Written whole (a temporary file renamed over it). A place it cannot write
    (a read-only checkout) only costs the wait room its preview: the app's page never fails."""
    path = environ.get(PREVIEW_FILE_ENV)
    if not path:
        return
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(html, encoding="utf-8")
        os.replace(tmp, target)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
