"""The control panel of the guided notebooks: widgets built from a parameter spec, one view that
re-renders when a widget changes.

One implementation for notebooks 01-05 and 08 (:mod:`workbook.guides.panels`,
:mod:`workbook.guides.recommendation`). A guide gives

* its :class:`Control` list: which parameters get a widget, the kind (a log or linear slider, a
  whole-number slider, a drop-down, a check box), the range and the unit the widget shows
  (``scale``: parameter value = widget value x scale, so 70e9 parameters show as 70 billion);
* the parameters' values (the notebook's papermill ``parameters`` cell), which seed the widgets;
* ``render(values) -> Rendered``: the tables, charts and sentences for those values.

:class:`GuidePanel` renders once with the parameters as given (a bad value raises there, so
papermill stops with the message), then builds the widgets and re-renders on every change. A bad
value typed into a widget becomes one message in the panel's status line and leaves the view as
it was (an exception inside a widget callback is otherwise silent in Voila). Tables are shown
for people (:func:`workbook.present.format.people_table`), charts as static SVG
(:func:`workbook.present.charts.to_svg`), all in one ``HTML`` widget (no ``Output`` capture,
which can stall a headless run: ../shared/reference/jupyter_stack.md). What a guide hands on to
notebook 08 (``Rendered.carry``) is saved to the choices file after each change
(:mod:`workbook.guides.choices`); the parameters cell alone never writes it.
"""

from __future__ import annotations

import html
import logging
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import altair as alt
import ipywidgets as w
import pandas as pd

from ..present.charts import to_svg
from ..present.format import people_table
from .choices import save_choices

__all__ = ["Control", "GuidePanel", "Rendered", "part_html"]

log = logging.getLogger(__name__)

KINDS = ("log", "float", "int", "choice", "bool")
#: Widths of a control's label and of the whole control.
LABEL_WIDTH, CONTROL_WIDTH = "230px", "470px"
#: Slider readouts: three significant digits with thousands separators, never 1e+03.
FLOAT_FORMAT, INT_FORMAT = ",.3r", ",d"


@dataclass(frozen=True)
class Control:
    """One parameter's widget.

    ``kind``: ``log`` (a log slider from ``lo`` to ``hi``), ``float`` (a slider with ``step``),
    ``int`` (a whole-number slider), ``choice`` (a drop-down of ``options``), ``bool``. Bounds
    and ``step`` are in the widget's unit; the parameter is the widget value x ``scale``.
    """

    name: str
    label: str
    kind: str
    lo: float | None = None
    hi: float | None = None
    step: float | None = None
    options: tuple = ()
    scale: float = 1.0

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"Control {self.name}: kind={self.kind!r}; allowed: {KINDS}")
        if self.kind in ("log", "float", "int") and (self.lo is None or self.hi is None):
            raise ValueError(f"Control {self.name}: a {self.kind} slider needs lo and hi")
        if self.kind == "choice" and not self.options:
            raise ValueError(f"Control {self.name}: a choice needs options")


@dataclass
class Rendered:
    """What a guide shows for one set of values: a headline sentence, titled parts (a table, an
    altair chart or a sentence each), the tables its summary cell prints (``data``) and the
    choices it hands on to notebook 08 (``carry``, Scenario field names)."""

    headline: str
    parts: list[tuple[str, Any]] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    carry: dict[str, Any] = field(default_factory=dict)


def part_html(title: str, item: Any) -> str:
    """One titled part as HTML: a frame as a people table, a chart as SVG, text escaped."""
    head = f"<h4>{html.escape(title)}</h4>" if title else ""
    if isinstance(item, pd.DataFrame):
        body = people_table(item).hide(axis="index").to_html()
    elif isinstance(item, alt.TopLevelMixin):
        body = f'<div class="wb-chart">{to_svg(item)}</div>'
    elif isinstance(item, (list, tuple)):
        body = "<ul>" + "".join(f"<li>{html.escape(str(x))}</li>" for x in item) + "</ul>"
    else:
        body = f"<p>{html.escape(str(item))}</p>"
    return head + body


def _widget(c: Control, shown: Any) -> w.ValueWidget:
    """The widget of ``c`` showing ``shown`` (in the widget's unit); a slider's range is widened
    to hold a value from the parameters cell outside it, never clamped."""
    style = {"description_width": LABEL_WIDTH}
    common = {"description": c.label, "style": style, "layout": w.Layout(width=CONTROL_WIDTH)}
    if c.kind == "choice":
        options = list(c.options) + ([shown] if shown not in c.options else [])
        return w.Dropdown(options=options, value=shown, **common)
    if c.kind == "bool":
        return w.Checkbox(value=bool(shown), indent=False, **common)
    lo, hi = min(c.lo, shown), max(c.hi, shown)
    slider = {"continuous_update": False, **common}
    if c.kind == "log":
        return w.FloatLogSlider(
            value=shown,
            base=10,
            min=math.log10(lo),
            max=math.log10(hi),
            step=c.step or 0.01,
            readout_format=FLOAT_FORMAT,
            **slider,
        )
    if c.kind == "int":
        step = int(c.step or 1)
        return w.IntSlider(
            value=int(shown),
            min=int(lo),
            max=int(hi),
            step=step,
            readout_format=INT_FORMAT,
            **slider,
        )
    return w.FloatSlider(
        value=shown,
        min=lo,
        max=hi,
        step=c.step or (hi - lo) / 100,
        readout_format=FLOAT_FORMAT,
        **slider,
    )


