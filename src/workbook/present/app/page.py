"""The Voila app: widgets are views of a :class:`Scenario`; callbacks validate, recompute, re-render.

Layout, conclusion first: the recommendation in one sentence, why, the runners-up and why every other
accelerator lost, the article's advice next to the engine's, then the evidence (four charts), then
every assumption with its source and the data snapshot. Inputs walk the reader through model and
workload -> budget -> power and cooling -> team and software, with preset buttons for the article's
scenarios. A bad value shows a readable message next to its field; no callback ever lets a
traceback reach the page (Voila swallows exceptions in callbacks silently: jupyter_stack.md).
"""

from __future__ import annotations

import base64
import html
import logging
import os
import time
import traceback
from urllib.parse import parse_qs

import anywidget
import ipywidgets as w
import pandas as pd
from ipywidgets.widgets.widget_description import DescriptionStyle
from ipywidgets.widgets.widget_string import HTMLStyle

from ...catalog import load_catalog
from ...decide import (
    ACQUISITIONS,
    ARTICLE_ADVICE,
    OBJECTIVES,
    WORKLOADS,
    Recommendation,
    Scenario,
    ScenarioError,
    article_comparison,
    option_row,
    presets,
    recommend,
)
from .. import charts
from .serve import PREVIEW_KEY

log = logging.getLogger("workbook.ui")
DEFAULT_PRESET = "funded-startup-30b-domain"
LABEL_WIDTH, INPUT_WIDTH, COLUMN_WIDTH = (
    "235px",
    "445px",
    "470px",
)  # the longest label fits untruncated
MC_SAMPLES = 300  # fewer than the report's 1,000 keeps an update under a second

# (field, label, widget kind, scale): numbers shown in convenient units, stored in the scenario's.
FIELDS = {
    "model": [
        ("workload", "Workload", "choice", WORKLOADS),
        ("n_params", "Parameters (billions)", "float", 1e9),
        ("n_active_params", "MoE active (B; 0 = dense)", "float", 1e9),
        ("n_tokens", "Tokens (B; 0 = 20 x params)", "float", 1e9),
        ("seq_len", "Sequence length (tokens)", "int", 1),
        ("precision", "Precision", "choice", ("bf16", "fp8")),
    ],
    "budget": [
        ("budget_usd", "Budget, first year (USD)", "float", 1),
        ("deadline_days", "Deadline (days, incl. lead time)", "float", 1),
        ("runs_per_year", "Runs per year", "float", 1),
        ("objective", "Objective", "choice", OBJECTIVES),
        ("acquisition_modes", "Ways to get GPUs", "multi", ACQUISITIONS),
        ("used_hardware_allowed", "Used hardware allowed", "bool", None),
    ],
    "power": [
        ("site_power_kw", "Site power for the cluster (kW)", "float", 1),
        ("rack_limit_kw", "Rack limit (kW; 0 = default)", "float", 1),
        ("cooling", "Cooling", "toggle", ("air", "liquid")),
        ("allow_liquid_retrofit", "Allow a liquid-cooling retrofit", "bool", None),
        ("electricity_usd_per_kwh", "Electricity ($/kWh; 0 = default)", "float", 1),
    ],
    "team": [
        ("team_size", "ML team size (people)", "int", 1),
        ("platform_engineers", "Platform engineers", "int", 1),
        ("rocm_experience", "Team has shipped on ROCm", "bool", None),
        ("time_factor", "Your stack's time vs the engine (x)", "float", 1),
    ],
}
STEP_TITLES = {
    "model": "1. Model and workload",
    "budget": "2. Budget and time",
    "power": "3. Power and cooling",
    "team": "4. Team and software",
}
OPTIONAL_ZERO = {"n_active_params", "n_tokens", "rack_limit_kw", "electricity_usd_per_kwh"}

