"""How wide the app's chart column is on the visitor's screen, so the charts are drawn at that
width (:func:`workbook.present.charts.stacked`) instead of being scaled down to it.

:class:`ColumnWidth` is an invisible widget placed in the chart column: its view watches its own
element's width (a ``ResizeObserver``: a phone, a laptop, a window resized, JupyterLab's side bar
opened) and sends it to the kernel, at most every :data:`DEBOUNCE_MS` and only when it changed by
:data:`MIN_CHANGE_PX` or more.
"""

from __future__ import annotations

import anywidget

#: Wait after the last resize before the width is sent [ms], and the smallest change sent [px].
DEBOUNCE_MS, MIN_CHANGE_PX = 250, 24


class ColumnWidth(anywidget.AnyWidget):
    """Invisible; its view sends ``{"event": "width", "px": <the column's width>}``."""

    _esm = """
export default { render({ model, el }) {
  el.style.width = '100%';
  el.style.height = '0px';
  let sent = 0, timer = null;
  const send = () => {
    const px = Math.round(el.getBoundingClientRect().width);
    if (px > 0 && Math.abs(px - sent) >= MIN_CHANGE) {
      sent = px;
      model.send({ event: 'width', px });
    }
  };
  const ro = new ResizeObserver(() => { clearTimeout(timer); timer = setTimeout(send, DEBOUNCE); });
  ro.observe(el);
  send();
  return () => { ro.disconnect(); clearTimeout(timer); };
} };
""".replace("MIN_CHANGE", str(MIN_CHANGE_PX)).replace("DEBOUNCE", str(DEBOUNCE_MS))


def column_px(content: dict) -> float | None:
    """The width [px] in a :class:`ColumnWidth` message, or None for any other message (a width
    outside 100 - 10,000 px is not one a screen reports)."""
    if not isinstance(content, dict) or content.get("event") != "width":
        return None
    try:
        px = float(content.get("px"))
    except (TypeError, ValueError):
        return None
    return px if 100 <= px <= 10_000 else None
