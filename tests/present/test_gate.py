"""The app server's cap on kernels and its busy page (workbook.present.app.gate), and the
committed voila.json settings that free a closed tab's kernel."""

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from traitlets.config import Config
from voila.execute import VoilaExecutor

import workbook.present.app.gate as gate
from workbook.present.app.gate import (
    RETRY_S,
    WAIT_GONE_S,
    CappedKernelManager,
    busy_page,
    read_preview,
    wait_page,
)
from workbook.present.app.serve import PREVIEW_FILE_ENV
from workbook.present.app.warm import leave_preview

REPO = Path(__file__).resolve().parents[2]


def _started(kernel_id: str, warming: bool = False) -> asyncio.Future:
    """A pool entry as Voila's pool holds it once the kernel started (``task``: the notebook)."""
    loop = asyncio.new_event_loop()
    run, entry = loop.create_future(), loop.create_future()
    if not warming:
        run.set_result(None)
    entry.set_result({"kernel_id": kernel_id, "task": run})
    return entry


def _manager(kernels: list[str], pool: list, cap: int) -> CappedKernelManager:
    km = CappedKernelManager(max_kernels=cap, max_warming=2)
    km._pools = {"app.ipynb": pool}
    km.list_kernel_ids = lambda: list(kernels)
    return km


def test_pool_kernels_are_not_visitors_and_the_cap_counts_visitors():
    pool = [_started("p1"), _started("p2", warming=True)]
    km = _manager(["v1", "v2", "p1", "p2"], pool, cap=4)
    assert km.ready_in_pool() == 2 and km.warming() == 1
    assert km.visitors() == 2 and not km.busy()
    km = _manager(["v1", "v2", "v3", "v4"], [], cap=4)
    assert km.visitors() == 4 and km.busy()
    km._starting = 1  # listed while it starts, not yet in the pool: nobody's yet
    assert km.visitors() == 3 and not km.busy()
    km._waiting().add(object())  # and a visitor waits for a kernel still to start
    assert km.busy()


def test_a_refill_waits_for_a_freed_kernel_at_the_cap(monkeypatch):
    kernels = ["v1", "v2"]
    started = []

    async def fake_start(self, *args, **kwargs):
        started.append(len(kernels))
        kernels.append(f"k{len(kernels)}")
        return kernels[-1]

    monkeypatch.setattr(AsyncMappingKernelManager, "start_kernel", fake_start)
    monkeypatch.setattr("workbook.present.app.gate.CAP_POLL_S", 0.01)
    km = _manager(kernels, [], cap=2)

    async def scenario():
        waiting = asyncio.ensure_future(km.start_kernel())
        await asyncio.sleep(0.1)
        assert not waiting.done() and started == []  # at the cap: no third kernel
        kernels.remove("v1")  # a visitor leaves
        return await asyncio.wait_for(waiting, 2)

    # its own thread: an earlier browser test may leave this thread's event loop running
    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(asyncio.run, scenario()).result() == "k1" and started == [1]


def test_the_busy_page_says_so_and_retries_by_itself():
    page = busy_page(24, 24)
    assert "busy" in page and "try again in a moment" in page
    assert f'http-equiv="refresh" content="{RETRY_S}"' in page
    assert "24 people" in page and "(24)" in page and 'id="wb-busy-page"' in page
    assert "http://" not in page.replace("http-equiv", "") and "https://" not in page  # offline


def test_voila_json_caps_kernels_and_frees_a_closed_tab_within_a_minute():
    conf = json.loads((REPO / "voila.json").read_text())
    vc = conf["VoilaConfiguration"]
    assert vc["multi_kernel_manager_class"] == "workbook.present.app.gate.CappedKernelManager"
    cap, pool = conf["CappedKernelManager"]["max_kernels"], vc["default_pool_size"]
    assert 0 < pool < cap
    cull = conf["MappingKernelManager"]
    assert cull["cull_connected"] is False  # an open page keeps its kernel
    assert cull["cull_idle_timeout"] + cull["cull_interval"] <= 60
    assert "disable_check_xsrf" not in json.dumps(conf)


def test_a_pool_kernel_under_load_keeps_the_apps_outputs():
    """nbclient waits ``iopub_timeout`` (default 4 s) after a cell's reply for the cell's outputs,
    then drops the rest ("Timeout waiting for IOPub output"): at load ~20 a pool kernel lost the
    app cell's outputs and its visitor got a page with neither the preview nor the app. The wait
    ends as soon as the kernel reports idle, so a long bound costs nothing when outputs arrive."""
    conf = json.loads((REPO / "voila.json").read_text())
    executor = VoilaExecutor(None, config=Config(conf))
    assert 30 <= executor.iopub_timeout <= executor.timeout


