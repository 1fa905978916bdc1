"""The risk of the recommendation as pictures: the pick and its runners-up as p10 - p50 - p90 bars
of days to a finished run (against the deadline) and of the first year's cost (against the
budget), and how often each accelerator wins the Monte Carlo. Pure functions from a
:class:`workbook.decide.Recommendation` to ``alt.Chart`` (registered in
:data:`workbook.present.charts.CHARTS`); the numbers are :func:`workbook.decide.option_bands` and
the recommendation's ``monte_carlo``.
"""

from __future__ import annotations

import math

import altair as alt
import pandas as pd

from ..decide import Recommendation, monte_carlo_draws, option_bands
from ..text import amount_text, option_labels
from .chart_style import OTHER_COLOUR, PICK_COLOUR, RISK_ROW_PX, USD_LABEL_EXPR, WIDTH


def risk_data(rec: Recommendation) -> pd.DataFrame:
    """The pick and its runners-up with the p10 / p50 / p90 of their days to a finished run and
    first year's cost (:func:`workbook.decide.option_bands`), and the deadline [days] and budget
    [USD] they are held to."""
    d = option_bands(rec)
    d["deadline_days"] = rec.scenario.deadline_days
    d["budget_usd"] = rec.scenario.budget_usd
    return d


#: A deadline or budget more than this many times the farthest p90 drawn is left off the axis
#: (the subtitle says where it is), so that the bars are not squeezed against zero: a 90-day
#: deadline against runs of 2-8 days drew every bar in the first tenth of the chart [ratio].
OFF_SCALE = 3.0


def _off_scale(d: pd.DataFrame, column: str, limit: float) -> float | None:
    """How many times the farthest ``column_p90`` of ``d`` the ``limit`` is, when that is more
    than :data:`OFF_SCALE` (else None: the limit is drawn)."""
    far = float(d[f"{column}_p90"].max()) if len(d) else float("nan")
    if not (math.isfinite(far) and far > 0 and math.isfinite(limit)):
        return None
    times = limit / far
    return times if times > OFF_SCALE else None


def _range_bars(
    d: pd.DataFrame, column: str, title: str, fmt: str, limit: float, what: str, off: float | None
):
    """One bar per option from its ``column_p10`` to ``column_p90``, a tick at ``column_p50`` and a
    dashed rule at ``limit`` (named ``what``), unless the limit is off the scale (``off``:
    :func:`_off_scale`; the axis then ends 5 % past the farthest p90); the pick red. ``fmt``:
    the tooltips' d3 format; a dollar column's axis writes its ticks as
    :data:`.chart_style.USD_LABEL_EXPR` does."""
    order = list(d["option"])
    colour = alt.Color(
        "pick:N",
        scale=alt.Scale(domain=[True, False], range=[PICK_COLOUR, OTHER_COLOUR]),
        legend=None,
    )
    tip = [
        alt.Tooltip("option"),
        *(alt.Tooltip(f"{column}_{q}:Q", format=fmt, title=q) for q in ("p10", "p50", "p90")),
        alt.Tooltip("p_deadline:Q", format=".0%", title="P(by the deadline)"),
        alt.Tooltip("p_budget:Q", format=".0%", title="P(within the budget)"),
    ]
    axis = alt.Axis(labelExpr=USD_LABEL_EXPR) if fmt.startswith("$") else alt.Axis(format=fmt)
    scale = alt.Scale(domain=[0, limit / off * 1.05]) if off else alt.Scale()
    y = alt.Y("option:N", sort=order, title=None)
    base = alt.Chart(d).encode(y=y, color=colour, tooltip=tip)
    bar = base.mark_bar(size=12, opacity=0.55).encode(
        x=alt.X(f"{column}_p10:Q", title=title, axis=axis, scale=scale),
        x2=f"{column}_p90:Q",
    )
    mid = base.mark_tick(thickness=3, size=22).encode(x=f"{column}_p50:Q")
    layers = [bar, mid]
    if off is None:
        layers.append(
            alt.Chart(pd.DataFrame({"x": [limit], "label": [what]}))
            .mark_rule(color="black", strokeDash=[5, 4], strokeWidth=2)
            .encode(x="x:Q", tooltip=[alt.Tooltip("label"), alt.Tooltip("x:Q", format=fmt)])
        )
    height = max(2, len(d)) * RISK_ROW_PX
    return alt.layer(*layers).properties(width=WIDTH, height=height)


