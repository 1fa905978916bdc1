"""The guided analyses (workbook.guides) and the notebooks built on them.

Values are checked by hand calculation from the catalog (data/*.csv) or against the engine function
each table wraps, so a table can never drift from the engine it claims to show.
"""

import math
import re
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import papermill
import pytest

from workbook import (
    check_claim,
    estimate_frame,
    estimate_training,
    inference_frame,
    presets,
    recommend,
)
from workbook.guides import analyses as A
from workbook.present.charts import to_svg

ROOT = Path(__file__).resolve().parents[2]


# --- 01 memory fit --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fit70(cat):
    return A.memory_fit_table(
        70e9, ["h200-sxm", "b200-hgx", "a100-80gb-sxm", "h100-sxm"], catalog=cat
    ).set_index("accelerator")


def test_70b_full_training_needs_16_h200_and_8_b200(fit70):
    """16 B/param x 70e9 = 1,120 GB of model states. H200: 141 x 0.92 = 129.7 GB usable, so 8 GPUs
    (140 GB each before activations) cannot hold it and the next size the engine tries is 16.
    B200: 180 x 0.92 = 165.6 GB usable holds 140 GB + activations on 8."""
    h200, b200 = fit70.loc["h200-sxm"], fit70.loc["b200-hgx"]
    assert h200["usable_gb"] == pytest.approx(141 * 0.92)
    assert h200["min_gpus"] == 16 and b200["min_gpus"] == 8
    # ZeRO-3 over 16 GPUs: every state term divided by 16 (weights 2, grads 2, optimizer 12 B/param).
    states = h200[["weights_gb", "grads_gb", "optimizer_gb"]].sum()
    assert states == pytest.approx(16 * 70e9 / 16 / 1e9)
    assert h200["optimizer_gb"] == pytest.approx(12 * 70e9 / 16 / 1e9)
    assert b200[["weights_gb", "grads_gb", "optimizer_gb"]].sum() == pytest.approx(
        16 * 70e9 / 8 / 1e9
    )


def test_ledger_adds_up_to_the_engines_memory_per_gpu(cat):
    for method in ("full", "lora", "qlora"):
        t = A.memory_fit_table(30e9, method=method, catalog=cat)
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
    q = A.memory_fit_table(70e9, ["h200-sxm"], method="qlora", catalog=cat).iloc[0]
    assert q["min_gpus"] == 1
    assert q["weights_gb"] == pytest.approx(70e9 * (4.127 / 8) / 1e9 + 70e9 * 0.005 * 2 / 1e9)
    assert q["grads_gb"] + q["optimizer_gb"] == pytest.approx(70e9 * 0.005 * 14 / 1e9)


def test_nothing_fits_is_a_result_not_an_error(cat):
    t = A.memory_fit_table(1e12, ["rtx-a6000"], max_gpus=8, catalog=cat).iloc[0]
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
        A.memory_fit_table(args.pop("n_params"), **args)


# --- 02 speed, network, bandwidth -----------------------------------------------------------------


def test_speed_table_is_estimate_frame(cat):
    configs = [
        {"accelerator": "h100-sxm", "n_gpus": 64},
        {"accelerator": "b200-hgx", "n_gpus": 64, "fabric": "eth-200-shared"},
    ]
    t = A.speed_table(70e9, 1e12, configs, catalog=cat)
    e = estimate_frame(pd.DataFrame(configs).assign(n_params=70e9, n_tokens=1e12), catalog=cat)
    np.testing.assert_allclose(t["wall_days"], e["wall_days"])
    np.testing.assert_allclose(t["step_s"], e["step_s"])
    assert list(t["label"]) == ["64 x h100-sxm (ib-ndr-400)", "64 x b200-hgx (eth-200-shared)"]
    np.testing.assert_allclose(t[list(A.STEP_COLUMNS)].sum(axis=1), t["step_s"], rtol=1e-9)


