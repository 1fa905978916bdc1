"""Charts of a recommendation (pure functions from data to ``alt.Chart``) and the one SVG export.

The charts only shape data the decision computed: the rent-vs-buy curve is
:func:`workbook.decide.cost_per_year_curve`, the pick is found with
:func:`workbook.decide.option_position`, the rack limit is :func:`workbook.decide.site_defaults`
of the recommendation's catalog, the options are named by :func:`workbook.text.option_labels`.

The same charts serve the Voila app (stacked in one ``alt.JupyterChart`` after
``alt.JupyterChart.enable_offline()``, then updated by assigning its spec) and the papermill memo
and the guided notebooks (static SVG through vl-convert, :func:`to_svg`), see
../shared/reference/jupyter_stack.md. :data:`CHART_DATA` gives the numbers behind each chart so
tests and nbval can check them without a browser.
"""

from __future__ import annotations

import io
import json
import math
import textwrap

import altair as alt
import numpy as np
import pandas as pd

from ..decide import (
    Recommendation,
    cost_per_year_curve,
    option_position,
    site_defaults,
    tornado_ranges,
)
from ..text import option_labels
from ..units import HOURS_PER_DAY, HOURS_PER_YEAR
from .chart_style import (
    HEIGHT,
    LABEL_LIMIT,
    LEGEND_BELOW_PX,
    MAX_WIDTH,
    MIN_WIDTH,
    USD_LABEL_EXPR,
    WIDTH,
)
from .risk_charts import risk_cost_chart, risk_data, risk_days_chart, wins_chart, wins_data

FRONTIER_COLUMNS = [
    "option",
    "time_to_result_days",
    "cost_per_run_usd",
    "accelerator",
    "acquisition",
    "feasible",
    "pick",
]


def frontier_data(rec: Recommendation) -> pd.DataFrame:
    """Time-vs-cost Pareto frontier (options that pass every static constraint), pick flagged.

    The pick is added from ``rec.options`` when it is not on the frontier (it can be dominated by
    an option that fails a moving constraint such as the budget)."""
    p = rec.pareto.copy()
    if p.empty:
        return pd.DataFrame(columns=FRONTIER_COLUMNS)
    p["option"] = option_labels(p)
    p["pick"] = False
    top = rec.top
    if top is not None:
        pos = option_position(p, top.accelerator, top.n_gpus, top.acquisition)
        if pos is not None:
            p.iloc[pos, p.columns.get_loc("pick")] = True
        else:
            at = option_position(rec.options, top.accelerator, top.n_gpus, top.acquisition)
            row = rec.options.iloc[[at]].copy()
            row["option"] = option_labels(row)
            row["pick"] = True
            p = pd.concat([p, row])
    return p[FRONTIER_COLUMNS]


def frontier_chart(rec: Recommendation) -> alt.Chart:
    """Days to a finished run against cost per run (log-log), the pick and the deadline marked."""
    d = frontier_data(rec)
    base = alt.Chart(d).encode(
        x=alt.X(
            "time_to_result_days:Q",
            title="days to a finished run (lead time + run)",
            scale=alt.Scale(type="log"),
        ),
        y=alt.Y(
            "cost_per_run_usd:Q",
            title="cost per run (USD)",
            scale=alt.Scale(type="log"),
            axis=alt.Axis(labelExpr=USD_LABEL_EXPR),
        ),
        tooltip=[
            alt.Tooltip("option"),
            alt.Tooltip("time_to_result_days:Q", format=",.1f"),
            alt.Tooltip("cost_per_run_usd:Q", format="$,.0f"),
            alt.Tooltip("feasible"),
        ],
    )
    line = base.mark_line(color="#9aa5b1", point=alt.OverlayMarkDef(filled=True, size=50))
    pick = base.transform_filter("datum.pick").mark_point(
        color="#d62728", size=260, shape="diamond", filled=True
    )
    deadline = (
        alt.Chart(pd.DataFrame({"x": [rec.scenario.deadline_days]}))
        .mark_rule(color="#d62728", strokeDash=[4, 4])
        .encode(x=alt.X("x:Q"))
    )
    return (line + pick + deadline).properties(
        width=WIDTH,
        height=HEIGHT,
        title="Time vs cost frontier (red diamond: the pick; dashed: deadline)",
    )