def _limit_said(off: float | None, name: str, farthest: str) -> str:
    """The subtitle's words for the limit: ``"dashed: the 90-day deadline"``, or where it is when
    it is off the scale (``off``: :func:`_off_scale`): ``"the 90-day deadline is off the scale,
    11x the longest p90"``."""
    if off is None:
        return f"dashed: the {name}"
    return f"the {name} is off the scale, {off:,.0f}x the {farthest} p90"


def risk_days_chart(rec: Recommendation) -> alt.Chart:
    """:func:`risk_data` as p10-p90 bars of days to a finished run (lead time included), a tick at
    the p50, against the deadline."""
    d = risk_data(rec)
    s = rec.scenario
    off = _off_scale(d, "days", s.deadline_days)
    said = _limit_said(off, f"{s.deadline_days:,.0f}-day deadline", "longest")
    title = alt.TitleParams(
        "Days to a finished run, p10 - p50 - p90", subtitle=f"{said}; red: the pick"
    )
    return _range_bars(
        d,
        "days",
        "days from the decision (lead time + run)",
        ",.0f",
        s.deadline_days,
        f"deadline: day {s.deadline_days:,.0f}",
        off,
    ).properties(title=title)


def risk_cost_chart(rec: Recommendation) -> alt.Chart:
    """:func:`risk_data` as p10-p90 bars of the first year's cost (what the budget holds), a tick
    at the p50, against the budget."""
    d = risk_data(rec)
    b = rec.scenario.budget_usd
    off = _off_scale(d, "first_year_usd", b)
    said = _limit_said(off, f"{amount_text(b)} budget", "highest")
    title = alt.TitleParams("First-year cost, p10 - p50 - p90", subtitle=f"{said}; red: the pick")
    return _range_bars(
        d, "first_year_usd", "first-year cost (USD)", "$,.0f", b, f"budget: {amount_text(b)}", off
    ).properties(title=title)


def wins_data(rec: Recommendation) -> pd.DataFrame:
    """How often each accelerator wins the Monte Carlo: ``accelerator``, ``name``, ``share``
    [fraction of the draws, summed over its options], ``options`` (its winning options, most
    frequent first) and ``pick`` (the pick's accelerator), most frequent first."""
    cols = ["accelerator", "name", "share", "options", "pick"]
    mc = rec.monte_carlo
    if mc is None or mc.empty:
        return pd.DataFrame(columns=cols)
    o = rec.options
    label_to = dict(zip(option_labels(o), zip(o["accelerator"], o["name"])))
    acc = [label_to.get(x, (x, x)) for x in mc["option"]]
    d = pd.DataFrame(
        {
            "accelerator": [a for a, _ in acc],
            "name": [n for _, n in acc],
            "share": mc["share"].to_numpy(float),
            "option": mc["option"].to_numpy(object),
        }
    )
    out = (
        d.groupby(["accelerator", "name"], sort=False)
        .agg(share=("share", "sum"), options=("option", lambda x: ", ".join(x.head(3))))
        .reset_index()
        .sort_values("share", ascending=False, kind="stable")
        .reset_index(drop=True)
    )
    out["pick"] = out["accelerator"] == (rec.top.accelerator if rec.top is not None else None)
    return out[cols]


def wins_chart(rec: Recommendation) -> alt.Chart:
    """:func:`wins_data` as bars of the share of Monte Carlo draws each accelerator wins."""
    d = wins_data(rec)
    draws = monte_carlo_draws(rec.catalog) if rec.catalog is not None else len(d)
    order = list(d["name"])
    base = alt.Chart(d).encode(
        y=alt.Y("name:N", sort=order, title=None),
        x=alt.X(
            "share:Q",
            title="share of the draws it wins",
            axis=alt.Axis(format=".0%"),
            scale=alt.Scale(domain=[0, 1]),
        ),
        tooltip=[
            alt.Tooltip("name"),
            alt.Tooltip("share:Q", format=".1%"),
            alt.Tooltip("options", title="winning options"),
        ],
    )
    bars = base.mark_bar().encode(
        color=alt.Color(
            "pick:N",
            scale=alt.Scale(domain=[True, False], range=[PICK_COLOUR, OTHER_COLOUR]),
            legend=None,
        )
    )
    text = base.mark_text(align="left", dx=3).encode(text=alt.Text("share:Q", format=".0%"))
    return (bars + text).properties(
        width=WIDTH,
        height=max(2, len(d)) * RISK_ROW_PX,
        title=alt.TitleParams(
            "How often each accelerator wins",
            subtitle=f"{draws:,} Monte Carlo draws of the assumptions the time band does not hold; "
            "red: the pick's",
        ),
    )