def test_python_input_pipeline_shows_the_articles_22_percent(cat):
    t = A.speed_table(
        7e9,
        1e11,
        [
            {"accelerator": "h100-sxm", "n_gpus": 8},
            {"accelerator": "h100-sxm", "n_gpus": 8, "input_pipeline": "python"},
        ],
        catalog=cat,
    )
    assert t["wall_days"].iloc[1] / t["wall_days"].iloc[0] == pytest.approx(1 / 0.82)
    assert t["derate_s"].iloc[0] == 0 and t["derate_s"].iloc[1] == pytest.approx(
        t["step_s"].iloc[1] * 0.18
    )


@pytest.mark.parametrize(
    "configs, match",
    [
        ("h100-sxm", r"configs='h100-sxm' is not a list of dicts"),
        ([], r"configs is empty"),
        ([{"accelerator": "h100-sxm"}], r"configs\[0\] lacks 'n_gpus'"),
        (
            [{"accelerator": "h100-sxm", "n_gpus": 8, "gpus": 8}],
            r"configs\[0\] has the unknown key 'gpus'",
        ),
        ([{"accelerator": "nope", "n_gpus": 8}], r"configs\[0\]\['accelerator'\]='nope'"),
        (
            [{"accelerator": "h100-sxm", "n_gpus": 8, "fabric": "carrier-pigeon"}],
            r"fabric='carrier-pigeon' is unknown",
        ),
    ],
)
def test_speed_table_bad_configs(configs, match):
    with pytest.raises(ValueError, match=match):
        A.speed_table(7e9, 1e11, configs)


@pytest.fixture(scope="module")
def network(cat):
    return A.network_comparison(catalog=cat)


def test_network_comparison_numbers_come_from_the_engine(network, cat):
    for _, r in network.iterrows():
        e = estimate_training(
            r["n_params"], 1e12, r["accelerator"], int(r["n_gpus"]), fabric=r["fabric"], catalog=cat
        )
        assert r["wall_days"] == pytest.approx(e.wall_days)
        for c in ("matmul_s", "memory_s", "dp_exposed_s", "tp_exposed_s", "bubble_s"):
            assert r[c] == pytest.approx(e.breakdown[c])
    assert set(network["fabric"]) == {"eth-200-shared", "ib-ndr-400"}
    assert (network.loc[network["accelerator"] == "a100-80gb-sxm", "speed_vs_a100"] == 1.0).all()


def test_b200_200gbe_gradient_traffic_by_hand(network):
    """70B on 2 x 8 B200, ZeRO-3 (x1.5 volume): gradient shard 70e9 x 2 B = 140 GB.
    Inside a node (ring over 8, NVLink 1,800/2 x 0.7 = 630 GB/s): 2 x 140e9 x 7/8 / 630e9 = 0.389 s.
    Across the 2 nodes (25 Gb/s per GPU x 0.6 = 1.875 GB/s): 2 x 140e9/8 x 1/2 / 1.875e9 = 9.333 s.
    (0.389 + 9.333) x 1.5 = 14.58 s per step."""
    r = network[(network["model"] == "70B") & (network["accelerator"] == "b200-hgx")].iloc[0]
    assert r["dp_comm_s"] == pytest.approx(
        (2 * 140e9 * 7 / 8 / 630e9 + 2 * 140e9 / 8 / 2 / 1.875e9) * 1.5, rel=1e-9
    )


def test_network_verdict_peak_ratio_and_engine_finding(network, cat):
    """Peak: 16 x 2,250 / (64 x 312) = 36,000 / 19,968 = 1.80. The engine finds the B200 cluster
    faster at every size (the article's claim does not hold), and still faster with no overlap."""
    v = A.network_verdict(network, cat)
    assert v["peak_ratio"].iloc[0] == pytest.approx(36000 / 19968)
    assert list(v["model"]) == ["1B", "7B", "13B", "30B", "70B"]
    np.testing.assert_allclose(v["b200_speedup"], network["speed_vs_a100"].to_numpy()[::2])
    assert not v["claim_holds"].any() and (v["b200_speedup"] > 1).all()
    stressed = A.network_comparison(catalog=cat, assumptions={"dp_overlap_fraction": 0.0})
    np.testing.assert_allclose(stressed["dp_exposed_s"], stressed["dp_comm_s"])
    assert (A.network_verdict(stressed, cat)["b200_speedup"] > 1).all()


