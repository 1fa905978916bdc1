"""Altair charts of a recommendation: pure functions from data to ``alt.Chart``.

The same charts serve the Voila app (wrapped once each in ``alt.JupyterChart`` after
``alt.JupyterChart.enable_offline()``, then updated by assigning ``.chart``) and the papermill memo
(static SVG through vl-convert), see ../shared/reference/jupyter_stack.md. ``chart_data`` returns
the numbers behind each chart so tests and nbval can check them without a browser.
"""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd

from ..decide import Recommendation, evaluate_arrays, site_defaults
from ..units import HOURS_PER_YEAR

WIDTH, HEIGHT = 520, 260


def _short(r: pd.Series) -> str:
    return f"{r['acquisition']} {int(r['n_gpus'])} x {r['accelerator']}"


def frontier_data(rec: Recommendation) -> pd.DataFrame:
    """Time-vs-cost Pareto frontier (options that pass every static constraint), pick flagged."""
    p = rec.pareto.copy()
    if p.empty:
        return pd.DataFrame(
            columns=[
                "option",
                "time_to_result_days",
                "cost_per_run_usd",
                "accelerator",
                "acquisition",
                "feasible",
                "pick",
            ]
        )
    p["option"] = p.apply(_short, axis=1)
    p["pick"] = False
    if rec.top is not None:
        p["pick"] = (
            (p["accelerator"] == rec.top.accelerator)
            & (p["n_gpus"] == rec.top.n_gpus)
            & (p["acquisition"] == rec.top.acquisition)
        )
        if not p["pick"].any():
            top = rec.options[
                (rec.options["accelerator"] == rec.top.accelerator)
                & (rec.options["n_gpus"] == rec.top.n_gpus)
                & (rec.options["acquisition"] == rec.top.acquisition)
            ].copy()
            top["option"] = top.apply(_short, axis=1)
            top["pick"] = True
            p = pd.concat([p, top])
    return p[
        [
            "option",
            "time_to_result_days",
            "cost_per_run_usd",
            "accelerator",
            "acquisition",
            "feasible",
            "pick",
        ]
    ]


def frontier_chart(rec: Recommendation) -> alt.Chart:
    d = frontier_data(rec)
    base = alt.Chart(d).encode(
        x=alt.X(
            "time_to_result_days:Q",
            title="days to a finished run (lead time + run)",
            scale=alt.Scale(type="log"),
        ),
        y=alt.Y("cost_per_run_usd:Q", title="cost per run (USD)", scale=alt.Scale(type="log")),
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
    """Cost per year against runs per year for the pick's accelerator and GPU count, by mode."""
    if rec.top is None:
        return pd.DataFrame(columns=["runs_per_year", "acquisition", "cost_per_year_usd"])
    o = rec.options
    same = o[
        (o["accelerator"] == rec.top.accelerator)
        & (o["n_gpus"] == rec.top.n_gpus)
        & np.isfinite(o["price"])
    ].copy()
    s = rec.scenario
    be = rec.breakeven_runs_per_year
    hi = max_runs or max(4.0, 2.5 * s.runs_per_year, 1.5 * be if math.isfinite(be) else 0.0)
    max_fit = HOURS_PER_YEAR / max(1e-9, float(same["wall_days"].min()) * 24.0)
    runs = np.unique(np.clip(np.linspace(0.25, min(hi, max_fit), 40), 0.25, None))
    ev = evaluate_arrays(
        s, same, runs_factor=(runs / s.runs_per_year)[:, None]
    )  # one call, (runs, modes)
    cost = np.broadcast_to(ev["cost_per_year_usd"], (len(runs), len(same)))
    modes = same["acquisition"].to_numpy(object)
    return pd.DataFrame(
        {
            "runs_per_year": np.repeat(runs, len(modes)),
            "acquisition": np.tile(modes, len(runs)),
            "cost_per_year_usd": cost.ravel(),
        }
    )


def rent_vs_buy_chart(rec: Recommendation) -> alt.Chart:
    d = rent_vs_buy_data(rec)
    lines = (
        alt.Chart(d)
        .mark_line()
        .encode(
            x=alt.X("runs_per_year:Q", title="runs per year"),
            y=alt.Y("cost_per_year_usd:Q", title="cost per year (USD)"),
            color=alt.Color("acquisition:N", title="acquisition"),
            tooltip=[
                alt.Tooltip("acquisition"),
                alt.Tooltip("runs_per_year:Q", format=".2f"),
                alt.Tooltip("cost_per_year_usd:Q", format="$,.0f"),
            ],
        )
    )
    marks = [lines]
    be = rec.breakeven_runs_per_year
    if math.isfinite(be) and len(d) and be <= d["runs_per_year"].max():
        marks.append(
            alt.Chart(pd.DataFrame({"x": [be], "label": [f"break-even {be:.1f} runs/yr"]}))
            .mark_rule(color="#2ca02c", strokeDash=[6, 3])
            .encode(x=alt.X("x:Q"), tooltip=[alt.Tooltip("label")])
        )
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
    from ..catalog import load_catalog

    return site_defaults(rec.scenario, load_catalog())["rack_limit_kw"]


def power_chart(rec: Recommendation) -> alt.Chart:
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
    t = rec.sensitivity
    if t is None or t.empty:
        return pd.DataFrame(columns=["assumption", "end", "cost_per_run_usd", "flips"])
    rows = []
    for _, r in t.iterrows():
        rows.append(
            {
                "assumption": r["assumption"],
                "end": "low",
                "cost_per_run_usd": r["cost_per_run_at_low"],
                "flips": r["flips"],
            }
        )
        rows.append(
            {
                "assumption": r["assumption"],
                "end": "high",
                "cost_per_run_usd": r["cost_per_run_at_high"],
                "flips": r["flips"],
            }
        )
    return pd.DataFrame(rows)


def tornado_chart(rec: Recommendation) -> alt.Chart:
    d = tornado_data(rec)
    base_cost = rec.top.cost_per_run_usd if rec.top is not None else 0.0
    order = (
        list(rec.sensitivity["assumption"])
        if rec.sensitivity is not None and not rec.sensitivity.empty
        else None
    )
    bars = (
        alt.Chart(d)
        .mark_bar()
        .encode(
            y=alt.Y("assumption:N", sort=order, title=None),
            x=alt.X(
                "cost_per_run_usd:Q",
                title="cost per run of the pick (USD)",
                scale=alt.Scale(zero=False),
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


CHARTS = {
    "frontier": frontier_chart,
    "rent_vs_buy": rent_vs_buy_chart,
    "power": power_chart,
    "tornado": tornado_chart,
}


def all_charts(rec: Recommendation) -> dict[str, alt.Chart]:
    return {name: fn(rec) for name, fn in CHARTS.items()}


def to_svg(chart: alt.Chart) -> str:
    """Static SVG (vl-convert in-process; no JavaScript, no network) for reports."""
    import vl_convert as vlc

    return vlc.vegalite_to_svg(chart.to_dict())