def rent_vs_buy_data(rec: Recommendation, max_runs: float | None = None) -> pd.DataFrame:
    """Cost per year [USD] against runs per year for the pick's accelerator and GPU count, one line
    per acquisition mode (:func:`workbook.decide.cost_per_year_curve`), from 0.25 runs a year to
    ``max_runs`` (default: past the break-even and the scenario's runs) or as many as fit a year."""
    if rec.top is None:
        return pd.DataFrame(columns=["runs_per_year", "acquisition", "cost_per_year_usd"])
    o = rec.options
    same = o[
        (o["accelerator"] == rec.top.accelerator)
        & (o["n_gpus"] == rec.top.n_gpus)
        & np.isfinite(o["price"])
    ]
    s = rec.scenario
    be = rec.breakeven_runs_per_year
    hi = max_runs or max(4.0, 2.5 * s.runs_per_year, 1.5 * be if math.isfinite(be) else 0.0)
    max_fit = HOURS_PER_YEAR / max(1e-9, float(same["wall_days"].min()) * HOURS_PER_DAY)
    runs = np.unique(np.clip(np.linspace(0.25, min(hi, max_fit), 40), 0.25, None))
    curve = cost_per_year_curve(s, same, runs)
    return curve[["runs_per_year", "acquisition", "cost_per_year_usd"]]


def cost_per_year_layers(curve: pd.DataFrame, breakeven_runs_per_year: float | None) -> list:
    """Cost per year against runs per year, one line per acquisition mode, and a dashed green rule
    at the break-even where it falls inside the curve: the rent-vs-buy chart of the app and memo
    (:func:`rent_vs_buy_chart`) and of notebook 03 (:mod:`workbook.present.guide_charts`).

    ``curve``: columns ``runs_per_year`` [runs/yr], ``acquisition``, ``cost_per_year_usd`` [USD/yr]
    (:func:`workbook.decide.cost_per_year_curve`)."""
    lines = (
        alt.Chart(curve)
        .mark_line()
        .encode(
            x=alt.X("runs_per_year:Q", title="runs per year"),
            y=alt.Y(
                "cost_per_year_usd:Q",
                title="cost per year (USD)",
                axis=alt.Axis(labelExpr=USD_LABEL_EXPR),
            ),
            color=alt.Color("acquisition:N", title="acquisition"),
            tooltip=[
                alt.Tooltip("acquisition"),
                alt.Tooltip("runs_per_year:Q", format=".2f"),
                alt.Tooltip("cost_per_year_usd:Q", format="$,.0f"),
            ],
        )
    )
    layers = [lines]
    be = breakeven_runs_per_year
    if be is not None and math.isfinite(be) and len(curve) and be <= curve["runs_per_year"].max():
        layers.append(
            alt.Chart(pd.DataFrame({"x": [be], "label": [f"break-even {be:.1f} runs/yr"]}))
            .mark_rule(color="#2ca02c", strokeDash=[6, 3])
            .encode(x=alt.X("x:Q"), tooltip=[alt.Tooltip("label")])
        )
    return layers


def rent_vs_buy_chart(rec: Recommendation) -> alt.Chart:
    """:func:`rent_vs_buy_data` as lines, with the break-even and the scenario's runs per year."""
    marks = cost_per_year_layers(rent_vs_buy_data(rec), rec.breakeven_runs_per_year)
    marks.append(
        alt.Chart(pd.DataFrame({"x": [rec.scenario.runs_per_year]}))
        .mark_rule(color="#555")
        .encode(x=alt.X("x:Q"))
    )
    title = "Rent vs buy for the pick's cluster (green: break-even; grey: your runs per year)"
    return alt.layer(*marks).properties(width=WIDTH, height=HEIGHT, title=title)