def test_network_bad_input():
    with pytest.raises(ValueError, match=r"model_sizes has 1 invalid value"):
        A.network_comparison([7e9, -1])
    with pytest.raises(ValueError, match=r"model_sizes is empty"):
        A.network_comparison([])
    with pytest.raises(ValueError, match=r"global_batch_tokens=0"):
        A.network_comparison(global_batch_tokens=0)
    with pytest.raises(ValueError, match=r"assumption 'nope' is unknown"):
        A.network_comparison(assumptions={"nope": 1.0})


def test_bandwidth_vs_flops(cat):
    t = A.bandwidth_vs_flops(
        7e9, 8, ["h100-sxm", "b200-hgx", "a100-80gb-sxm"], catalog=cat
    ).set_index("accelerator")
    assert t.loc["h100-sxm", "flop_per_byte"] == pytest.approx(989 / 3.35)
    assert t.loc["b200-hgx", "flop_per_byte"] == pytest.approx(2250 / 8)
    assert t.loc["h100-sxm", "mfu"] == pytest.approx(
        estimate_training(7e9, 1e12, "h100-sxm", 8, catalog=cat).mfu
    )
    assert list(t.index) == ["a100-80gb-sxm", "b200-hgx", "h100-sxm"]  # sorted by FLOP per byte
    fp8 = A.bandwidth_vs_flops(7e9, 8, ["h100-sxm", "a100-80gb-sxm"], precision="fp8", catalog=cat)
    assert list(fp8["accelerator"]) == ["h100-sxm"]  # Ampere has no FP8
    with pytest.raises(ValueError, match=r"precision='fp16' is not allowed"):
        A.bandwidth_vs_flops(precision="fp16")
    with pytest.raises(ValueError, match=r"none of the accelerators has a dense fp8 peak"):
        A.bandwidth_vs_flops(accelerators=["a100-80gb-sxm"], precision="fp8")


# --- 03 rent vs buy -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rvb(cat):
    return A.rent_vs_buy_table(
        "h200-sxm", 128, n_params=70e9, n_tokens=1e12, runs_per_year=2, catalog=cat
    ).set_index("acquisition")


def test_rent_vs_buy_costs_by_hand(rvb, cat):
    """On demand: GPU-hours x $4.00. Capex: 128 x $29,500 + 16 servers x $66,600 + 128 x $5,000
    (NDR per GPU) = $5,481,600 (data/prices.csv, facility.csv, fabrics.csv)."""
    e = estimate_training(70e9, 1e12, "h200-sxm", 128, catalog=cat)
    assert rvb.loc["rent-on-demand", "cost_per_run_usd"] == pytest.approx(e.gpu_hours * 4.00)
    assert rvb.loc["rent-spot", "cost_per_run_usd"] == pytest.approx(e.gpu_hours * 1.15 * 3.40)
    assert rvb.loc["buy-new", "capex_usd"] == pytest.approx(
        128 * 29_500 + 16 * 66_600 + 128 * 5_000
    )
    assert "buy-used" not in rvb.index  # no buy-used H200 price in the catalog


def test_breakeven_is_where_buying_and_renting_cost_the_same(rvb, cat):
    be = rvb["breakeven_runs_per_year"].iloc[0]
    assert 0 < be < 365 / rvb.loc["rent-on-demand", "wall_days"]
    curve = A.rent_vs_buy_curve(
        "h200-sxm", 128, n_params=70e9, n_tokens=1e12, runs=[be], catalog=cat
    ).set_index("acquisition")
    assert curve.loc["buy-new", "cost_per_year_usd"] == pytest.approx(
        curve.loc["rent-on-demand", "cost_per_year_usd"], rel=1e-6
    )
    assert rvb["breakeven_busy_fraction"].iloc[0] == pytest.approx(
        be * rvb.loc["rent-on-demand", "wall_days"] / 365
    )


