"""The memo's first page: the executive summary (:func:`summary_section`).

The decision in one sentence; what it costs per run, per year and in the first year, with what
each figure includes (capex against running costs); the days of a run and to a finished run,
lead time included, against the deadline and the published runs' spread; the two or three
assumptions that could flip the pick (the tornado, :func:`workbook.decide.tornado`) and how often
it wins when all of them move (the Monte Carlo); the article's advice beside the engine's; and
the date, scenario, data snapshot and overrides. Everything here is read from the
:class:`~workbook.decide.Recommendation`; nothing is computed that the engine did not.
"""

from __future__ import annotations

import datetime as dt
import re
from importlib.metadata import PackageNotFoundError, version

import pandas as pd

from ..decide import (
    Recommendation,
    Scenario,
    article_comparison,
    monte_carlo_scope,
    option_bands,
    option_row,
    presets,
)
from ..text import (
    CAVEATS_TITLE,
    MODE_AFTER_NAME,
    MODE_PHRASE,
    amount_text,
    co2e_text,
    days_text,
    duration_text,
    keep_together,
    kwh_text,
    money_text,
    option_label,
    overrides_text,
    params_label,
    probability_text,
    runs_text,
    split_option_label,
)
from .format import escape, readable, share_text, usd_short

#: Most flipping assumptions named on the first page.
MAX_RISKS = 3


def summary_section(scenario: Scenario, rec: Recommendation, sentence: str, preset: str) -> str:
    """The executive summary as one ``<section id="summary">``."""
    label = scenario.name + (f" (preset {preset})" if preset and preset != scenario.name else "")
    out = [
        '<section id="summary">',
        f"<h1>Decision memo: {escape(label)}</h1>",
        f'<p class="meta">{escape(meta_line(scenario, rec))}</p>',
        f'<p class="recommendation{"" if rec.feasible else " infeasible"}">'
        f"{escape(keep_together(readable(sentence)))}</p>",
    ]
    if rec.caveats:  # an estimated price, a widened time band: apart from the bold sentence
        items = "".join(f"<li>{escape(keep_together(readable(c)))}</li>" for c in rec.caveats)
        out.append(f'<div class="caveats"><b>{CAVEATS_TITLE}</b><ul>{items}</ul></div>')
    out.append(f'<p class="workload">{escape(workload_line(scenario))}</p>')
    if rec.top is not None:
        rows = "".join(
            f"<tr><th>{escape(k)}</th><td class='num'>{escape(v)}</td><td>{escape(why)}</td></tr>"
            for k, v, why in key_figures(scenario, rec)
        )
        out.append(f'<table class="key-figures">{rows}</table>')
    if rec.top is None and rec.reasons:
        out += [
            "<h3>Why nothing qualifies</h3>",
            "<ul>"
            + "".join(
                f"<li>{escape(keep_together(readable(r)))}</li>"
                for r in rec.reasons_beside_headline[:3]
            )
            + "</ul>",
        ]
    risk_items = risks(rec)
    if risk_items:
        out += [
            "<h3>What could change the decision</h3>",
            "<ul>" + "".join(f"<li>{escape(r)}</li>" for r in risk_items) + "</ul>",
        ]
    cmp = article_comparison(rec, scenario.name) if scenario.name in presets else ""
    if cmp:
        out += ["<h3>The article's advice beside the engine's</h3>", f"<p>{escape(cmp)}</p>"]
    out.append("</section>")
    return "\n".join(out)


def meta_line(scenario: Scenario, rec: Recommendation) -> str:
    """Date, scenario, data snapshot and overrides in one line."""
    snap = rec.snapshot or {}
    date = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"{date} · prepared by the GPU training decision workbook {workbook_version()} · "
        f"scenario {scenario.name} · data snapshot {snap.get('data_hash', 'n/a')} "
        f"(sources accessed up to {snap.get('latest_accessed', 'n/a')}) · overrides: "
        f"{overrides_text(snap.get('overrides') or [])}"
    )


