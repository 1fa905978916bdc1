"""The claims of the seed article that the engine recomputes, topic by topic, for notebook 06
(:func:`workbook.guides.claims.claims_table`).

The article is N. Dixit (SIVARO), "The Best GPU Architecture for Training Large Models in 2026"
(``../shared/seed/000_e6c314b433b91124.txt``); its checked claims are ``data/article_claims.csv``.
The engine's figures come from the catalog, :func:`workbook.model.check_claim`, the other guides'
tables (memory fit, speed, rent vs buy, power) and
:func:`workbook.calibrate.throughput_ratios`. Each topic is one function returning
``claim_id -> (engine_says, engine_verdict, engine_basis)``; the verdicts use the vocabulary of
``article_claims.csv`` ("holds", "wrong", "contradicts-itself"; "" where the figure is context).
"""

from __future__ import annotations

import pandas as pd

from ..calibrate import throughput_ratios
from ..catalog import Catalog
from ..model import check_claim, cost
from .memory_fit import memory_fit_table
from .power import power_table
from .rent_vs_buy import ARTICLE_RENT_VS_BUY, article_rent_vs_buy
from .speed import network_comparison, network_verdict, speed_table

__all__ = ["EngineClaim", "engine_claims"]

#: The Series-A startup's hardware budget in the article's story [USD].
ARTICLE_STARTUP_BUDGET_USD = 250_000

#: One engine entry of :func:`workbook.guides.claims.claims_table`: (engine_says, engine_verdict,
#: engine_basis).
EngineClaim = tuple[str, str, str]


def _verdict_close(claimed: float, engine: float, tolerance: float = 0.05) -> str:
    """ "holds" where the claimed figure is within ``tolerance`` (relative) of the engine's."""
    return "holds" if abs(claimed / engine - 1.0) <= tolerance else "wrong"


def _headline_claims(cat: Catalog) -> dict[str, EngineClaim]:
    """The headline run: 70B on 5T tokens in 48 days on 128 H200."""
    art = ARTICLE_RENT_VS_BUY
    c = check_claim(
        art["n_params"],
        art["n_tokens"],
        art["accelerator"],
        art["n_gpus"],
        days=art["days"],
        catalog=cat,
    )
    says = (
        f"needs {c.implied_mfu:.1f}x the dense BF16 peak ({c.implied_mfu_fp8:.1f}x FP8) in 48 "
        f"days; the engine's run: {c.realistic_days:,.0f} days, {c.realistic_gpu_hours:,.0f} "
        f"GPU-h at {c.realistic_mfu:.0%} MFU"
    )
    return {"c58-70b-5t-48days-128-h200": (says, c.verdict, "check_claim + time model")}


def _money_claims(cat: Catalog) -> dict[str, EngineClaim]:
    """The money of the article's rent-vs-buy paragraph: spot cost, capex, break-even."""
    art = ARTICLE_RENT_VS_BUY
    prices = cat.default_prices()
    rvb = article_rent_vs_buy(cat).set_index("figure")
    days = rvb.loc["run length (days)", "engine"]
    spot = rvb.loc["rent on spot, per run (USD)", "engine"]
    capex = rvb.loc["buy new, capex (USD)", "engine"]
    be = rvb.loc["break-even (runs per year)", "engine"]
    busy = rvb.loc["break-even (share of the year busy)", "engine"]
    art_busy = rvb.loc["break-even (share of the year busy)", "article"]
    return {
        "c59-502k-spot": (
            f"${spot:,.0f} on spot for the {days:,.0f}-day run "
            f"(${prices.loc['h200-sxm', 'rent-spot']:.2f}/GPU-h + spot preemption overhead)",
            _verdict_close(art["spot_usd_per_run"], spot, 0.25),
            "cost model",
        ),
        "c60-buy-1.8m": (
            f"${capex:,.0f} capex: 128 x ${prices.loc['h200-sxm', 'buy-new']:,.0f} + 16 servers + "
            "InfiniBand",
            _verdict_close(art["buy_usd"], capex, 0.15),
            "cost model",
        ),
        "c61-breakeven-2.5-runs": (
            f"break-even {be:.2f} runs/yr of {days:,.0f} days (cluster busy {busy:.0%} of "
            f"the year; the article's 2.5 x 48 days = {art_busy:.0%})",
            _verdict_close(art["breakeven_runs_per_year"], be, 0.25),
            "cost model",
        ),
    }