def test_rent_vs_buy_breakeven_matches_recommend_for_its_pick(cat):
    """The engine's own break-even (Recommendation.breakeven_runs_per_year) for its top option.

    Restricted to an air-cooled part: for liquid-only parts the table prices the owner's liquid
    retrofit (and liquid PUE), which an air-cooled preset without retrofit does not."""
    s = presets["funded-startup-30b-domain"].replace(accelerators=["h200-sxm"])
    rec = recommend(s, catalog=cat, sensitivity=False)
    t = A.rent_vs_buy_table(
        rec.top.accelerator,
        rec.top.n_gpus,
        n_params=s.n_params,
        n_tokens=s.tokens,
        runs_per_year=s.runs_per_year,
        cooling=s.cooling,
        catalog=cat,
    )
    assert math.isfinite(rec.breakeven_runs_per_year)
    assert t["breakeven_runs_per_year"].iloc[0] == pytest.approx(
        rec.breakeven_runs_per_year, rel=1e-6
    )


def test_article_rent_vs_buy(cat):
    """The article: 128 x 48 days x 24 h = 147,456 GPU-h; at its $3.40 spot that is $501,350 (its $502K)."""
    t = A.article_rent_vs_buy(cat).set_index("figure")
    assert t.loc["GPU-hours per run", "article"] == 147_456
    assert t.loc["rent on spot, per run (USD)", "article"] == pytest.approx(
        147_456 * 3.40, rel=0.002
    )
    c = check_claim(70e9, 5e12, "h200-sxm", 128, days=48, catalog=cat)
    assert t.loc["run length (days)", "engine"] == pytest.approx(c.realistic_days)
    assert t.loc["break-even (share of the year busy)", "article"] == pytest.approx(2.5 * 48 / 365)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"accelerator": "nope"}, r"accelerator='nope' is not an accelerator id"),
        (
            {"n_gpus": 100},
            r"n_gpus=100 is not a cluster size the engine prices for h200-sxm; allowed: 1, 2, 4, 8, 16",
        ),
        ({"runs_per_year": 0}, r"runs_per_year=0"),
        ({"cooling": "water"}, r"cooling='water' is not allowed"),
        ({"n_tokens": -5}, r"n_tokens=-5"),
    ],
)
def test_rent_vs_buy_bad_input(kwargs, match):
    args = {"accelerator": "h200-sxm", "n_gpus": 128, "n_params": 70e9, "n_tokens": 1e12, **kwargs}
    with pytest.raises(ValueError, match=match):
        A.rent_vs_buy_table(args.pop("accelerator"), args.pop("n_gpus"), **args)


# --- 04 power -------------------------------------------------------------------------------------


def test_power_table_reproduces_dgx_b200_not_tdp_x_48(cat):
    """48 B200 = 6 DGX B200 x (8 x 1.0 kW + 6.3 kW host) = 6 x 14.3 = 85.8 kW vs the article's 48 kW.
    Racks: one 14.3 kW node per 20 kW rack (6 racks), two per 40 kW (3), three per 135 kW (space: 3)."""
    t = A.power_table(catalog=cat).set_index("accelerator")
    b = t.loc["b200-hgx"]
    assert b["node_kw"] == pytest.approx(14.3) and b["nodes"] == 6
    assert b["it_kw"] == pytest.approx(85.8) and b["article_kw"] == 48.0
    assert b["it_over_article"] == pytest.approx(85.8 / 48)
    assert (b["racks_20kw"], b["racks_40kw"], b["racks_135kw"]) == (6, 3, 2)
    assert b["facility_kw"] == pytest.approx(85.8 * 1.54)
    assert t.loc["h100-sxm", "it_kw"] == pytest.approx(
        6 * (8 * 0.7 + 4.6)
    )  # 61.2 vs the article's 33.6
    assert t.loc["b300-hgx", "it_kw"] == pytest.approx(6 * (8 * 1.1 + 5.7))  # 87.0 vs 57.6
    assert t.loc["mi350x", "article_tdp_w"] == 750 and t.loc["mi350x", "tdp_w"] == 1000
    assert (t["tdp_x_gpus_kw"] == t["tdp_w"] * 48 / 1000).all()