CSS = """
<style>
.wb-headline {font-size: 1.35em; font-weight: 600; line-height: 1.35; margin: 4px 0 8px 0;}
.wb-infeasible {color: #a4161a;}
.wb-error {color: #a4161a; font-size: 0.85em; min-height: 0;}
.wb-busy {color: #555; font-style: italic;}
.wb-stale {opacity: 0.45; transition: opacity 0.1s;}
#wb-preview {display: none !important;}
.wb-small {font-size: 0.85em; color: #444;}
.wb-table table {border-collapse: collapse; font-size: 0.85em;}
.wb-table td, .wb-table th {border-bottom: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top;}
</style>
"""


class PageReady(anywidget.AnyWidget):
    """Invisible; its view tells the kernel the page is on screen, and the page's URL query (the app
    then applies a ``?preset=`` link and sends the charts)."""

    _esm = (
        "export default { render({ model }) { "
        "model.send({ event: 'rendered', search: window.location.search }); } };"
    )


def _fmt_table(df: pd.DataFrame, max_rows: int = 200) -> str:
    return (
        '<div class="wb-table">'
        + df.head(max_rows).to_html(index=False, escape=True, border=0)
        + "</div>"
    )


class WorkbookApp:
    """Build with :func:`build_app`; ``.view`` is the widget to display."""

    def __init__(self, preset: str = DEFAULT_PRESET):
        if preset not in presets:
            raise ValueError(f"preset={preset!r} is unknown; allowed: {', '.join(presets)}")
        self.catalog = load_catalog()
        self.scenario = presets[preset]
        self.preset = preset
        self.rec: Recommendation | None = None
        self._trust_cache: dict[
            tuple, str
        ] = {}  # time_model_trust per (accelerator, days, time factor) (self.catalog is fixed)
        self._silent = False
        self.inputs: dict[str, w.Widget] = {}
        self.errors: dict[str, w.HTML] = {}
        self._build()
        self._load(self.scenario)
        self.update()

    # --- widgets -----------------------------------------------------------------------------
    def _html(self, value: str = "", layout: w.Layout | None = None) -> w.HTML:
        """An HTML widget sharing one layout and one style model with the others: every model is
        sent to the browser and created there before the page shows, so fewer is a faster first view."""
        return w.HTML(value, layout=layout or self._plain, style=self._html_style)

    def _widget(self, field, label, kind, extra):
        style, lay = self._input_style, self._input_layout
        if kind == "choice":
            wd = w.Dropdown(options=list(extra), description=label, style=style, layout=lay)
        elif kind == "toggle":
            wd = w.ToggleButtons(
                options=list(extra), description=label, style={"description_width": LABEL_WIDTH}
            )
        elif kind == "multi":
            wd = w.SelectMultiple(
                options=list(extra), description=label, rows=5, style=style, layout=lay
            )
        elif kind == "bool":
            wd = w.Checkbox(description=label, indent=False, layout=lay)
        elif kind == "int":
            wd = w.IntText(description=label, style=style, layout=lay, continuous_update=False)
        else:
            wd = w.FloatText(description=label, style=style, layout=lay, continuous_update=False)
        wd.observe(self._on_change, names="value")
        return wd

    def _build(self):
        self._plain, self._html_style = w.Layout(), HTMLStyle()
        self._input_layout, self._input_style = (
            w.Layout(width=INPUT_WIDTH),
            DescriptionStyle(description_width=LABEL_WIDTH),
        )
        steps = []
        for step, fields in FIELDS.items():
            rows = []
            for field, label, kind, extra in fields:
                wd = self._widget(field, label, kind, extra)
                err = self._html("", layout=self._input_layout)
                err.add_class("wb-error")
                self.inputs[field], self.errors[field] = wd, err
                rows += [wd, err]
            steps.append(w.VBox([self._html(f"<b>{STEP_TITLES[step]}</b>"), *rows]))
        self.preset_buttons = []
        auto, button_style = w.Layout(width="auto"), w.ButtonStyle()
        for name in presets:
            b = w.Button(
                description=name, tooltip=ARTICLE_ADVICE[name], layout=auto, style=button_style
            )
            b.on_click(self._on_preset)
            self.preset_buttons.append(b)
        self.status = self._html()
        self.headline = self._html()
        self.reasons = self._html()
        self.article = self._html()
        self.alternatives = self._html()
        self.downloads = self._html()
        self.csv_button = w.Button(
            description="Prepare the options table (CSV)", layout=auto, style=button_style
        )
        self.csv_button.on_click(self.prepare_csv)
        self.csv_link = self._html()
        self.assumptions = self._html()
        self.robustness = self._html()
        alt_mod = __import__("altair")
        alt_mod.JupyterChart.enable_offline()
        self.chart_widget = None
        self.chart = None
        self.chart_names: list[str] = []
        self.page_ready = PageReady()
        self.page_ready.on_msg(
            lambda _widget, content, _buffers: self._guard(lambda: self.on_page(content))
        )
        self.chart_box = w.VBox(
            [self._html("<div class='wb-busy'>Drawing the charts...</div>"), self.page_ready]
        )
        left = w.VBox(
            [
                self._html("<b>Scenarios from the article</b>"),
                w.HBox(self.preset_buttons[:5], layout=w.Layout(flex_flow="row wrap")),
                w.HBox(self.preset_buttons[5:], layout=w.Layout(flex_flow="row wrap")),
                *steps,
            ],
            layout=w.Layout(width=COLUMN_WIDTH, min_width=COLUMN_WIDTH),
        )
        evidence = w.Accordion(
            children=[self.assumptions],
            titles=("Every assumption, its source, and the data snapshot",),
        )
        self.evidence = w.VBox(
            [self._html("<h3>Evidence</h3>"), self.chart_box, self.robustness, evidence]
        )
        right = w.VBox(
            [
                self.status,
                self.headline,
                self.reasons,
                self.article,
                self.alternatives,
                w.HBox([self.downloads, self.csv_button, self.csv_link]),
                self.evidence,
            ],
            layout=w.Layout(flex="1 1 auto", padding="0 0 0 16px"),
        )
        self.view = w.VBox(
            [
                self._html(
                    CSS
                    + "<div class='wb-small'>Every number is sourced (data/*.csv, data/README.md); "
                    "the app runs offline. Change any input: the recommendation and charts follow.</div>"
                ),
                w.HBox([left, right]),
            ]
        )

    # --- state <-> widgets ---------------------------------------------------------------------
    def _load(self, s: Scenario):
        self._silent = True
        try:
            for step in FIELDS.values():
                for field, _, kind, scale in step:
                    v = getattr(s, field)
                    if kind == "multi":
                        v = tuple(v)
                    elif kind in ("float", "int") and field in OPTIONAL_ZERO and v is None:
                        v = 0
                    elif kind == "float":
                        v = float(v) / scale
                    elif kind == "int":
                        v = int(v)
                    self.inputs[field].value = v
        finally:
            self._silent = False

    def read_scenario(self) -> Scenario:
        """The scenario the widgets describe (raises ScenarioError on bad values)."""
        data = self.scenario.model_dump()
        for step in FIELDS.values():
            for field, _, kind, scale in step:
                v = self.inputs[field].value
                if kind == "multi":
                    v = list(v)
                elif kind == "float":
                    v = None if (field in OPTIONAL_ZERO and v == 0) else v * scale
                elif kind == "int" and field in OPTIONAL_ZERO and v == 0:
                    v = None
                data[field] = v
        data["name"] = self.preset if self._matches_preset(data) else "custom"
        return Scenario(**data)

    def _matches_preset(self, data) -> bool:
        p = presets.get(self.preset)
        return p is not None and p.model_dump() == {**data, "name": p.name}

    # --- callbacks ---------------------------------------------------------------------------------
    def _on_change(self, change):
        if not self._silent:
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

    def preview_html(self) -> str:
        """The conclusion as static HTML, hidden by default. The offline Voila template shows it while the
        page's scripts load (about 3 s here), before the live widgets can; the live app's CSS hides it."""
        rec = self.rec
        reasons = "".join(f"<li>{html.escape(r)}</li>" for r in rec.reasons[:3])
        colour = "#333" if rec.feasible else "#a4161a"
        return (
            f"<div class='wb-preview' hidden data-preset='{html.escape(self.preset)}' style='font-family: sans-serif; max-width: 1100px; margin: 16px auto; "
            f"padding: 8px 16px; border-left: 4px solid #268380; color: {colour};'>"
            f"<div style='font-size: 0.85em; color: #555;'>Recommendation for {html.escape(rec.scenario.name)} "
            "(the interactive workbook is loading)</div>"
            f"<div style='font-size: 1.35em; font-weight: 600; line-height: 1.35; margin: 4px 0;'>"
            f"{html.escape(rec.headline)}</div><ul style='font-size: 0.9em;'>{reasons}</ul></div>"
        )

    def show(self):
        """Display the static preview (see :meth:`preview_html`) and then the live app."""
        from IPython.display import display

        display({"text/html": self.preview_html()}, raw=True, metadata={PREVIEW_KEY: True})
        display(self.view)

    def on_page(self, content: dict):
        """The page is on screen (:class:`PageReady`): apply its ``?preset=`` link, then send the charts."""
        self.follow_link(str(content.get("search") or ""))
        self.show_charts()

    def follow_link(self, query: str):
        """Apply ``?preset=name`` from the page's URL query.

        Voila's preheated kernels (voila.json) run the notebook before anyone asks for the page, so the
        app is built with the default scenario and learns the URL from the page itself. (Blocking the
        notebook until the request arrives, ``voila.utils.wait_for_request``, runs into the executor's
        120 s cell timeout when nobody visits for two minutes.) An unknown name keeps the current
        scenario and says so.
        """
        name = _preset_in(query)
        if name is None or name == self.preset:
            return
        if name not in presets:
            self.status.value = (
                f"<div class='wb-error'>The link asks for preset {html.escape(repr(name))}, which does "
                f"not exist; showing {html.escape(self.preset)}. Presets: {html.escape(', '.join(presets))}.</div>"
            )
            return
        self.apply_preset(name)

    def _guard(self, fn):
        try:
            fn()
        except Exception as e:  # a callback must never fail silently or show a traceback
            log.error("app callback failed: %s\n%s", e, traceback.format_exc())
            self.status.value = (
                f"<div class='wb-error'>Something went wrong: {html.escape(str(e))}. "
                "Your inputs are kept; greyed-out parts are from before this change.</div>"
            )

    def update(self):
        """Validate the inputs, recompute, re-render (or show what is wrong next to the field)."""
        for e in self.errors.values():
            e.value = ""
        try:
            s = self.read_scenario()
        except ScenarioError as err:
            for field, value, msg in err.errors:
                key = field.split(".")[0]
                target = self.errors.get(key)
                text = html.escape(f"{msg}" if key == "<scenario>" else f"{value!r}: {msg}")
                if target is not None:
                    target.value = text
                else:
                    self.status.value = f"<div class='wb-error'>{text}</div>"
            self.status.value = (
                self.status.value
                if self.status.value.startswith("<div class='wb-error'>")
                else "<div class='wb-error'>Fix the highlighted field; the recommendation below is for the last valid inputs.</div>"
            )
            return
        # Conclusion first: the headline, reasons and runners-up go out as soon as the sweep is done
        # (ipywidgets sends each change at once); the sensitivity runs and charts follow, greyed meanwhile.
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
        self.rec.add_sensitivity(self.catalog, samples=0)  # the tornado: the charts need it
        self._render_charts()
        self.rec.add_sensitivity(
            self.catalog, samples=MC_SAMPLES, tornado=False
        )  # while the browser draws
        self._render_tables()
        self.evidence.remove_class("wb-stale")
        self.status.value = (
            f"<div class='wb-small'>Updated in {time.perf_counter() - t0:.2f} s "
            f"(recommendation {t1 - t0:.2f} s): {len(self.rec.options):,} options swept.</div>"
        )

    # --- rendering ----------------------------------------------------------------------------------
    def render(self):
        """Show :attr:`rec` in full (the conclusion, then the evidence)."""
        self.render_conclusion()
        self.render_evidence()

    def render_conclusion(self):
        """The headline, why, the article's advice, runners-up, rejections and the YAML download."""
        rec = self.rec
        cls = "wb-headline" if rec.feasible else "wb-headline wb-infeasible"
        self.headline.value = (
            f"<div class='{cls}' id='wb-recommendation'>{html.escape(rec.headline)}</div>"
        )
        self.reasons.value = (
            "<ul>" + "".join(f"<li>{html.escape(r)}</li>" for r in rec.reasons) + "</ul>"
        )
        cmp = article_comparison(rec, rec.scenario.name) if rec.scenario.name in presets else ""
        self.article.value = (
            f"<p class='wb-small'><b>Against the article.</b> {html.escape(cmp)}</p>" if cmp else ""
        )
        runners = "".join(f"<li>{html.escape(r.sentence)}</li>" for r in rec.runners_up)
        rejected = pd.DataFrame(
            [(k, "; ".join(v)) for k, v in rec.rejected.items()], columns=["accelerator", "why not"]
        )
        self.alternatives.value = (
            (f"<h4>Runners-up</h4><ul>{runners}</ul>" if runners else "")
            + "<h4>Why not the other accelerators</h4>"
            + _fmt_table(rejected)
        )
        self.downloads.value = self._downloads()

    def render_evidence(self):
        """The charts, the robustness table (needs :meth:`Recommendation.add_sensitivity`) and the sources."""
        self._render_charts()
        self._render_tables()

    def _render_tables(self):
        self.robustness.value = self._robustness_html()
        self.assumptions.value = self._assumptions_html()

    def _render_charts(self):
        """All charts in one ``JupyterChart``: every instance ships the ~0.9 MB offline Vega bundle, so
        one instance keeps updates light. The instance is created only once the page is on screen
        (:meth:`show_charts`), so the bundle does not delay the first view.

        The spec is built without Altair's schema validation (a tenth of a second per update); the same
        charts are validated for every preset by tests/test_ui.py, and by the memo's SVG export."""
        import altair as alt
        from altair.utils.schemapi import debug_mode

        names = list(charts.CHARTS) if self.rec.feasible else ["frontier", "power"]
        with debug_mode(False):
            self.chart = alt.vconcat(*[charts.CHARTS[n](self.rec) for n in names]).resolve_scale(
                color="independent"
            )
            self.chart_spec = self.chart.to_dict(validate=False)
        self.chart_names = names
        if self.chart_widget is not None:
            self.chart_widget.spec = self.chart_spec

    def show_charts(self, *_msg):
        """Create the chart widget (idempotent); called when the page reports it has rendered."""
        if self.chart_widget is None and self.chart is not None:
            import altair as alt

            self.chart_widget = alt.JupyterChart(self.chart)  # validates once
            self.chart_box.children = [self.chart_widget]

    OPTION_COLUMNS = [
        "accelerator",
        "name",
        "n_gpus",
        "acquisition",
        "feasible",
        "failed",
        "wall_days",
        "lead_time_days",
        "time_to_result_days",
        "cost_per_run_usd",
        "cost_per_year_usd",
        "first_year_cost_usd",
        "capex_usd",
        "usd_per_million_tokens",
        "facility_kw",
        "racks",
        "memory_per_gpu_gb",
        "mfu",
        "layout",
        "price_basis",
    ]

    @staticmethod
    def _link(data: bytes, name: str, mime: str, text: str) -> str:
        return f"<a download='{name}' href='data:{mime};base64,{base64.b64encode(data).decode()}'>{text}</a>"

    def _downloads(self) -> str:
        """The scenario (YAML) always; the options table (~1 MB) only on request, to keep updates light."""
        self.csv_link.value = ""
        yml = self.rec.scenario.to_yaml().encode()
        return (
            "<p class='wb-small'>Download: "
            + self._link(yml, "scenario.yaml", "text/yaml", "this scenario (YAML)")
            + "</p>"
        )

    def prepare_csv(self, _button=None):
        """Build the all-options CSV link (a few hundred kB; built on click, not on every update)."""

        def go():
            csv = self.rec.options[self.OPTION_COLUMNS].to_csv(index=False).encode()
            self.csv_link.value = (
                "<p class='wb-small'>"
                + self._link(
                    csv,
                    "options.csv",
                    "text/csv",
                    f"options.csv ({len(self.rec.options):,} options, {len(csv) / 1e6:.1f} MB)",
                )
                + "</p>"
            )

        self._guard(go)

    def _robustness_html(self) -> str:
        rec = self.rec
        if rec.sensitivity is None or rec.sensitivity.empty:
            return ""
        mc = rec.monte_carlo.head(4)
        wins = "; ".join(f"{o} {sh:.0%}" for o, sh in zip(mc["option"], mc["share"]))
        t = rec.sensitivity[
            ["assumption", "low", "high", "pick_at_low", "pick_at_high", "flips_at"]
        ]
        return (
            f"<h4>How robust is the pick?</h4><p class='wb-small'>Monte Carlo, {MC_SAMPLES} draws of every "
            f"assumption within its range: {html.escape(wins)}.</p>"
            + _fmt_table(t)
            + f"<h4>How far to trust the time estimate</h4><p class='wb-small'>{html.escape(self._trust())}</p>"
        )

    def _trust(self) -> str:
        """:func:`workbook.analyses.time_model_trust` for the pick's accelerator and days (~0.1 s; cached)."""
        from ...calibrate import time_model_trust

        top = self.rec.top
        acc, days = (top.accelerator, top.wall_days) if top is not None else (None, None)
        factor = self.rec.scenario.time_factor
        if (acc, days, factor) not in self._trust_cache:
            self._trust_cache[(acc, days, factor)] = time_model_trust(
                acc, self.catalog, wall_days=days, time_factor=factor
            )
        return self._trust_cache[(acc, days, factor)]

    def _assumptions_html(self) -> str:
        cat = self.catalog
        snap = cat.snapshot()
        a = cat.tables["assumptions"]
        f = cat.tables["facility"]
        glob = pd.concat([a[a["accelerator_id"].isna()], f[f["accelerator_id"].isna()]])
        table = glob[
            ["parameter", "value", "low", "high", "unit", "source_kind", "source_url", "accessed"]
        ]
        top = self.rec.top
        price = ""
        if top is not None:
            row = option_row(self.rec.options, top.accelerator, top.n_gpus, top.acquisition)
            price = (
                f"<p>Price used for the pick: {row['price']:,.2f} USD "
                f"({'per GPU' if row['is_buy'] else 'per GPU-hour'}), {html.escape(str(row['price_basis']))}.</p>"
            )
        return (
            f"<p class='wb-small'>Data snapshot {snap['data_hash']} (latest source read {snap['latest_accessed']}); "
            f"overrides: {len(snap['overrides'])}. Tables in data/*.csv, documented in data/README.md.</p>"
            + price
            + _fmt_table(table)
        )