def _network_claims(cat: Catalog) -> dict[str, EngineClaim]:
    """The scale-out comparison: 2 nodes of B200 on 200GbE vs 8 nodes of A100 on NDR."""
    v = network_verdict(network_comparison(catalog=cat), cat)
    says = (
        f"B200 cluster {v['b200_speedup'].min():.2f}-{v['b200_speedup'].max():.2f}x the A100 "
        f"cluster's tokens/s for {v['model'].iloc[0]}-{v['model'].iloc[-1]} models (peak ratio "
        f"{v['peak_ratio'].iloc[0]:.2f}x); its 200GbE all-reduce "
        f"({v['b200_dp_comm_s'].max():.1f} s/step at most) hides behind the backward pass"
    )
    verdict = "holds" if v["claim_holds"].all() else "wrong"
    return {"c09-b200-2node-vs-a100-8node": (says, verdict, "time model")}


def _spec_claims(spec: pd.DataFrame) -> dict[str, EngineClaim]:
    """Spec-sheet figures (dense FP8, HBM bandwidth, memory), against the catalog."""
    fp8, bw, mem = spec["tflops_dense_fp8"], spec["memory_bw_tbps"], spec["memory_gb"]
    out = {
        "c11-b300-fp8-doubled": (
            f"dense FP8 B300 / B200 = {fp8['b300-hgx']:,.0f} / {fp8['b200-hgx']:,.0f} = "
            f"{fp8['b300-hgx'] / fp8['b200-hgx']:.2f}x",
            _verdict_close(2.0, fp8["b300-hgx"] / fp8["b200-hgx"], 0.15),
            "catalog",
        ),
        "c12-b200-fp8-dense": (
            f"B200 dense FP8 {fp8['b200-hgx']:,.0f} TFLOP/s",
            _verdict_close(4500, fp8["b200-hgx"]),
            "catalog",
        ),
        "c13-b300-fp8-dense": (
            f"B300 dense FP8 {fp8['b300-hgx']:,.0f} TFLOP/s (GB300 {fp8['gb300-nvl72']:,.0f})",
            _verdict_close(8000, fp8["b300-hgx"], 0.15),
            "catalog",
        ),
    }
    for cid, acc, claimed in (
        ("c06-a100-bandwidth", "a100-80gb-sxm", 2.0),
        ("c07-h100-bandwidth", "h100-sxm", 3.35),
        ("c08-b200-bandwidth", "b200-hgx", 8.0),
    ):
        out[cid] = (f"{acc} HBM {bw[acc]:g} TB/s", _verdict_close(claimed, bw[acc]), "catalog")
    for cid, acc, claimed in (
        ("c03-mi300x-memory", "mi300x", 192),
        ("c04-h200-memory", "h200-sxm", 141),
        ("c33-rtx-pro-6000-96gb", "rtx-pro-6000-server", 96),
    ):
        out[cid] = (f"{acc} {mem[acc]:g} GB", _verdict_close(claimed, mem[acc]), "catalog")
    out["c24-mi350x-specs"] = (
        f"MI350X {mem['mi350x']:g} GB, {bw['mi350x']:g} TB/s",
        "holds" if (mem["mi350x"], bw["mi350x"]) == (288, 8) else "wrong",
        "catalog",
    )
    out["c14-b200-memory"] = (
        f"the engine plans with {mem['b200-hgx']:g} GB usable (192 GB is the physical figure)",
        "",
        "catalog",
    )
    return out


def _tdp_claims(spec: pd.DataFrame) -> dict[str, EngineClaim]:
    """Board power per GPU, against the catalog."""
    tdp = spec["tdp_w"]
    return {
        "c20-b200-tdp-1200w": (
            f"B200 {tdp['b200-hgx']:,.0f} W; GB200 {tdp['gb200-nvl72']:,.0f} W",
            "",
            "catalog",
        ),
        "c29-mi350x-750w-vs-1200w": (
            f"MI350X {tdp['mi350x']:,.0f} W vs B200 {tdp['b200-hgx']:,.0f} W",
            _verdict_close(750, tdp["mi350x"]),
            "catalog",
        ),
        "c45-power-h100-h200-700w": (
            f"H100 {tdp['h100-sxm']:,.0f} W, H200 {tdp['h200-sxm']:,.0f} W",
            "holds" if tdp["h100-sxm"] == tdp["h200-sxm"] == 700 else "wrong",
            "catalog",
        ),
        "c46-power-mi350x-750w": (
            f"MI350X {tdp['mi350x']:,.0f} W",
            _verdict_close(750, tdp["mi350x"]),
            "catalog",
        ),
        "c47-power-b200-1000w": (
            f"B200 {tdp['b200-hgx']:,.0f} W",
            _verdict_close(1000, tdp["b200-hgx"]),
            "catalog",
        ),
        "c48-power-b300-1200w": (
            f"B300 {tdp['b300-hgx']:,.0f} W",
            _verdict_close(1200, tdp["b300-hgx"]),
            "catalog",
        ),
    }