def test_nvl72_rack_needs_a_liquid_rack(cat):
    """GB300 NVL72: 18 trays x (4 x 1.4 kW + 1.9 kW) = 135 kW, one whole rack; no 20 or 40 kW rack holds it."""
    t = A.power_table(["gb300-nvl72"], n_gpus=72, cooling="liquid", catalog=cat).iloc[0]
    assert t["it_kw"] == pytest.approx(135.0)
    assert pd.isna(t["racks_20kw"]) and pd.isna(t["racks_40kw"]) and t["racks_135kw"] == 1
    assert t["facility_kw"] == pytest.approx(135.0 * 1.15)


def test_power_bad_input():
    with pytest.raises(ValueError, match=r"accelerators contains 'tpu-v5p', which has no TDP"):
        A.power_table(["tpu-v5p"])
    with pytest.raises(ValueError, match=r"rack_limits_kw has 1 invalid value"):
        A.power_table(rack_limits_kw=[20, 0])
    with pytest.raises(ValueError, match=r"n_gpus=4.5"):
        A.power_table(n_gpus=4.5)
    with pytest.raises(ValueError, match=r"cooling='immersion' is not allowed"):
        A.power_table(cooling="immersion")


# --- 05 team and software risk --------------------------------------------------------------------


def test_software_maturity_and_rules_come_from_assumptions(cat):
    m = A.software_maturity_table(cat).set_index("software_stack")
    assert m.loc["rocm", "value"] == cat.param("assumptions", "software_maturity_rocm") == 0.7
    assert "mi350x" in m.loc["rocm", "accelerators"] and m.loc["cuda", "value"] == 1.0
    r = A.team_rules_table(cat).set_index("parameter")
    assert r.loc["rocm_min_platform_engineers", "value"] == 2
    assert r.loc["nodes_per_platform_engineer", "value"] == 16


@pytest.fixture(scope="module")
def team(cat):
    return A.team_risk_table(catalog=cat)


def test_team_risk_follows_the_articles_rules(team):
    """'If your team is 5 people, do not pick AMD'; Gaudi 3 never across nodes; ROCm experience lifts the AMD rule."""
    small = team[team["profile"] == "5 people, no platform eng."].set_index("accelerator")
    for amd in ("mi300x", "mi350x", "mi355x"):
        assert small.loc[amd, "allowed"] == "no" and "ROCm" in small.loc[amd, "reason"]
    assert small.loc["h100-sxm", "allowed"] == "rent; own <= 1 node"
    assert (team.loc[team["accelerator"] == "gaudi3", "allowed"] == "<= 1 node").all()
    rocm = team[team["profile"] == "12 people, ROCm experience"].set_index("accelerator")
    assert rocm.loc["mi350x", "allowed"] != "no"
    m = A.team_risk_matrix(team)
    assert m.index[-1] == "(engine's pick)" and list(m.columns) == list(A.TEAM_PROFILES)
    assert set(A.team_risk_reasons(team)["allowed"]) <= set(team["allowed"])


def test_team_pick_is_recommends_pick(team, cat):
    s = presets["band-7b-to-70b"].replace(**A.TEAM_PROFILES["5 people, no platform eng."])
    top = recommend(s, catalog=cat, sensitivity=False).top
    pick = team[team["profile"] == "5 people, no platform eng."]["pick"].iloc[0]
    assert pick == f"{top.acquisition} {top.n_gpus} x {top.accelerator}"


def test_team_bad_input():
    with pytest.raises(ValueError, match=r"preset='nope' is not a preset; allowed: small-team"):
        A.team_risk_table("nope")
    with pytest.raises(ValueError, match=r"profiles\['x'\]=.*allowed keys: team_size"):
        A.team_risk_table(profiles={"x": {"budget_usd": 1}})
    with pytest.raises(ValueError, match=r"profiles=\{\} is not a non-empty dict"):
        A.team_risk_table(profiles={})


# --- 06 claims and inference ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def claims(cat):
    return A.claims_table(cat).set_index("claim_id")


