"""The risk of the leading options in numbers a picture can show: each one's p10, p50 and p90 of
the time to a finished run and of the first year's cost, and its chances of meeting the deadline
and the budget.

The days and cost per run at p10 / p90 are the options table's own columns (the time band,
:mod:`workbook.model.uncertainty`); the first year's cost at the band's p10 / p90 is re-evaluated
here by :func:`workbook.decide.evaluate.evaluate_arrays` at the run time of that quantile (its cost
code, not a copy: the budget is a first-year figure, so that is what a picture of cost against the
budget must show). ``rec`` is a :class:`workbook.decide.Recommendation`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..model import BAND_QUANTILES, quantile_multiplier
from ..text import option_labels
from .delivery import DELIVERY_COLUMNS, finish_day_quantiles, has_band
from .evaluate import evaluate_arrays, option_position

#: How many options the risk pictures show: the pick and its runners-up (three at most).
RISK_OPTIONS = 4
#: Columns of :func:`option_bands`.
BAND_COLUMNS = [
    "option",
    "accelerator",
    "name",
    "acquisition",
    "pick",
    "days_p10",
    "days_p50",
    "days_p90",
    "first_year_usd_p10",
    "first_year_usd_p50",
    "first_year_usd_p90",
    "cost_per_run_usd_p10",
    "cost_per_run_usd_p50",
    "cost_per_run_usd_p90",
    "p_deadline",
    "p_budget",
    "p_schedule",
]


def option_bands(rec, n: int = RISK_OPTIONS) -> pd.DataFrame:
    """The pick and its runners-up (at most ``n`` rows, the pick first) with the p10 / p50 / p90
    of their days to a finished run, lead time included [days], of their first year's cost and
    cost per run [USD] (the days count a new cluster's delivery band: :func:`_finish_days`), and
    ``p_deadline`` / ``p_budget`` / ``p_schedule`` (the year's runs fit in
    it) [probability]. Empty with no pick."""
    if rec.top is None:
        return pd.DataFrame(columns=BAND_COLUMNS)
    o, s = rec.options, rec.scenario
    keys = [rec.top, *rec.runners_up][:n]
    pos = [option_position(o, k.accelerator, k.n_gpus, k.acquisition) for k in keys]
    rows = o.iloc[[p for p in pos if p is not None]]
    band = (rows["time_sigma_below"].to_numpy(float), rows["time_sigma_above"].to_numpy(float))
    first_year = {
        tag: evaluate_arrays(s, rows, time_factor=quantile_multiplier(q, *band))[
            "first_year_cost_usd"
        ]
        for tag, q in (("p10", BAND_QUANTILES[0]), ("p90", BAND_QUANTILES[-1]))
    }
    days = _finish_days(rows)
    d = pd.DataFrame(
        {
            "option": option_labels(rows).to_numpy(object),
            "accelerator": rows["accelerator"].to_numpy(object),
            "name": rows["name"].to_numpy(object),
            "acquisition": rows["acquisition"].to_numpy(object),
            "pick": np.arange(len(rows)) == 0,
            "days_p10": days[0.1],
            "days_p50": days[0.5],
            "days_p90": days[0.9],
            "first_year_usd_p10": np.asarray(first_year["p10"], float),
            "first_year_usd_p50": rows["first_year_cost_usd"].to_numpy(float),
            "first_year_usd_p90": np.asarray(first_year["p90"], float),
            "cost_per_run_usd_p10": rows["cost_per_run_usd_p10"].to_numpy(float),
            "cost_per_run_usd_p50": rows["cost_per_run_usd"].to_numpy(float),
            "cost_per_run_usd_p90": rows["cost_per_run_usd_p90"].to_numpy(float),
            "p_deadline": rows["p_deadline"].to_numpy(float),
            "p_budget": rows["p_budget"].to_numpy(float),
            "p_schedule": rows["p_schedule"].to_numpy(float),
        }
    )
    return d[BAND_COLUMNS]


def _finish_days(rows: pd.DataFrame) -> dict[float, np.ndarray]:
    """p10 / p50 / p90 of the day a run finishes: the wait plus the run's band, and, for a new
    cluster whose delivery is a band, the quantiles of both together
    (:func:`.delivery.finish_day_quantiles`), so that they agree with ``p_deadline``."""
    point = {
        0.1: rows["time_to_result_days_p10"].to_numpy(float),
        0.5: rows["time_to_result_days"].to_numpy(float),
        0.9: rows["time_to_result_days_p90"].to_numpy(float),
    }
    banded = has_band(*(rows[c].to_numpy(float) for c in DELIVERY_COLUMNS))
    if not banded.any():
        return point
    both = finish_day_quantiles(rows, tuple(point))
    return {q: np.where(banded, both[q], point[q]) for q in point}
