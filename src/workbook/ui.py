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

import ipywidgets as w
import pandas as pd

from . import charts
from .catalog import load_catalog
from .decision import Recommendation, option_row, recommend
from .presets import ARTICLE_ADVICE, article_comparison, presets
from .scenario import ACQUISITIONS, OBJECTIVES, WORKLOADS, Scenario, ScenarioError

log = logging.getLogger("workbook.ui")
DEFAULT_PRESET = "funded-startup-30b-domain"
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
    ],
}
STEP_TITLES = {"model": "1. Model and workload", "budget": "2. Budget and time", "power": "3. Power and cooling",
               "team": "4. Team and software"}
OPTIONAL_ZERO = {"n_active_params", "n_tokens", "rack_limit_kw", "electricity_usd_per_kwh"}

CSS = """
<style>
.wb-headline {font-size: 1.35em; font-weight: 600; line-height: 1.35; margin: 4px 0 8px 0;}
.wb-infeasible {color: #a4161a;}
.wb-error {color: #a4161a; font-size: 0.85em; min-height: 0;}
.wb-busy {color: #555; font-style: italic;}
.wb-small {font-size: 0.85em; color: #444;}
.wb-table table {border-collapse: collapse; font-size: 0.85em;}
.wb-table td, .wb-table th {border-bottom: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top;}
</style>
"""


def _fmt_table(df: pd.DataFrame, max_rows: int = 200) -> str:
    return '<div class="wb-table">' + df.head(max_rows).to_html(index=False, escape=True, border=0) + "</div>"