def test_claims_table_has_every_csv_row(claims, cat):
    assert list(claims.index) == list(cat.tables["article_claims"]["claim_id"])
    assert {"verdict", "explanation", "engine_says", "engine_verdict", "engine_agrees"} <= set(
        claims.columns
    )


def test_headline_is_physically_impossible_at_implied_mfu_4(claims):
    """6 x 70e9 x 5e12 = 2.1e24 FLOP; 128 x 48 d x 86,400 s x 989e12 = 5.25e23 FLOP at peak: 4.0x."""
    c = claims.loc["c58-70b-5t-48days-128-h200"]
    assert c["verdict"] == c["engine_verdict"] == "physically-impossible"
    assert "needs 4.0x the dense BF16 peak" in c["engine_says"]
    assert 6 * 70e9 * 5e12 / (128 * 48 * 86400 * 989e12) == pytest.approx(4.0, abs=0.01)
    assert check_claim(70e9, 5e12, "h200-sxm", 128, days=48).implied_mfu == pytest.approx(
        4.0, abs=0.01
    )


def test_engine_recomputes_b300_fp8_and_rack_power(claims):
    assert "4,500 / 4,500 = 1.00x" in claims.loc["c11-b300-fp8-doubled", "engine_says"]
    assert claims.loc["c13-b300-fp8-dense", "engine_verdict"] == "wrong"
    assert "6 x 14.3 kW = 85.8 kW" in claims.loc["c52-rack-b200-48kw", "engine_says"]
    assert claims.loc["c52-rack-b200-48kw", "engine_verdict"] == "wrong"


def test_engine_never_contradicts_a_checked_verdict(claims):
    """Where the table is not 'unverifiable', the engine's verdict lands on the same side (holds / fails)."""
    judged = claims[claims["engine_agrees"].notna()]
    assert len(judged) >= 25
    assert judged["engine_agrees"].all(), judged[~judged["engine_agrees"]].index.tolist()
    o = A.claims_overview(claims.reset_index())
    assert o["claims"].sum() == len(claims)
    assert o["engine_disagrees"].sum() == 0


def test_inference_table_is_inference_frame(cat):
    t = A.inference_table([8e9, 70e9], catalog=cat)
    f = inference_frame(70e9, ["h200-sxm", "l40s", "b300-hgx", "mi350x"], catalog=cat)
    got = t[t["model"] == "70B"].reset_index(drop=True)
    np.testing.assert_allclose(got["usd_per_million_tokens"], f["usd_per_million_tokens"])
    assert list(got["rank"]) == [1, 2, 3, 4]
    assert set(t.loc[t["accelerator"].isin(["h200-sxm", "l40s"]), "article_says"]) == {"better"}
    v = A.inference_verdict(t)
    assert list(v["claim_holds"]) == list(v["pick_usd_per_m"] < v["other_usd_per_m"])
    with pytest.raises(ValueError, match=r"price_basis='free' is not allowed"):
        A.inference_table(price_basis="free")
    with pytest.raises(ValueError, match=r"model_sizes=None is not a list of numbers"):
        A.inference_table(None)
    with pytest.raises(ValueError, match=r"catalog=.* is not a workbook Catalog"):
        A.claims_table(catalog={"accelerators": None})


