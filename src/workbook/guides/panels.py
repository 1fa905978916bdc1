"""The widget-driven guides 01-05: for each notebook its controls and what it shows for a set of
values, on the one :class:`workbook.guides.widgets.GuidePanel`.

Each ``*_guide`` function takes the notebook's parameters (its papermill ``parameters`` cell,
which seed the widgets), renders them once (a bad value raises here) and returns the panel; the
notebook's summary cell prints ``panel.result.data``. The tables come from the guide's own module
(``memory_fit``, ``speed``, ``rent_vs_buy``, ``power``, ``team``), the charts from
:mod:`workbook.present.guide_charts`. What each hands on to notebook 08 is in
:data:`workbook.guides.choices.CARRIED`.

The slider ranges below are what a reader can reach by dragging, not limits of the engine: a
value outside a range (from the parameters cell) widens that slider, and the engine's own checks
refuse what it cannot compute.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..decide import presets
from ..model import read_model_config
from ..present.guide_charts import (
    bandwidth_chart,
    memory_ledger_chart,
    power_chart,
    rent_vs_buy_chart,
    step_breakdown_chart,
)
from ..text import amount_text, days_text, money_text, params_label, runs_text
from ..units import GIGA, MEGA, TERA
from .memory_fit import memory_fit_table
from .power import power_table
from .rent_vs_buy import rent_vs_buy_curve, rent_vs_buy_table
from .speed import (
    bandwidth_vs_flops,
    network_comparison,
    network_verdict,
    pilot_time_factor,
    speed_table,
)
from .team import team_risk_matrix, team_risk_reasons, team_risk_table
from .widgets import Control, GuidePanel, Rendered

__all__ = [
    "Guide",
    "open_guide",
    "memory_guide",
    "power_guide",
    "rent_vs_buy_guide",
    "speed_guide",
    "team_guide",
]

METHODS = ("full", "lora", "qlora")
SEQ_LENS = (1024, 2048, 4096, 8192, 16384, 32768)
PARAMS = Control("n_params", "Parameters [billions]", "log", 0.1, 2000, scale=GIGA)
TOKENS = Control("n_tokens", "Training tokens [trillions]", "log", 0.001, 100, scale=TERA)
COOLING = Control("cooling", "Cooling", "choice", options=("air", "liquid"))

MEMORY_COLUMNS = [
    "accelerator",
    "usable_gb",
    "min_gpus",
    "layout",
    "weights_gb",
    "grads_gb",
    "optimizer_gb",
    "activations_gb",
    "total_gb",
]
SPEED_COLUMNS = [
    "label",
    "wall_days",
    "gpu_hours",
    "mfu",
    "tokens_per_s",
    "step_s",
    "matmul_s",
    "memory_s",
    "dp_exposed_s",
    "tp_exposed_s",
    "bubble_s",
    "derate_s",
]
NETWORK_COLUMNS = [
    "model",
    "cluster",
    "tokens_per_s",
    "speed_vs_a100",
    "step_s",
    "dp_comm_s",
    "dp_exposed_s",
]
VERDICT_COLUMNS = ["model", "peak_ratio", "b200_speedup", "claim_holds"]
BANDWIDTH_COLUMNS = ["accelerator", "flop_per_byte", "mfu", "matmul_share", "memory_share"]
RENT_COLUMNS = [
    "acquisition",
    "price",
    "wall_days",
    "cost_per_run_usd",
    "cost_per_year_usd",
    "first_year_cost_usd",
    "capex_usd",
    "schedule_fits_year",
]
POWER_COLUMNS = [
    "accelerator",
    "article_kw",
    "tdp_x_gpus_kw",
    "node_kw",
    "nodes",
    "it_kw",
    "facility_kw",
]


@dataclass(frozen=True)
class Guide:
    """One guided notebook: its name, its controls, every parameter its view takes (the
    notebook's parameters cell, ``overrides`` and ``choices_file`` aside) and the view,
    ``view(catalog, values) -> Rendered``."""

    name: str
    controls: tuple[Control, ...]
    params: tuple[str, ...]
    view: Callable[[Catalog, dict], Rendered]


def open_guide(guide: Guide, params: dict, catalog: Catalog | None, choices_file) -> GuidePanel:
    """The panel of ``guide`` seeded from ``params``; a missing or unknown parameter is refused
    with its name (a ``ValueError``)."""
    missing = [k for k in guide.params if k not in params]
    unknown = [k for k in params if k not in guide.params]
    if missing or unknown:
        raise ValueError(
            f"{guide.name}: parameters missing: {', '.join(missing) or 'none'}; unknown: "
            f"{', '.join(unknown) or 'none'}; allowed: {', '.join(guide.params)}"
        )
    view = partial(guide.view, resolve_catalog(catalog))
    return GuidePanel(list(guide.controls), params, view, guide.name, choices_file)


def _fewest(fit: pd.DataFrame) -> str:
    fits = fit[fit["fits"]]
    if fits.empty:
        return "no accelerator of the list holds it"
    best = fits.sort_values("min_gpus", kind="stable").iloc[0]
    return f"the fewest GPUs that hold it: {int(best['min_gpus'])} x {best['accelerator']}"


def _memory_view(cat: Catalog, v: dict) -> Rendered:
    fixed = dict(seq_len=v["seq_len"], max_gpus=v["max_gpus"], catalog=cat)
    fit = memory_fit_table(v["n_params"], v["accelerators"], method=v["method"], **fixed)
    other = memory_fit_table(v["n_params"], v["accelerators"], method=v["compare_method"], **fixed)
    head = f"{params_label(v['n_params'])} parameters, {v['method']} training, " + _fewest(fit)
    return Rendered(
        headline=head,
        parts=[
            ("The fewest GPUs that hold the job", fit[MEMORY_COLUMNS]),
            ("Where the memory goes", memory_ledger_chart(fit)),
            (
                f"The same model, {v['compare_method']}: {_fewest(other)}",
                other[["accelerator", "min_gpus", "layout", "total_gb"]],
            ),
        ],
        data={"fit": fit, "other": other},
        carry={k: v[k] for k in ("n_params", "method", "seq_len")},
    )


MEMORY = Guide(
    "01_model_sizing_and_memory",
    (
        PARAMS,
        Control("method", "Training method", "choice", options=METHODS),
        Control("compare_method", "Compare with", "choice", options=METHODS),
        Control("seq_len", "Sequence length [tokens]", "choice", options=SEQ_LENS),
    ),
    ("n_params", "method", "compare_method", "seq_len", "max_gpus", "accelerators"),
    _memory_view,
)


def memory_guide(*, catalog: Catalog | None = None, choices_file=None, **params) -> GuidePanel:
    """Notebook 01: the fewest GPUs of each kind that hold the job, the memory ledger and the
    same model under a second method (parameters: ``MEMORY.params``; controls: the size, both
    methods and the sequence length)."""
    return open_guide(MEMORY, params, catalog, choices_file)


def _speed_view(cat: Catalog, v: dict) -> Rendered:
    speed = speed_table(v["n_params"], v["n_tokens"], v["configs"], catalog=cat)
    sizes, tokens = v["network_model_sizes"], v["n_tokens"]
    network = network_comparison(sizes, n_tokens=tokens, catalog=cat)
    hidden = {"dp_overlap_fraction": v["no_overlap_fraction"]}
    stressed = network_verdict(
        network_comparison(sizes, n_tokens=tokens, catalog=cat, assumptions=hidden), cat
    )
    bandwidth = bandwidth_vs_flops(v["bandwidth_n_params"], v["bandwidth_n_gpus"], catalog=cat)
    config_file = v["pilot_model_config"]
    pilot = pilot_time_factor(
        v["pilot_tokens_per_s_per_gpu"],
        v["pilot_n_params"],
        v["pilot_config"],
        seq_len=v["pilot_seq_len"],
        attention="full",
        shape=read_model_config(config_file).shape if config_file else None,
        catalog=cat,
    )
    fast = speed.sort_values("wall_days", kind="stable").iloc[0]
    head = (
        f"{params_label(v['n_params'])} parameters on {params_label(tokens)} tokens: fastest "
        f"{fast['label']}, {days_text(fast['wall_days'])}; your pilot's time factor "
        f"{pilot['time_factor']:.2f}x the engine"
    )
    stress = f"Stress case: {v['no_overlap_fraction']:.0%} of the gradient traffic hidden"
    return Rendered(
        headline=head,
        parts=[
            ("Time to train on each cluster", speed[SPEED_COLUMNS]),
            ("Where the step time goes", step_breakdown_chart(speed)),
            ("The article's network claim, computed", network[NETWORK_COLUMNS]),
            ("Verdict per model size", network_verdict(network, cat)[VERDICT_COLUMNS]),
            (stress, stressed[VERDICT_COLUMNS]),
            ("Compute per byte of memory bandwidth", bandwidth[BANDWIDTH_COLUMNS]),
            ("FLOP per byte against MFU", bandwidth_chart(bandwidth)),
            ("Your pilot run", pd.DataFrame([pilot])),
        ],
        data={
            "speed": speed,
            "network": network,
            "stressed": stressed,
            "bandwidth": bandwidth,
            "pilot": pilot,
        },
        carry={"n_tokens": tokens, "time_factor": pilot["time_factor"]},
    )


SPEED = Guide(
    "02_speed_and_efficiency",
    (
        PARAMS,
        TOKENS,
        Control("no_overlap_fraction", "Stress case: traffic hidden", "float", 0, 1, 0.05),
        Control("pilot_tokens_per_s_per_gpu", "Pilot tokens/s per GPU", "log", 100, 1e5),
    ),
    (
        "n_params",
        "n_tokens",
        "configs",
        "network_model_sizes",
        "no_overlap_fraction",
        "bandwidth_n_params",
        "bandwidth_n_gpus",
        "pilot_tokens_per_s_per_gpu",
        "pilot_n_params",
        "pilot_seq_len",
        "pilot_config",
        "pilot_model_config",
    ),
    _speed_view,
)


def speed_guide(*, catalog: Catalog | None = None, choices_file=None, **params) -> GuidePanel:
    """Notebook 02: time to train on each cluster, the article's network claim (and its stress
    case), compute per byte of bandwidth, and a pilot run's time factor (parameters:
    ``SPEED.params``)."""
    return open_guide(SPEED, params, catalog, choices_file)


def _within(table: pd.DataFrame, budget_usd: float, deadline_days: float) -> str:
    ok = table[
        (table["first_year_cost_usd"] <= budget_usd)
        & (table["wall_days"] <= deadline_days)
        & table["schedule_fits_year"]
    ]
    if ok.empty:
        return "no mode runs within both"
    best = ok.sort_values("cost_per_run_usd", kind="stable").iloc[0]
    cost = best["cost_per_run_usd"]
    return f"the cheapest within both is {best['acquisition']} at {money_text(cost)} a run"


def _rent_vs_buy_view(cat: Catalog, v: dict) -> Rendered:
    args = dict(n_params=v["n_params"], n_tokens=v["n_tokens"], cooling=v["cooling"], catalog=cat)
    table = rent_vs_buy_table(
        v["accelerator"], v["n_gpus"], runs_per_year=v["runs_per_year"], **args
    )
    curve = rent_vs_buy_curve(v["accelerator"], v["n_gpus"], **args)
    even = table["breakeven_runs_per_year"].iloc[0]
    head = (
        f"{v['n_gpus']} x {v['accelerator']}, {runs_text(v['runs_per_year'])} a year; budget "
        f"{amount_text(v['budget_usd'])}, deadline {days_text(v['deadline_days'])}: "
        + _within(table, v["budget_usd"], v["deadline_days"])
    )
    return Rendered(
        headline=head,
        parts=[
            ("Cost of the cluster by acquisition mode", table[RENT_COLUMNS]),
            (
                f"Buying new beats renting on demand from {even:,.2f} runs a year",
                table[["breakeven_runs_per_year", "breakeven_busy_fraction"]].iloc[:1],
            ),
            ("Cost per year against runs per year", rent_vs_buy_chart(curve, even)),
        ],
        data={"table": table, "curve": curve},
        carry={k: v[k] for k in ("runs_per_year", "budget_usd", "deadline_days")},
    )


def rent_vs_buy_guide(*, catalog: Catalog | None = None, choices_file=None, **params):
    """Notebook 03: one cluster's cost per run and per year under every acquisition mode, the
    cost-per-year curve and which mode fits the reader's budget and deadline (parameters:
    ``accelerator, n_gpus, n_params, n_tokens, runs_per_year, cooling, budget_usd,
    deadline_days``; every one a control)."""
    cat = resolve_catalog(catalog)
    controls = (
        Control("accelerator", "Accelerator", "choice", options=tuple(cat.accelerator_ids)),
        Control("n_gpus", "GPUs (whole nodes)", "int", 8, 4096, 8),
        PARAMS,
        TOKENS,
        Control("runs_per_year", "Runs per year", "float", 0.25, 12, 0.25),
        COOLING,
        Control("budget_usd", "Budget, first year [$M]", "log", 0.1, 1000, scale=MEGA),
        Control("deadline_days", "Deadline [days]", "int", 7, 730, 1),
    )
    guide = Guide("03_rent_vs_buy", controls, tuple(c.name for c in controls), _rent_vs_buy_view)
    return open_guide(guide, params, cat, choices_file)


def _site_fit(power: pd.DataFrame, site_power_kw: float) -> str:
    fits = power.loc[power["facility_kw"] <= site_power_kw, "accelerator"].tolist()
    return f"within your site's {site_power_kw:,.0f} kW: " + (", ".join(fits) if fits else "none")


def _power_view(cat: Catalog, v: dict) -> Rendered:
    limits = sorted({*map(float, v["rack_limits_kw"]), float(v["rack_limit_kw"])})
    power = power_table(
        v["accelerators"],
        n_gpus=v["n_gpus"],
        rack_limits_kw=limits,
        cooling=v["cooling"],
        catalog=cat,
    )
    nvl72 = power_table(
        v["nvl72_accelerators"], n_gpus=72, rack_limits_kw=limits, cooling="liquid", catalog=cat
    )
    racks = [c for c in power.columns if c.startswith("racks_")]
    fit = _site_fit(power, v["site_power_kw"])
    return Rendered(
        headline=f"{v['n_gpus']} GPUs, {v['cooling']} cooling, {fit}",
        parts=[
            ("The article's method against servers", power[POWER_COLUMNS + racks]),
            ("TDP x GPUs vs nodes x (GPUs + host)", power_chart(power)),
            ("Rack-scale systems (72 GPUs, liquid)", nvl72[POWER_COLUMNS + racks]),
        ],
        data={"power": power, "nvl72": nvl72},
        carry={k: v[k] for k in ("cooling", "site_power_kw", "rack_limit_kw")},
    )


POWER = Guide(
    "04_power_and_cooling",
    (
        Control("n_gpus", "GPUs", "int", 8, 2048, 8),
        COOLING,
        Control("rack_limit_kw", "Your rack limit [kW]", "float", 5, 200, 1),
        Control("site_power_kw", "Your site's power [kW]", "log", 10, 1e5),
    ),
    (
        "accelerators",
        "n_gpus",
        "rack_limits_kw",
        "cooling",
        "nvl72_accelerators",
        "site_power_kw",
        "rack_limit_kw",
    ),
    _power_view,
)


def power_guide(*, catalog: Catalog | None = None, choices_file=None, **params) -> GuidePanel:
    """Notebook 04: a cluster's power as servers against TDP x GPUs, racks at the limits (yours
    among them), facility power against the site's, and the NVL72 racks (parameters:
    ``POWER.params``)."""
    return open_guide(POWER, params, catalog, choices_file)


YOUR_TEAM = "your team"


def _team_view(cat: Catalog, v: dict) -> Rendered:
    team = {k: v[k] for k in ("team_size", "platform_engineers", "rocm_experience")}
    risk = team_risk_table(v["preset"], {**v["profiles"], YOUR_TEAM: team}, catalog=cat)
    matrix = team_risk_matrix(risk)
    mine = matrix[YOUR_TEAM]
    barred = [a for a, x in mine.items() if x == "no"]
    head = (
        f"Your team ({team['team_size']} people, {team['platform_engineers']} platform "
        f"engineers, {'with' if team['rocm_experience'] else 'no'} ROCm experience) on "
        f"{v['preset']}: the engine picks {mine.iloc[-1]}; not allowed: "
        + (", ".join(barred) if barred else "none")
    )
    return Rendered(
        headline=head,
        parts=[
            ("Which accelerators each team may use", matrix.reset_index()),
            ("The engine's reasons", team_risk_reasons(risk)),
        ],
        data={"risk": risk, "matrix": matrix},
        carry=team,
    )


TEAM = Guide(
    "05_team_and_software_risk",
    (
        Control("preset", "Scenario (preset)", "choice", options=tuple(presets)),
        Control("team_size", "ML team size [people]", "int", 1, 500),
        Control("platform_engineers", "Platform engineers", "int", 0, 100),
        Control("rocm_experience", "Team has shipped on ROCm", "bool"),
    ),
    ("preset", "profiles", "team_size", "platform_engineers", "rocm_experience"),
    _team_view,
)


def team_guide(*, catalog: Catalog | None = None, choices_file=None, **params) -> GuidePanel:
    """Notebook 05: which accelerators each team profile, and the reader's own team, may use
    for a preset scenario, and what the engine then recommends (parameters: ``TEAM.params``)."""
    return open_guide(TEAM, params, catalog, choices_file)
