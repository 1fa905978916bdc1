"""The Voila app: widgets are views of a :class:`Scenario`; callbacks validate, recompute,
re-render.

Layout, conclusion first: the recommendation in one sentence, why, the runners-up and why every
other accelerator lost, the article's advice next to the engine's, then the evidence (four charts),
then every assumption with its source and the data snapshot. Inputs (:mod:`.form`) walk the reader
through model and workload -> budget -> power and cooling -> team and software, with preset buttons
for the article's scenarios. A bad value shows a readable message next to its field; no callback
ever lets a traceback reach the page (Voila swallows exceptions in callbacks silently:
jupyter_stack.md). ``notebooks/app.ipynb`` calls :func:`open_app` and shows it.
"""

from __future__ import annotations

import logging
import time
import traceback

import altair as alt
import ipywidgets as w
import pandas as pd
from altair.utils.schemapi import debug_mode
from ipywidgets.widgets.widget_string import HTMLStyle

from ...catalog import load_catalog
from ...decide import (
    ARTICLE_ADVICE,
    Recommendation,
    Scenario,
    ScenarioError,
    article_comparison,
    presets,
    recommend,
)
from ...text import keep_together, shown
from ...units import MEGA
from .. import charts
from ..format import download_link, escape
from .evidence import (
    assumptions_html,
    bill_html,
    caveats_html,
    preview_html,
    risk_line_html,
    robustness_html,
    table_html,
)
from .form import (
    COLUMN_WIDTH,
    DEFAULT_PRESET,
    FROM_CONFIG,
    INPUT_WIDTH,
    build_form,
    preset_from_query,
    preset_in,
    scenario_from_values,
)
from .heartbeat import Liveness, PageReady
from .model_upload import ModelConfigPanel
from .serve import PREVIEW_KEY
from .style import CSS, INTRO
from .uploads import OverridesPanel
from .viewport import ColumnWidth, column_px
from .warm import leave_preview

log = logging.getLogger("workbook.ui")

FIX_FIELD = (
    "<div class='wb-error'>Fix the highlighted field; the recommendation below is for the last "
    "valid inputs.</div>"
)
#: Columns of the options CSV download.
OPTION_COLUMNS = (
    "accelerator name n_gpus acquisition feasible failed wall_days lead_time_days "
    "time_to_result_days cost_per_run_usd cost_per_year_usd first_year_cost_usd capex_usd "
    "staff_usd_per_year energy_kwh co2e_kg usd_per_million_tokens facility_kw racks "
    "memory_per_gpu_gb mfu layout price_basis"
).split()