def test_pilot_time_factor_reproduces_mosaicml_published_mfu(cat):
    """llm-foundry's MPT-7B benchmark on 8 H100 (mpt-7b-bench-h100): 10,643 tokens/s per GPU, published
    as 'MFU 46.44% (incl. attention FLOPs)'. Full-attention FLOPs per token by hand: 6 N + 12 L d s with
    the engine's shape for N = 6,658,859,008 (L 32.35, d 4,141.4), s = 2,048: 4.3246e10; x 10,643 /
    989e12 = 0.4654, within 0.002 of the published figure."""
    row = cat.tables["published_runs"].set_index("run_id").loc["mpt-7b-bench-h100"]
    config = {"accelerator": row["accelerator_id"], "n_gpus": int(row["gpu_count"])}
    r = A.pilot_time_factor(
        row["tokens_per_s_per_gpu"],
        row["params_total"],
        config,
        seq_len=int(row["seq_len"]),
        attention="full",
        catalog=cat,
    )
    L, d = 32.35436480798625, 4141.35869542224
    by_hand = (6 * 6658859008 + 12 * L * d * 2048) * 10643 / 989e12
    assert r["measured_mfu"] == pytest.approx(by_hand, rel=1e-6) and r[
        "measured_mfu"
    ] == pytest.approx(0.4644, abs=0.002)
    # Predicted: the speed table's steady state (global batch / step time / GPUs, before goodput).
    sp = A.speed_table(row["params_total"], 1e12, [config], seq_len=2048, catalog=cat).iloc[0]
    predicted = sp["global_batch_tokens"] / sp["step_s"] / 8
    assert r["predicted_tokens_per_s_per_gpu"] == pytest.approx(predicted)
    assert predicted > sp["tokens_per_s_per_gpu"]  # goodput is left out for a short pilot
    assert (
        r["time_factor"] == pytest.approx(predicted / 10643) and r["time_factor"] < 1
    )  # MosaicML beat the engine
    assert (
        r["predicted_mfu"] == pytest.approx(r["measured_mfu"] * r["time_factor"])
        and r["in_scenario_range"]
    )
    # A pilot at two thirds of the predicted rate plans for 1.5x the days; a Scenario takes it.
    slow = A.pilot_time_factor(
        predicted / 1.5, row["params_total"], config, seq_len=2048, catalog=cat
    )
    assert slow["time_factor"] == pytest.approx(1.5)
    assert presets["band-7b-to-70b"].replace(
        time_factor=slow["time_factor"]
    ).time_factor == pytest.approx(1.5)
    assert not A.pilot_time_factor(
        predicted / 20, row["params_total"], config, seq_len=2048, catalog=cat
    )["in_scenario_range"]
    for bad in (0, -1.0, float("nan"), "fast"):
        with pytest.raises(ValueError, match=r"measured_tokens_per_s_per_gpu"):
            A.pilot_time_factor(bad, 7e9, config, catalog=cat)
    with pytest.raises(ValueError, match=r"config=.* is not a dict"):
        A.pilot_time_factor(1000.0, 7e9, "h100-sxm", catalog=cat)
    with pytest.raises(ValueError, match=r"h200-nvl"):
        A.pilot_time_factor(1000.0, 7e9, {"accelerator": "h200-nvl", "n_gpus": 8}, catalog=cat)
    with pytest.raises(ValueError, match=r"unsupported on a100-80gb-sxm"):
        A.pilot_time_factor(
            1000.0,
            7e9,
            {"accelerator": "a100-80gb-sxm", "n_gpus": 8, "precision": "fp8"},
            catalog=cat,
        )


#: llm-foundry's published MFU (incl. attention FLOPs) per benchmark row (scripts/train/benchmarking/README.md,
#: quoted in data/published_runs.csv notes).
LLM_FOUNDRY_MFU = {
    "mpt-70b-bench-h100": 0.4257,
    "mpt-70b-bench-a100-80gb": 0.5333,
    "mpt-30b-bench-h100": 0.3811,
    "mpt-30b-bench-a100-80gb": 0.553,
    "mpt-13b-bench-h100": 0.3979,
    "mpt-13b-bench-a100-80gb": 0.5957,
    "mpt-7b-bench-h100": 0.4644,
    "mpt-7b-bench-a100-80gb": 0.6423,
    "mpt-7b-bench-a100-40gb": 0.5092,
}


@pytest.mark.parametrize("run", list(LLM_FOUNDRY_MFU))
def test_measured_mfu_matches_llm_foundry_for_every_benchmark(cat, run):
    """The FLOP accounting behind measured_mfu (6 N + 12 L d s per token, the engine's shape) reproduces
    every MFU llm-foundry published from its own tokens/s, within half a point."""
    row = cat.tables["published_runs"].set_index("run_id").loc[run]
    r = A.pilot_time_factor(
        row["tokens_per_s_per_gpu"],
        row["params_total"],
        {"accelerator": row["accelerator_id"], "n_gpus": int(row["gpu_count"])},
        seq_len=int(row["seq_len"]),
        attention="full",
        catalog=cat,
    )
    assert r["measured_mfu"] == pytest.approx(LLM_FOUNDRY_MFU[run], abs=0.005)