def workload_line(s: Scenario) -> str:
    """The job and its limits in words: 30B parameters on 100B tokens, deadline, budget."""
    active = (
        f" ({params_label(s.n_active_params)} active)"
        if s.n_active_params and s.n_active_params != s.n_params
        else ""
    )
    return (
        f"The job: {s.workload} of {params_label(s.n_params)} parameters{active} on "
        f"{params_label(s.tokens)} tokens, {runs_text(s.runs_per_year)} a year; deadline "
        f"{days_text(s.deadline_days)} from the decision; first-year budget "
        f"{amount_text(s.budget_usd)}; site power {s.site_power_kw:,.0f} kW, {s.cooling} cooling."
    )


def key_figures(s: Scenario, rec: Recommendation) -> list[tuple[str, str, str]]:
    """The pick's money and time as (figure, value, what it includes) rows."""
    top = rec.top
    money = _owned_money(s, rec) if top.capex_usd > 0 else _rented_money(s, rec)
    return money + [
        ("Run", duration_text(top.wall_days), "one training run, goodput and time factor included"),
        (
            "Decision to finished run",
            days_text(top.time_to_result_days),
            f"lead time {days_text(top.lead_time_days)} + the run",
        ),
        ("Deadline", days_text(s.deadline_days), deadline_text(s, rec)),
        *_energy_figures(rec),
    ]


def _energy_figures(rec: Recommendation) -> list[tuple[str, str, str]]:
    """A run's energy and emissions, with the PUE and grid intensity they are counted at."""
    top = rec.top
    row = option_row(rec.options, top.accelerator, top.n_gpus, top.acquisition)
    where = "the site's" if top.capex_usd > 0 else "the cloud's"
    return [
        (
            "Energy per run",
            kwh_text(top.energy_kwh),
            f"IT power x {where} PUE {row['run_pue']:.2f} x the run's hours",
        ),
        (
            "CO2e per run",
            co2e_text(top.co2e_kg),
            f"the energy x the grid's {row['grid_kg_co2e_per_kwh']:.3f} kg CO2e/kWh",
        ),
    ]


def _owned_money(s: Scenario, rec: Recommendation) -> list[tuple[str, str, str]]:
    """Capex, first-year opex, first-year cost, cost per year and per run of an owned cluster."""
    top = rec.top
    row = option_row(rec.options, top.accelerator, top.n_gpus, top.acquisition)
    runs = runs_text(s.runs_per_year)
    return [
        (
            "Capex (purchase)",
            usd_short(top.capex_usd),
            "paid once, up front: GPUs, servers, network, spares, setup and burn-in (and any "
            "cooling retrofit)",
        ),
        (
            "Opex, first year",
            usd_short(top.first_year_cost_usd - top.capex_usd),
            "energy at the site's PUE, colocation of the racks, storage and the support "
            "contract for a year" + _staff_words(top.staff_usd_per_year),
        ),
        (
            "First-year cost",
            usd_short(top.first_year_cost_usd),
            f"cash out in year one: capex + first-year opex; the budget is "
            f"{amount_text(s.budget_usd)}",
        ),
        (
            "Cost per year",
            usd_short(top.cost_per_year_usd),
            "owning, spread over the hardware's life: depreciation of the purchase less resale, "
            "cost of capital, colocation, energy, storage, support"
            f"{' and staff' if top.staff_usd_per_year else ''}"
            f" ({_life(row)}); {runs}",
        ),
        ("Cost per run", usd_short(top.cost_per_run_usd), f"the cost per year / {runs}"),
    ]


def _rented_money(s: Scenario, rec: Recommendation) -> list[tuple[str, str, str]]:
    """Capex (none), cost per run, per year and the first year of a rented cluster."""
    top = rec.top
    runs = runs_text(s.runs_per_year)
    spot = " (spot: preemption overhead included)" if top.acquisition == "rent-spot" else ""
    year = (
        "a year's reservation of the cluster, its runs included"
        if top.acquisition == "rent-reserved"
        else f"{runs} x the cost per run"
    )
    return [
        ("Capex (purchase)", "$0", "nothing is bought: rented, all of it is opex"),
        (
            "Cost per run",
            usd_short(top.cost_per_run_usd),
            f"the run's GPU-hours at the rental price{spot}, with the year's storage "
            "spread over its runs",
        ),
        ("Cost per year", usd_short(top.cost_per_year_usd), year),
        (
            "First-year cost",
            usd_short(top.first_year_cost_usd),
            "the same as the cost per year when renting; the budget is "
            f"{amount_text(s.budget_usd)}",
        ),
    ]