def _shown(c: Control, value: Any) -> Any:
    """The widget value for parameter ``value``."""
    if c.kind in ("log", "float"):
        return float(value) / c.scale
    if c.kind == "int":
        return int(value)
    return value


class GuidePanel:
    """Widgets for ``controls`` seeded from ``values``, over one view re-rendered on change.

    Parameters
    ----------
    controls : list of Control
        The parameters that get a widget (each must be a key of ``values``).
    values : mapping
        Every parameter ``render`` takes, as the notebook's parameters cell set them.
    render : callable
        ``render(values) -> Rendered``; raises ``ValueError`` for bad values.
    guide : str
        The notebook's name, recorded with the choices it saves.
    choices_file : str or None
        Where the choices (``Rendered.carry``) are saved after a change; None saves nothing.
    """

    def __init__(
        self,
        controls: list[Control],
        values: Mapping[str, Any],
        render: Callable[[dict], Rendered],
        guide: str,
        choices_file: str | None = None,
    ):
        missing = [c.name for c in controls if c.name not in values]
        if missing:
            raise ValueError(f"controls without a value: {', '.join(missing)}")
        self.controls, self.render, self.guide = list(controls), render, guide
        self.choices_file = choices_file
        self.values, self._start = dict(values), dict(values)
        self.result = render(dict(self.values))  # the parameters as given: errors raise here
        self._initial = {c.name: _shown(c, values[c.name]) for c in controls}
        self.widgets = {c.name: _widget(c, self._initial[c.name]) for c in controls}
        self.status = w.HTML(layout=w.Layout(min_height="1.6em"))
        self.view = w.HTML(self._html(self.result))
        for widget in self.widgets.values():
            widget.observe(self._changed, names="value")
        self.box = w.VBox(
            [w.VBox(list(self.widgets.values())), self.status, self.view],
            layout=w.Layout(width="100%"),
        )
        self.box.add_class("wb-guide")

    def read(self) -> dict[str, Any]:
        """The parameters the widgets describe: a widget still at its initial value gives the
        parameter exactly as passed (no float round trip through the widget's unit)."""
        values = dict(self.values)
        for c in self.controls:
            shown = self.widgets[c.name].value
            if shown == self._initial[c.name]:
                values[c.name] = self._start[c.name]
            elif c.kind in ("log", "float"):
                values[c.name] = float(shown) * c.scale
            else:
                values[c.name] = shown
        return values

    def _html(self, r: Rendered) -> str:
        parts = "".join(part_html(t, item) for t, item in r.parts)
        return (
            '<div class="wb-guide-view mathjax_ignore tex2jax_ignore">'
            f'<p class="wb-headline"><b>{html.escape(r.headline)}</b></p>{parts}</div>'
        )

    def set(self, **values: Any) -> None:
        """Set widgets as a reader would, by parameter value (tests; scripted walkthroughs)."""
        for name, v in values.items():
            c = next(c for c in self.controls if c.name == name)
            self.widgets[name].value = _shown(c, v)

    def _changed(self, _change=None) -> None:
        """Re-render for the widgets' values; a failure becomes the status line."""
        values = self.read()
        try:
            result = self.render(dict(values))
        except ValueError as e:  # includes ScenarioError: field, value and what is allowed
            self.status.value = f'<span style="color:#b00020">Not updated: {html.escape(str(e))}'
            self.status.value += "</span>"
            return
        except Exception as e:  # noqa: BLE001 - a callback must not fail silently
            log.exception("guide %s: render failed", self.guide)
            self.status.value = (
                f'<span style="color:#b00020">Not updated: {html.escape(type(e).__name__)}: '
                f"{html.escape(str(e)[:300])}</span>"
            )
            return
        self.values, self.result = values, result
        self.view.value = self._html(result)
        self.status.value = self._save(result)

    def _save(self, result: Rendered) -> str:
        """Save the choices; the status line says where (or why not)."""
        if not self.choices_file or not result.carry:
            return "Updated."
        try:
            path = save_choices(self.choices_file, self.guide, result.carry)
        except (ValueError, OSError) as e:
            return f"Updated; choices not saved: {html.escape(str(e))}"
        return f"Updated; your choices are saved in {html.escape(path.name)} for notebook 08."

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)
