"""The kernel's side of the page's heartbeat (workbook.present.app.heartbeat)."""

from workbook.present.app.heartbeat import Liveness, PageReady


def _liveness():
    widget = PageReady()
    sent = []
    widget.send = sent.append  # what the page's view would receive
    return Liveness(widget), sent


def test_a_ping_is_answered_with_a_pong():
    live, sent = _liveness()
    assert not live.heard.is_set()
    assert live.answer({"event": "ping"}) is True
    assert sent == [{"event": "pong"}] and live.heard.is_set()


def test_the_page_s_first_message_ends_the_keepalive_before_any_ping():
    """A tab killed between rendering and its first ping (5 s later) must not keep its kernel
    alive for KEEPALIVE_MAX_S: its ``rendered`` message already ends the keepalive."""
    live, sent = _liveness()
    assert live.answer({"event": "rendered", "search": ""}) is False and sent == []
    assert live.heard.is_set()


def test_the_page_script_says_the_connection_is_lost_after_its_timeout():
    js = PageReady._esm
    assert "Connection lost" in js and "wb-lost" in js
    assert "20000" in js and "5000" in js  # LOST_AFTER_S and HEARTBEAT_S in milliseconds
