"""The fit of the free constants and its cross-validation (:mod:`workbook.calibrate.fit`)."""

import numpy as np
import pandas as pd
import pytest

from workbook import calibrate


@pytest.fixture(scope="module")
def fitter(cat):
    return calibrate.Fitter(calibrate.full_runs(cat), cat)


def test_fit_on_the_calibration_rows_gives_the_shipped_constants(cat, fitter):
    """data/assumptions.csv holds what `validate --fit --write` found; refitting must find it
    again."""
    values, pred = fitter.fit((fitter.rows["split"] == "calibration").to_numpy())
    for name in calibrate.FIT_PARAMS:
        assert values[name] == pytest.approx(cat.param("assumptions", name)), name
    np.testing.assert_allclose(pred, calibrate.predict_hours(fitter.rows, cat), rtol=1e-9)


def test_leave_one_out_predicts_each_run_with_constants_fitted_without_it(cat, fitter):
    loo = fitter.leave_one_out()
    for i in (
        fitter.rows.index[fitter.rows["run_id"] == rid][0]
        for rid in ("tinyllama-1.1b", "llama4-scout")
    ):
        keep = np.arange(len(fitter.rows)) != i
        values, _ = fitter.fit(keep)
        values.pop("loss")
        direct = calibrate.predict_hours(fitter.rows.iloc[[i]], cat, values)[0]
        assert loo[i] == pytest.approx(direct, rel=1e-9)
    # Held out, a run is predicted no better than when it helped fit the constants (on the median).
    all_fit = fitter.fit(np.ones(len(fitter.rows), bool))[1]
    pub = fitter.published
    assert calibrate.metrics(pub, loo)["mdape"] >= calibrate.metrics(pub, all_fit)["mdape"]


def test_random_splits_hold_out_the_asked_number_and_are_reproducible(fitter):
    a = fitter.random_splits(n_holdout=9, repeats=20, seed=3)
    b = fitter.random_splits(n_holdout=9, repeats=20, seed=3)
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 20 and (a["holdout_mdape"] > 0).all() and (a["calibration_mdape"] > 0).all()
