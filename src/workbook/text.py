"""Words for numbers and labels: one implementation each, used by every layer above."""

from __future__ import annotations


def days_text(x: float, unit: bool = True) -> str:
    """Days for a sentence: one decimal under 10 days, whole days from 10 on (with the unit unless not ``unit``)."""
    v = f"{x:,.1f}" if x < 10 else f"{x:,.0f}"
    return f"{v} day{'' if v == '1.0' else 's'}" if unit else v


MODE_PHRASE = {
    "rent-spot": "rent on spot", "rent-on-demand": "rent on demand", "rent-reserved": "rent with a 1-year reservation",
    "buy-new": "buy new", "buy-used": "buy used",
}
