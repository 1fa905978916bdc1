"""Words for numbers and labels: one implementation each, used by every layer above.

Labels name options and layouts the same way in the reasons, the tornado, the charts, the app and
the memo; the snapshot line says which data a result used.
"""

from __future__ import annotations

import math
import re
import reprlib
from collections.abc import Iterable, Mapping

import pandas as pd

from .units import GIGA, HOURS_PER_DAY, KILO, MEGA, MINUTES_PER_HOUR, TERA

#: The practitioner article the workbook grew out of, as a reader cites it (no public URL was
#: found for it; its figures are the claims of data/article_claims.csv).
ARTICLE_CITATION = (
    'N. Dixit (SIVARO), "The Best GPU Architecture for Training Large Models in 2026" (the article)'
)

#: How a sentence says an acquisition mode.
MODE_PHRASE = {
    "rent-spot": "rent on spot",
    "rent-on-demand": "rent on demand",
    "rent-reserved": "rent with a 1-year reservation",
    "buy-new": "buy new",
    "buy-used": "buy used",
}
#: Each acquisition mode after a part's name: ``AMD Instinct MI355X rented on demand``.
MODE_AFTER_NAME = {
    "rent-spot": "rented on spot",
    "rent-on-demand": "rented on demand",
    "rent-reserved": "on a 1-year reservation",
    "buy-new": "bought new",
    "buy-used": "bought used",
}


#: Scientific notation as Python prints it (``2.10e+24``) and the superscript digits a reader sees.
_SCIENTIFIC = re.compile(r"\b(\d+(?:\.\d+)?)e([+-]?)0*(\d+)\b")
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


#: A space between a number and its per cent sign (``41.5 %``).
_PERCENT_SPACE = re.compile(r"(?<=\d) %")
#: The hyphens of an ISO date (``2026-05-18``).
_DATE_HYPHEN = re.compile(r"(?<=\b\d{4})-(?=\d{2}-\d{2}\b)|(?<=\b\d{4}-\d{2})-(?=\d{2}\b)")
#: The hyphen of a range: between two numbers (``1.2-6.2 days``, ``$17,898-$58,715``,
#: ``1-8 weeks``, ``$1.2M-$3.4M``; the first a number of its own, not the digits ending a name
#: like ``llama31-405b``) and in ``p10-p90``.
_RANGE_HYPHEN = re.compile(
    r"(?<![\w.,$-])(\$?\d[\d,]*(?:\.\d+)?[KMB]?)-(?=\$?\d)|\b(p\d{2})-(?=p\d{2}\b)"
)


def keep_together(text: str) -> str:
    """A sentence for a page that wraps it: a number and its per cent sign joined by a no-break
    space, so ``41.5 %`` never ends one line with the number and starts the next with ``%``, and
    an ISO date's and a range's hyphens made no-break hyphens (U+2011), so ``2026-05-18`` is
    not cut after ``2026-``, nor ``p10-p90 1.2-6.2 days`` after ``p10-`` or ``1.2-`` (the
    sentences themselves keep the plain characters: every test and the CLI read those)."""
    text = _DATE_HYPHEN.sub("\u2011", _PERCENT_SPACE.sub("\u00a0%", text))
    return _RANGE_HYPHEN.sub(lambda m: (m.group(1) or m.group(2)) + "\u2011", text)


def readable(text: str) -> str:
    """A sentence with any scientific notation written out for a reader:
    ``2.10e+24 FLOP`` -> ``2.1 × 10²⁴ FLOP``."""

    def power(m: re.Match) -> str:
        mantissa = f"{float(m.group(1)):g}"
        exponent = ("-" if m.group(2) == "-" else "") + m.group(3)
        return f"{mantissa} × 10{exponent.translate(_SUPERSCRIPT)}"

    return _SCIENTIFIC.sub(power, str(text))


def power_text(x: float) -> str:
    """A large count for a sentence: ``2.1 × 10²⁴``; below a million with thousands separators
    (``123,456``)."""
    return f"{x:,.0f}" if abs(x) < 1e6 else readable(f"{x:.2e}")


def days_text(x: float, unit: bool = True) -> str:
    """Days for a sentence: one decimal under 10 days, whole days from 10 on (with the unit unless
    not ``unit``)."""
    v = f"{x:,.1f}" if x < 10 else f"{x:,.0f}"
    return f"{v} day{'' if v == '1.0' else 's'}" if unit else v


