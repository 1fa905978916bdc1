"""The options: the sweep of cluster sizes, one row per accelerator x GPU count x acquisition mode,
and the scenario's time factor applied to whole-run figures."""

import json

import pytest
from decide_cases import BASE
from hf_configs import LLAMA3_8B

from workbook import Scenario, presets, recommend
from workbook.decide import gpu_counts, option_row
from workbook.decide.allowed import ACQUISITIONS
from workbook.decide.options import NODE_COUNTS, sweep
from workbook.text import days_text


def test_node_counts_are_powers_of_two_and_one_and_a_half_times_them():
    assert NODE_COUNTS == (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512,
                           768, 1024, 1536, 2048)  # fmt: skip


def test_gpu_counts_are_node_multiples_and_whole_nvl72_racks():
    c = gpu_counts(8, 8, 16384)
    assert c[:4] == [1, 2, 4, 8] and c[-1] == 16384 and all(x % 8 == 0 for x in c[3:])
    n = gpu_counts(4, 72, 16384)
    assert 72 in n and 144 in n and all(x <= 72 or x % 72 == 0 for x in n)


def test_options_cover_every_accelerator_count_and_mode():
    rec = recommend(Scenario(**BASE), sensitivity=False)
    o = rec.options
    assert set(o["acquisition"]) == set(ACQUISITIONS)
    assert o["accelerator"].nunique() == 23
    assert o["n_gpus"].max() == 16384
    for col in (
        "wall_days",
        "cost_per_run_usd",
        "cost_per_year_usd",
        "facility_kw",
        "racks",
        "feasible",
        "failed",
    ):
        assert col in o.columns


def test_time_factor_scales_days_gpu_hours_and_rent_of_every_option():
    """A pilot run measured at 1.5x the engine's time: every option's days and GPU-hours x 1.5, its
    MFU / 1.5, and a rented run's cost x 1.5 (rent = GPUs x hours x $/GPU-h, linear). The
    published-runs slow-end reason gives way to one naming the factor."""
    s = presets["funded-startup-30b-domain"]
    base, slow = (
        recommend(s, sensitivity=False),
        recommend(s.replace(time_factor=1.5), sensitivity=False),
    )
    top = base.top
    a = option_row(base.options, top.accelerator, top.n_gpus, "rent-on-demand")
    b = option_row(slow.options, top.accelerator, top.n_gpus, "rent-on-demand")
    assert b["wall_days"] == pytest.approx(1.5 * a["wall_days"])
    assert b["gpu_hours"] == pytest.approx(1.5 * a["gpu_hours"])
    assert b["mfu"] == pytest.approx(a["mfu"] / 1.5)
    # Storage is billed by the month, and an immature stack's engineer-weeks by the year: not
    # by the hour.
    storage = (a["storage_usd_per_year"] + a["software_usd_per_year"]) / s.runs_per_year
    assert b["storage_usd_per_year"] == a["storage_usd_per_year"]
    assert b["software_usd_per_year"] == a["software_usd_per_year"]
    assert b["cost_per_run_usd"] - storage == pytest.approx(1.5 * (a["cost_per_run_usd"] - storage))
    rent = b["n_gpus"] * b["wall_days"] * 24.0 * b["price"]
    assert b["cost_per_run_usd"] == pytest.approx(rent + storage)
    assert (b["time_factor"], a["time_factor"]) == (1.5, 1.0)
    assert b["step_s"] == pytest.approx(
        a["step_s"]
    )  # the engine's step-time breakdown is unchanged
    reasons = " ".join(slow.reasons)
    assert (
        "Planned at your time factor of 1.5x the engine's prediction: "
        f"{days_text(slow.top.wall_days)} per run"
    ) in reasons
    assert "At the slow end of its band" in reasons
    assert "At the slow end of its band" in " ".join(base.reasons)
    assert b["wall_days_p90"] == pytest.approx(1.5 * a["wall_days_p90"])
    assert "time factor" not in " ".join(base.reasons)


def test_layout_names_the_parallel_layout_of_every_option():
    o = recommend(presets["band-under-7b"], sensitivity=False).options
    r = o.iloc[0]
    want = f"TP{r['tp']} PP{r['pp']} DP{r['dp']} ZeRO-{r['zero_stage']}, {r['recompute']} recompute"
    assert r["layout"] == want


def test_hf_config_shape_reaches_the_sweep(tmp_path):
    """Llama 3 8B's config.json: every configuration of the sweep carries the shape, and the
    FLOPs per token are 6 x 7,504,658,432 + 6 x 32 x 4096 x 4096 = 48,249,176,064
    (tests/model/test_estimate.py), not the size-only 6 x 8.03e9 + ... = 5.19e10."""
    p = tmp_path / "config.json"
    p.write_text(json.dumps(LLAMA3_8B), encoding="utf-8")
    base = {k: v for k, v in BASE.items() if k != "n_params"}
    s = Scenario(**base, hf_config=str(p), accelerators=["h100-sxm"])
    est = sweep(s)
    assert (est["n_params"] == 8_030_261_248).all()
    assert est["flops_per_token"].to_numpy() == pytest.approx(48_249_176_064, rel=1e-12)
    assert (est["n_layers"] == 32).all()


def test_used_price_factor_scales_only_second_hand_prices():
    """The article's used H100 SXM at $18,000 against data/prices.csv's $21,500 (the default
    buy-used row, computeforecast / Silicon Data): used_price_factor 18,000 / 21,500 = 0.837."""
    s = presets["band-7b-to-70b"]
    f = 18_000 / 21_500
    base = recommend(s, sensitivity=False).options
    cheap = recommend(s.replace(used_price_factor=f), sensitivity=False).options
    n = int(base["n_gpus"][base["accelerator"] == "h100-sxm"].iloc[0])
    used = option_row(cheap, "h100-sxm", n, "buy-used")
    assert used["price"] == pytest.approx(18_000)
    assert option_row(base, "h100-sxm", n, "buy-used")["price"] == 21_500
    assert "used-hardware price" in used["price_basis"]
    for mode in ("buy-new", "rent-on-demand"):
        assert (
            option_row(cheap, "h100-sxm", n, mode)["price"]
            == (option_row(base, "h100-sxm", n, mode)["price"])
        )
