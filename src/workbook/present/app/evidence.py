"""The app's HTML panels below the headline: the risk line (the pick's chances of meeting the
deadline and the budget, and its p10-p90 bands), what the pick's money buys (its bill), how
robust the pick is (the tornado in the reader's units, as the memo words it), every
assumption with its source, and the static preview shown while the page loads.

Each function takes a :class:`workbook.decide.Recommendation` (and the catalog it was computed
from) and returns HTML; :mod:`.page` puts it in its panels.
"""

from __future__ import annotations

import pandas as pd

from ...catalog import Catalog
from ...decide import (
    Recommendation,
    monte_carlo_draws,
    monte_carlo_scope,
    option_bands,
    option_row,
)
from ...text import (
    CAVEATS_TITLE,
    amount_text,
    keep_together,
    money_text,
    probability_text,
    runs_text,
    snapshot_line,
)
from ..breakdown import bill_frame
from ..format import escape, html_table
from ..memo import tornado_table
from ..summary import monte_carlo_shares_text


def table_html(df: pd.DataFrame, max_rows: int = 200) -> str:
    """The first ``max_rows`` rows of ``df`` as the app's table (:func:`..format.html_table`)."""
    return f'<div class="wb-table">{html_table(df.head(max_rows))}</div>'


def risk_line_html(rec: Recommendation) -> str:
    """The pick's chance of a finished run by the deadline and of a first year within the budget,
    with its p10-p90 days and first-year cost: one line under the headline ("" with no pick),
    its numbers kept with their per cent signs and its ranges unbroken (:func:`keep_together`)."""
    b = option_bands(rec, n=1)
    if b.empty:
        return ""
    r, s = b.iloc[0], rec.scenario
    parts = [
        f"<b>{probability_text(r['p_deadline'])}</b> chance of a finished run by day "
        f"{s.deadline_days:,.0f} (p10-p90 days {r['days_p10']:,.0f}-{r['days_p90']:,.0f})",
        f"<b>{probability_text(r['p_budget'])}</b> chance the first year stays within "
        f"{amount_text(s.budget_usd)} (p10-p90 {money_text(r['first_year_usd_p10'])}-"
        f"{money_text(r['first_year_usd_p90'])})",
    ]
    if s.runs_per_year > 1:
        parts.append(
            f"<b>{probability_text(r['p_schedule'])}</b> chance the year's "
            f"{runs_text(s.runs_per_year)} fit in it"
        )
    return keep_together(
        "<div class='wb-risk' id='wb-risk'>"
        + " &middot; ".join(parts)
        + f" &middot; {probability_text(s.confidence)} required.</div>"
    )


def caveats_html(rec: Recommendation) -> str:
    """What the pick rests on that is unchecked (:attr:`workbook.decide.Recommendation.caveats`:
    an estimated price, a time band widened for want of evidence), each with the best option that
    does not, set apart under the headline rather than run on in its bold ("" with none)."""
    if not rec.caveats:
        return ""
    items = "".join(f"<li>{escape(keep_together(c))}</li>" for c in rec.caveats)
    return (  # inline style: the static preview (:func:`preview_html`) has no app stylesheet
        "<div class='wb-caveats' style='border-left: 4px solid #b07d00; "
        "background: #fff8e6; padding: 4px 10px 2px 12px; margin: 6px 0 8px 0; "
        f"font-size: 0.9em; line-height: 1.4;'><b>{CAVEATS_TITLE}</b>"
        f"<ul style='margin: 2px 0 4px 0; padding-left: 18px;'>{items}</ul></div>"
    )


def bill_html(rec: Recommendation) -> str:
    """What the pick's money buys: its bill line by line (the memo's
    :func:`workbook.present.breakdown.bill_frame`), so that "cost per year" beside "first-year
    cost" explains itself ("" with no pick)."""
    top = rec.top
    if top is None:
        return ""
    row = option_row(rec.options, top.accelerator, top.n_gpus, top.acquisition)
    return (
        "<div class='wb-bill' id='wb-bill'><h4>What the money buys</h4>"
        "<p class='wb-small'>First year: the purchase and a year of running costs. Steady year: "
        "the running costs alone. Cost per year: the purchase spread over the hardware's life "
        "(depreciation and cost of capital) plus the running costs.</p>"
        + table_html(bill_frame(row))
        + "</div>"
    )


def robustness_html(rec: Recommendation, catalog: Catalog, trust: str) -> str:
    """How robust the pick is: the Monte Carlo in a sentence, the tornado table in words (the
    memo's :func:`workbook.present.memo.tornado_table`), and how far to trust the time
    estimate (``trust``)."""
    if rec.sensitivity is None or rec.sensitivity.empty:
        return ""
    wins = monte_carlo_shares_text(rec)  # "" when the Monte Carlo was not run (0 draws)
    monte_carlo = (
        "<p class='wb-small'>Monte Carlo, "
        f"{monte_carlo_draws(catalog):,} draws of {escape(monte_carlo_scope(rec.scenario))}: "
        f"{escape(wins)}.</p>"
        if wins
        else ""
    )
    return (
        "<h4>How robust is the pick?</h4>"
        + monte_carlo
        + table_html(tornado_table(rec))
        + "<h4>How far to trust the time estimate</h4>"
        f"<p class='wb-small'>{escape(trust)}</p>"
    )


def assumptions_html(rec: Recommendation, catalog: Catalog) -> str:
    """Every global assumption and facility figure with its source, the data snapshot, and the
    price the pick was costed at."""
    snap = catalog.snapshot()
    glob = pd.concat([catalog.global_rows("assumptions"), catalog.global_rows("facility")])
    table = glob[
        ["parameter", "value", "low", "high", "unit", "source_kind", "source_url", "accessed"]
    ]
    return (
        f"<p class='wb-small'>D{escape(snapshot_line(snap))[1:]}. "
        "Tables in data/*.csv, documented in data/README.md.</p>"
        + price_html(rec)
        + table_html(table)
    )


def price_html(rec: Recommendation) -> str:
    """The price the pick was costed at, and where it comes from ("" with no pick)."""
    top = rec.top
    if top is None:
        return ""
    row = option_row(rec.options, top.accelerator, top.n_gpus, top.acquisition)
    unit = "per GPU" if row["is_buy"] else "per GPU-hour"
    return (
        f"<p>Price used for the pick: {row['price']:,.2f} USD ({unit}), "
        f"{escape(str(row['price_basis']))}.</p>"
    )


def preview_html(rec: Recommendation, preset: str) -> str:
    """The conclusion as static HTML, hidden by default. The offline Voila template shows it while
    the page's scripts load (about 3 s here), before the live widgets can; the live app's CSS
    hides it."""
    reasons = "".join(f"<li>{escape(keep_together(r))}</li>" for r in rec.reasons[:3])
    colour = "#333" if rec.feasible else "#a4161a"
    return (
        f"<div class='wb-preview' hidden data-preset='{escape(preset)}' "
        "style='font-family: sans-serif; max-width: 1100px; margin: 16px auto; "
        f"padding: 8px 16px; border-left: 4px solid #268380; color: {colour};'>"
        "<div style='font-size: 0.85em; color: #555;'>Recommendation for "
        f"{escape(rec.scenario.name)} (the interactive workbook is loading)</div>"
        "<div style='font-size: 1.35em; font-weight: 600; line-height: 1.35; margin: 4px 0;'>"
        f"{escape(keep_together(rec.verdict))}</div>{caveats_html(rec)}"
        f"<ul style='font-size: 0.9em;'>{reasons}</ul></div>"
    )