def test_a_refill_waits_for_a_cpu_and_for_the_rush_to_pass_unless_the_pool_ran_dry():
    warming = [_started("p1", warming=True), _started("p2", warming=True)]
    km = _manager(["p1", "p2"], warming, cap=10)
    assert km._must_wait()  # max_warming (2) kernels run the notebook: no third yet
    km = _manager(["p1"], [_started("p1", warming=True)], cap=10)
    km._starting = 1  # and another one is being started
    assert km.warming() == 2 and km._must_wait()
    refill = asyncio.new_event_loop().create_future()  # a refill's task, not started, in the pool
    km = _manager(["p1", "v1"], [_started("p1"), refill], cap=10)
    km.quiet_s, km.last_visit = 20.0, time.monotonic()
    assert km._must_wait(refill)  # a visitor just arrived, a ready kernel is left: after the rush
    assert not km._must_wait(object())  # a start a visitor waits for goes at once
    km.last_visit = time.monotonic() - 21
    assert not km._must_wait(refill)
    km._waiting().add(object())  # a visitor's start waits (warming, say): it goes first
    assert km._must_wait(refill) and km.waiting_visitors() == 1
    km = _manager(["v1"], [refill], cap=10)
    km.last_visit = time.monotonic()
    assert not km._must_wait(refill)  # the pool ran dry: the next visitor needs a kernel now


def test_the_wait_room_hands_out_ready_kernels_in_the_order_of_arrival(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(gate.time, "monotonic", lambda: clock[0])
    warming = _started("p2", warming=True)
    km = _manager(["v1", "p2"], [warming], cap=10)
    a, ahead_a = km.place(None)
    clock[0] += 0.5
    b, ahead_b = km.place(None)
    assert (ahead_a, ahead_b) == (0, 1) and a != b and km.queued() == 2
    assert km.finished_in_pool() == 0  # p2 still runs the notebook: both wait
    assert km.place(b) == (b, 1)  # b asks again: same ticket, same place
    assert km.place("forged")[1] == 2  # an unknown ticket is a new arrival, last in line
    pool = km._pools["app.ipynb"]
    pool.insert(0, warming)  # the finished one is put first, where Voila takes the next kernel
    pool[1] = _started("p3")
    assert km.finished_in_pool() == 1
    km.finished_first()
    assert km._finished(pool[0])
    km.leave(a)  # a is given p3; b is now first
    clock[0] += 1.0
    assert km.place(b)[1] == 0
    clock[0] += WAIT_GONE_S + 1  # b's page stopped asking (tab closed): b has left the queue
    assert km.queued() == 0


def test_visitors_in_the_wait_room_make_the_pool_refill_at_once(monkeypatch):
    refill = asyncio.new_event_loop().create_future()
    km = _manager(["p1", "v1"], [_started("p1", warming=True), refill], cap=10)
    km.max_warming, km.quiet_s, km.last_visit = 2, 20.0, time.monotonic()
    assert km._must_wait(refill)  # a visitor just arrived, a kernel is in the pool: after the rush
    km.place(None)  # but somebody waits for a kernel that has run the notebook
    assert not km._must_wait(refill)


def test_the_wait_page_shows_the_kernels_preview_and_the_visitors_place(tmp_path):
    path = tmp_path / "cache" / "preview-8866.html"
    env = {PREVIEW_FILE_ENV: str(path)}
    assert read_preview(env) is None  # no kernel has run yet
    preview = "<div class='wb-preview' hidden data-preset='x'>Rent 64 H100 on demand</div>"
    leave_preview(preview, env)
    assert path.read_text() == preview and list(path.parent.iterdir()) == [path]
    shown = read_preview(env)
    assert shown == "<div class='wb-preview' data-preset='x'>Rent 64 H100 on demand</div>"
    leave_preview(preview, {})  # outside the app server: nothing written anywhere
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    leave_preview(preview, {PREVIEW_FILE_ENV: str(blocked / "preview.html")})  # cannot write:
    assert blocked.read_text() == ""  # no error for the app's page, nothing left behind
    first, third = wait_page(shown, 0), wait_page(shown, 2)
    assert "you are next" in first and "2 visitors before you" in third
    assert 'http-equiv="refresh" content="2"' in first and "Rent 64 H100 on demand" in first
    assert 'id="wb-wait-page"' in first
