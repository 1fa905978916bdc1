"""Named constants: units and calendar figures the formulas use, each once.

A formula writes ``wall_hours * SECONDS_PER_HOUR`` or ``tflops * TERA``, never 3600 or 1e12; model
constants with a source (20 tokens per parameter, 16 bytes per parameter of mixed Adam) live beside
the formula that cites them (:mod:`workbook.model.flops`, :mod:`workbook.model.memory`).
"""

from __future__ import annotations

#: Decimal SI prefixes [1]: memory and bandwidth in GB and TB/s, rates in TFLOP/s (vendor sheets).
KILO, MEGA, GIGA, TERA = 1e3, 1e6, 1e9, 1e12
#: Bytes per gigabyte (decimal, as vendors state HBM capacity) [B/GB].
GB = GIGA
#: Bits per byte (network line rates are in Gb/s) [bit/B].
BITS_PER_BYTE = 8.0

MINUTES_PER_HOUR = 60
SECONDS_PER_HOUR = 3600.0
HOURS_PER_DAY = 24.0
SECONDS_PER_DAY = SECONDS_PER_HOUR * HOURS_PER_DAY
DAYS_PER_WEEK = 7.0
DAYS_PER_YEAR = 365.0
MONTHS_PER_YEAR = 12.0
#: Weeks in a (non-leap) year: engineer-weeks to engineer-years [weeks].
WEEKS_PER_YEAR = DAYS_PER_YEAR / DAYS_PER_WEEK
#: Hours in a (non-leap) year: the reservation and ownership year [h].
HOURS_PER_YEAR = DAYS_PER_YEAR * HOURS_PER_DAY
#: Tokens in the "per million tokens" prices [tokens].
TOKENS_PER_MILLION = MEGA