def _preset_in(query: str) -> str | None:
    """The ``preset`` of a URL query such as ``?preset=band-400b-plus``, or None."""
    return (parse_qs(query.lstrip("?")).get("preset") or [None])[0]


def preset_from_query(default: str = DEFAULT_PRESET) -> str:
    """``?preset=name`` deep links when the kernel starts with the request (Voila then passes the
    URL's query in QUERY_STRING): the named preset if it exists, else ``default``."""
    name = _preset_in(os.environ.get("QUERY_STRING", ""))
    return name if name in presets else default


class FailedApp:
    """What :func:`open_app` returns when the app cannot start: a readable message, no traceback."""

    def __init__(self, error: Exception):
        self.view = w.HTML(
            f"<div class='wb-error'>The workbook could not start: {html.escape(str(error))}</div>"
        )

    def show(self):
        from IPython.display import display

        display(self.view)


def open_app(preset: str | None = None) -> WorkbookApp | FailedApp:
    """The app (``.view`` is the widget to display); on any failure a :class:`FailedApp`."""
    try:
        return WorkbookApp(preset or preset_from_query())
    except Exception as e:  # never a traceback on the executive's page
        log.error("app failed to start: %s\n%s", e, traceback.format_exc())
        return FailedApp(e)


def build_app(preset: str | None = None) -> w.Widget:
    """The app's root widget (see :func:`open_app`)."""
    return open_app(preset).view
