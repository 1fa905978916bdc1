"""The decision memo's content: :func:`memo` builds it from a scenario, in the order a reader needs.

The recommendation in one sentence first, then why, the runners-up and why they lost, the
charts (static SVG, :func:`workbook.present.charts.to_svg`), the sensitivity of the answer, how
far to trust the time estimate, and finally every assumption with its source and the data snapshot.
``notebooks/report.ipynb`` calls :func:`memo` once and displays the result;
:mod:`workbook.present.render` turns that notebook into an HTML / PDF file
(``python -m workbook report``, :mod:`workbook.cli.report`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import warnings
from dataclasses import dataclass

import altair as alt
import pandas as pd

from ..catalog import Catalog, load_catalog
from ..decide import (
    Option,
    Recommendation,
    Scenario,
    ScenarioError,
    monte_carlo_scope,
    option_row,
    recommend,
    tornado_ranges,
)
from ..text import days_text, derived_text, keep_together, overrides_text, params_label
from . import charts
from .breakdown import bill_frame
from .format import (
    cell,
    escape,
    html_table,
    links,
    pick_columns,
    plain_number,
    readable,
    usd_short,
)
from .render import resolve_scenario
from .summary import flip_condition, option_words, summary_section, workbook_version


@dataclass
class Memo:
    """The memo's content. Displays as HTML.

    Attributes
    ----------
    scenario
        The scenario the memo decides.
    recommendation
        The one-sentence answer the memo opens with (:func:`recommendation_sentence`).
    html
        The whole memo, one ``<div class="memo">`` of ``<section>`` elements.
    feasible
        Whether any option meets every constraint.
    """

    scenario: Scenario
    recommendation: str
    html: str
    feasible: bool = True

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return f"Memo({self.recommendation!r})"


def memo(
    scenario: Scenario | str | None = None,
    preset: str = "",
    rec: Recommendation | None = None,
    overrides: str | None = None,
    catalog: Catalog | None = None,
) -> Memo:
    """Build the decision memo for a scenario.

    Parameters
    ----------
    scenario
        A :class:`Scenario`, its YAML text (the report notebook's ``scenario_yaml``), or empty /
        None to use ``preset``.
    preset
        A name in ``workbook.decide.presets``: the scenario when ``scenario`` is empty, else a
        label.
    rec
        A :func:`workbook.decide.recommend` result to present; computed when None.
    overrides
        The path of an overrides CSV the recommendation is computed with (None: shipped data).
    catalog
        The catalog to recommend from (the shipped tables with a user's overrides,
        :func:`workbook.catalog.load_catalog`); when None, the one of ``overrides``.
    """
    if isinstance(scenario, str):
        scenario = Scenario.from_yaml(scenario) if scenario.strip() else None
    if scenario is None:
        if not preset:
            raise ScenarioError([("scenario_yaml", "", "is empty and no preset is given")])
        scenario, preset = resolve_scenario(preset)
    if rec is None:
        catalog = catalog if catalog is not None else load_catalog(overrides)
        rec = recommend(scenario, catalog=catalog)
    sentence = recommendation_sentence(rec)
    sections = [
        summary_section(scenario, rec, sentence, preset),
        _section_recommendation(rec),
        _section_runners_up(rec),
        _section_charts(rec),
        _section_sensitivity(rec),
        _section_trust(rec),
        _section_assumptions(scenario, rec),
    ]
    body = "\n".join(s for s in sections if s)
    # tex2jax_ignore / mathjax_ignore: JupyterLab's MathJax would read "$19,602 ... ($117,612" as
    # TeX (MathJax 3's ignoreHtmlClass; 2's is tex2jax_ignore).
    return Memo(scenario, sentence, f"{MEMO_OPEN}\n{body}\n</div>", rec.feasible)


#: The memo's outer element: JupyterLab's MathJax leaves it alone (no dollar amounts as TeX).
MEMO_OPEN = '<div class="memo tex2jax_ignore mathjax_ignore">'


def recommendation_sentence(rec: Recommendation) -> str:
    """The one sentence the memo opens with: ``rec.verdict`` (the headline without the caveats the
    summary lists under it), or why nothing qualifies."""
    if rec.verdict:
        return rec.verdict
    return "No option meets every constraint" + (f": {rec.reasons[0]}" if rec.reasons else ".")


def _section(section_id: str, title: str, parts: list[str]) -> str:
    """``<section id=...><h2>title</h2>...</section>``, or "" when there are no parts."""
    if not parts:
        return ""
    return "\n".join([f'<section id="{section_id}">', f"<h2>{title}</h2>", *parts, "</section>"])


# --- the recommendation -------------------------------------------------------------------------
#: The pick's figures in the opening table: (Option attribute, row title).
_TOP_FIELDS = (
    ("accelerator", "Accelerator"),
    ("n_gpus", "GPUs"),
    ("acquisition", "Acquisition"),
    ("wall_days", "Run time [days]"),
    ("time_to_result_days", "Decision to result [days]"),
    ("cost_per_run_usd", "Cost per run"),
    ("cost_per_year_usd", "Cost per year"),
    ("first_year_cost_usd", "First-year cost"),
    ("staff_usd_per_year", "Platform engineers a year"),
    ("energy_kwh", "Energy per run [kWh]"),
    ("co2e_kg", "CO2e per run [kg]"),
    ("facility_kw", "Facility power [kW]"),
    ("racks", "Racks"),
    ("layout", "Parallel layout"),
)

#: Fields that describe the buyer's own site: not applicable to a rented cluster.
_SITE_FIELDS = ("facility_kw", "racks")


def _section_recommendation(rec: Recommendation) -> str:
    """The pick in detail and why it wins (the summary above holds the decision itself)."""
    out = []
    top = rec.top
    if top is not None:
        rented = top.acquisition.startswith("rent")
        rows = "".join(
            f"<tr><th>{escape(title)}</th>"
            + (
                "<td>none on your site (rented)</td>"
                if rented and attr in _SITE_FIELDS
                else cell(attr, getattr(top, attr))
            )
            + "</tr>"
            for attr, title in _TOP_FIELDS
        )
        out.append(f"<table>{rows}</table>")
        row = option_row(rec.options, top.accelerator, top.n_gpus, top.acquisition)
        out.append("<h3>What the money buys</h3>")
        out.append(html_table(bill_frame(row)))
    if rec.reasons:
        if top is not None:
            out.append("<h3>Why</h3>")
        items = "".join(f"<li>{escape(keep_together(readable(r)))}</li>" for r in rec.reasons)
        out.append(f"<ul>{items}</ul>")
    title = "The pick and why" if top is not None else "Why nothing qualifies"
    return _section("recommendation", title, out)


# --- runners-up ---------------------------------------------------------------------------------
_OPTION_COLUMNS = (
    "accelerator",
    "n_gpus",
    "acquisition",
    "wall_days",
    "time_to_result_days",
    "cost_per_run_usd",
    "cost_per_year_usd",
    "first_year_cost_usd",
    "facility_kw",
    "racks",
    "failed",
)


#: The attributes of an :class:`~workbook.decide.Option` (``failed`` is a column of the options
#: table only).
_OPTION_FIELDS = {f.name for f in dataclasses.fields(Option)}


def runners_up(rec: Recommendation, n: int = 3) -> pd.DataFrame:
    """The next-best options after ``rec.top`` (``rec.runners_up``; else the next ``n`` distinct
    accelerator x acquisition rows of ``rec.options`` in the engine's order)."""
    if rec.runners_up:
        rows = [
            {
                **{k: getattr(o, k) for k in _OPTION_COLUMNS if k in _OPTION_FIELDS},
                "summary": o.sentence,
            }
            for o in rec.runners_up
        ]
        return pd.DataFrame(rows)
    top, options = rec.top, rec.options
    if top is None or len(options) == 0:
        return pd.DataFrame()
    df = options[options["feasible"]].drop_duplicates(["accelerator", "acquisition"])
    df = df[~((df["accelerator"] == top.accelerator) & (df["acquisition"] == top.acquisition))]
    return pick_columns(df.head(n), _OPTION_COLUMNS)


def _rejected_table(rejected: dict[str, list[str]]) -> pd.DataFrame:
    """One row per accelerator ruled out, with its reasons joined."""
    return pd.DataFrame(
        {
            "accelerator": list(rejected),
            "why not": [
                readable("; ".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v))
                for v in rejected.values()
            ],
        }
    )


def _section_runners_up(rec: Recommendation) -> str:
    out = []
    ru = runners_up(rec)
    if not ru.empty:
        wanted = ("summary", "time_to_result_days", "cost_per_year_usd", "first_year_cost_usd")
        out += ["<h3>Runners-up</h3>", html_table(pick_columns(ru, wanted))]
    if rec.top is None and not rec.nearest.empty:
        out += ["<h3>Nearest misses</h3>", html_table(pick_columns(rec.nearest, _OPTION_COLUMNS))]
    if rec.rejected:
        out += [
            "<h3>Why not the other accelerators</h3>",
            html_table(_rejected_table(rec.rejected)),
        ]
    return _section("runners-up", "Runners-up and why they were not chosen", out)


# --- charts -------------------------------------------------------------------------------------
def chart_specs(rec: Recommendation) -> list[tuple[str, alt.TopLevelMixin]]:
    """The memo's charts as ``[(caption, altair chart), ...]``: every chart of
    :func:`workbook.present.charts.all_charts` whose data (``charts.<name>_data(rec)``) is not
    empty."""
    with warnings.catch_warnings():  # altair's type inference on empty frames: not the reader's
        warnings.simplefilter("ignore", UserWarning)
        return [
            ("", chart)
            for name, chart in charts.all_charts(rec).items()
            if len(charts.CHART_DATA[name](rec))
        ]


def _section_charts(rec: Recommendation) -> str:
    figures = [
        "<figure>"
        + (f"<figcaption>{escape(caption)}</figcaption>" if caption else "")
        + charts.to_svg(chart)
        + "</figure>"
        for caption, chart in chart_specs(rec)
    ]
    return _section("charts", "Evidence", figures)


# --- sensitivity --------------------------------------------------------------------------------
_PARETO_COLUMNS = (
    "accelerator",
    "n_gpus",
    "acquisition",
    "time_to_result_days",
    "cost_per_run_usd",
    "first_year_cost_usd",
    "feasible",
    "failed",
)


def tornado_table(rec: Recommendation) -> pd.DataFrame:
    """The tornado for a reader: each assumption, the range tested in the reader's units (the
    pick's own figures where it pays them: :func:`workbook.decide.tornado_ranges`), today's pick's
    cost per run at both ends, the swing in words when there is none, and whether (and where) the
    pick changes."""
    t = rec.sensitivity
    ranges = tornado_ranges(rec, rec.catalog) if rec.catalog is not None else {}
    rows = []
    for _, r in t.iterrows():
        swing = (
            "none: the pick's cost per run does not move"
            if r["swing_usd"] < 0.5
            else usd_short(r["swing_usd"])
        )
        if r["flips"]:
            new = option_words(rec, str(r["flips_at"]).split(": ", 1)[-1])
            change = f"yes: if {flip_condition(r, rec.scenario)}, the pick becomes {new}"
        else:
            change = "no: the same pick across the whole range"
        rows.append(
            {
                "assumption": r["assumption"],
                "range tested": ranges.get(r["parameter"])
                or f"{plain_number(r['low'])} to {plain_number(r['high'])}",
                "cost per run at low": usd_short(r["cost_per_run_at_low"]),
                "cost per run at high": usd_short(r["cost_per_run_at_high"]),
                "swing": swing,
                "changes the pick": change,
            }
        )
    return pd.DataFrame(rows)


def monte_carlo_table(rec: Recommendation, n: int = 10) -> pd.DataFrame:
    """The Monte Carlo's most frequent winners, named in words, with their share of the draws."""
    mc = rec.monte_carlo.head(n)
    return pd.DataFrame(
        {"option": [option_words(rec, o) for o in mc["option"]], "share": mc["share"].to_numpy()}
    )


def _section_sensitivity(rec: Recommendation) -> str:
    parts = []
    if not rec.sensitivity.empty:
        parts += [
            "<h3>One assumption at a time, over its stated range (tornado)</h3>",
            html_table(tornado_table(rec)),
        ]
    if not rec.monte_carlo.empty:
        parts += [
            "<h3>How often each option wins when the assumptions move at once (Monte Carlo)</h3>",
            f"<p>Draws of {escape(monte_carlo_scope(rec.scenario))}.</p>",
            html_table(monte_carlo_table(rec)),
        ]
    if not rec.pareto.empty:
        parts += [
            "<h3>Pareto front: time to result against cost per run</h3>",
            html_table(pick_columns(rec.pareto, _PARETO_COLUMNS)),
        ]
    return _section("sensitivity", "Trade-offs and sensitivity", parts)


def _section_trust(rec: Recommendation) -> str:
    return _section("trust", "How far to trust the time estimate", [f"<p>{escape(rec.trust)}</p>"])


# --- assumptions --------------------------------------------------------------------------------
def _scenario_table(scenario: Scenario) -> pd.DataFrame:
    """Every scenario field with its value, meaning, and whether the scenario set it."""
    rows = []
    for name, f in Scenario.model_fields.items():
        value = getattr(scenario, name)
        default = f.get_default(call_default_factory=True) if not f.is_required() else None
        given = f.is_required() or value != default
        if isinstance(value, list):
            value = ", ".join(map(str, value))
        elif isinstance(value, dict):  # model_shape: its fields in order
            value = ", ".join(
                f"{k} {v:,}" if type(v) is int else f"{k} {v}" for k, v in value.items()
            )
        rows.append(
            {
                "field": name,
                "value": "default" if value is None else value,
                "meaning": f.description or "",
                "source": "scenario" if given else "default (workbook.decide.Scenario)",
            }
        )
    df = pd.DataFrame(rows)
    df["value"] = [field_text(f, v) for f, v in zip(df["field"], df["value"])]
    return df


def field_text(name: str, value) -> str:
    """A scenario field's value for a reader: ``30B parameters``, ``$3.0M``, ``120 days``,
    ``200 kW``; never scientific notation."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not isinstance(value, (int, float)):
        return str(value)
    if name in ("n_params", "n_active_params"):
        return f"{params_label(value)} parameters"
    if name == "n_tokens":
        return f"{params_label(value)} tokens"
    if name.endswith("_usd"):
        return usd_short(value)
    if name.endswith("_days"):
        return days_text(value)
    if name.endswith("_kw"):
        return f"{value:,.0f} kW"
    if name == "seq_len":
        return f"{value:,.0f} tokens"
    return plain_number(value)


def _param_table(table: pd.DataFrame, accelerator: str | None) -> pd.DataFrame:
    """The rows of a key-value table (assumptions, facility) for every accelerator and for
    ``accelerator``, in file order, with their range and linked sources."""
    mask = table["accelerator_id"].isna()
    if accelerator:
        mask |= table["accelerator_id"] == accelerator
    df = table[mask].copy()
    df["range"] = [
        "" if pd.isna(lo) and pd.isna(hi) else f"{plain_number(lo)} to {plain_number(hi)}"
        for lo, hi in zip(df["low"], df["high"])
    ]
    df["value"] = df["value"].map(plain_number)
    df["for"] = df["accelerator_id"].fillna("all")
    df["source"] = df["source_url"].map(links)
    return df[["parameter", "for", "value", "unit", "range", "source_kind", "source", "accessed"]]


def _price_table(prices: pd.DataFrame, accelerator: str | None) -> pd.DataFrame:
    """The default prices of ``accelerator`` (per GPU to buy, per GPU-hour to rent)."""
    if not accelerator:
        return pd.DataFrame()
    df = prices[(prices["accelerator_id"] == accelerator) & prices["is_default"]].copy()
    if df.empty:
        return df
    df["price"] = [
        f"${g:,.0f} per GPU" if pd.notna(g) else f"${h:,.2f} per GPU-hour"
        for g, h in zip(df["price_usd_per_gpu"], df["price_usd_per_gpu_hour"])
    ]
    df["source"] = df["source_url"].map(links)
    return df[["kind", "price", "provider", "price_date", "source_kind", "source", "accessed"]]


def _provenance(snapshot: dict) -> str:
    """The data snapshot line: hash, latest source, overrides, when and by which version."""
    applied = overrides_text(snapshot.get("overrides") or [])
    moved = derived_text(snapshot.get("derived") or [])
    applied = escape(applied + (f"; derived prices recomputed: {moved}" if moved else ""))
    generated = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        '<p class="provenance">'
        f"data hash <code>{escape(snapshot.get('data_hash'))}</code>, latest source accessed "
        f"{escape(snapshot.get('latest_accessed'))}, overrides: {applied}"
        f"; generated {generated} by workbook {escape(workbook_version())}.</p>"
    )


def _section_assumptions(scenario: Scenario, rec: Recommendation) -> str:
    cat: Catalog = rec.catalog
    accelerator = rec.top.accelerator if rec.top is not None else None
    out = [
        "<h3>Scenario</h3>",
        html_table(_scenario_table(scenario)),
        "<h3>Model assumptions (data/assumptions.csv)</h3>",
        html_table(_param_table(cat.tables["assumptions"], accelerator), raw=["source"]),
        "<h3>Facility (data/facility.csv)</h3>",
        html_table(_param_table(cat.tables["facility"], accelerator), raw=["source"]),
    ]
    prices = _price_table(cat.tables["prices"], accelerator)
    if not prices.empty:
        out += [
            f"<h3>Prices of {escape(accelerator)} (data/prices.csv)</h3>",
            html_table(prices, raw=["source"]),
        ]
    out += ["<h3>Data snapshot</h3>", _provenance(rec.snapshot or cat.snapshot())]
    return _section("assumptions", "Assumptions and sources", out)
