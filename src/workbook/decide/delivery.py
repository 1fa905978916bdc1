"""New hardware's delivery as a band, and the chance of a finished run by the deadline with it.

A bought-new cluster waits for its delivery: ``lead_time_weeks`` per accelerator in
data/facility.csv, with a low and a high read from the same sources (for example, B200 12 weeks,
8-43). Until 2026-12-03, ``p_deadline`` took that wait as certain and only the run time as
uncertain. The sensitivity table moved the wait over its range, but the probability in the
headline did not carry it.

The delivery is now a two-piece log-normal, the same form as the run-time band
(:mod:`workbook.model.uncertainty`). Its median is the catalog's value, and its low and high
are read as its p10 and p90. The reading is declared in CHANGELOG.md on 2026-12-03; the ranges
were gathered as "what buyers report", not fitted. A bound that lies on the wrong side of the
value (after an override of the value alone) counts as no spread on that side.

The probability of a finished run by day ``D`` is then
``P(fixed + delivery + run <= D) = E_delivery[P(run <= D - fixed - delivery)]``, where
``fixed`` is the port and the burn-in. It is computed by the midpoint rule on
:data:`DELIVERY_POINTS` equal-probability points of the delivery. Rented and used hardware keeps
its wait as a point (data/facility.csv gives one range for every rental, from minutes on demand
to weeks for a reserved multi-node cluster, and no range for used hardware).
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np

from ..catalog import Catalog
from ..model import probability_within
from ..model.uncertainty import Z90
from ..units import DAYS_PER_WEEK

#: The options-frame columns of :func:`delivery_spreads`, in its order.
DELIVERY_COLUMNS = ("delivery_days", "delivery_sigma_below", "delivery_sigma_above")
#: Equal-probability points the delivery is integrated over. At 64, ``p_deadline`` agrees with
#: 4,096 points to within 0.2 percentage points and with 400,000 random draws to within 0.5 on the
#: cases of tests/decide/test_delivery.py; over 3,000 random bands and slacks the worst gap to
#: 4,096 points was 0.7 points, where a narrow run band makes the integrand nearly a step.
DELIVERY_POINTS = 64
_Z = np.array([NormalDist().inv_cdf((k + 0.5) / DELIVERY_POINTS) for k in range(DELIVERY_POINTS)])


def delivery_spreads(
    cat: Catalog, accelerator: np.ndarray, new: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each option: its delivery's median [days] and its log spreads below and above the
    median [ln x] (data/facility.csv ``lead_time_weeks`` value, low and high as p50, p10 and p90).
    The median is 0, and so are both spreads, where the option is not bought new (``new``) or
    the part has no delivery row."""
    f = cat.tables["facility"]
    rows = f[f["parameter"] == "lead_time_weeks"].set_index("accelerator_id")
    value, low, high = (
        rows[c].astype(float).reindex(accelerator).to_numpy(float) for c in ("value", "low", "high")
    )
    ok = new & np.isfinite(value) & (value > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        below = np.log(value / low) / Z90
        above = np.log(high / value) / Z90
    below = np.where(ok & np.isfinite(below) & (below > 0), below, 0.0)
    above = np.where(ok & np.isfinite(above) & (above > 0), above, 0.0)
    return np.where(ok, value * DAYS_PER_WEEK, 0.0), below, above


def has_band(delivery_days, below, above) -> np.ndarray:
    """Whether each delivery is a band (a wait with a spread on either side), not a point."""
    d, lo, hi = (np.asarray(x, float) for x in (delivery_days, below, above))
    return (d > 0) & ((lo > 0) | (hi > 0))


def deadline_probability(slack_days, delivery, wall_days, run_band, only=None) -> np.ndarray:
    """P(run <= ``slack_days`` + median delivery - delivery) [probability]: the chance that the run
    ends by the deadline when ``slack_days`` is the deadline less the whole wait at its median
    (lead time) and the delivery varies by its band. ``delivery``: its median [days] and its log
    spreads below and above (:data:`DELIVERY_COLUMNS`); the run is ``wall_days`` x its band
    (``run_band``: its log spreads below and above). Options whose delivery has no spread get
    ``probability_within(slack / wall)``, exactly as before, and so do those outside ``only`` (a
    boolean mask, broadcast like the rest; None: all rows): the sensitivity passes the options
    that can be feasible. Arrays broadcast; 2-D inputs (Monte Carlo draws) are handled the same
    way."""
    values = (slack_days, *delivery, wall_days, *run_band)
    arrays = np.broadcast_arrays(*(np.asarray(x, float) for x in values))
    shape = arrays[0].shape
    slack, d, d_lo, d_hi, wall, s_lo, s_hi = (a.ravel() for a in arrays)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = probability_within(slack / wall, s_lo, s_hi)
    mask = has_band(d, d_lo, d_hi) & np.isfinite(wall)
    if only is not None:
        mask &= np.broadcast_to(np.asarray(only, bool), shape).ravel()
    banded = np.flatnonzero(mask)
    if banded.size:  # rows the delivery cannot move by 1e-6 take the earliest point's value
        early, late = (
            probability_within(
                (slack[banded] + d[banded] - d[banded] * np.exp(z * side)) / wall[banded],
                s_lo[banded],
                s_hi[banded],
            )
            for z, side in ((_Z[0], d_lo[banded]), (_Z[-1], d_hi[banded]))
        )
        p[banded] = early
        banded = banded[early - late > 1e-6]
    if banded.size:
        z = _Z[None, :]
        spread = np.where(z >= 0, d_hi[banded, None], d_lo[banded, None])
        delivered = d[banded, None] * np.exp(z * spread)  # the delivery's quantiles [days]
        left = slack[banded, None] + d[banded, None] - delivered
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = left / wall[banded, None]
        inside = probability_within(ratio, s_lo[banded, None], s_hi[banded, None])
        p[banded] = inside.mean(axis=1)
    return p.reshape(shape)


def delivery_quantile_days(delivery_days, delivery_below, delivery_above, q: float) -> np.ndarray:
    """The ``q`` quantile of the delivery [days] (its median where it has no spread)."""
    z = NormalDist().inv_cdf(q)
    spread = np.asarray(delivery_above if z >= 0 else delivery_below, float)
    return np.asarray(delivery_days, float) * np.exp(z * spread)


def delivery_reason(best) -> str | None:
    """A bought-new pick whose delivery has a band: its median and p10-p90 in weeks, that the
    deadline's probability counts it, and the day a median run finishes if it arrives at its p90
    (None for any other pick)."""
    d = float(best["delivery_days"])
    spread = (float(best["delivery_sigma_below"]), float(best["delivery_sigma_above"]))
    if not has_band(d, *spread):
        return None
    lo, hi = (float(delivery_quantile_days(d, *spread, q)) for q in (0.1, 0.9))
    late = float(best["lead_time_days"]) - d + hi + float(best["wall_days"])
    weeks = d / DAYS_PER_WEEK
    return (
        f"Its delivery is a band too: {weeks:.0f} weeks at the median, {lo / DAYS_PER_WEEK:.0f}-"
        f"{hi / DAYS_PER_WEEK:.0f} weeks (p10-p90, data/facility.csv), and the chance of a "
        f"finished run by the deadline counts it; delivered at its p90, a median run finishes on "
        f"day {late:,.0f}."
    )


def finish_day_quantiles(rows, qs=(0.1, 0.9)) -> dict[float, np.ndarray]:
    """The ``qs`` quantiles of the day a run finishes, counted from the decision: the wait (with
    a new cluster's delivery as its band) plus the run (its band) [days], for a few option rows.
    Each quantile is found by bisection on :func:`deadline_probability`. Where the delivery has
    no spread, the result is the wait plus the run's quantile."""
    lead = rows["lead_time_days"].to_numpy(float)
    wall = rows["wall_days"].to_numpy(float)
    args = [rows[c].to_numpy(float) for c in DELIVERY_COLUMNS]
    band = [rows[c].to_numpy(float) for c in ("time_sigma_below", "time_sigma_above")]
    far = delivery_quantile_days(*args, 0.999) - args[0]  # the delivery's p99.9 past its median
    out = {}
    for q in qs:
        lo, hi = np.zeros_like(lead), lead + far + wall * np.exp(3.5 * np.maximum(*band))
        for _ in range(60):  # 60 halvings: far below a day for any run
            mid = (lo + hi) / 2.0
            below = deadline_probability(mid - lead, args, wall, band) < q
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        out[q] = np.where(np.isfinite(wall), (lo + hi) / 2.0, np.nan)
    return out