class WorkbookApp:
    """Build with :func:`build_app`; ``.view`` is the widget to display."""

    def __init__(self, preset: str = DEFAULT_PRESET, overrides: str | None = None):
        if preset not in presets:
            raise ValueError(f"preset={preset!r} is unknown; allowed: {', '.join(presets)}")
        self.catalog = load_catalog(overrides)
        self.scenario = presets[preset]
        self.preset = preset
        self.rec: Recommendation | None = None
        #: Recommendation.trust per (accelerator, days, time factor): ~0.1 s that an input change
        #: keeping the pick need not pay again (cleared when the catalog changes).
        self._trust_cache: dict[tuple, str] = {}
        self._silent = False
        self._build()
        self._load(self.scenario)
        self.update()

    # --- widgets -------------------------------------------------------------------------------
    def _html(self, value: str = "", layout: w.Layout | None = None) -> w.HTML:
        """An HTML widget sharing one layout and one style model with the others: every model is
        sent to the browser and created there before the page shows, so fewer is a faster first
        view."""
        return w.HTML(value, layout=layout or self._plain, style=self._html_style)

    def _build(self):
        self._plain, self._html_style = w.Layout(), HTMLStyle()
        self._auto, self._button_style = w.Layout(width="auto"), w.ButtonStyle()
        self.model_config = ModelConfigPanel(
            lambda: self.scenario, self.set_model_scenario, self._html, self._button
        )
        more = {"model": [self.model_config.box]}
        self.form = build_form(self._on_change, self._html, w.Layout(width=INPUT_WIDTH), more)
        self.inputs, self.errors = self.form.inputs, self.form.errors
        self._build_presets()
        self.overrides = OverridesPanel(self.catalog, self.set_catalog, self._html, self._button)
        self._build_outputs()
        self._build_charts()
        main = w.HBox([self._left(), self._right()])
        main.add_class("wb-main")
        self.view = w.VBox([self._html(CSS + INTRO), main])

    def _button(self, description: str, on_click, **kwargs) -> w.Button:
        """A button sharing one layout and one style model with the others (see :meth:`_html`)."""
        b = w.Button(description=description, layout=self._auto, style=self._button_style, **kwargs)
        b.on_click(on_click)
        return b

    def _build_presets(self):
        self.preset_buttons = [
            self._button(name, self._on_preset, tooltip=ARTICLE_ADVICE[name]) for name in presets
        ]
        self.reset_button = self._button(
            "Reset",
            lambda _b: self._guard(self.reset),
            icon="undo",
            tooltip="Every input back to the active scenario's values",
        )
        self.preset_note = self._html()

    def _mark_preset(self):
        """The active preset's button highlighted; the note says whether the inputs still equal
        it."""
        for b in self.preset_buttons:
            b.button_style = "primary" if b.description == self.preset else ""
        edited = self.rec is not None and self.rec.scenario.name != self.preset
        self.preset_note.value = (
            f"<span class='wb-small'>Active: <b>{escape(self.preset)}</b>"
            + (", edited (Reset brings its values back)" if edited else "")
            + "</span>"
        )

    def _build_outputs(self):
        """The conclusion's and the evidence's HTML panels, and the CSV button."""
        self.status, self.headline, self.reasons, self.article = (self._html() for _ in range(4))
        self.risk_line, self.bill = self._html(), self._html()
        self.alternatives, self.downloads = self._html(), self._html()
        self.csv_button = self._button("Prepare the options table (CSV)", self.prepare_csv)
        self.csv_link, self.assumptions, self.robustness = (self._html() for _ in range(3))

    def _build_charts(self):
        alt.JupyterChart.enable_offline()
        self.chart_widget = self.chart = None
        self.chart_names: list[str] = []
        self.page_ready = PageReady()
        self.liveness = Liveness(self.page_ready)
        self.page_ready.on_msg(
            lambda _widget, content, _buffers: self._guard(lambda: self.on_page(content))
        )
        #: The chart column's width on the visitor's screen [px] (None until the page says).
        self.column_px: float | None = None
        self.column_width = ColumnWidth()
        self.column_width.on_msg(
            lambda _widget, content, _buffers: self._guard(lambda: self.on_width(content))
        )
        self.chart_box = w.VBox(
            [
                self._html("<div class='wb-busy'>Drawing the charts...</div>"),
                self.page_ready,
                self.column_width,
            ]
        ).add_class("wb-charts")

    def _left(self) -> w.VBox:
        """The preset buttons, then the four steps of inputs."""
        return w.VBox(
            [
                self._html("<b>Scenarios from the article</b>"),
                w.HBox(self.preset_buttons[:5], layout=w.Layout(flex_flow="row wrap")),
                w.HBox(self.preset_buttons[5:], layout=w.Layout(flex_flow="row wrap")),
                w.HBox(
                    [self.preset_note, self.reset_button],
                    layout=w.Layout(flex_flow="row wrap", align_items="center"),
                ),
                self.overrides.box,
                *self.form.steps,
            ],
            layout=w.Layout(width=COLUMN_WIDTH, min_width=COLUMN_WIDTH),
        ).add_class("wb-inputs")

    def _right(self) -> w.VBox:
        """The conclusion first, then the evidence."""
        evidence = w.Accordion(
            children=[self.assumptions],
            titles=("Every assumption, its source, and the data snapshot",),
        )
        self.evidence = w.VBox(
            [self._html("<h3>Evidence</h3>"), self.chart_box, self.robustness, evidence]
        )
        return w.VBox(
            [
                self.status,
                self.headline,
                self.risk_line,
                self.bill,
                self.reasons,
                self.article,
                self.alternatives,
                w.HBox([self.downloads, self.csv_button, self.csv_link]),
                self.evidence,
            ],
            layout=w.Layout(flex="1 1 auto", padding="0 0 0 16px"),
        ).add_class("wb-results")

    # --- state <-> widgets ---------------------------------------------------------------------
    def _load(self, s: Scenario, fields=None):
        self._silent = True
        try:
            self.form.load(s, fields)
        finally:
            self._silent = False
        self.model_config.sync(s)

    def read_scenario(self) -> Scenario:
        """The scenario the widgets describe (raises ScenarioError on bad values)."""
        return scenario_from_values(self.scenario, self.form.values(), self.preset)

    # --- callbacks -----------------------------------------------------------------------------
    def _on_change(self, change):
        if not self._silent:
            self._guard(self.update)

    def set_catalog(self, catalog):
        """Use ``catalog`` (the shipped data with the user's overrides) from now on, and
        recompute."""
        self.catalog = catalog
        self._trust_cache.clear()
        self._guard(self.update)

    def set_model_scenario(self, s: Scenario):
        """Plan with ``s``: the active scenario with an uploaded model config (its sizes from the
        file, and a framework file's sequence length) or without it (the sizes from before); the
        other inputs stay as typed."""
        self.scenario = s
        self._load(s, fields=(*FROM_CONFIG, "seq_len"))
        self._guard(self.update)

    def _on_preset(self, button):
        self._guard(lambda: self.apply_preset(button.description))

    def apply_preset(self, name: str):
        """Load the article's scenario ``name`` into the inputs and recompute."""
        if name not in presets:
            raise ValueError(f"preset={name!r} is unknown; allowed: {', '.join(presets)}")
        self.preset = name
        self.scenario = presets[name]
        self._load(self.scenario)
        self.update()

    def reset(self):
        """Every input back to the active preset's values (the article's scenario), recomputed."""
        self.apply_preset(self.preset)

    def preview_html(self) -> str:
        """The conclusion as static HTML (:func:`.evidence.preview_html`)."""
        return preview_html(self.rec, self.preset)

    def show(self):
        """Display the static preview (see :meth:`preview_html`) and then the live app."""
        from IPython.display import display

        display({"text/html": self.preview_html()}, raw=True, metadata={PREVIEW_KEY: True})
        leave_preview(self.preview_html())  # for the server's wait page (make app only)
        display(self.view)

    def on_page(self, content: dict):
        """A message of the page (:class:`PageReady`): answer a heartbeat; or the page is on
        screen: apply its ``?preset=`` link, then send the charts."""
        if self.liveness.answer(content):
            return
        self.follow_link(str(content.get("search") or ""))
        self.show_charts()

    def follow_link(self, query: str):
        """Apply ``?preset=name`` from the page's URL query.

        Voila's preheated kernels (voila.json) run the notebook before anyone asks for the page,
        so the app starts with the default scenario and learns the URL from the page itself
        (``voila.utils.wait_for_request`` would block into the executor's 120 s cell timeout when
        nobody visits for two minutes). An unknown name keeps the scenario and says so.
        """
        name = preset_in(query)
        if name is None or name == self.preset:
            return
        if name not in presets:
            self.status.value = (
                f"<div class='wb-error'>The link asks for preset {escape(repr(name))}, which "
                f"does not exist; showing {escape(self.preset)}. "
                f"Presets: {escape(', '.join(presets))}.</div>"
            )
            return
        self.apply_preset(name)

    def _guard(self, fn):
        try:
            fn()
        except Exception as e:  # a callback must never fail silently or show a traceback
            log.error("app callback failed: %s\n%s", e, traceback.format_exc())
            self.status.value = (
                f"<div class='wb-error'>Something went wrong: {escape(str(e))}. "
                "Your inputs are kept; greyed-out parts are from before this change.</div>"
            )

    def _show_errors(self, err: ScenarioError):
        """Each bad value next to its field (a whole-scenario problem in the status line)."""
        for field, value, msg in err.errors:
            key = field.split(".")[0]
            target = self.errors.get(key)
            text = escape(f"{msg}" if key == "<scenario>" else f"{shown(value)}: {msg}")
            if target is not None:
                target.value = text
                self.form.reveal(key)
            else:
                self.status.value = f"<div class='wb-error'>{text}</div>"
        if not self.status.value.startswith("<div class='wb-error'>"):
            self.status.value = FIX_FIELD

    def update(self):
        """Validate the inputs, recompute, re-render (or show what is wrong next to the field)."""
        for e in self.errors.values():
            e.value = ""
        try:
            s = self.read_scenario()
        except ScenarioError as err:
            self._show_errors(err)
            return
        # Conclusion first: the headline, reasons and runners-up go out as soon as the sweep is
        # done (ipywidgets sends each change at once); the sensitivity runs and charts follow,
        # greyed meanwhile.
        self.status.value = "<div class='wb-busy'>Computing the recommendation...</div>"
        for part in (self.headline, self.evidence):
            part.add_class("wb-stale")
        t0 = time.perf_counter()
        self.scenario = s
        self.rec = recommend(s, catalog=self.catalog, sensitivity=False)
        self.render_conclusion()
        self.headline.remove_class("wb-stale")
        t1 = time.perf_counter()
        self.status.value = (
            f"<div class='wb-busy'>Recommendation updated in {t1 - t0:.2f} s; "
            "drawing the evidence (sensitivity and charts)...</div>"
        )
        # The tornado and the Monte Carlo (data/assumptions.csv monte_carlo_draws, as the memo):
        # the charts draw both.
        self.rec.add_sensitivity(self.catalog)
        self._render_charts()
        self._render_tables()
        self.evidence.remove_class("wb-stale")
        self.status.value = (
            f"<div class='wb-small'>Updated in {time.perf_counter() - t0:.2f} s "
            f"(recommendation {t1 - t0:.2f} s): {len(self.rec.options):,} options swept.</div>"
        )

    # --- rendering -----------------------------------------------------------------------------
    def render_conclusion(self):
        """The headline, why, the article's advice, runners-up, rejections and the YAML download."""
        rec = self.rec
        cls = "wb-headline" if rec.feasible else "wb-headline wb-infeasible"
        self.headline.value = (
            f"<div class='{cls}' id='wb-recommendation'>{escape(keep_together(rec.verdict))}</div>"
        )
        self.risk_line.value = risk_line_html(rec) + caveats_html(rec)
        self.bill.value = bill_html(rec)
        self._mark_preset()
        self.reasons.value = (
            "<ul>" + "".join(f"<li>{escape(keep_together(r))}</li>" for r in rec.reasons) + "</ul>"
        )
        cmp = article_comparison(rec, rec.scenario.name) if rec.scenario.name in presets else ""
        self.article.value = (
            f"<p class='wb-small'><b>Against the article.</b> {escape(cmp)}</p>" if cmp else ""
        )
        runners = "".join(f"<li>{escape(r.sentence)}</li>" for r in rec.runners_up)
        rejected = pd.DataFrame(
            [(k, "; ".join(v)) for k, v in rec.rejected.items()], columns=["accelerator", "why not"]
        )
        self.alternatives.value = (
            (f"<h4>Runners-up</h4><ul>{runners}</ul>" if runners else "")
            + "<h4>Why not the other accelerators</h4>"
            + table_html(rejected)
        )
        self.downloads.value = self._downloads()

    def _render_tables(self):
        self.robustness.value = robustness_html(self.rec, self.catalog, self._trust())
        self.assumptions.value = assumptions_html(self.rec, self.catalog)

    def _render_charts(self):
        """All charts in one ``JupyterChart``: every instance ships the ~0.9 MB offline Vega bundle,
        so one instance keeps updates light. The instance is created only once the page is on
        screen (:meth:`show_charts`), so the bundle does not delay the first view.

        The spec is built without Altair's schema validation (a tenth of a second per update); the
        same charts are validated for every preset by tests/present/test_page.py, and by the memo's
        SVG export."""
        names = list(charts.CHARTS) if self.rec.feasible else ["frontier", "power"]
        with debug_mode(False):
            parts = [charts.CHARTS[n](self.rec) for n in names]
            self.chart = charts.stacked(parts, self.column_px)
            self.chart_spec = self.chart.to_dict(validate=False)
        self.chart_names = names
        if self.chart_widget is not None:
            self.chart_widget.spec = self.chart_spec

    def show_charts(self, *_msg):
        """Create the chart widget (idempotent); called when the page reports it has rendered."""
        if self.chart_widget is None and self.chart is not None:
            self.chart_widget = alt.JupyterChart(self.chart)  # validates once
            # PageReady stays on the page: its view carries the heartbeat; ColumnWidth the width.
            self.chart_box.children = [self.chart_widget, self.page_ready, self.column_width]

    def on_width(self, content: dict):
        """The chart column's width on screen changed: redraw the charts at that width (the
        recommendation is not recomputed)."""
        px = column_px(content)
        if px is None or px == self.column_px:
            return
        self.column_px = px
        if self.rec is not None and self.chart is not None:
            self._render_charts()

    def _downloads(self) -> str:
        """The scenario (YAML, with the model config it refers to) always; the options table
        (~1 MB) only on request, to keep updates light."""
        self.csv_link.value = ""
        return self.model_config.downloads_html(self.rec.scenario)

    def prepare_csv(self, _button=None):
        """Build the all-options CSV link (a few hundred kB; built on click, not on every
        update)."""

        def go():
            csv = self.rec.options[OPTION_COLUMNS].to_csv(index=False).encode()
            n, size_mb = len(self.rec.options), len(csv) / MEGA
            text = f"options.csv ({n:,} options, {size_mb:.1f} MB)"
            self.csv_link.value = (
                f"<p class='wb-small'>{download_link(csv, 'options.csv', 'text/csv', text)}</p>"
            )

        self._guard(go)

    def _trust(self) -> str:
        """:attr:`Recommendation.trust` of the pick, cached per accelerator, days and time factor
        (~0.1 s each)."""
        top = self.rec.top
        acc, days = (top.accelerator, top.wall_days) if top is not None else (None, None)
        key = (acc, days, self.rec.scenario.time_factor)
        if key not in self._trust_cache:
            self._trust_cache[key] = self.rec.trust
        return self._trust_cache[key]


class FailedApp:
    """What :func:`open_app` returns when the app cannot start: a readable message, no traceback."""

    def __init__(self, error: Exception):
        self.view = w.HTML(
            f"<div class='wb-error'>The workbook could not start: {escape(str(error))}</div>"
        )

    def show(self):
        from IPython.display import display

        display(self.view)


def open_app(preset: str | None = None, overrides: str | None = None) -> WorkbookApp | FailedApp:
    """The app (``.view`` is the widget to display), on the shipped data with the overrides file
    ``overrides`` (a path) if given; on any failure a :class:`FailedApp`."""
    try:
        return WorkbookApp(preset or preset_from_query(), overrides)
    except Exception as e:  # never a traceback on the executive's page
        log.error("app failed to start: %s\n%s", e, traceback.format_exc())
        return FailedApp(e)


def build_app(preset: str | None = None) -> w.Widget:
    """The app's root widget (see :func:`open_app`)."""
    return open_app(preset).view