class WorkbookApp:
    """Build with :func:`build_app`; ``.view`` is the widget to display."""

    def __init__(self, preset: str = DEFAULT_PRESET):
        if preset not in presets:
            raise ValueError(f"preset={preset!r} is unknown; allowed: {', '.join(presets)}")
        self.catalog = load_catalog()
        self.scenario = presets[preset]
        self.preset = preset
        self.rec: Recommendation | None = None
        self._silent = False
        self.inputs: dict[str, w.Widget] = {}
        self.errors: dict[str, w.HTML] = {}
        self._build()
        self._load(self.scenario)
        self.update()

    # --- widgets -----------------------------------------------------------------------------
    def _widget(self, field, label, kind, extra):
        style = {"description_width": "195px"}
        lay = w.Layout(width="360px")
        if kind == "choice":
            wd = w.Dropdown(options=list(extra), description=label, style=style, layout=lay)
        elif kind == "toggle":
            wd = w.ToggleButtons(options=list(extra), description=label, style=style)
        elif kind == "multi":
            wd = w.SelectMultiple(options=list(extra), description=label, rows=5, style=style, layout=lay)
        elif kind == "bool":
            wd = w.Checkbox(description=label, indent=False, layout=lay)
        elif kind == "int":
            wd = w.IntText(description=label, style=style, layout=lay, continuous_update=False)
        else:
            wd = w.FloatText(description=label, style=style, layout=lay, continuous_update=False)
        wd.observe(self._on_change, names="value")
        return wd

    def _build(self):
        steps = []
        for step, fields in FIELDS.items():
            rows = []
            for field, label, kind, extra in fields:
                wd = self._widget(field, label, kind, extra)
                err = w.HTML("", layout=w.Layout(width="360px"))
                err.add_class("wb-error")
                self.inputs[field], self.errors[field] = wd, err
                rows += [wd, err]
            steps.append(w.VBox([w.HTML(f"<b>{STEP_TITLES[step]}</b>"), *rows]))
        self.preset_buttons = []
        for name in presets:
            b = w.Button(description=name, tooltip=ARTICLE_ADVICE[name], layout=w.Layout(width="auto"))
            b.on_click(self._on_preset)
            self.preset_buttons.append(b)
        self.status = w.HTML("")
        self.headline = w.HTML("")
        self.reasons = w.HTML("")
        self.article = w.HTML("")
        self.alternatives = w.HTML("")
        self.downloads = w.HTML("")
        self.csv_button = w.Button(description="Prepare the options table (CSV)", layout=w.Layout(width="auto"))
        self.csv_button.on_click(self.prepare_csv)
        self.csv_link = w.HTML("")
        self.assumptions = w.HTML("")
        self.robustness = w.HTML("")
        alt_mod = __import__("altair")
        alt_mod.JupyterChart.enable_offline()
        self.chart_widget = None
        self.chart_names: list[str] = []
        self.chart_box = w.VBox([])
        left = w.VBox([w.HTML("<b>Scenarios from the article</b>"), w.HBox(self.preset_buttons[:5], layout=w.Layout(flex_flow="row wrap")),
                       w.HBox(self.preset_buttons[5:], layout=w.Layout(flex_flow="row wrap")), *steps],
                      layout=w.Layout(width="385px", min_width="385px"))
        evidence = w.Accordion(children=[self.assumptions], titles=("Every assumption, its source, and the data snapshot",))
        right = w.VBox([self.status, self.headline, self.reasons, self.article, self.alternatives,
                        w.HBox([self.downloads, self.csv_button, self.csv_link]),
                        w.HTML("<h3>Evidence</h3>"), self.chart_box, self.robustness, evidence],
                       layout=w.Layout(flex="1 1 auto", padding="0 0 0 16px"))
        self.view = w.VBox([w.HTML(CSS + "<div class='wb-small'>Every number is sourced (data/*.csv, data/README.md); "
                                   "the app runs offline. Change any input: the recommendation and charts follow.</div>"),
                            w.HBox([left, right])])

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
        def go():
            self.preset = button.description
            self.scenario = presets[self.preset]
            self._load(self.scenario)
            self.update()
        self._guard(go)

    def _guard(self, fn):
        try:
            fn()
        except Exception as e:  # a callback must never fail silently or show a traceback
            log.error("app callback failed: %s\n%s", e, traceback.format_exc())
            self.status.value = (f"<div class='wb-error'>Something went wrong: {html.escape(str(e))}. "
                                 "The last valid recommendation is still shown.</div>")

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
            self.status.value = (self.status.value if self.status.value.startswith("<div class='wb-error'>")
                                 else "<div class='wb-error'>Fix the highlighted field; the recommendation below is for the last valid inputs.</div>")
            return
        self.status.value = "<div class='wb-busy'>Computing the recommendation...</div>"
        t0 = time.perf_counter()
        self.scenario = s
        self.rec = recommend(s, catalog=self.catalog, monte_carlo_samples=MC_SAMPLES)
        self.render()
        self.status.value = (f"<div class='wb-small'>Updated in {time.perf_counter() - t0:.2f} s: "
                             f"{len(self.rec.options):,} options swept.</div>")

    # --- rendering ----------------------------------------------------------------------------------
    def render(self):
        rec = self.rec
        cls = "wb-headline" if rec.feasible else "wb-headline wb-infeasible"
        self.headline.value = f"<div class='{cls}' id='wb-recommendation'>{html.escape(rec.headline)}</div>"
        self.reasons.value = "<ul>" + "".join(f"<li>{html.escape(r)}</li>" for r in rec.reasons) + "</ul>"
        cmp = article_comparison(rec, rec.scenario.name) if rec.scenario.name in presets else ""
        self.article.value = f"<p class='wb-small'><b>Against the article.</b> {html.escape(cmp)}</p>" if cmp else ""
        runners = "".join(f"<li>{html.escape(r.sentence)}</li>" for r in rec.runners_up)
        rejected = pd.DataFrame([(k, "; ".join(v)) for k, v in rec.rejected.items()], columns=["accelerator", "why not"])
        self.alternatives.value = ((f"<h4>Runners-up</h4><ul>{runners}</ul>" if runners else "")
                                   + "<h4>Why not the other accelerators</h4>" + _fmt_table(rejected))
        self.downloads.value = self._downloads()
        self.robustness.value = self._robustness_html()
        self._render_charts()
        self.assumptions.value = self._assumptions_html()

    def _render_charts(self):
        """All charts in one ``JupyterChart``: every instance ships the ~0.9 MB offline Vega bundle, so
        one instance (updated by assigning ``.chart``) keeps the first render and updates light."""
        import altair as alt

        names = list(charts.CHARTS) if self.rec.feasible else ["frontier", "power"]
        chart = alt.vconcat(*[charts.CHARTS[n](self.rec) for n in names]).resolve_scale(color="independent")
        if self.chart_widget is None:
            self.chart_widget = alt.JupyterChart(chart)
            self.chart_box.children = [self.chart_widget]
        else:
            self.chart_widget.chart = chart
        self.chart_names = names

    OPTION_COLUMNS = ["accelerator", "name", "n_gpus", "acquisition", "feasible", "failed", "wall_days",
                      "lead_time_days", "time_to_result_days", "cost_per_run_usd", "cost_per_year_usd",
                      "first_year_cost_usd", "capex_usd", "usd_per_million_tokens", "facility_kw", "racks",
                      "memory_per_gpu_gb", "mfu", "layout", "price_basis"]

    @staticmethod
    def _link(data: bytes, name: str, mime: str, text: str) -> str:
        return f"<a download='{name}' href='data:{mime};base64,{base64.b64encode(data).decode()}'>{text}</a>"

    def _downloads(self) -> str:
        """The scenario (YAML) always; the options table (~1 MB) only on request, to keep updates light."""
        self.csv_link.value = ""
        yml = self.rec.scenario.to_yaml().encode()
        return "<p class='wb-small'>Download: " + self._link(yml, "scenario.yaml", "text/yaml", "this scenario (YAML)") + "</p>"

    def prepare_csv(self, _button=None):
        """Build the all-options CSV link (a few hundred kB; built on click, not on every update)."""
        def go():
            csv = self.rec.options[self.OPTION_COLUMNS].to_csv(index=False).encode()
            self.csv_link.value = ("<p class='wb-small'>" + self._link(csv, "options.csv", "text/csv",
                                   f"options.csv ({len(self.rec.options):,} options, {len(csv) / 1e6:.1f} MB)") + "</p>")
        self._guard(go)

    def _robustness_html(self) -> str:
        rec = self.rec
        if rec.sensitivity is None or rec.sensitivity.empty:
            return ""
        mc = rec.monte_carlo.head(4)
        wins = "; ".join(f"{o} {sh:.0%}" for o, sh in zip(mc["option"], mc["share"]))
        t = rec.sensitivity[["assumption", "low", "high", "pick_at_low", "pick_at_high", "flips_at"]]
        return (f"<h4>How robust is the pick?</h4><p class='wb-small'>Monte Carlo, {MC_SAMPLES} draws of every "
                f"assumption within its range: {html.escape(wins)}.</p>" + _fmt_table(t))

    def _assumptions_html(self) -> str:
        cat = self.catalog
        snap = cat.snapshot()
        a = cat.tables["assumptions"]
        f = cat.tables["facility"]
        glob = pd.concat([a[a["accelerator_id"].isna()], f[f["accelerator_id"].isna()]])
        table = glob[["parameter", "value", "low", "high", "unit", "source_kind", "source_url", "accessed"]]
        top = self.rec.top
        price = ""
        if top is not None:
            row = option_row(self.rec.options, top.accelerator, top.n_gpus, top.acquisition)
            price = (f"<p>Price used for the pick: {row['price']:,.2f} USD "
                     f"({'per GPU' if row['is_buy'] else 'per GPU-hour'}), {html.escape(str(row['price_basis']))}.</p>")
        return (f"<p class='wb-small'>Data snapshot {snap['data_hash']} (latest source read {snap['latest_accessed']}); "
                f"overrides: {len(snap['overrides'])}. Tables in data/*.csv, documented in data/README.md.</p>"
                + price + _fmt_table(table))


def preset_from_query(default: str = DEFAULT_PRESET) -> str:
    """``?preset=name`` deep links (Voila passes the URL's query in QUERY_STRING)."""
    q = parse_qs(os.environ.get("QUERY_STRING", ""))
    name = (q.get("preset") or [default])[0]
    return name if name in presets else default


def build_app(preset: str | None = None) -> w.Widget:
    """The app's root widget; on any failure a readable message instead of a traceback."""
    try:
        return WorkbookApp(preset or preset_from_query()).view
    except Exception as e:  # never a traceback on the executive's page
        log.error("app failed to start: %s\n%s", e, traceback.format_exc())
        return w.HTML(f"<div class='wb-error'>The workbook could not start: {html.escape(str(e))}</div>")