def _rack_power_claims(cat: Catalog) -> dict[str, EngineClaim]:
    """Rack power of the article's table with the host overhead (48 GPUs as servers)."""
    p = power_table(catalog=cat).set_index("accelerator")
    b = p.loc["b200-hgx"]
    out = {
        "c49-rack-power-method": (
            f"48 B200 as servers: {int(b['nodes'])} x {b['node_kw']:.1f} kW = "
            f"{b['it_kw']:.1f} kW, {b['it_over_article']:.2f}x TDP x 48",
            _verdict_close(b["article_kw"], b["it_kw"], 0.10),
            "power model",
        )
    }
    for cid, acc in (
        ("c50-rack-h100-h200-33.6kw", "h100-sxm"),
        ("c51-rack-mi350x-36kw", "mi350x"),
        ("c52-rack-b200-48kw", "b200-hgx"),
        ("c53-rack-b300-57.6kw", "b300-hgx"),
    ):
        r = p.loc[acc]
        out[cid] = (
            f"{int(r['nodes'])} x {r['node_kw']:.1f} kW = {r['it_kw']:.1f} kW (GPUs + host)",
            _verdict_close(r["article_kw"], r["it_kw"], 0.10),
            "power model",
        )
    return out


def _nvl72_claims(cat: Catalog, spec: pd.DataFrame) -> dict[str, EngineClaim]:
    """The NVL72 rack: its power, its NVLink domain, and the article's TP8 x PP16 layout on it."""
    nvl = power_table(["gb200-nvl72", "gb300-nvl72"], n_gpus=72, catalog=cat).set_index(
        "accelerator"
    )
    dom = int(spec.loc["gb300-nvl72", "scale_up_domain_gpus"])
    return {
        "c21-nvl72-rack-power": (
            f"NVL72 rack: GB200 {nvl.loc['gb200-nvl72', 'it_kw']:.1f} kW, GB300 "
            f"{nvl.loc['gb300-nvl72', 'it_kw']:.1f} kW",
            "holds" if nvl["it_kw"].min() > 100 else "wrong",
            "power model",
        ),
        "c36-nvl72-72gpu-domain": (
            f"NVLink domain {dom} GPUs",
            "holds" if dom == 72 else "wrong",
            "catalog",
        ),
        "c37-nvl72-config-tp8-pp16": (
            f"TP8 x PP16 = 128 GPUs per replica > the {dom}-GPU NVLink domain",
            "contradicts-itself" if 128 > dom else "holds",
            "arithmetic",
        ),
    }


def _throughput_ratio_claims(cat: Catalog) -> dict[str, EngineClaim]:
    """NVL72 vs H100 on Llama3-70B: the engine's prediction of the NeMo benchmark pairs."""
    ratios = throughput_ratios(cat).set_index("pair")
    gb300 = ratios.loc["NeMo Llama3-70B GB300 / H100 (fp8)"]
    gb200 = ratios.loc["NeMo Llama3-70B GB200 / H100 (fp8)"]
    says = (
        f"predicted per-GPU speedup on Llama3-70B FP8: GB200 {gb200['predicted_ratio']:.2f}x, "
        f"GB300 {gb300['predicted_ratio']:.2f}x (published {gb200['published_ratio']:.2f}x, "
        f"{gb300['published_ratio']:.2f}x)"
    )
    best = max(gb200["predicted_ratio"], gb300["predicted_ratio"])
    verdict = "holds" if best >= 3.5 * 0.9 else "wrong"
    return {"c39-nvl72-3.5x-vs-h100": (says, verdict, "time model")}


def _memory_fit_claims(cat: Catalog) -> dict[str, EngineClaim]:
    """Memory fit of the fine-tuning claims, and 1T parameters on one GB300 rack."""
    q70 = memory_fit_table(70e9, ["h200-sxm"], method="qlora", catalog=cat).iloc[0]
    q405 = memory_fit_table(405e9, ["h200-sxm"], method="qlora", catalog=cat).iloc[0]
    l17 = memory_fit_table(17e9, ["rtx-pro-6000-server"], method="lora", catalog=cat).iloc[0]
    t1 = memory_fit_table(1e12, ["gb300-nvl72"], catalog=cat).iloc[0]
    one_rack = speed_table(
        1e12, 1e12, [{"accelerator": "gb300-nvl72", "n_gpus": 72}], catalog=cat
    ).iloc[0]
    return {
        "c64-qlora-4-h200": (
            f"QLoRA fits on {q70['min_gpus']} H200 for 70B, {q405['min_gpus']} for 405B",
            "holds" if q405["fits"] and q405["min_gpus"] <= 4 else "wrong",
            "memory model",
        ),
        "c35-17b-lora-fits": (
            f"17B LoRA fits on {l17['min_gpus']} RTX PRO 6000 ({l17['total_gb']:.0f} GB per GPU)",
            "holds" if l17["fits"] and l17["min_gpus"] <= 4 else "wrong",
            "memory model",
        ),
        "c23-b300-1t-single-rack": (
            f"1T params fit on {t1['min_gpus']} GB300 ({t1['layout']}), but 1T tokens take "
            f"{one_rack['wall_days']:,.0f} days on one rack",
            "",
            "memory + time model",
        ),
    }