def power_data(rec: Recommendation) -> pd.DataFrame:
    """Heaviest rack of each accelerator's best owned option against the site's rack limit."""
    o = rec.options
    own = (
        o[o["is_buy"] & (o["availability"] == "buy-and-rent")]
        .sort_values(["n_failed", "cost_per_run_usd"])
        .drop_duplicates("accelerator")
    )
    d = own[["accelerator", "n_gpus", "block_kw", "rack_kw", "facility_kw", "racks"]].copy()
    d["rack_kw_needed"] = np.maximum(d["block_kw"], d["rack_kw"])
    d["rack_limit_kw"] = _rack_limit(rec)
    d["fits"] = d["rack_kw_needed"] <= d["rack_limit_kw"] + 1e-9
    return d.sort_values("rack_kw_needed").reset_index(drop=True)


def _rack_limit(rec: Recommendation) -> float:
    """The site's rack limit [kW]: the scenario's, else data/facility.csv's for its cooling."""
    return site_defaults(rec.scenario, rec.catalog)["rack_limit_kw"]


def power_chart(rec: Recommendation) -> alt.Chart:
    """:func:`power_data` as bars against the rack limit (red: does not fit)."""
    d = power_data(rec)
    bars = (
        alt.Chart(d)
        .mark_bar()
        .encode(
            y=alt.Y("accelerator:N", sort="x", title=None),
            x=alt.X(
                "rack_kw_needed:Q", title="kW in the heaviest rack (node, or whole NVL72 rack)"
            ),
            color=alt.Color(
                "fits:N",
                scale=alt.Scale(domain=[True, False], range=["#4c78a8", "#e45756"]),
                title="fits rack",
            ),
            tooltip=[
                alt.Tooltip("accelerator"),
                alt.Tooltip("rack_kw_needed:Q", format=",.1f"),
                alt.Tooltip("facility_kw:Q", format=",.0f"),
                alt.Tooltip("racks"),
            ],
        )
    )
    limit = (
        alt.Chart(pd.DataFrame({"x": [_rack_limit(rec)]}))
        .mark_rule(color="black", strokeDash=[4, 4])
        .encode(x=alt.X("x:Q"))
    )
    return (bars + limit).properties(
        width=WIDTH,
        height=max(HEIGHT, 14 * len(d)),
        title=f"Power per rack vs your {_rack_limit(rec):g} kW limit (owned options)",
    )


def tornado_data(rec: Recommendation) -> pd.DataFrame:
    """The pick's cost per run [USD] at each end of every assumption's range (two rows each),
    each assumption labelled with its range in the reader's units
    (:func:`workbook.decide.tornado_ranges`: ``"Rental prices: $1.05 - $4.58 per GPU-hour"``)."""
    t = rec.sensitivity
    if t is None or t.empty:
        return pd.DataFrame(columns=["assumption", "label", "end", "cost_per_run_usd", "flips"])
    ranges = tornado_ranges(rec, rec.catalog)
    rows = []
    for _, r in t.iterrows():
        label = f"{r['assumption']}: {ranges.get(r['parameter'], '')}".rstrip(": ")
        for end in ("low", "high"):
            rows.append(
                {
                    "assumption": r["assumption"],
                    "label": label,
                    "end": end,
                    "cost_per_run_usd": r[f"cost_per_run_at_{end}"],
                    "flips": r["flips"],
                }
            )
    return pd.DataFrame(rows)


