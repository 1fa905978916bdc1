"""The article's scenarios and model-size bands as ready-made :class:`Scenario` objects.

Every preset states what the article recommends (``ARTICLE_ADVICE``); the engine's own answer is
computed, shown next to it, and where the two differ the reasons say why
(tests/decide/test_presets.py).
Numbers the article does not give (team sizes, site power, deadlines, token counts) are the
assumptions written here, each with the reason it was chosen.
"""

from __future__ import annotations

from ..text import money_text
from .allowed import MAX_GPUS
from .scenario import Scenario

_PRESETS = [
    # "You (working on a small team, doing instruction tuning of open models): Go rent 8x H100."
    # Assumed: an 8B open model, full fine-tune on 2B tokens, a monthly cadence, no data center.
    dict(
        name="small-team-instruction-tuning",
        workload="full-finetune",
        n_params=8e9,
        n_tokens=2e9,
        deadline_days=14,
        budget_usd=100_000,
        runs_per_year=12,
        site_power_kw=10,
        cooling="air",
        team_size=4,
        platform_engineers=0,
    ),
    # "funded startup, domain-specific medicine/finance models around 30B: Buy a 2-to-4-node H200
    # cluster." Assumed: continued pretraining on 100B domain tokens, 6 runs a year, one rack row.
    dict(
        name="funded-startup-30b-domain",
        workload="continued-pretrain",
        n_params=30e9,
        n_tokens=100e9,
        deadline_days=120,
        budget_usd=3_000_000,
        runs_per_year=6,
        site_power_kw=200,
        rack_limit_kw=40,
        cooling="air",
        team_size=15,
        platform_engineers=2,
    ),
    # "enterprise, fully dedicated to pretraining frontier-ish models: Get on the B300 allocation
    # list." Assumed: a 400B dense model on 15T tokens (Llama 3.1 405B scale), a liquid-cooled
    # campus.
    dict(
        name="enterprise-frontier-pretraining",
        workload="pretrain",
        n_params=400e9,
        n_tokens=15e12,
        deadline_days=365,
        budget_usd=400_000_000,
        runs_per_year=1,
        site_power_kw=40_000,
        rack_limit_kw=140,
        cooling="liquid",
        team_size=300,
        platform_engineers=40,
    ),
    # "modest budget, but want token-efficient training: MI350X." (with a platform team, per the
    # article's software-stack section). Assumed: a 13B model on 1T tokens, ROCm-capable team.
    dict(
        name="modest-budget-token-efficient",
        workload="pretrain",
        n_params=13e9,
        n_tokens=1e12,
        deadline_days=150,
        budget_usd=2_500_000,
        runs_per_year=2,
        site_power_kw=300,
        rack_limit_kw=40,
        cooling="air",
        team_size=12,
        platform_engineers=3,
        rocm_experience=True,
    ),
    # The Series-A healthcare startup: "$250K budget for hardware ... 17B parameters, BF16, LoRA ...
    # four RTX PRO 6000 GPUs" instead of "a 2-node B200 cluster". Assumed: 0.5B tokens per
    # experiment, an experiment every week, one office rack of 15 kW, no data-center specialist.
    dict(
        name="series-a-healthcare-17b-lora",
        workload="lora",
        n_params=17e9,
        n_tokens=0.5e9,
        deadline_days=60,
        budget_usd=250_000,
        runs_per_year=50,
        site_power_kw=15,
        rack_limit_kw=15,
        cooling="air",
        team_size=6,
        platform_engineers=0,
        acquisition_modes=["buy-new", "buy-used"],
    ),
    # The article's headline: "A typical 70B pretraining run (5T tokens) takes roughly 48 days on
    # 128 GPUs of H200. That's $502K in spot pricing." Physically impossible (4x peak): nothing is
    # feasible.
    dict(
        name="article-70b-5t-48-days",
        workload="pretrain",
        n_params=70e9,
        n_tokens=5e12,
        deadline_days=48,
        budget_usd=502_000,
        runs_per_year=1,
        site_power_kw=500,
        rack_limit_kw=40,
        cooling="air",
        team_size=10,
        platform_engineers=1,
        accelerators=["h200-sxm"],
        max_gpus=128,
    ),
    # Model-size bands of the article's cost-efficiency section.
    dict(
        name="band-under-7b",
        workload="lora",
        n_params=3e9,
        n_tokens=1e9,
        deadline_days=7,
        budget_usd=20_000,
        runs_per_year=24,
        site_power_kw=10,
        cooling="air",
        team_size=3,
        platform_engineers=0,
    ),
    dict(
        name="band-7b-to-70b",
        workload="continued-pretrain",
        n_params=34e9,
        n_tokens=200e9,
        deadline_days=90,
        budget_usd=4_000_000,
        runs_per_year=4,
        site_power_kw=400,
        rack_limit_kw=40,
        cooling="air",
        team_size=20,
        platform_engineers=3,
    ),
    dict(
        name="band-70b-to-400b",
        workload="pretrain",
        n_params=180e9,
        n_tokens=4e12,
        deadline_days=200,
        budget_usd=60_000_000,
        runs_per_year=1,
        site_power_kw=8000,
        rack_limit_kw=40,
        cooling="air",
        team_size=60,
        platform_engineers=10,
    ),
    dict(
        name="band-400b-plus",
        workload="pretrain",
        n_params=1.2e12,
        n_active_params=100e9,
        n_tokens=20e12,
        deadline_days=365,
        budget_usd=600_000_000,
        runs_per_year=1,
        site_power_kw=60_000,
        rack_limit_kw=140,
        cooling="liquid",
        team_size=400,
        platform_engineers=60,
    ),
]