def _staff_words(staff_usd_per_year: float) -> str:
    """The staff part of an owned cluster's opex, in words ('' when it has none)."""
    if not staff_usd_per_year:
        return ""
    return f", and its platform engineers ({usd_short(staff_usd_per_year)} a year)"


def _life(row: pd.Series | None) -> str:
    if row is None or pd.isna(row.get("life_years")):
        return "over its life"
    return f"{row['life_years']:g}-year life, {row['resale']:.0%} resale"


def deadline_text(s: Scenario, rec: Recommendation) -> str:
    """Whether the pick meets the deadline as the headline says it: the probability of a finished
    run by then (its band, lead time included) against the confidence the scenario asks, and the
    day it finishes at the slow end of its band (p90). Before 2026-12-02 this row compared the
    slack with the published whole runs' spread around the engine, a level the pick's median was
    not at (a typical median already includes the runs' median)."""
    top = option_row(rec.options, rec.top.accelerator, rec.top.n_gpus, rec.top.acquisition)
    p, need = float(top["p_deadline"]), probability_text(s.confidence)
    late = float(option_bands(rec, n=1).iloc[0]["days_p90"])  # a new cluster's delivery counted
    tail = f"at the slow end of its band (p90) it finishes on day {days_text(late, unit=False)}"
    if s.runs_per_year > 1:
        tail += (
            f"; its {runs_text(s.runs_per_year)} fit in the year with "
            f"{probability_text(float(top['p_schedule']))} probability"
        )
    if p >= s.confidence:
        return f"met with {probability_text(p)} probability ({need} required); {tail}"
    chance = (
        f"{probability_text(p, s.confidence)} probability of a finished run by then "
        f"({need} required)"
    )
    return f"at risk: {chance}; {tail}"


# --- the risks ----------------------------------------------------------------------------------
def option_words(rec: Recommendation, label: str) -> str:
    """An option label of the tornado / Monte Carlo (:func:`workbook.text.option_label`: ``buy-new
    8 x b200-hgx``) in words: ``buy new 8 x NVIDIA B200 (HGX B200, 180 GB)``; the label itself
    when it names no option of ``rec``."""
    mode, n, accelerator = split_option_label(label)
    o = rec.options
    names = o.loc[o["accelerator"] == accelerator, "name"]
    if mode not in MODE_PHRASE or not n.isdigit() or names.empty:
        return label
    return f"{MODE_PHRASE[mode]} {n} x {names.iloc[0]}"


_SET_VALUE = re.compile(r"^(?P<name>\w+) = (?P<value>\S+)$")


def _gpu_hours_between(rate: float) -> str:
    """GPU-hours between failures at ``rate`` per GPU-hour, to three figures: ``50,800``."""
    return f"{float(f'{1.0 / rate:.3g}'):,.0f}"


def flip_condition(row: pd.Series, s: Scenario) -> str:
    """Where a tornado row's pick changes, as a condition in the reader's units."""
    point = str(row["flips_at"]).split(": ", 1)[0]
    m = _SET_VALUE.match(point)
    if m and m["name"] == "gemm_efficiency":
        # The constant, not an MFU a reader knows (the range column gives the pick's MFU): the
        # change, with the constant beside it.
        at, base = float(m["value"]), float(row["base"])
        how = "slower" if at < base else "faster"
        return (
            f"matrix multiplies run {abs(at / base - 1):.0%} {how} than the engine's constants "
            f"say (matmul efficiency {at:.2f}, not {base:.2f})"
        )
    if m and m["name"] == "failure_rate_per_gpu_hour":
        # As the range column says it: one failure per so many GPU-hours.
        return (
            f"a GPU fails once per {_gpu_hours_between(float(m['value']))} GPU-hours instead of "
            f"once per {_gpu_hours_between(float(row['base']))}"
        )
    if m and m["name"] == "support_fraction_per_year":
        return (
            f"the support contract costs {float(m['value']):.0%} of the hardware's price a year "
            f"instead of {float(row['base']):.0%}"
        )
    if m and m["name"] == "spare_gpu_fraction":
        return f"{float(m['value']):.1%} of the GPUs are spares instead of {float(row['base']):.1%}"
    if m:
        return f"{row['assumption'].lower()} is {m['value']} instead of {row['base']:g}"
    if point.endswith("runs a year"):
        return f"you run {point} instead of {s.runs_per_year:g}"
    if point.startswith("lead times x"):
        return f"new hardware arrives in {point[len('lead times x') :]}x the catalog's lead time"
    if point.startswith(("rental prices", "purchase prices")):
        kind, change = point.rsplit(" ", 1)
        return f"{kind} are {change} against the catalog's"
    if point.startswith("electricity "):
        return f"electricity costs {point[len('electricity ') :]}"
    return point