def tornado_chart(rec: Recommendation) -> alt.Chart:
    """:func:`tornado_data` as bars from the pick's cost per run, widest swing first."""
    d = tornado_data(rec)
    base_cost = rec.top.cost_per_run_usd if rec.top is not None else 0.0
    order = list(pd.unique(d["label"])) if len(d) else None
    bars = (
        alt.Chart(d)
        .mark_bar()
        .encode(
            y=alt.Y("label:N", sort=order, title=None),
            x=alt.X(
                "cost_per_run_usd:Q",
                title="cost per run of the pick (USD)",
                scale=alt.Scale(zero=False),
                axis=alt.Axis(labelExpr=USD_LABEL_EXPR),
            ),
            x2=alt.X2("base:Q"),
            color=alt.Color(
                "end:N",
                scale=alt.Scale(domain=["low", "high"], range=["#72b7b2", "#f58518"]),
                title="assumption at",
            ),
            tooltip=[
                alt.Tooltip("assumption"),
                alt.Tooltip("end"),
                alt.Tooltip("cost_per_run_usd:Q", format="$,.0f"),
                alt.Tooltip("flips"),
            ],
        )
        .transform_calculate(base=str(base_cost))
    )
    rule = (
        alt.Chart(pd.DataFrame({"x": [base_cost]})).mark_rule(color="black").encode(x=alt.X("x:Q"))
    )
    return (bars + rule).properties(
        width=WIDTH,
        height=HEIGHT,
        title="Sensitivity: the pick's cost per run across each assumption's range",
    )


#: The recommendation's charts, in the order the app and the memo show them.
CHARTS = {
    "risk_days": risk_days_chart,
    "risk_cost": risk_cost_chart,
    "wins": wins_chart,
    "frontier": frontier_chart,
    "rent_vs_buy": rent_vs_buy_chart,
    "power": power_chart,
    "tornado": tornado_chart,
}
#: The numbers behind each chart of :data:`CHARTS` (what tests and nbval check).
CHART_DATA = {
    "risk_days": risk_data,
    "risk_cost": risk_data,
    "wins": wins_data,
    "frontier": frontier_data,
    "rent_vs_buy": rent_vs_buy_data,
    "power": power_data,
    "tornado": tornado_data,
}


def all_charts(rec: Recommendation) -> dict[str, alt.Chart]:
    """Every chart of :data:`CHARTS` for ``rec``, by name."""
    return {name: fn(rec) for name, fn in CHARTS.items()}


def stacked(parts: list[alt.TopLevelMixin], column_px: float | None = None) -> alt.VConcatChart:
    """``parts`` stacked in one chart sized to a column ``column_px`` wide [px] (the app's, as its
    page reports it; None: the memo's :data:`WIDTH`): the plotting area and the y labels shrink
    with the column, and below :data:`LEGEND_BELOW_PX` the legends go under the charts, so that
    nothing is drawn wider than the column (the charts are not merely scaled down to it)."""
    if column_px is None:
        width, labels, legend = WIDTH, LABEL_LIMIT, "right"
    else:
        legend = "bottom" if column_px < LEGEND_BELOW_PX else "right"
        labels = int(min(LABEL_LIMIT, max(90, 0.38 * column_px)))
        room = column_px - labels - 70 - (130 if legend == "right" else 0)
        width = int(min(MAX_WIDTH, max(MIN_WIDTH, room)))
    sized = [_title_in_lines(p.properties(width=width), width + labels) for p in parts]
    sized, axis = _labels_in_lines(sized, labels)
    return (
        alt.vconcat(*sized)
        .resolve_scale(color="independent")
        .configure_axisY(**axis)
        .configure_legend(orient=legend)
        .configure_title(limit=width + labels)
    )


#: Width allowed for a y label's character at Vega's 10 px sans-serif [px], and the height of its
#: line [px]. Measured in chromium (canvas measureText, 2026-12-07) on the tornado's own labels:
#: 4.5 px a character on average, 5.0 at most for one label; 5.4 leaves room for a wider sans
#: font (the memo's SVG renderer's).
LABEL_CHAR_PX, LABEL_LINE_PX = 5.4, 11


