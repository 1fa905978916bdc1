"""What the money buys: one option's bill line by line, people-formatted, for the memo and the app.

:func:`bill_frame` turns a row of ``Recommendation.options`` into a small table whose columns
add up: the first year (capex + a year's opex), a steady year (the opex alone) and the cost per
year (the capex spread over the hardware's life as depreciation and cost of capital, plus the
opex), so "cost per year" next to "first-year cost" explains itself.
"""

from __future__ import annotations

import pandas as pd

from .format import usd_short

#: An owned option's lines: (column, what it is, kind). Capex is paid once (first year);
#: spreading it over the life is the depreciation and capital lines (cost per year only).
OWNED_LINES = (
    ("gpu_usd", "GPUs", "capex"),
    ("server_usd", "Servers around them", "capex"),
    ("network_usd", "Scale-out network", "capex"),
    ("spares_usd", "Spare GPUs and servers", "capex"),
    ("retrofit_usd", "Liquid-cooling retrofit", "capex"),
    ("setup_usd", "Setup and burn-in (energy)", "capex"),
    ("depreciation_usd_per_year", "Depreciation (capex less resale, over the life)", "spread"),
    ("capital_usd_per_year", "Cost of capital", "spread"),
    ("energy_usd_per_year", "Energy", "opex"),
    ("colocation_usd_per_year", "Colocation", "opex"),
    ("staff_usd_per_year", "Platform engineers", "opex"),
    ("software_usd_per_year", "Engineers' time on an immature stack", "opex"),
    ("storage_usd_per_year", "Storage (data and checkpoints)", "opex"),
    ("support_usd_per_year", "Support contract", "opex"),
)

#: A rental's lines: every one is opex; the port of the code is paid in the first year only.
RENTED_LINES = (
    ("rent_usd_per_year", "GPU rent", "opex"),
    ("porting_usd", "Port of the code to the stack", "once"),
    ("staff_usd_per_year", "Platform engineers (for the time rented)", "opex"),
    ("software_usd_per_year", "Engineers' time on an immature stack", "opex"),
    ("storage_usd_per_year", "Storage (data and checkpoints)", "opex"),
    ("egress_usd_per_year", "Egress (a checkpoint out per run)", "opex"),
)

#: Which of the three money columns each kind of line counts in.
_COUNTS_IN = {
    "capex": ("first_year",),
    "spread": ("per_year",),
    "opex": ("first_year", "steady_year", "per_year"),
    "once": ("first_year", "per_year"),
}
_KIND_WORDS = {
    "capex": "capex, once",
    "spread": "capex over the life",
    "opex": "opex a year",
    "once": "first year",
}
_MONEY = (
    ("first_year", "First year"),
    ("steady_year", "Steady year"),
    ("per_year", "Cost per year"),
)


def bill_amounts(row: pd.Series) -> pd.DataFrame:
    """The option's bill as numbers [USD]: ``line``, ``kind`` and the ``first_year``,
    ``steady_year`` and ``per_year`` amount of every line that is not zero, then a ``Total``
    row equal to the option's first_year_cost_usd, steady_year_cost_usd and cost_per_year_usd."""
    lines = OWNED_LINES if bool(row["is_buy"]) else RENTED_LINES
    rows = []
    for column, label, kind in lines:
        value = float(row[column])
        if value == 0:
            continue
        money = {m: (value if m in _COUNTS_IN[kind] else 0.0) for m, _ in _MONEY}
        rows.append({"line": label, "kind": _KIND_WORDS[kind], **money})
    total = {
        "line": "Total",
        "kind": "",
        "first_year": float(row["first_year_cost_usd"]),
        "steady_year": float(row["steady_year_cost_usd"]),
        "per_year": float(row["cost_per_year_usd"]),
    }
    return pd.DataFrame([*rows, total])


def bill_frame(row: pd.Series) -> pd.DataFrame:
    """What the money buys, people-formatted (``$1.2M``; blank where a line does not count):
    columns What, Kind, First year, Steady year, Cost per year (:func:`bill_amounts`)."""
    amounts = bill_amounts(row)
    out = pd.DataFrame({"What": amounts["line"], "Kind": amounts["kind"]})
    for key, title in _MONEY:
        out[title] = [usd_short(v) if v else "" for v in amounts[key]]
    return out