def risks(rec: Recommendation) -> list[str]:
    """The assumptions that flip the pick (at most :data:`MAX_RISKS`, largest swing first), then
    how often the pick wins in the Monte Carlo; or the largest swing when nothing flips."""
    t = rec.sensitivity
    if rec.top is None or t.empty:
        return []
    out = []
    flips = t[t["flips"]].head(MAX_RISKS)
    for _, row in flips.iterrows():
        new = option_words(rec, str(row["flips_at"]).split(": ", 1)[-1])
        lo, hi = _cost_range(row)
        cost = (
            f"over the range tested, today's pick costs {lo} to {hi} per run"
            if lo != hi
            else "today's pick's cost per run does not move with it"
        )
        out.append(
            f"{row['assumption']}: if {flip_condition(row, rec.scenario)}, the pick becomes "
            f"{new} ({cost})."
        )
    if flips.empty:
        big = t.iloc[0]
        cheap, dear = _cost_range(big)
        out.append(
            "No single assumption over its stated range changes the pick. The largest swing: "
            f"{big['assumption']}, {cheap} to {dear} per run."
        )
    out += _monte_carlo_risk(rec)
    return out


def _cost_range(row) -> tuple[str, str]:
    """The pick's cost per run at the two ends of a tornado row, cheapest first: "costs $114M to
    $38.1M" (runs per year at its low end, then its high) read as a range written backwards."""
    lo, hi = sorted((row["cost_per_run_at_low"], row["cost_per_run_at_high"]))
    return money_text(lo), money_text(hi)


def _monte_carlo_risk(rec: Recommendation) -> list[str]:
    """The Monte Carlo's shares as the last risk ([] without a Monte Carlo)."""
    shares = monte_carlo_shares_text(rec)
    if not shares:
        return []
    return [
        f"When the assumptions move at once (Monte Carlo: {monte_carlo_scope(rec.scenario)}), "
        f"{shares}."
    ]


def monte_carlo_shares_text(rec: Recommendation) -> str:
    """How often the pick wins the Monte Carlo; how often its part and acquisition win at any
    count, and a count that wins more draws than the pick's; the most frequent winner of another
    part or acquisition ("" without a Monte Carlo or a pick). The memo's last risk and the app's
    robustness sentence."""
    mc, top = rec.monte_carlo, rec.top
    if mc.empty or top is None:
        return ""
    pick = option_label(top.acquisition, top.n_gpus, top.accelerator)
    share = float(mc.loc[mc["option"] == pick, "share"].sum())
    parts = [split_option_label(label) for label in mc["option"]]
    same = pd.Series([(m, a) == (top.acquisition, top.accelerator) for m, _, a in parts], mc.index)
    text = f"the pick wins {share_text(share)} of the draws"
    fam = float(mc.loc[same, "share"].sum())
    if round(fam, 2) > round(share, 2):
        how = MODE_AFTER_NAME.get(top.acquisition, top.acquisition)
        text += f", and {top.name} {how}, at any cluster size, {share_text(fam)}"
    rival = mc[same & (mc["option"] != pick)]
    if len(rival) and rival["share"].iloc[0] > share:
        n = int(split_option_label(rival["option"].iloc[0])[1])
        text += (
            f"; {n:,} GPUs win more draws ({share_text(rival['share'].iloc[0])}) than the pick's "
            f"{int(top.n_gpus):,}"
        )
    others = mc[~same]
    if not others.empty:
        o = others.iloc[0]
        text += f"; the most frequent other choice is {option_words(rec, o['option'])} "
        text += f"({share_text(o['share'])})"
    return text


def workbook_version() -> str:
    """The installed workbook's version (``(uninstalled)`` in a checkout not pip-installed)."""
    try:
        return version("workbook")
    except PackageNotFoundError:  # running from a checkout without `pip install -e .`
        return "(uninstalled)"