def _labels_in_lines(parts: list, px: int) -> tuple[list, dict]:
    """The y labels of the form "name: range" (the tornado's) that do not fit ``px`` in lines
    that do, the name's first, each label centred on its row and its chart tall enough for its
    rows: a 400 px column cut "Rental prices: $1.05 - $4.58 per GPU-hour" to "Rental prices:
    $1.05 - $4.58 ...", the memo's 260 px "Weeks lost to an immature stack: 2 - 12 weeks a year
    p...". Returns the parts and the y axis configuration (a lookup from each such label to its
    lines: other labels are drawn as they are)."""
    chars = max(12, int(px / LABEL_CHAR_PX))
    lines, out = {}, []
    for part in parts:
        labels = _y_labels(part)
        mine = {
            label: [
                ln
                for piece in label.split(": ", 1)
                for ln in textwrap.wrap(piece, chars, break_on_hyphens=False)
            ]
            for label in labels
            if ": " in label and len(label) > chars
        }
        if mine:
            rows = max(len(v) for v in mine.values()) * LABEL_LINE_PX + 6
            height = part.height if isinstance(part.height, (int, float)) else HEIGHT
            part = part.properties(height=max(height, len(labels) * rows))
        lines |= mine
        out.append(part)
    if not lines:
        return out, {"labelLimit": px}
    table = json.dumps(lines)
    return out, {
        "labelLimit": px,
        "labelExpr": f"{table}[datum.label] || datum.label",
        "labelLineHeight": LABEL_LINE_PX,
        # Vega draws a label's first line on the row's centre and the others below it.
        "labelOffset": {
            "expr": f"-{LABEL_LINE_PX / 2} * (length({table}[datum.label] || [0]) - 1)"
        },
    }


def _y_labels(part) -> list[str]:
    """The ``label`` column of a chart's (or its layers') data: the y labels :func:`tornado_data`
    gives."""
    found = []
    for layer in getattr(part, "layer", None) or [part]:
        data = getattr(layer, "data", None)
        if isinstance(data, pd.DataFrame) and "label" in data:
            found += [x for x in pd.unique(data["label"]) if isinstance(x, str)]
    return list(dict.fromkeys(found))


#: Width allowed for a title's and a subtitle's character at Vega's default sizes (13 px bold,
#: 10 px) [px] (a title is cut beyond its limit). Measured as LABEL_CHAR_PX on the charts' titles:
#: 6.2 px on average, 6.5 at most; subtitles 4.5. Set wider, as LABEL_CHAR_PX is.
TITLE_CHAR_PX, SUBTITLE_CHAR_PX = 7.4, 5.6


def _lines(text, px: float, char_px: float):
    """``text`` as one line if it fits ``px``, else its words in lines that do (Vega draws a list
    as lines)."""
    if not isinstance(text, str) or len(text) * char_px <= px:
        return text
    return textwrap.wrap(text, width=max(12, int(px / char_px)), break_on_hyphens=False)


def _title_in_lines(part: alt.TopLevelMixin, px: float) -> alt.TopLevelMixin:
    """``part`` with its title and subtitle in lines that fit ``px`` (a 400 px column cut
    "Sensitivity: the pick's cost per run across each assumption's range" after "each a")."""
    title = part.title
    if isinstance(title, str):
        return part.properties(title=_lines(title, px, TITLE_CHAR_PX))
    if isinstance(title, alt.TitleParams):
        spec = title.to_dict()
        spec["text"] = _lines(spec.get("text"), px, TITLE_CHAR_PX)
        if "subtitle" in spec:
            spec["subtitle"] = _lines(spec["subtitle"], px, SUBTITLE_CHAR_PX)
        return part.properties(title=alt.TitleParams(**spec))
    return part


def to_svg(chart: alt.TopLevelMixin) -> str:
    """A static SVG of an altair chart for the memo and the guided notebooks (vl-convert in this
    process: no JavaScript, no network).

    ``chart.save`` hands vl-convert the Vega-Lite version that matches altair's schema."""
    buf = io.StringIO()
    # The charts' y labels, as the memo shows them. (``not Undefined`` is False: this was
    # skipped, and the memo's labels were cut at Vega's default 180 px.)
    if getattr(chart, "config", alt.Undefined) is alt.Undefined:
        parts, axis = _labels_in_lines([chart], LABEL_LIMIT)
        chart = parts[0].configure_axisY(**axis)
    chart.save(buf, format="svg")
    return buf.getvalue()