#: name -> Scenario (fresh objects: edit a copy with ``presets[name].replace(...)``).
presets: dict[str, Scenario] = {p["name"]: Scenario(**p) for p in _PRESETS}

#: What the article recommends for each preset (quoted or closely paraphrased).
ARTICLE_ADVICE: dict[str, str] = {
    "small-team-instruction-tuning": (
        "Go rent 8x H100, pay hourly, and stop trying to buy infrastructure."
    ),
    "funded-startup-30b-domain": "Buy a 2-to-4-node H200 cluster.",
    "enterprise-frontier-pretraining": "Get on the B300 allocation list now (B300 NVL72).",
    "modest-budget-token-efficient": (
        "MI350X: the 60% price difference means you can buy twice as many nodes."
    ),
    "series-a-healthcare-17b-lora": (
        "Four RTX PRO 6000 GPUs in one server instead of a 2-node B200 cluster."
    ),
    "article-70b-5t-48-days": "128 H200 for 48 days, $502K on spot.",
    "band-under-7b": "RTX PRO 6000, A6000, or previous-gen H100; not B200/B300.",
    "band-7b-to-70b": "H200 or MI350X, 4-8 nodes; the NVL72 is overkill.",
    "band-70b-to-400b": "H200 or B200 in an 8-16 node cluster with InfiniBand.",
    "band-400b-plus": "B300 NVL72, no question.",
}

#: The option the article recommends, as a filter on the options table:
#: (accelerator ids, GPU count range, acquisition modes).
ARTICLE_OPTION: dict[str, tuple[tuple[str, ...], tuple[int, int], tuple[str, ...]]] = {
    "small-team-instruction-tuning": (("h100-sxm",), (8, 8), ("rent-on-demand", "rent-spot")),
    "funded-startup-30b-domain": (("h200-sxm",), (16, 32), ("buy-new",)),
    "enterprise-frontier-pretraining": (("gb300-nvl72", "b300-hgx"), (1, MAX_GPUS), ("buy-new",)),
    "modest-budget-token-efficient": (("mi350x",), (1, MAX_GPUS), ("buy-new",)),
    "series-a-healthcare-17b-lora": (("rtx-pro-6000-server",), (4, 4), ("buy-new",)),
    "article-70b-5t-48-days": (("h200-sxm",), (128, 128), ("rent-spot",)),
    "band-under-7b": (
        ("rtx-pro-6000-server", "rtx-a6000", "h100-sxm"),
        (1, 8),
        ("buy-new", "rent-on-demand", "buy-used"),
    ),
    "band-7b-to-70b": (("h200-sxm", "mi350x"), (32, 64), ("buy-new",)),
    "band-70b-to-400b": (("h200-sxm", "b200-hgx"), (64, 128), ("buy-new",)),
    "band-400b-plus": (("gb300-nvl72", "b300-hgx"), (1, MAX_GPUS), ("buy-new",)),
}


def article_comparison(rec, preset_name: str) -> str:
    """The article's advice for a preset next to the engine's pick, with the numbers and the
    failures ('' for a name that is not a preset of the article)."""
    if preset_name not in ARTICLE_OPTION:
        return ""
    accs, (lo, hi), modes = ARTICLE_OPTION[preset_name]
    o = rec.options
    m = o[o["accelerator"].isin(accs) & o["n_gpus"].between(lo, hi) & o["acquisition"].isin(modes)]
    advice = f'The article: "{ARTICLE_ADVICE[preset_name]}"'
    if m.empty:
        return advice + " No option in the sweep matches it."
    b = m.sort_values(["n_failed", "shortfall", "cost_per_run_usd"]).iloc[0]
    desc = f"{b['acquisition']} {int(b['n_gpus'])} x {b['name']}"
    if rec.top is not None and b["feasible"]:
        d = b["cost_per_run_usd"] / rec.top.cost_per_run_usd - 1
        return (
            f"{advice} Its best match here, {desc}, is feasible: {b['wall_days']:,.1f} days and "
            f"{money_text(b['cost_per_run_usd'])} per run ({d:+.0%} vs the engine's pick)."
        )
    return f"{advice} Its best match here, {desc}, fails on: {b['failed']}."