def duration_text(days: float) -> str:
    """A run's length for a sentence: minutes under an hour (``30 minutes``; ``under a minute``:
    a TPU pod's 7B LoRA read "0.0 hours per run"), hours under a day (``4.2 hours``), else
    :func:`days_text`."""
    hours = days * HOURS_PER_DAY
    if hours < 1:
        minutes = round(hours * MINUTES_PER_HOUR)
        if minutes < 1:
            return "under a minute"
        if minutes < MINUTES_PER_HOUR:
            return f"{minutes} minute{'' if minutes == 1 else 's'}"
        return "1.0 hour"
    if days < 1:
        v = f"{hours:,.1f}" if hours < 10 else f"{hours:,.0f}"
        return f"{v} hour{'' if v == '1.0' else 's'}"
    return days_text(days)


#: What the tuned level is calibrated on: the stacks whose vendors' recipes its benchmarks ran
#: (the reasons of a tuned pick and the Scenario's ``software_stack`` description alike).
TUNED_RECIPES = "NeMo / Megatron, the MLPerf submissions, AMD's Primus"

#: The title over a pick's caveats (``Recommendation.caveats``): app, notebook 08 and memo alike.
CAVEATS_TITLE = "Before you commit"

#: Probabilities said as "over 99 %" / "under 1 %" beyond these: the band's tails are fitted on a
#: few dozen published runs and say nothing finer.
PROBABILITY_SAID_WITHIN = (0.01, 0.99)


def probability_text(p: float, short_of: float | None = None) -> str:
    """A probability for a sentence: ``86 %``, ``over 99 %``, ``under 1 %``.

    ``short_of``: the level ``p`` is being compared with. A ``p`` under it that whole percents
    would round up to it is said to the tenth, rounded down (``79.6 %`` against 80 %, never "80 %
    probability, 80 % required" for an option that failed on it)."""
    lo, hi = PROBABILITY_SAID_WITHIN
    if p > hi:
        return f"over {hi:.0%}".replace("%", " %")
    if p < lo:
        return f"under {lo:.0%}".replace("%", " %")
    if short_of is not None and p < short_of and round(p * 100) >= round(short_of * 100):
        return f"{math.floor(p * 1000) / 10:.1f} %"
    return f"{p * 100:.0f} %"


#: The software stacks' names as a reader knows them (catalog ``software_stack`` ids).
STACK_NAMES = {
    "cuda": "CUDA",
    "rocm": "ROCm",
    "synapse": "SynapseAI",
    "xla": "XLA",
    "neuron": "Neuron",
}


def stack_name(stack: str) -> str:
    """``rocm`` -> ``ROCm``; an id without a name as it is."""
    return STACK_NAMES.get(stack, stack)


def kw_text(kw: float) -> str:
    """Power for a sentence: one decimal under 10 kW (``1.7 kW``), whole kW above (``1,234 kW``)."""
    return f"{kw:,.{1 if kw < 10 else 0}f} kW"


def count_text(n: float, noun: str) -> str:
    """``1 rack``, ``3 racks``, ``1,024 nodes``: a whole count with its noun."""
    return f"{n:,.0f} {noun}" + ("" if round(n) == 1 else "s")


def runs_text(n: float) -> str:
    """``1 run``, ``2.5 runs``."""
    return f"{n:g} run" + ("" if n == 1 else "s")


def _three_figures(x: float) -> float:
    """``x`` rounded to three significant figures (``42,345`` -> ``42,300``)."""
    return float(f"{x:.3g}")


def _sig3(x: float) -> str:
    """Three significant figures with thousands separators (``42,300``, ``4.23``, ``0.0423``)."""
    return f"{_three_figures(x):,.{max(0, 2 - int(f'{abs(x):e}'.split('e')[1]))}f}" if x else "0"


def _dollars(v: float) -> str:
    """Whole dollars with their sign: ``$1,234``, ``-$5``."""
    return f"{'-' if v < 0 else ''}${abs(v):,.0f}"


def money_text(usd: float) -> str:
    """An estimated dollar amount for a sentence, in three significant figures like the energy:
    ``$284``, ``$30,800``, ``$7.88M``, ``$57.0M``, ``$1.25B``. An estimate with a p10-p90 band
    three times wide is not known to the dollar; a reader's own input (a budget) is written
    whole instead. Whole dollars under $1,000; ``n/a`` for NaN, ``∞`` for infinity."""
    v = float(usd)
    if math.isnan(v):
        return "n/a"
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    if abs(v) < KILO:
        return _dollars(v)
    # Round first: $999,600 is $1.00M, not $1,000,000.
    sign, a = ("-" if v < 0 else ""), _three_figures(abs(v))
    for div, unit in ((GIGA, "B"), (MEGA, "M")):
        if a >= div:
            return f"{sign}${_sig3(a / div)}{unit}"
    return f"{sign}${_sig3(a)}"


