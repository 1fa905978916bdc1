"""Altair charts of the guided notebooks' tables (``notebooks/01_*.ipynb`` ... ``07_*``).

Pure functions from a guide table (a DataFrame of :mod:`workbook.guides` or
:mod:`workbook.calibrate`) to an ``alt.Chart``, the size of :mod:`workbook.present.charts`' charts;
the notebooks render them offline as SVG with :func:`workbook.present.charts.to_svg`. A table
without the columns a chart needs is refused with the missing columns named.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from ..checks import need_columns
from ..model import STEP_COLUMNS
from ..units import TOKENS_PER_MILLION
from .charts import HEIGHT, WIDTH, cost_per_year_layers

__all__ = [
    "accuracy_chart",
    "bandwidth_chart",
    "memory_ledger_chart",
    "power_chart",
    "rent_vs_buy_chart",
    "step_breakdown_chart",
]


#: Terms of the per-GPU memory ledger of :func:`workbook.guides.memory_fit.memory_fit_table` [GB].
_LEDGER_TERMS = ["weights_gb", "grads_gb", "optimizer_gb", "activations_gb"]

_SPLIT_COLORS = {"domain": ["calibration", "holdout"], "range": ["#4c78a8", "#f58518"]}

#: Half-width of the accuracy target band: predictions within +-25 % of the published figure.
_BAND = 0.25


def memory_ledger_chart(table: pd.DataFrame) -> alt.Chart:
    """Stacked bars of the per-GPU memory ledger, usable memory ticked.

    ``table`` is :func:`workbook.guides.memory_fit.memory_fit_table`'s.
    """
    need = {"accelerator", *_LEDGER_TERMS, "usable_gb", "n_gpus"}
    need_columns("table", table, need)
    d = table.copy()
    d["label"] = d["accelerator"] + " x " + d["n_gpus"].astype(str)
    terms = _LEDGER_TERMS
    long = d.melt(id_vars=["label"], value_vars=terms, var_name="term", value_name="gb")
    order = list(d["label"])
    bars = (
        alt.Chart(long)
        .mark_bar()
        .encode(
            y=alt.Y("label:N", sort=order, title=None),
            x=alt.X("sum(gb):Q", title="GB per GPU at the fewest GPUs that fit"),
            color=alt.Color("term:N", sort=terms, title="memory term"),
            order=alt.Order("term_order:Q"),
            tooltip=["label", "term", alt.Tooltip("gb:Q", format=",.1f")],
        )
        .transform_calculate(term_order=f"indexof({terms}, datum.term)")
    )
    ticks = (
        alt.Chart(d)
        .mark_tick(color="black", thickness=2)
        .encode(
            y=alt.Y("label:N", sort=order),
            x="usable_gb:Q",
            tooltip=[alt.Tooltip("usable_gb:Q", format=",.0f")],
        )
    )
    return (bars + ticks).properties(
        width=WIDTH,
        height=max(HEIGHT, 16 * len(d)),
        title="Per-GPU memory ledger (black tick: usable memory)",
    )


def step_breakdown_chart(table: pd.DataFrame) -> alt.Chart:
    """Stacked step-time components per cluster and model, in seconds per million tokens.

    ``table`` is :func:`workbook.guides.speed.speed_table`'s or
    :func:`workbook.guides.speed.network_comparison`'s. Dividing each component by the tokens per
    step makes clusters and model sizes comparable.
    """
    need_columns("table", table, {"global_batch_tokens", *STEP_COLUMNS})
    d = table.copy()
    d["row"] = (d["model"] + ": " if "model" in d else "") + (
        d["cluster"] if "cluster" in d else d["label"]
    )
    long = d.melt(
        id_vars=["row", "global_batch_tokens"],
        value_vars=list(STEP_COLUMNS),
        var_name="component",
        value_name="seconds",
    )
    long["s_per_million_tokens"] = (
        long["seconds"] / long["global_batch_tokens"] * TOKENS_PER_MILLION
    )
    return (
        alt.Chart(long)
        .mark_bar()
        .encode(
            y=alt.Y("row:N", sort=list(d["row"]), title=None),
            x=alt.X(
                "sum(s_per_million_tokens):Q", title="seconds per million tokens (whole cluster)"
            ),
            color=alt.Color("component:N", sort=list(STEP_COLUMNS), title="step component"),
            tooltip=["row", "component", alt.Tooltip("s_per_million_tokens:Q", format=",.2f")],
        )
        .properties(width=WIDTH, height=max(HEIGHT, 18 * len(d)), title="Where the step time goes")
    )


def bandwidth_chart(table: pd.DataFrame) -> alt.Chart:
    """Scatter of FLOP per byte against predicted MFU
    (:func:`workbook.guides.speed.bandwidth_vs_flops`)."""
    need_columns(
        "table", table, {"accelerator", "flop_per_byte", "mfu", "memory_share", "software_maturity"}
    )
    base = alt.Chart(table).encode(
        x=alt.X("flop_per_byte:Q", title="dense FLOP per byte of HBM bandwidth"),
        y=alt.Y("mfu:Q", title="predicted MFU", axis=alt.Axis(format="%")),
        tooltip=[
            "accelerator",
            alt.Tooltip("flop_per_byte:Q", format=",.0f"),
            alt.Tooltip("mfu:Q", format=".1%"),
            alt.Tooltip("memory_share:Q", format=".0%"),
        ],
    )
    dots = base.mark_circle(size=80).encode(
        color=alt.Color("software_maturity:O", title="software maturity")
    )
    return (
        dots + base.mark_text(align="left", dx=6, fontSize=9).encode(text="accelerator")
    ).properties(
        width=WIDTH,
        height=HEIGHT,
        title="Compute-to-bandwidth ratio vs the MFU the engine predicts",
    )


def rent_vs_buy_chart(
    curve: pd.DataFrame, breakeven_runs_per_year: float | None = None
) -> alt.Chart:
    """Lines of cost per year by acquisition mode; a dashed rule at the break-even, if finite.

    ``curve`` is :func:`workbook.guides.rent_vs_buy.rent_vs_buy_curve`'s; the break-even [runs/yr]
    is :func:`workbook.guides.rent_vs_buy.rent_vs_buy_table`'s ``breakeven_runs_per_year``.
    """
    need_columns("curve", curve, {"runs_per_year", "acquisition", "cost_per_year_usd"})
    layers = cost_per_year_layers(curve, breakeven_runs_per_year)
    return alt.layer(*layers).properties(
        width=WIDTH,
        height=HEIGHT,
        title="Rent vs buy: cost per year (green dashed: break-even vs on-demand)",
    )


def power_chart(table: pd.DataFrame) -> alt.Chart:
    """Grouped bars: the article's TDP x GPUs kW against the servers' kW
    (:func:`workbook.guides.power.power_table`)."""
    need_columns("table", table, {"accelerator", "article_kw", "tdp_x_gpus_kw", "it_kw"})
    d = table.assign(article=table["article_kw"].fillna(table["tdp_x_gpus_kw"]))
    long = d.melt(
        id_vars=["accelerator"], value_vars=["article", "it_kw"], var_name="method", value_name="kw"
    )
    long["method"] = long["method"].map(
        {"article": "article: TDP x GPUs", "it_kw": "engine: nodes x (GPUs + host)"}
    )
    return (
        alt.Chart(long)
        .mark_bar()
        .encode(
            y=alt.Y("accelerator:N", title=None),
            yOffset="method:N",
            x=alt.X("kw:Q", title="kW for the GPUs in the table"),
            color=alt.Color("method:N", title=None),
            tooltip=["accelerator", "method", alt.Tooltip("kw:Q", format=",.1f")],
        )
        .properties(
            width=WIDTH,
            height=max(HEIGHT, 40 * len(d)),
            title="Rack power: the article's method vs servers",
        )
    )


def accuracy_chart(table: pd.DataFrame) -> alt.Chart:
    """Predicted vs published GPU-hours on log axes, y = x dashed, the +-25 % band shaded, by
    split (:func:`workbook.calibrate.accuracy_table`)."""
    need_columns(
        "table", table, {"model", "split", "published_gpu_hours", "predicted_gpu_hours", "error"}
    )
    lo = float(min(table["published_gpu_hours"].min(), table["predicted_gpu_hours"].min())) / 1.5
    hi = float(max(table["published_gpu_hours"].max(), table["predicted_gpu_hours"].max())) * 1.5
    x = np.geomspace(lo, hi, 60)
    ref = pd.DataFrame({"x": x, "y": x, "lo": (1 - _BAND) * x, "hi": (1 + _BAND) * x})
    scale = alt.Scale(type="log", domain=[lo, hi], nice=False)
    band = (
        alt.Chart(ref)
        .mark_area(opacity=0.18, color="#9aa5b1")
        .encode(
            x=alt.X("x:Q", scale=scale, title="published GPU-hours"),
            y=alt.Y("lo:Q", scale=scale),
            y2="hi:Q",
        )
    )
    line = (
        alt.Chart(ref)
        .mark_line(color="black", strokeDash=[4, 4])
        .encode(x=alt.X("x:Q", scale=scale), y=alt.Y("y:Q", scale=scale))
    )
    points = (
        alt.Chart(table)
        .mark_circle(size=70, opacity=0.9)
        .encode(
            x=alt.X("published_gpu_hours:Q", scale=scale, title="published GPU-hours"),
            y=alt.Y("predicted_gpu_hours:Q", scale=scale, title="predicted GPU-hours"),
            color=alt.Color("split:N", scale=alt.Scale(**_SPLIT_COLORS), title="split"),
            tooltip=[
                "model",
                "split",
                alt.Tooltip("published_gpu_hours:Q", format=",.0f"),
                alt.Tooltip("predicted_gpu_hours:Q", format=",.0f"),
                alt.Tooltip("error:Q", format="+.0%"),
            ],
        )
    )
    return (band + line + points).properties(
        width=WIDTH,
        height=WIDTH,
        title="Predicted vs published GPU-hours (dashed: y = x; band: +-25%)",
    )
