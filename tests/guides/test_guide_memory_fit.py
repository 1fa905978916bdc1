"""Notebook 01's tables (workbook.guides.memory_fit): the fewest GPUs that fit and the ledger.

Values are checked by hand calculation from the catalog (data/*.csv) or against the engine
function each table wraps, so a table can never drift from the engine it claims to show.
"""

import numpy as np
import pandas as pd
import pytest

from workbook import estimate_training
from workbook.guides.memory_fit import memory_fit_table


@pytest.fixture(scope="module")
def fit70(cat):
    return memory_fit_table(
        70e9, ["h200-sxm", "b200-hgx", "a100-80gb-sxm", "h100-sxm"], catalog=cat
    ).set_index("accelerator")


def test_70b_full_training_needs_16_h200_and_8_b200(fit70):
    """16 B/param x 70e9 = 1,120 GB of model states. H200: 141 x 0.92 = 129.7 GB usable, so 8 GPUs
    (140 GB each before activations) cannot hold it and the next size the engine tries is 16.
    B200: 180 x 0.92 = 165.6 GB usable holds 140 GB + activations on 8."""
    h200, b200 = fit70.loc["h200-sxm"], fit70.loc["b200-hgx"]
    assert h200["usable_gb"] == pytest.approx(141 * 0.92)
    assert h200["min_gpus"] == 16 and b200["min_gpus"] == 8
    # ZeRO-3 over 16 GPUs: every state term divided by 16 (weights 2, grads 2, optimizer 12
    # B/param).
    states = h200[["weights_gb", "grads_gb", "optimizer_gb"]].sum()
    assert states == pytest.approx(16 * 70e9 / 16 / 1e9)
    assert h200["optimizer_gb"] == pytest.approx(12 * 70e9 / 16 / 1e9)
    assert b200[["weights_gb", "grads_gb", "optimizer_gb"]].sum() == pytest.approx(
        16 * 70e9 / 8 / 1e9
    )


def test_ledger_adds_up_to_the_engines_memory_per_gpu(cat):
    for method in ("full", "lora", "qlora"):
        t = memory_fit_table(30e9, method=method, catalog=cat)
        ledger = t[["weights_gb", "grads_gb", "optimizer_gb", "activations_gb"]].sum(axis=1)
        np.testing.assert_allclose(ledger, t["total_gb"], rtol=1e-9)
        fits = t[t["fits"]]
        assert (fits["total_gb"] <= fits["usable_gb"] + 1e-9).all()


def test_min_gpus_matches_estimate_training(cat, fit70):
    for acc, row in fit70.iterrows():
        r = estimate_training(70e9, 1e9, acc, int(row["min_gpus"]), catalog=cat)
        assert r.fits_in_memory
        assert r.memory_per_gpu_gb == pytest.approx(row["total_gb"])


def test_qlora_70b_fits_on_one_h200(cat):
    """NF4 base 70e9 x 0.516 B = 36.1 GB + adapters 0.5 % x 16 B/param = 5.6 GB: one 141 GB H200."""
    q = memory_fit_table(70e9, ["h200-sxm"], method="qlora", catalog=cat).iloc[0]
    assert q["min_gpus"] == 1
    assert q["weights_gb"] == pytest.approx(70e9 * (4.127 / 8) / 1e9 + 70e9 * 0.005 * 2 / 1e9)
    assert q["grads_gb"] + q["optimizer_gb"] == pytest.approx(70e9 * 0.005 * 14 / 1e9)


def test_nothing_fits_is_a_result_not_an_error(cat):
    t = memory_fit_table(1e12, ["rtx-a6000"], max_gpus=8, catalog=cat).iloc[0]
    assert not t["fits"] and pd.isna(t["min_gpus"])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_params": -1}, r"n_params=-1"),
        ({"n_params": float("nan")}, r"n_params=nan"),
        ({"method": "adam"}, r"method='adam' is not allowed; allowed: full, lora, qlora"),
        ({"accelerators": ["nope"]}, r"accelerators contains 'nope'.*allowed: a100-40gb-sxm"),
        ({"accelerators": "h100-sxm"}, r"accelerators='h100-sxm' is a single string"),
        ({"accelerators": []}, r"accelerators is empty"),
        ({"seq_len": 0}, r"seq_len=0"),
        ({"max_gpus": 10**6}, r"max_gpus=1000000"),
    ],
)
def test_memory_fit_bad_input_names_the_argument(kwargs, match):
    args = {"n_params": 7e9, **kwargs}
    with pytest.raises(ValueError, match=match):
        memory_fit_table(args.pop("n_params"), **args)
