"""The free constants of the time model fitted on the published runs: a grid search on the mean
absolute log error of GPU-hours (``python -m workbook validate --fit``), the out-of-sample error
of that fit (leave-one-out and random calibration/holdout splits), and writing the result to
data/assumptions.csv (``--write``)."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd

from ..catalog import DATA_DIR, Catalog, resolve_catalog
from .metrics import metrics
from .runs import full_runs, is_moe, predict_hours

#: The constants the fit sets (rows of data/assumptions.csv with no accelerator_id).
FIT_PARAMS = (
    "gemm_efficiency",
    "memory_traffic_bytes_per_token_layer_dmodel",
    "tp_overlap_fraction",
    "moe_efficiency",
)
#: The grid searched for the dense constants (stage 1) and for moe_efficiency (stage 2).
GRID = [
    {
        "gemm_efficiency": float(e),
        "memory_traffic_bytes_per_token_layer_dmodel": k,
        "tp_overlap_fraction": ov,
    }
    for e in np.linspace(0.40, 1.00, 13)
    for k in (0, 200, 400, 600, 800, 1000, 1200, 1600, 2000)
    for ov in (0.0, 0.25, 0.5)
]
MOE_GRID = [float(m) for m in np.linspace(0.3, 1.0, 15)]
#: Random calibration/holdout splits refitted by :meth:`Fitter.random_splits` (and the validator).
SPLIT_REPEATS = 200


class Fitter:
    """Fits the free constants on any subset of the used rows, from predictions computed once.

    Every stage-1 grid point is evaluated on every row once (``GRID`` x rows); stage 2 (MoE rows
    only) is evaluated per stage-1 winner and cached. A fit on a subset is then a lookup, which
    makes cross-validation (leave-one-out, repeated random splits) cheap.
    """

    def __init__(self, rows: pd.DataFrame, catalog: Catalog | None = None):
        self.cat = resolve_catalog(catalog)
        self.rows = rows.reset_index(drop=True)
        self.published = self.rows["gpu_hours"].to_numpy(float)
        self.moe = is_moe(self.rows)
        self.log_err = np.array(
            [np.log(predict_hours(self.rows, self.cat, g) / self.published) for g in GRID]
        )
        self._moe_cache: dict[int, np.ndarray] = {}

    def _moe_log_err(self, g: int) -> np.ndarray:
        """(len(MOE_GRID), rows) log errors with stage-1 values GRID[g] (dense rows: unaffected)."""
        if g not in self._moe_cache:
            sub = self.rows[self.moe]
            out = np.tile(self.log_err[g], (len(MOE_GRID), 1))
            for j, m in enumerate(MOE_GRID):
                out[j, self.moe] = np.log(
                    predict_hours(sub, self.cat, {**GRID[g], "moe_efficiency": m})
                    / self.published[self.moe]
                )
            self._moe_cache[g] = out
        return self._moe_cache[g]

    def fit(self, mask: np.ndarray) -> tuple[dict, np.ndarray]:
        """Constants minimising the mean absolute log error on the rows in ``mask`` (stage 1 on its
        dense rows, stage 2 on its MoE rows); returns them and the predicted GPU-hours of every row.
        With no MoE row in ``mask``, moe_efficiency stays at data/assumptions.csv's value."""
        mask = np.asarray(mask, bool)
        dense = mask & ~self.moe
        # argmin takes the first minimum, as a loop over the grid would.
        g = int(np.argmin(np.abs(self.log_err[:, dense]).mean(axis=1)))
        values, log_err = dict(GRID[g]), self.log_err[g]
        moe = mask & self.moe
        if moe.any():
            table = self._moe_log_err(g)
            j = int(np.argmin(np.abs(table[:, moe]).mean(axis=1)))
            values["moe_efficiency"], log_err = MOE_GRID[j], table[j]
        values["loss"] = float(np.abs(self.log_err[g, dense]).mean())
        return values, self.published * np.exp(log_err)

    def leave_one_out(self) -> np.ndarray:
        """Each row's GPU-hours predicted by constants fitted on all the other rows."""
        n = len(self.rows)
        return np.array([self.fit(np.arange(n) != i)[1][i] for i in range(n)])

    def random_splits(
        self, n_holdout: int, repeats: int = SPLIT_REPEATS, seed: int = 0
    ) -> pd.DataFrame:
        """Refit on random calibration sets; MdAPE of the calibration and the held-out rows per
        split (columns ``calibration_mdape``, ``holdout_mdape``)."""
        rng = np.random.default_rng(seed)
        n, out = len(self.rows), []
        for _ in range(repeats):
            hold = np.zeros(n, bool)
            hold[rng.choice(n, n_holdout, replace=False)] = True
            _, pred = self.fit(~hold)
            out.append(
                {
                    "calibration_mdape": metrics(self.published[~hold], pred[~hold])["mdape"],
                    "holdout_mdape": metrics(self.published[hold], pred[hold])["mdape"],
                }
            )
        return pd.DataFrame(out)


def fit(catalog: Catalog | None = None) -> dict:
    """Grid-search the free constants on the calibration rows (mean absolute log error).

    Stage 1 fits gemm_efficiency, memory_traffic_bytes_per_token_layer_dmodel and
    tp_overlap_fraction on the dense rows; stage 2 fits moe_efficiency on the MoE rows. Returns
    ``loss`` and the :data:`FIT_PARAMS` found, rounded to 4 decimals.
    """
    cat = resolve_catalog(catalog)
    rows = full_runs(cat)
    values, _ = Fitter(rows, cat).fit((rows["split"] == "calibration").to_numpy())
    loss = values.pop("loss")
    return {"loss": loss, **{k: round(float(v), 4) for k, v in values.items()}}


def write_assumptions(values: dict) -> None:
    """Store ``values`` (parameter -> value) in data/assumptions.csv, in the rows with no
    accelerator_id; every other cell is left as it is."""
    path = DATA_DIR / "assumptions.csv"
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    pi, ai, vi = header.index("parameter"), header.index("accelerator_id"), header.index("value")
    for r in rows[1:]:
        if r[pi] in values and r[ai] == "":
            r[vi] = repr(float(values[r[pi]]))
    with path.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
