"""Words for numbers and labels: one implementation each, used by every layer above.

Labels name options and layouts the same way in the reasons, the tornado, the charts, the app and
the memo; the snapshot line says which data a result used.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

from .units import GIGA, HOURS_PER_DAY, MEGA, TERA

#: How a sentence says an acquisition mode.
MODE_PHRASE = {
    "rent-spot": "rent on spot",
    "rent-on-demand": "rent on demand",
    "rent-reserved": "rent with a 1-year reservation",
    "buy-new": "buy new",
    "buy-used": "buy used",
}


def days_text(x: float, unit: bool = True) -> str:
    """Days for a sentence: one decimal under 10 days, whole days from 10 on (with the unit unless
    not ``unit``)."""
    v = f"{x:,.1f}" if x < 10 else f"{x:,.0f}"
    return f"{v} day{'' if v == '1.0' else 's'}" if unit else v


def duration_text(days: float) -> str:
    """A run's length for a sentence: hours under a day (``4.2 hours``), else :func:`days_text`."""
    if days < 1:
        hours = days * HOURS_PER_DAY
        v = f"{hours:,.1f}" if hours < 10 else f"{hours:,.0f}"
        return f"{v} hour{'' if v == '1.0' else 's'}"
    return days_text(days)


#: Probabilities said as "over 99 %" / "under 1 %" beyond these: the band's tails are fitted on a
#: few dozen published runs and say nothing finer.
PROBABILITY_SAID_WITHIN = (0.01, 0.99)


def probability_text(p: float) -> str:
    """A probability for a sentence: ``86 %``, ``over 99 %``, ``under 1 %``."""
    lo, hi = PROBABILITY_SAID_WITHIN
    if p > hi:
        return f"over {hi:.0%}".replace("%", " %")
    if p < lo:
        return f"under {lo:.0%}".replace("%", " %")
    return f"{p * 100:.0f} %"


def runs_text(n: float) -> str:
    """``1 run``, ``2.5 runs``."""
    return f"{n:g} run" + ("" if n == 1 else "s")


def params_label(n: float) -> str:
    """A parameter count in short: 7e9 -> '7B', 1.2e12 -> '1.2T', 350e6 -> '350M'."""
    for div, unit in ((TERA, "T"), (GIGA, "B"), (MEGA, "M")):
        if n >= div:
            return f"{n / div:g}{unit}"
    return f"{n:g}"


def option_label(acquisition: str, n_gpus: int, accelerator: str) -> str:
    """One option as the tornado, the Monte Carlo and the charts name it:
    ``rent-spot 8 x h100-sxm``."""
    return f"{acquisition} {int(n_gpus)} x {accelerator}"


def option_labels(frame: pd.DataFrame) -> pd.Series:
    """:func:`option_label` of every row of a frame with ``acquisition``, ``n_gpus``,
    ``accelerator``."""
    return pd.Series(
        [
            option_label(*r)
            for r in zip(frame["acquisition"], frame["n_gpus"], frame["accelerator"])
        ],
        index=frame.index,
        dtype=object,
    )


def layout_label(tp: int, pp: int, dp: int, zero_stage: int, recompute: str) -> str:
    """A parallel layout: ``TP8 PP4 DP16 ZeRO-1, selective recompute``."""
    return f"TP{int(tp)} PP{int(pp)} DP{int(dp)} ZeRO-{int(zero_stage)}, {recompute} recompute"


def layout_labels(frame: pd.DataFrame) -> pd.Series:
    """:func:`layout_label` of every row of a frame with ``tp``, ``pp``, ``dp``, ``zero_stage``,
    ``recompute`` (an estimate or options frame)."""
    cols = ("tp", "pp", "dp", "zero_stage", "recompute")
    return pd.Series(
        [layout_label(*r) for r in zip(*(frame[c] for c in cols))], index=frame.index, dtype=object
    )


def overrides_text(overrides: Iterable[Mapping]) -> str:
    """The overrides of a snapshot in one line:
    ``prices:h100-sxm:rent-spot:price_usd_per_gpu_hour=2``."""
    return (
        ", ".join(f"{o['table']}:{o['key']}:{o['column']}={o['value']}" for o in overrides)
        or "none"
    )


def snapshot_line(snapshot: Mapping) -> str:
    """Which data a result used, in one line (from :meth:`workbook.catalog.Catalog.snapshot`)."""
    return (
        f"data snapshot {snapshot['data_hash']} (sources accessed up to "
        f"{snapshot['latest_accessed']}); overrides: {overrides_text(snapshot['overrides'])}"
    )