def amount_text(usd: float) -> str:
    """A dollar amount a reader gave, a budget, as they gave it: in :func:`money_text`'s units
    when that is the exact amount, without trailing zeros (``$3M``, ``$400M``, ``$65.4M``,
    ``$502,000``), else to the dollar (``$123,456``, ``$1,234,567``)."""
    v = float(usd)
    if math.isfinite(v) and _three_figures(v) != v:
        return _dollars(v)
    text = money_text(v)
    head, unit = text[:-1], text[-1:]
    if unit in ("M", "B") and "." in head:
        return head.rstrip("0").rstrip(".") + unit
    return text


def kwh_text(kwh: float) -> str:
    """Energy in three figures: ``42,300 kWh``, ``1,230 MWh`` (MWh from 1,000 MWh)."""
    return f"{_sig3(kwh / KILO)} MWh" if kwh >= MEGA else f"{_sig3(kwh)} kWh"


def co2e_text(kg: float) -> str:
    """Emissions in three figures: ``68.8 kg CO2e``, ``20.0 t CO2e`` (tonnes from 1,000 kg)."""
    return (f"{_sig3(kg / KILO)} t" if kg >= KILO else f"{_sig3(kg)} kg") + " CO2e"


def energy_text(kwh: float, co2e_kg: float) -> str:
    """A run's energy and emissions for a sentence: ``42,300 kWh and 20.0 t CO2e``."""
    return f"{kwh_text(kwh)} and {co2e_text(co2e_kg)}"


def params_label(n: float) -> str:
    """A parameter count in short, to four significant figures: 7e9 -> '7B', 1.2e12 -> '1.2T',
    350e6 -> '350M', a config file's 30,532,110,336 -> '30.53B' (not '30.5321B')."""
    for div, unit in ((TERA, "T"), (GIGA, "B"), (MEGA, "M")):
        if n >= div:
            return f"{n / div:.4g}{unit}"
    return f"{n:.4g}"


def option_label(acquisition: str, n_gpus: int, accelerator: str) -> str:
    """One option as the tornado, the Monte Carlo and the charts name it:
    ``rent-spot 8 x h100-sxm``."""
    return f"{acquisition} {int(n_gpus)} x {accelerator}"


def split_option_label(label: str) -> tuple[str, str, str]:
    """An :func:`option_label` back into its acquisition, GPU count (as written) and accelerator:
    ``rent-spot 8 x h100-sxm`` -> ``("rent-spot", "8", "h100-sxm")``."""
    mode, _, rest = label.partition(" ")
    n, _, accelerator = rest.partition(" x ")
    return mode, n, accelerator


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


#: The longest a rejected value is shown in an error message [characters] (issue 13: a 50 MB value
#: must not become a 50 MB message).
SHOWN_CHARS = 200
_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = SHOWN_CHARS
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 8
_REPR.maxlevel = 3


def shown(value) -> str:
    """``repr(value)`` for an error message, at most :data:`SHOWN_CHARS` characters (``...`` where
    cut); bounded in time and memory however large or deeply nested the value is."""
    text = _REPR.repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def listing(items: Iterable, limit: int = 25) -> str:
    """``a, b, c`` for a message's "allowed:" part; past ``limit`` items, the first ones and how
    many there are in all (a table of 113 price ids is not a message)."""
    items = [str(x) for x in items]
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f", ... ({len(items)} in all)"


#: How an override without its own source is marked in every output (issue 13).
NO_SOURCE = "user override, no source"


def overrides_text(overrides: Iterable[Mapping]) -> str:
    """The overrides of a snapshot in one line, each with its source:
    ``prices:h100-sxm:rent-spot:price_usd_per_gpu_hour=2 (source: my quote)``."""
    return (
        ", ".join(
            f"{o['table']}:{o['key']}:{o['column']}={o['value']} "
            + (f"(source: {o['source']})" if o.get("source") else f"({NO_SOURCE})")
            for o in overrides
        )
        or "none"
    )


def derived_text(derived: Iterable[Mapping]) -> str:
    """The derived prices the overrides moved, in one line (empty when none):
    ``h100-sxm rent-reserved-1y 1.74 -> 0.708 (h100-sxm:rent-on-demand * (1 - ...))``."""
    return ", ".join(
        f"{d['accelerator_id']} {d['kind']} {d['from']:.4g} -> {d['to']:.4g} ({d['formula']})"
        for d in derived
    )


def snapshot_line(snapshot: Mapping) -> str:
    """Which data a result used, in one line (from :meth:`workbook.catalog.Catalog.snapshot`)."""
    return (
        f"data snapshot {snapshot['data_hash']} (sources accessed up to "
        f"{snapshot['latest_accessed']}); overrides: {overrides_text(snapshot['overrides'])}"
        + (
            f"; derived prices recomputed: {derived_text(snapshot['derived'])}"
            if snapshot.get("derived")
            else ""
        )
    )
