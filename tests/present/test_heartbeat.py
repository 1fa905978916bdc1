"""The kernel's side of the page's heartbeat (workbook.present.app.heartbeat)."""

from workbook.present.app.heartbeat import Liveness, PageReady


def test_a_ping_is_answered_with_a_pong_and_ends_the_keepalive():
    widget = PageReady()
    sent = []
    widget.send = sent.append  # what the page's view would receive
    live = Liveness(widget)
    assert not live.pinged.is_set()
    assert live.answer({"event": "rendered", "search": ""}) is False and sent == []
    assert live.answer({"event": "ping"}) is True
    assert sent == [{"event": "pong"}] and live.pinged.is_set()


def test_the_page_script_says_the_connection_is_lost_after_its_timeout():
    js = PageReady._esm
    assert "Connection lost" in js and "wb-lost" in js
    assert "20000" in js and "5000" in js  # LOST_AFTER_S and HEARTBEAT_S in milliseconds