def _series_a_claims(cat: Catalog, spec: pd.DataFrame) -> dict[str, EngineClaim]:
    """The Series-A story: a 2-node B200 cluster vs four RTX PRO 6000 for 17B LoRA."""
    prices = cat.default_prices()
    server = cat.param_by_accelerator("facility", "server_cost_usd_per_node")
    fabric = cat.fabric("eth-200-shared")["cost_usd_per_gpu"]

    def hardware(acc, n, fab):
        return float(
            cost.capex(
                n,
                gpu_price_usd=prices.loc[acc, "buy-new"],
                server_cost_usd_per_node=server[acc],
                gpus_per_node=spec.loc[acc, "gpus_per_node"],
                fabric_cost_usd_per_gpu=fab,
            )
        )

    b200 = hardware("b200-hgx", 16, fabric)
    rtx = hardware("rtx-pro-6000-server", 4, 0.0)
    sp = speed_table(
        17e9,
        0.5e9,
        [
            {"accelerator": "rtx-pro-6000-server", "n_gpus": 4, "method": "lora"},
            {"accelerator": "b200-hgx", "n_gpus": 16, "method": "lora", "fabric": "eth-200-shared"},
        ],
        catalog=cat,
    )
    per_dollar = (sp["tokens_per_s"].iloc[0] / rtx) / (sp["tokens_per_s"].iloc[1] / b200)
    budget = ARTICLE_STARTUP_BUDGET_USD
    return {
        "c31-startup-2node-b200-80pct-budget": (
            f"16 B200 + 2 servers + 200GbE = ${b200:,.0f} ({b200 / budget:.1f}x the $250K budget)",
            "wrong" if b200 > budget else "holds",
            "cost model",
        ),
        "c34-rtx-4x-throughput-per-dollar": (
            f"17B LoRA tokens/s per hardware dollar: 4 RTX PRO 6000 (${rtx:,.0f}) "
            f"{per_dollar:.2f}x the 2-node B200 (${b200:,.0f})",
            _verdict_close(4.0, per_dollar, 0.25),
            "time + cost model",
        ),
    }


def _cross_vendor_claims(cat: Catalog) -> dict[str, EngineClaim]:
    """Cross-vendor speed: the engine's time model with its ROCm derate."""
    sp = speed_table(
        70e9,
        2e12,
        [{"accelerator": "mi300x", "n_gpus": 64}, {"accelerator": "h200-sxm", "n_gpus": 64}],
        catalog=cat,
    )
    h200_over_mi300x = sp["tokens_per_s"].iloc[1] / sp["tokens_per_s"].iloc[0]
    sp = speed_table(
        405e9,
        15e12,
        [{"accelerator": "mi350x", "n_gpus": 256}, {"accelerator": "h200-sxm", "n_gpus": 256}],
        catalog=cat,
    )
    mi350x_over_h200 = sp["tokens_per_s"].iloc[0] / sp["tokens_per_s"].iloc[1]
    return {
        "c05-mi300x-smoked-by-h200": (
            f"70B on 64 GPUs: H200 {h200_over_mi300x:.2f}x MI300X's tokens/s (with the ROCm derate "
            f"{cat.param('assumptions', 'software_maturity_rocm'):g} on MI300X)",
            "holds" if h200_over_mi300x > 1.0 else "wrong",
            "time model",
        ),
        "c25-mi350x-85pct-h200": (
            f"405B FSDP on 32 nodes: MI350X {mi350x_over_h200:.2f}x H200's tokens/s "
            "(ROCm derate included)",
            _verdict_close(0.85, mi350x_over_h200, 0.15),
            "time model",
        ),
    }


def engine_claims(cat: Catalog) -> dict[str, EngineClaim]:
    """claim_id -> (engine_says, engine_verdict, engine_basis) for every claim the engine
    recomputes, topic by topic."""
    spec = cat.tables["accelerators"].set_index("accelerator_id")
    return {
        **_headline_claims(cat),
        **_money_claims(cat),
        **_network_claims(cat),
        **_spec_claims(spec),
        **_tdp_claims(spec),
        **_rack_power_claims(cat),
        **_nvl72_claims(cat, spec),
        **_throughput_ratio_claims(cat),
        **_memory_fit_claims(cat),
        **_series_a_claims(cat, spec),
        **_cross_vendor_claims(cat),
    }