def test_accuracy_chart_has_log_axes_identity_line_and_band(cat):
    t = A.accuracy_table(cat)
    spec = A.accuracy_chart(t).to_dict()
    assert len(spec["layer"]) == 3
    assert all(layer["encoding"]["x"]["scale"]["type"] == "log" for layer in spec["layer"])
    band = A.accuracy_chart(t).data  # the reference lines, hoisted by altair to the layer chart
    np.testing.assert_allclose(band["lo"], 0.75 * band["x"])
    np.testing.assert_allclose(band["hi"], 1.25 * band["x"])
    assert to_svg(A.accuracy_chart(t)).lstrip().startswith("<svg")


def test_charts_render_offline_and_reject_wrong_tables(cat, network, fit70):
    assert "<svg" in to_svg(A.step_breakdown_chart(network))[:200]
    assert "<svg" in to_svg(A.memory_ledger_chart(fit70.reset_index()))[:200]
    for fn in (
        A.memory_ledger_chart,
        A.step_breakdown_chart,
        A.bandwidth_chart,
        A.power_chart,
        A.accuracy_chart,
    ):
        with pytest.raises(ValueError, match=r"table lacks the column"):
            fn(pd.DataFrame({"x": [1]}))
    with pytest.raises(ValueError, match=r"curve is a list"):
        A.rent_vs_buy_chart([1, 2])


def test_about_data_names_the_snapshot(cat):
    assert cat.snapshot()["data_hash"] in A.about_data(cat)
    assert A.about_data(cat).endswith("overrides: none")
    with pytest.raises(ValueError, match=r"catalog='x' is not a workbook Catalog"):
        A.about_data("x")


# --- the notebooks --------------------------------------------------------------------------------

GUIDES = sorted(p.name for p in (ROOT / "notebooks").glob("0*.ipynb"))


def test_seven_guides_exist():
    assert len(GUIDES) == 7


@pytest.mark.parametrize("name", sorted(GUIDES))
def test_guides_are_thin(name):
    """Imports, one tagged parameters cell (annotated, no '=' in comments), calls, one checked summary."""
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    params = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1
    names = re.findall(r"^(\w+)\s*[:=]", params[0].source, re.MULTILINE)
    for line in params[0].source.splitlines():
        if re.match(r"^\w+\s*[:=]", line):
            assert re.match(r"^\w+: [\w\[\]]+ = ", line), f"not annotated: {line}"
        assert "=" not in line.partition("#")[2], f"'=' in a comment breaks papermill: {line}"
    # papermill sees every parameter (a 'str | None' annotation or an '=' in a comment would hide it)
    assert list(papermill.inspect_notebook(str(ROOT / "notebooks" / name))) == names
    assert "overrides" in names
    checked = [c for c in code if c.source.startswith("# NBVAL_CHECK_OUTPUT")]
    assert len(checked) == 1 and "to_string(" in checked[0].source
    for c in code:
        assert not re.search(
            r"^\s*(def |class |for |while |import altair)|lambda|alt\.", c.source, re.MULTILINE
        ), c.source
    # every chart is static SVG, never the default html renderer
    charts = [c for c in code if "_chart(" in c.source]
    assert all(c.source.startswith("SVG(to_svg(") or "\nSVG(to_svg(" in c.source for c in charts)


@pytest.mark.parametrize("name", sorted(GUIDES))
def test_guides_store_deterministic_text_outputs(name):
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    checked = next(
        c for c in nb.cells if c.cell_type == "code" and c.source.startswith("# NBVAL_CHECK_OUTPUT")
    )
    text = "".join(o.get("text", "") for o in checked.outputs if o.get("output_type") == "stream")
    assert text.strip(), f"{name}: run tools/refresh_outputs.py to store reference outputs"
    assert not re.search(r"\d{4}-\d{2}-\d{2}|/work/|0x[0-9a-f]{6,}", text)
    assert "widgets" not in nb.metadata


