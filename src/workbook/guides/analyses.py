"""Tables and charts behind the guided analyst notebooks (``notebooks/01_*.ipynb`` ... ``07_*``).

Every function here is bookkeeping over the engine, never a second copy of it: training times and
step breakdowns come from :func:`workbook.estimate_frame`, memory terms from :mod:`workbook.memory`,
costs from :func:`workbook.decision.evaluate` / :mod:`workbook.cost` (through
:func:`workbook.recommend`), power from :func:`workbook.power.cluster_power`, serving from
:func:`workbook.inference_frame`, accuracy from :mod:`workbook.validate`. Tables are plain
DataFrames with units in the column names; charts are ``altair`` charts (render them offline with
:func:`workbook.charts.to_svg`).

The article quoted throughout is the seed article, N. Dixit (SIVARO), "The Best GPU Architecture
for Training Large Models in 2026" (``../shared/seed/000_e6c314b433b91124.txt``); its checked claims
are ``data/article_claims.csv``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..calibrate import (
    accuracy_bias,
    accuracy_floor,
    accuracy_summary,
    accuracy_table,
    benchmark_table,
    throughput_ratio_table,
    time_model_trust,
    twin_pair_table,
)
from ..catalog import Catalog, resolve_catalog
from ..checks import check_choice, check_number, need_columns
from ..decide import Scenario, breakeven_for, evaluate, gpu_counts, presets, recommend
from ..model import (
    FROZEN_BASE_BYTES,
    METHODS,
    PRECISIONS,
    STATE_BYTES,
    activation_memory_gb,
    assumption_values,
    check_claim,
    cluster_power,
    cost,
    estimate_frame,
    inference_frame,
)
from ..units import GB

if TYPE_CHECKING:
    import altair as alt

__all__ = [
    "ARTICLE_INFERENCE",
    "ARTICLE_POWER_TABLE",
    "ARTICLE_RENT_VS_BUY",
    "NETWORK_CLUSTERS",
    "STEP_COLUMNS",
    "TEAM_PROFILES",
    "about_data",
    "accuracy_bias",
    "accuracy_chart",
    "accuracy_floor",
    "accuracy_summary",
    "accuracy_table",
    "article_rent_vs_buy",
    "bandwidth_chart",
    "bandwidth_vs_flops",
    "benchmark_table",
    "claims_engine_view",
    "claims_overview",
    "claims_table",
    "inference_table",
    "inference_verdict",
    "memory_fit_table",
    "memory_ledger_chart",
    "network_comparison",
    "network_verdict",
    "pilot_time_factor",
    "power_chart",
    "power_table",
    "rent_vs_buy_chart",
    "rent_vs_buy_curve",
    "rent_vs_buy_table",
    "software_maturity_table",
    "speed_table",
    "step_breakdown_chart",
    "team_risk_matrix",
    "team_risk_reasons",
    "team_risk_table",
    "team_rules_table",
    "throughput_ratio_table",
    "time_model_trust",
    "twin_pair_table",
]

#: Step-time components of :func:`workbook.estimate_frame` [s per optimizer step]. They add up to
#: ``step_s``: ``derate_s`` is the time lost to the named derates (software maturity, throttling,
#: input pipeline, MoE, QLoRA), see :mod:`workbook.performance`.
STEP_COLUMNS = (
    "matmul_s",
    "memory_s",
    "optimizer_s",
    "dp_exposed_s",
    "tp_exposed_s",
    "bubble_s",
    "derate_s",
)

#: The article's scale-out comparison ("2. Scale-Out Fabric Is The Real Decider"): "A B200 in a
#: 2-node cluster with 200GbE networking is slower than an A100 in an 8-node cluster with
#: InfiniBand 400Gb/s NDR." 8 GPUs per node; the A100 is the 80 GB part the article cites.
NETWORK_CLUSTERS = (
    {
        "cluster": "2 nodes x 8 B200, 200GbE",
        "accelerator": "b200-hgx",
        "n_gpus": 16,
        "fabric": "eth-200-shared",
    },
    {
        "cluster": "8 nodes x 8 A100-80GB, IB NDR",
        "accelerator": "a100-80gb-sxm",
        "n_gpus": 64,
        "fabric": "ib-ndr-400",
    },
)

#: The article's "Power Infrastructure" table: TDP per GPU [W] and "Rack Power (48 GPUs)" [kW].
ARTICLE_POWER_TABLE = {
    "h100-sxm": (700.0, 33.6),
    "h200-sxm": (700.0, 33.6),
    "mi350x": (750.0, 36.0),
    "b200-hgx": (1000.0, 48.0),
    "b300-hgx": (1200.0, 57.6),
}

#: The article's rent-vs-buy paragraph ("The One GPU I Would Buy If I Had $0"): "A typical 70B
#: pretraining run (5T tokens) takes roughly 48 days on 128 GPUs of H200. That's $502K in spot
#: pricing. Buying the GPUs outright costs $1.8M ... you break even at about 2.5 long runs per year."
ARTICLE_RENT_VS_BUY = {
    "accelerator": "h200-sxm",
    "n_gpus": 128,
    "n_params": 70e9,
    "n_tokens": 5e12,
    "days": 48.0,
    "spot_usd_per_gpu_hour": 3.40,
    "spot_usd_per_run": 502_000.0,
    "buy_usd": 1_800_000.0,
    "breakeven_runs_per_year": 2.5,
}

#: Team profiles for :func:`team_risk_table` (Scenario team fields). The first is the article's
#: "If your team is 5 people, do not pick AMD"; the last its "strong ML platform team".
TEAM_PROFILES = {
    "5 people, no platform eng.": {
        "team_size": 5,
        "platform_engineers": 0,
        "rocm_experience": False,
    },
    "15 people, 2 platform eng.": {
        "team_size": 15,
        "platform_engineers": 2,
        "rocm_experience": False,
    },
    "12 people, ROCm experience": {
        "team_size": 12,
        "platform_engineers": 1,
        "rocm_experience": True,
    },
    "platform team of 40": {"team_size": 300, "platform_engineers": 40, "rocm_experience": True},
}

#: Chart size [px], the same as workbook.charts.
WIDTH, HEIGHT = 520, 260

_SPLIT_COLORS = {"domain": ["calibration", "holdout"], "range": ["#4c78a8", "#f58518"]}


# ----------------------------------------------------------------------------------------------
# argument checks


def _accelerator_ids(cat: Catalog, accelerators, name: str = "accelerators") -> list[str]:
    """Validated list of accelerator ids (None: every id in the catalog)."""
    valid = cat.accelerator_ids
    if accelerators is None:
        return list(valid)
    if isinstance(accelerators, str):
        raise ValueError(
            f"{name}={accelerators!r} is a single string; allowed: a list of accelerator ids, "
            f"e.g. [{accelerators!r}]"
        )
    try:
        ids = list(accelerators)
    except TypeError:
        raise ValueError(f"{name}={accelerators!r} is not a list of accelerator ids") from None
    if not ids:
        raise ValueError(f"{name} is empty; allowed: one or more of {', '.join(valid)}")
    for a in ids:
        if not isinstance(a, str) or a not in valid:
            raise ValueError(
                f"{name} contains {a!r}, which is not an accelerator id; allowed: {', '.join(valid)}"
            )
    return ids


def _accelerator_id(cat: Catalog, accelerator, name: str = "accelerator") -> str:
    if not isinstance(accelerator, str) or accelerator not in cat.accelerator_ids:
        raise ValueError(
            f"{name}={accelerator!r} is not an accelerator id; allowed: {', '.join(cat.accelerator_ids)}"
        )
    return accelerator


def _sizes(name: str, values) -> list[float]:
    if isinstance(values, (str, bytes)) or values is None:
        raise ValueError(f"{name}={values!r} is not a list of numbers; allowed: e.g. [7e9, 70e9]")
    arr = np.atleast_1d(
        np.asarray(check_number(name, list(np.atleast_1d(values)), positive=True), float)
    )
    if arr.size == 0:
        raise ValueError(f"{name} is empty; allowed: one or more positive numbers")
    return [float(x) for x in arr]


def _label_params(n: float) -> str:
    """7e9 -> '7B', 1.2e12 -> '1.2T', 350e6 -> '350M'."""
    for div, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if n >= div:
            return f"{n / div:g}{unit}"
    return f"{n:g}"


def _layout(r) -> str:
    return f"TP{int(r['tp'])} PP{int(r['pp'])} DP{int(r['dp'])} ZeRO-{int(r['zero_stage'])}, {r['recompute']} recompute"


def about_data(catalog: Catalog | None = None) -> str:
    """One line naming the data snapshot (hash of data/*.csv), its latest access date and overrides."""
    snap = resolve_catalog(catalog).snapshot()
    over = (
        ", ".join(f"{o['table']}:{o['key']}:{o['column']}={o['value']}" for o in snap["overrides"])
        or "none"
    )
    return f"data snapshot {snap['data_hash']} (sources accessed up to {snap['latest_accessed']}); overrides: {over}"


# ----------------------------------------------------------------------------------------------
# 01 model sizing and memory fit


def memory_fit_table(
    n_params,
    accelerators=None,
    *,
    method: str = "full",
    seq_len: int = 4096,
    max_gpus: int = 4096,
    catalog: Catalog | None = None,
) -> pd.DataFrame:
    """Fewest GPUs of each accelerator that hold a training job, and the per-GPU memory ledger there.

    For every accelerator the engine's cluster sizes (:func:`workbook.decision.gpu_counts`: 1, 2, 4,
    whole nodes, whole NVL72 racks) up to ``max_gpus`` are estimated at once
    (:func:`workbook.estimate_frame`, which picks tensor / pipeline / data parallelism, the ZeRO
    stage and recompute); the smallest size that fits is kept. The ledger splits the engine's
    per-GPU memory into its terms:

    - full training, mixed-precision Adam, 16 B/param (Rajbhandari et al. 2019, ZeRO,
      arXiv 1910.02054, Sec. 3.1): weights 2 and gradients 2 B/param divided by TP x PP (and by DP
      under ZeRO-3), optimizer states 12 B/param divided by TP x PP x DP from ZeRO-1 on;
    - LoRA / QLoRA: the frozen base (2 or 0.516 B/param, Hu et al. 2021 arXiv 2106.09685, Dettmers
      et al. 2023 arXiv 2305.14314) sharded over the GPUs, plus adapters with full Adam states;
    - activations of one micro-batch, Korthikanti et al. 2022 (arXiv 2205.05198) Sec. 4, with
      selective or full recompute as the engine chose.

    Parameters
    ----------
    n_params : float
        Model parameters [count].
    accelerators : list of str, optional
        Catalog ids (default: every accelerator).
    method : {"full", "lora", "qlora"}
        Training method.
    seq_len : int
        Sequence length [tokens].
    max_gpus : int
        Largest cluster tried [GPUs] (at most 16,384).
    catalog : Catalog, optional
        Data with overrides (default: the shipped tables).

    Returns
    -------
    DataFrame, one row per accelerator, sorted by ``min_gpus``: ``accelerator``, ``memory_gb``,
    ``usable_gb`` (after ``memory_usable_fraction``), ``fits`` (within ``max_gpus``), ``min_gpus``
    (<NA> if none fits), ``n_gpus`` (where the ledger is taken: ``min_gpus``, else the largest size
    tried), ``layout``, ``weights_gb``, ``grads_gb``, ``optimizer_gb``, ``activations_gb``,
    ``total_gb`` [GB per GPU].
    """
    cat = resolve_catalog(catalog)
    check_number("n_params", n_params, positive=True)
    check_choice("method", method, METHODS)
    check_number("seq_len", seq_len, minimum=1, integer=True)
    check_number("max_gpus", max_gpus, minimum=1, maximum=16384, integer=True)
    ids = _accelerator_ids(cat, accelerators)
    a = assumption_values(cat)
    spec = cat.tables["accelerators"].set_index("accelerator_id")
    rows = [
        (acc, n)
        for acc in ids
        for n in gpu_counts(
            int(spec.loc[acc, "gpus_per_node"]),
            int(spec.loc[acc, "scale_up_domain_gpus"]),
            int(max_gpus),
        )
    ]
    cfg = pd.DataFrame(rows, columns=["accelerator", "n_gpus"])
    cfg["n_params"], cfg["n_tokens"], cfg["seq_len"], cfg["method"] = (
        float(n_params),
        1e9,
        int(seq_len),
        method,
    )
    est = estimate_frame(cfg, catalog=cat)
    out = []
    for acc in ids:
        e = est[est["accelerator"] == acc]
        fit = e[e["fits_in_memory"]]
        r = fit.iloc[0] if len(fit) else e.iloc[-1]
        ledger = _ledger(float(n_params), r, method, a["lora_trainable_fraction"], int(seq_len))
        out.append(
            {
                "accelerator": acc,
                "memory_gb": float(spec.loc[acc, "memory_gb"]),
                "usable_gb": float(spec.loc[acc, "memory_gb"]) * a["memory_usable_fraction"],
                "fits": bool(len(fit)),
                "min_gpus": int(r["n_gpus"]) if len(fit) else pd.NA,
                "n_gpus": int(r["n_gpus"]),
                "layout": _layout(r),
                **ledger,
                "total_gb": float(r["memory_per_gpu_gb"]),
            }
        )
    df = pd.DataFrame(out)
    df["min_gpus"] = df["min_gpus"].astype("Int64")
    return df.sort_values(
        ["fits", "min_gpus", "accelerator"], ascending=[False, True, True]
    ).reset_index(drop=True)


def _ledger(
    n_params: float, r, method: str, lora_fraction: float, seq_len: int
) -> dict[str, float]:
    tp, pp, dp, zero = float(r["tp"]), float(r["pp"]), float(r["dp"]), int(r["zero_stage"])
    mp = tp * pp
    if method == "full":
        b = STATE_BYTES["adam-mixed"]
        weights = n_params * b["weights"] / mp / (dp if zero >= 3 else 1.0)
        grads = n_params * b["grads"] / mp / (dp if zero >= 2 else 1.0)
        optimizer = n_params * b["optimizer"] / mp / (dp if zero >= 1 else 1.0)
    else:  # frozen base sharded over every GPU used, adapters with full mixed-precision Adam states
        adapter = STATE_BYTES["adam-mixed"]
        weights = (
            n_params * FROZEN_BASE_BYTES[method] / float(r["n_gpus_used"])
            + n_params * lora_fraction * adapter["weights"]
        )
        grads = n_params * lora_fraction * adapter["grads"]
        optimizer = n_params * lora_fraction * adapter["optimizer"]
    activations = float(
        activation_memory_gb(
            seq_len,
            1.0,
            float(r["d_model"]),
            float(r["n_layers"]),
            tp=tp,
            recompute=str(r["recompute"]),
        )
    )
    return {
        "weights_gb": weights / GB,
        "grads_gb": grads / GB,
        "optimizer_gb": optimizer / GB,
        "activations_gb": activations,
    }


def memory_ledger_chart(table: pd.DataFrame) -> alt.Chart:
    """Stacked bars of the per-GPU memory ledger (from :func:`memory_fit_table`), usable memory ticked."""
    import altair as alt  # lazily: altair takes seconds to import, tables do not need it

    need = {
        "accelerator",
        "weights_gb",
        "grads_gb",
        "optimizer_gb",
        "activations_gb",
        "usable_gb",
        "n_gpus",
    }
    need_columns("table", table, need)
    d = table.copy()
    d["label"] = d["accelerator"] + " x " + d["n_gpus"].astype(str)
    terms = ["weights_gb", "grads_gb", "optimizer_gb", "activations_gb"]
    long = d.melt(id_vars=["label"], value_vars=terms, var_name="term", value_name="gb")
    order = list(d["label"])
    bars = (
        alt.Chart(long)
        .mark_bar()
        .encode(
            y=alt.Y("label:N", sort=order, title=None),
            x=alt.X("sum(gb):Q", title="GB per GPU at the fewest GPUs that fit"),
            color=alt.Color("term:N", sort=terms, title="memory term"),
            order=alt.Order("term_order:Q"),
            tooltip=["label", "term", alt.Tooltip("gb:Q", format=",.1f")],
        )
        .transform_calculate(term_order=f"indexof({terms}, datum.term)")
    )
    ticks = (
        alt.Chart(d)
        .mark_tick(color="black", thickness=2)
        .encode(
            y=alt.Y("label:N", sort=order),
            x="usable_gb:Q",
            tooltip=[alt.Tooltip("usable_gb:Q", format=",.0f")],
        )
    )
    return (bars + ticks).properties(
        width=WIDTH,
        height=max(HEIGHT, 16 * len(d)),
        title="Per-GPU memory ledger (black tick: usable memory)",
    )


# ----------------------------------------------------------------------------------------------
# 02 speed and efficiency

_CONFIG_KEYS = (
    "accelerator",
    "n_gpus",
    "fabric",
    "precision",
    "input_pipeline",
    "cooling",
    "global_batch_tokens",
    "method",
    "label",
)


def _speed_columns(est: pd.DataFrame) -> pd.DataFrame:
    out = est[
        [
            "accelerator",
            "n_gpus",
            "n_params",
            "n_tokens",
            "fabric",
            "precision",
            "input_pipeline",
            "global_batch_tokens",
            "wall_days",
            "gpu_hours",
            "mfu",
            "tokens_per_s",
            "tokens_per_s_per_gpu",
            "steady_tokens_per_s_per_gpu",
            "fits_in_memory",
            "step_s",
            *STEP_COLUMNS,
            "dp_comm_s",
        ]
    ].copy()
    out.insert(out.columns.get_loc("fits_in_memory"), "layout", est.apply(_layout, axis=1))
    return out


def speed_table(
    n_params,
    n_tokens,
    configs,
    *,
    seq_len: int = 4096,
    catalog: Catalog | None = None,
    assumptions: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Time to train one model on several clusters, with the engine's step-time breakdown.

    Parameters
    ----------
    n_params : float
        Model parameters [count].
    n_tokens : float
        Training tokens [tokens].
    configs : list of dict or DataFrame
        One cluster each: ``accelerator`` and ``n_gpus`` [GPUs] required; optional ``fabric``
        (data/fabrics.csv id), ``precision``, ``input_pipeline`` ("compiled" | "python", the
        article's 22 % loader effect), ``cooling``, ``global_batch_tokens`` [tokens], ``method``,
        ``label``.
    seq_len : int
        Sequence length [tokens].
    catalog, assumptions
        Data with overrides; assumption overrides by name.

    Returns
    -------
    DataFrame, one row per config: ``label``, the inputs, ``wall_days``, ``gpu_hours``, ``mfu``,
    ``tokens_per_s``, ``tokens_per_s_per_gpu``, ``steady_tokens_per_s_per_gpu`` (before goodput), ``layout``, ``fits_in_memory``, ``step_s`` and :data:`STEP_COLUMNS`
    [s per optimizer step], ``dp_comm_s`` (data-parallel traffic before overlap) [s].
    """
    cat = resolve_catalog(catalog)
    check_number("n_params", n_params, positive=True)
    check_number("n_tokens", n_tokens, positive=True)
    if isinstance(configs, pd.DataFrame):
        records = configs.to_dict("records")
    elif isinstance(configs, (list, tuple)):
        records = list(configs)
    else:
        raise ValueError(
            f"configs={configs!r} is not a list of dicts or a DataFrame; allowed: "
            "[{'accelerator': 'h100-sxm', 'n_gpus': 64}, ...]"
        )
    if not records:
        raise ValueError(
            "configs is empty; allowed: one or more {'accelerator': ..., 'n_gpus': ...}"
        )
    for i, c in enumerate(records):
        if not isinstance(c, Mapping):
            raise ValueError(
                f"configs[{i}]={c!r} is not a dict; allowed keys: {', '.join(_CONFIG_KEYS)}"
            )
        unknown = [k for k in c if k not in _CONFIG_KEYS]
        if unknown:
            raise ValueError(
                f"configs[{i}] has the unknown key {unknown[0]!r}; allowed: {', '.join(_CONFIG_KEYS)}"
            )
        for k in ("accelerator", "n_gpus"):
            if k not in c:
                raise ValueError(f"configs[{i}] lacks {k!r}; required: accelerator, n_gpus")
        _accelerator_id(cat, c["accelerator"], f"configs[{i}]['accelerator']")
    cfg = pd.DataFrame([{k: v for k, v in c.items() if k != "label"} for c in records])
    cfg["n_params"], cfg["n_tokens"], cfg["seq_len"] = float(n_params), float(n_tokens), seq_len
    est = estimate_frame(cfg, catalog=cat, assumptions=dict(assumptions or {}))
    out = _speed_columns(est)
    labels = [c.get("label") or _config_label(c, r) for c, (_, r) in zip(records, out.iterrows())]
    out.insert(0, "label", labels)
    return out


def pilot_time_factor(
    measured_tokens_per_s_per_gpu: float,
    n_params: float,
    config: Mapping,
    *,
    seq_len: int = 4096,
    attention: str = "causal",
    catalog: Catalog | None = None,
) -> dict:
    """The :attr:`workbook.Scenario.time_factor` of your own stack, from a short pilot run.

    A pilot of minutes to hours sees no failures or restarts, so its throughput is compared with the
    engine's steady-state throughput for the same model and cluster: global batch / step time / GPUs,
    before goodput (:func:`speed_table`). The time factor is predicted / measured tokens per second
    per GPU: 1.3 means your runs will take 1.3x the engine's days.

    Parameters
    ----------
    measured_tokens_per_s_per_gpu : float
        Training tokens per second per GPU your pilot logged (whole-job throughput / GPUs) [tokens/s].
    n_params : float
        Parameters of the pilot's model [count] (dense).
    config : dict
        The pilot's cluster, as one :func:`speed_table` config: ``accelerator`` and ``n_gpus``
        required; ``precision``, ``fabric``, ``global_batch_tokens``, ``input_pipeline``, ...
    seq_len : int
        Sequence length [tokens].
    attention : str
        FLOP convention for the MFU figures (:func:`workbook.flops_per_token`): "causal" (the
        engine's) or "full" (what llm-foundry and Megatron report).
    catalog
        Data with overrides.

    Returns
    -------
    dict: ``time_factor``, ``predicted_tokens_per_s_per_gpu``, ``measured_tokens_per_s_per_gpu``,
    ``predicted_mfu`` and ``measured_mfu`` (FLOPs per token x tokens/s per GPU / the dense peak at the
    precision), ``in_scenario_range`` (whether a Scenario accepts the factor, 0.25 to 10).
    """
    from ..decide import TIME_FACTOR_RANGE
    from ..model import flops_per_token

    check_number("measured_tokens_per_s_per_gpu", measured_tokens_per_s_per_gpu, positive=True)
    if not isinstance(config, Mapping):
        raise ValueError(
            f"config={config!r} is not a dict; allowed keys: {', '.join(_CONFIG_KEYS)}"
        )
    cat = resolve_catalog(catalog)
    # n_tokens does not change the step time; any positive count serves.
    r = speed_table(n_params, 1e9, [dict(config)], seq_len=seq_len, catalog=cat).iloc[0]
    if not math.isfinite(float(r["step_s"])):
        raise ValueError(
            f"config={dict(config)!r}: the engine has no step time for it (precision "
            f"{r['precision']!r} unsupported on {r['accelerator']}); allowed: a precision the part has"
        )
    predicted = float(r["steady_tokens_per_s_per_gpu"])
    spec = cat.tables["accelerators"].set_index("accelerator_id").loc[r["accelerator"]]
    peak = float(spec[f"tflops_dense_{r['precision']}"]) * 1e12
    fpt = float(flops_per_token(n_params, seq_len=seq_len, attention=attention))
    factor = predicted / float(measured_tokens_per_s_per_gpu)
    return {
        "time_factor": factor,
        "predicted_tokens_per_s_per_gpu": predicted,
        "measured_tokens_per_s_per_gpu": float(measured_tokens_per_s_per_gpu),
        "predicted_mfu": fpt * predicted / peak,
        "measured_mfu": fpt * float(measured_tokens_per_s_per_gpu) / peak,
        "in_scenario_range": bool(TIME_FACTOR_RANGE[0] <= factor <= TIME_FACTOR_RANGE[1]),
    }


def _config_label(c: Mapping, r) -> str:
    extra = [str(r["fabric"])] + [f"{c[k]}" for k in ("precision", "input_pipeline") if k in c]
    return f"{int(r['n_gpus'])} x {r['accelerator']} ({', '.join(extra)})"


def network_comparison(
    model_sizes: Sequence[float] = (1e9, 7e9, 13e9, 30e9, 70e9),
    *,
    n_tokens: float = 1e12,
    global_batch_tokens: float | None = None,
    catalog: Catalog | None = None,
    assumptions: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """The article's "B200 on 2 nodes with 200GbE vs A100 on 8 nodes with InfiniBand NDR", computed.

    Both clusters of :data:`NETWORK_CLUSTERS` train each model size through
    :func:`workbook.estimate_frame`; the rows carry its step breakdown, so the data-parallel
    all-reduce over 25 Gb/s per GPU (one 200GbE port per 8-GPU node, fabric ``eth-200-shared``)
    is visible next to the matmul time it hides behind.

    Parameters
    ----------
    model_sizes : list of float
        Model parameters [count] (dense, shape derived from the size).
    n_tokens : float
        Training tokens [tokens].
    global_batch_tokens : float, optional
        Tokens per optimizer step (default: the engine's, 4M; 16M from 100B params).
    catalog, assumptions
        Data with overrides; assumption overrides by name (e.g. ``{"dp_overlap_fraction": 0.0}``
        for no overlap of gradient traffic with the backward pass).

    Returns
    -------
    DataFrame, one row per (model, cluster): ``model``, ``cluster`` and the columns of
    :func:`speed_table`, plus ``speed_vs_a100`` = tokens/s / the A100 cluster's tokens/s.
    """
    cat = resolve_catalog(catalog)
    sizes = _sizes("model_sizes", model_sizes)
    check_number("n_tokens", n_tokens, positive=True)
    if global_batch_tokens is not None:
        check_number("global_batch_tokens", global_batch_tokens, positive=True)
    rows = []
    for n in sizes:
        for c in NETWORK_CLUSTERS:
            row = {k: c[k] for k in ("accelerator", "n_gpus", "fabric")}
            row.update(
                n_params=n,
                n_tokens=float(n_tokens),
                global_batch_tokens=global_batch_tokens or np.nan,
            )
            rows.append(row)
    est = estimate_frame(pd.DataFrame(rows), catalog=cat, assumptions=dict(assumptions or {}))
    out = _speed_columns(est)
    out.insert(0, "cluster", [c["cluster"] for _ in sizes for c in NETWORK_CLUSTERS])
    out.insert(0, "model", [_label_params(n) for n in sizes for _ in NETWORK_CLUSTERS])
    ref = out["tokens_per_s"].to_numpy(float).reshape(len(sizes), len(NETWORK_CLUSTERS))[:, 1]
    out["speed_vs_a100"] = out["tokens_per_s"] / np.repeat(ref, len(NETWORK_CLUSTERS))
    return out


def network_verdict(table: pd.DataFrame, catalog: Catalog | None = None) -> pd.DataFrame:
    """Per model size: is the 2-node 200GbE B200 cluster slower than the 8-node NDR A100 cluster?

    ``peak_ratio`` is the clusters' dense BF16 peak ratio from the catalog (16 x 2,250 / 64 x 312 =
    1.80); ``b200_speedup`` the engine's tokens/s ratio; ``claim_holds`` is ``b200_speedup < 1``.
    """
    need_columns(
        "table",
        table,
        {
            "model",
            "n_params",
            "accelerator",
            "tokens_per_s",
            "step_s",
            "dp_comm_s",
            "dp_exposed_s",
            "n_gpus",
        },
    )
    cat = resolve_catalog(catalog)
    spec = cat.tables["accelerators"].set_index("accelerator_id")
    b, a = (NETWORK_CLUSTERS[0], NETWORK_CLUSTERS[1])
    peak_ratio = (b["n_gpus"] * spec.loc[b["accelerator"], "tflops_dense_bf16"]) / (
        a["n_gpus"] * spec.loc[a["accelerator"], "tflops_dense_bf16"]
    )
    rows = []
    for model, g in table.groupby("model", sort=False):
        rb = g[g["accelerator"] == b["accelerator"]].iloc[0]
        ra = g[g["accelerator"] == a["accelerator"]].iloc[0]
        speedup = rb["tokens_per_s"] / ra["tokens_per_s"]
        rows.append(
            {
                "model": model,
                "n_params": rb["n_params"],
                "b200_tokens_per_s": rb["tokens_per_s"],
                "a100_tokens_per_s": ra["tokens_per_s"],
                "peak_ratio": float(peak_ratio),
                "b200_speedup": speedup,
                "b200_dp_comm_s": rb["dp_comm_s"],
                "b200_dp_exposed_s": rb["dp_exposed_s"],
                "b200_step_s": rb["step_s"],
                "claim_holds": bool(speedup < 1.0),
            }
        )
    return pd.DataFrame(rows)


def step_breakdown_chart(table: pd.DataFrame) -> alt.Chart:
    """Stacked step-time components per cluster and model, in seconds per million tokens.

    Dividing each component by the tokens per step makes clusters and model sizes comparable.
    """
    import altair as alt  # lazily: altair takes seconds to import, tables do not need it

    need_columns("table", table, {"global_batch_tokens", *STEP_COLUMNS})
    d = table.copy()
    d["row"] = (d["model"] + ": " if "model" in d else "") + (
        d["cluster"] if "cluster" in d else d["label"]
    )
    long = d.melt(
        id_vars=["row", "global_batch_tokens"],
        value_vars=list(STEP_COLUMNS),
        var_name="component",
        value_name="seconds",
    )
    long["s_per_million_tokens"] = long["seconds"] / long["global_batch_tokens"] * 1e6
    return (
        alt.Chart(long)
        .mark_bar()
        .encode(
            y=alt.Y("row:N", sort=list(d["row"]), title=None),
            x=alt.X(
                "sum(s_per_million_tokens):Q", title="seconds per million tokens (whole cluster)"
            ),
            color=alt.Color("component:N", sort=list(STEP_COLUMNS), title="step component"),
            tooltip=["row", "component", alt.Tooltip("s_per_million_tokens:Q", format=",.2f")],
        )
        .properties(width=WIDTH, height=max(HEIGHT, 18 * len(d)), title="Where the step time goes")
    )


def bandwidth_vs_flops(
    n_params: float = 7e9,
    n_gpus: int = 8,
    accelerators=None,
    *,
    n_tokens: float = 1e12,
    precision: str = "bf16",
    catalog: Catalog | None = None,
) -> pd.DataFrame:
    """FLOP per byte of HBM bandwidth by accelerator, and the MFU the engine predicts with it.

    ``flop_per_byte`` = dense peak [FLOP/s] / HBM bandwidth [B/s] (the roofline ridge point,
    Williams et al. 2009, CACM 52(4)); ``memory_share`` and ``matmul_share`` are the fractions of
    the step the engine spends in HBM-bound work and in matmuls for ``n_params`` on ``n_gpus``.

    Parameters
    ----------
    n_params : float
        Model parameters [count].
    n_gpus : int
        GPUs per cluster [count].
    accelerators : list of str, optional
        Catalog ids (default: every accelerator with ``precision``).
    n_tokens : float
        Training tokens [tokens] (MFU does not depend on it).
    precision : {"bf16", "fp8", "fp4"}

    Returns
    -------
    DataFrame sorted by ``flop_per_byte``: ``accelerator``, ``tflops_dense`` [TFLOP/s],
    ``memory_bw_tbps`` [TB/s], ``flop_per_byte``, ``mfu``, ``tokens_per_s_per_gpu``,
    ``matmul_share``, ``memory_share``, ``software_maturity``.
    """
    cat = resolve_catalog(catalog)
    check_number("n_params", n_params, positive=True)
    check_number("n_gpus", n_gpus, positive=True, integer=True)
    check_number("n_tokens", n_tokens, positive=True)
    check_choice("precision", precision, PRECISIONS)
    ids = _accelerator_ids(cat, accelerators)
    spec = cat.tables["accelerators"].set_index("accelerator_id").loc[ids]
    peak = spec[f"tflops_dense_{precision}"].astype(float)
    ids = [i for i in ids if np.isfinite(peak[i])]
    if not ids:
        raise ValueError(
            f"precision={precision!r}: none of the accelerators has a dense {precision} peak"
        )
    cfg = pd.DataFrame(
        {
            "accelerator": ids,
            "n_gpus": int(n_gpus),
            "n_params": float(n_params),
            "n_tokens": float(n_tokens),
            "precision": precision,
        }
    )
    est = estimate_frame(cfg, catalog=cat)
    out = pd.DataFrame(
        {
            "accelerator": ids,
            "tflops_dense": peak[ids].to_numpy(),
            "memory_bw_tbps": spec.loc[ids, "memory_bw_tbps"].to_numpy(float),
        }
    )
    out["flop_per_byte"] = out["tflops_dense"] / out["memory_bw_tbps"]
    out["mfu"] = est["mfu"].to_numpy()
    out["tokens_per_s_per_gpu"] = est["tokens_per_s_per_gpu"].to_numpy()
    out["matmul_share"] = (est["matmul_s"] / est["step_s"]).to_numpy()
    out["memory_share"] = (est["memory_s"] / est["step_s"]).to_numpy()
    out["software_maturity"] = est["software_maturity"].to_numpy()
    return out.sort_values("flop_per_byte").reset_index(drop=True)


def bandwidth_chart(table: pd.DataFrame) -> alt.Chart:
    """Scatter of FLOP per byte against predicted MFU (from :func:`bandwidth_vs_flops`)."""
    import altair as alt  # lazily: altair takes seconds to import, tables do not need it

    need_columns(
        "table", table, {"accelerator", "flop_per_byte", "mfu", "memory_share", "software_maturity"}
    )
    base = alt.Chart(table).encode(
        x=alt.X("flop_per_byte:Q", title="dense FLOP per byte of HBM bandwidth"),
        y=alt.Y("mfu:Q", title="predicted MFU", axis=alt.Axis(format="%")),
        tooltip=[
            "accelerator",
            alt.Tooltip("flop_per_byte:Q", format=",.0f"),
            alt.Tooltip("mfu:Q", format=".1%"),
            alt.Tooltip("memory_share:Q", format=".0%"),
        ],
    )
    dots = base.mark_circle(size=80).encode(
        color=alt.Color("software_maturity:O", title="software maturity")
    )
    return (
        dots + base.mark_text(align="left", dx=6, fontSize=9).encode(text="accelerator")
    ).properties(
        width=WIDTH,
        height=HEIGHT,
        title="Compute-to-bandwidth ratio vs the MFU the engine predicts",
    )


# ----------------------------------------------------------------------------------------------
# 03 rent vs buy


def _rent_vs_buy_options(accelerator, n_gpus, n_params, n_tokens, runs_per_year, cooling, catalog):
    cat = resolve_catalog(catalog)
    acc = _accelerator_id(cat, accelerator)
    check_number("n_gpus", n_gpus, positive=True, integer=True)
    check_number("n_params", n_params, positive=True)
    check_number("n_tokens", n_tokens, positive=True)
    check_number("runs_per_year", runs_per_year, positive=True, maximum=365)
    check_choice("cooling", cooling, ("air", "liquid"))
    spec = cat.accelerator(acc)
    sizes = gpu_counts(int(spec["gpus_per_node"]), int(spec["scale_up_domain_gpus"]), 16384)
    if int(n_gpus) not in sizes:
        raise ValueError(
            f"n_gpus={n_gpus!r} is not a cluster size the engine prices for {acc}; allowed: "
            f"{', '.join(map(str, sizes[:12]))}, ..."
        )
    # Feasibility is not the question here: no deadline, budget, site or team limit bites.
    s = Scenario(
        name=f"rent vs buy: {int(n_gpus)} x {acc}",
        workload="pretrain",
        n_params=float(n_params),
        n_tokens=float(n_tokens),
        deadline_days=3650,
        budget_usd=1e11,
        runs_per_year=float(runs_per_year),
        site_power_kw=1e7,
        cooling=cooling,
        allow_liquid_retrofit=True,
        platform_engineers=100_000,
        rocm_experience=True,
        accelerators=[acc],
        max_gpus=int(n_gpus),
    )
    rec = recommend(s, catalog=cat, sensitivity=False)
    o = rec.options
    same = o[(o["n_gpus"] == int(n_gpus)) & np.isfinite(o["price"].to_numpy(float))]
    buy = same[same["acquisition"] == "buy-new"]
    breakeven = float(breakeven_for(s, o, buy.iloc[0])) if len(buy) else math.nan
    return s, same, breakeven


def rent_vs_buy_table(
    accelerator: str,
    n_gpus: int,
    *,
    n_params: float,
    n_tokens: float,
    runs_per_year: float = 1.0,
    cooling: str = "air",
    catalog: Catalog | None = None,
) -> pd.DataFrame:
    """Cost of one cluster under every acquisition mode with a price, from the decision engine.

    Costs come from :func:`workbook.decision.evaluate` (rent: GPU-hours x price, spot with its
    preemption overhead, a 1-year reservation; buy: capex, straight-line amortization to resale,
    cost of capital, colocation, energy at PUE; see :mod:`workbook.cost`). The break-even is the
    engine's (buy-new vs rent-on-demand, :func:`workbook.cost.breakeven_runs_per_year`).

    Parameters
    ----------
    accelerator : str
        Catalog id.
    n_gpus : int
        Cluster size [GPUs]; one of the engine's sizes (whole nodes / NVL72 racks).
    n_params, n_tokens : float
        Model parameters [count] and tokens per run [tokens].
    runs_per_year : float
        Runs of this size per year [runs/yr], 0 < x <= 365.
    cooling : {"air", "liquid"}
        The owner's racks; liquid-only parts bought for air racks carry the retrofit cost.

    Returns
    -------
    DataFrame, one row per priced mode: ``acquisition``, ``price`` [USD/GPU-h or USD/GPU],
    ``price_basis``, ``wall_days``, ``cost_per_run_usd``, ``cost_per_year_usd``,
    ``first_year_cost_usd``, ``capex_usd``, ``usd_per_million_tokens``, ``schedule_fits_year``,
    ``breakeven_runs_per_year`` and ``breakeven_busy_fraction`` (share of the year the cluster must be
    busy for buying to pay off).
    """
    _, same, breakeven = _rent_vs_buy_options(
        accelerator, n_gpus, n_params, n_tokens, runs_per_year, cooling, catalog
    )
    out = same[
        [
            "acquisition",
            "price",
            "price_basis",
            "wall_days",
            "cost_per_run_usd",
            "cost_per_year_usd",
            "first_year_cost_usd",
            "capex_usd",
            "usd_per_million_tokens",
            "schedule_fits_year",
        ]
    ].reset_index(drop=True)
    base_days = (
        float(same.loc[same["acquisition"] == "rent-on-demand", "wall_days"].iloc[0])
        if (same["acquisition"] == "rent-on-demand").any()
        else float(same["wall_days"].min())
    )
    out["breakeven_runs_per_year"] = breakeven
    out["breakeven_busy_fraction"] = breakeven * base_days / 365.0
    return out


def rent_vs_buy_curve(
    accelerator: str,
    n_gpus: int,
    *,
    n_params: float,
    n_tokens: float,
    runs: Iterable[float] | None = None,
    cooling: str = "air",
    catalog: Catalog | None = None,
) -> pd.DataFrame:
    """Cost per year against runs per year for each mode (long table for :func:`rent_vs_buy_chart`).

    ``runs`` [runs/yr] defaults to 40 points from 0.1 to as many runs as fit in a year.
    Each point re-evaluates the same options with :func:`workbook.decision.evaluate`.
    """
    s, same, _ = _rent_vs_buy_options(
        accelerator, n_gpus, n_params, n_tokens, 1.0, cooling, catalog
    )
    if runs is None:
        max_fit = 365.0 / float(same["wall_days"].min())
        grid = np.linspace(min(0.1, max_fit), max_fit, 40)
    else:
        grid = np.asarray(_sizes("runs", runs))
    rows = []
    for r in grid:
        ev = evaluate(s, same, runs_factor=float(r) / s.runs_per_year)
        for mode, c, fits in zip(
            same["acquisition"], ev["cost_per_year_usd"], ev["schedule_fits_year"]
        ):
            rows.append(
                {
                    "runs_per_year": float(r),
                    "acquisition": mode,
                    "cost_per_year_usd": float(c),
                    "schedule_fits_year": bool(fits),
                }
            )
    return pd.DataFrame(rows)


def rent_vs_buy_chart(
    curve: pd.DataFrame, breakeven_runs_per_year: float | None = None
) -> alt.Chart:
    """Lines of cost per year by acquisition mode; a dashed rule at the break-even, if finite."""
    import altair as alt  # lazily: altair takes seconds to import, tables do not need it

    need_columns("curve", curve, {"runs_per_year", "acquisition", "cost_per_year_usd"})
    lines = (
        alt.Chart(curve)
        .mark_line()
        .encode(
            x=alt.X("runs_per_year:Q", title="runs per year"),
            y=alt.Y("cost_per_year_usd:Q", title="cost per year (USD)"),
            color=alt.Color("acquisition:N", title="acquisition"),
            tooltip=[
                "acquisition",
                alt.Tooltip("runs_per_year:Q", format=".2f"),
                alt.Tooltip("cost_per_year_usd:Q", format="$,.0f"),
            ],
        )
    )
    layers = [lines]
    if (
        breakeven_runs_per_year is not None
        and math.isfinite(breakeven_runs_per_year)
        and breakeven_runs_per_year <= curve["runs_per_year"].max()
    ):
        layers.append(
            alt.Chart(pd.DataFrame({"x": [breakeven_runs_per_year]}))
            .mark_rule(color="#2ca02c", strokeDash=[6, 3])
            .encode(x="x:Q")
        )
    return alt.layer(*layers).properties(
        width=WIDTH,
        height=HEIGHT,
        title="Rent vs buy: cost per year (green dashed: break-even vs on-demand)",
    )


def article_rent_vs_buy(catalog: Catalog | None = None) -> pd.DataFrame:
    """The article's rent-vs-buy paragraph next to the engine's figures for the same cluster.

    The article: 70B on 5T tokens, 128 H200, "roughly 48 days", "$502K in spot pricing", "$1.8M"
    to buy, break-even "about 2.5 long runs per year" (:data:`ARTICLE_RENT_VS_BUY`).

    Returns
    -------
    DataFrame with ``figure``, ``article``, ``engine`` and ``engine_over_article``.
    """
    art = ARTICLE_RENT_VS_BUY
    t = rent_vs_buy_table(
        art["accelerator"],
        art["n_gpus"],
        n_params=art["n_params"],
        n_tokens=art["n_tokens"],
        catalog=catalog,
    ).set_index("acquisition")
    days = float(t.loc["rent-on-demand", "wall_days"])
    rows = [
        ("run length (days)", art["days"], days),
        ("GPU-hours per run", art["n_gpus"] * art["days"] * 24.0, art["n_gpus"] * days * 24.0),
        (
            "rent on spot, per run (USD)",
            art["spot_usd_per_run"],
            float(t.loc["rent-spot", "cost_per_run_usd"]),
        ),
        ("buy new, capex (USD)", art["buy_usd"], float(t.loc["buy-new", "capex_usd"])),
        (
            "break-even (runs per year)",
            art["breakeven_runs_per_year"],
            float(t["breakeven_runs_per_year"].iloc[0]),
        ),
        (
            "break-even (share of the year busy)",
            art["breakeven_runs_per_year"] * art["days"] / 365.0,
            float(t["breakeven_busy_fraction"].iloc[0]),
        ),
        ("runs that fit in a year", 365.0 / art["days"], 365.0 / days),
    ]
    df = pd.DataFrame(rows, columns=["figure", "article", "engine"])
    df["engine_over_article"] = df["engine"] / df["article"]
    return df


# ----------------------------------------------------------------------------------------------
# 04 power and cooling


def power_table(
    accelerators=None,
    *,
    n_gpus: int = 48,
    rack_limits_kw: Sequence[float] = (20.0, 40.0, 135.0),
    cooling: str = "air",
    catalog: Catalog | None = None,
) -> pd.DataFrame:
    """Power of ``n_gpus`` GPUs as servers (GPUs + host) against the article's TDP x GPUs method.

    Node power = GPUs x board power + host overhead (``host_overhead_kw_per_node`` in
    data/facility.csv; DGX B200: 14.3 kW for 8 x 1.0 kW, NVIDIA DGX B200 user guide), from
    :func:`workbook.power.cluster_power`; racks needed at each rack limit (a rack-scale NVL72
    domain must sit in one rack); facility power at the PUE of ``cooling``.

    Parameters
    ----------
    accelerators : list of str, optional
        Catalog ids (default: the five in the article's power table, :data:`ARTICLE_POWER_TABLE`).
    n_gpus : int
        GPUs [count] (the article's table uses 48).
    rack_limits_kw : list of float
        Power one rack may carry [kW]: 20 (the article's air rack), 40, 135 (NVL72 liquid rack).
    cooling : {"air", "liquid"}
        Selects the PUE (data/facility.csv ``pue_air`` / ``pue_liquid``).

    Returns
    -------
    DataFrame, one row per accelerator: ``article_tdp_w``, ``article_kw`` (the article's figures,
    NaN where it has none), ``tdp_w`` (catalog), ``tdp_x_gpus_kw``, ``gpus_per_node``,
    ``host_overhead_kw``, ``node_kw``, ``nodes``, ``it_kw``, ``it_over_article``, ``facility_kw``,
    and ``racks_<L>kw`` per rack limit (<NA> where one node or NVL72 rack exceeds the limit).
    """
    cat = resolve_catalog(catalog)
    ids = _accelerator_ids(cat, list(ARTICLE_POWER_TABLE) if accelerators is None else accelerators)
    check_number("n_gpus", n_gpus, positive=True, integer=True)
    limits = _sizes("rack_limits_kw", rack_limits_kw)
    check_choice("cooling", cooling, ("air", "liquid"))
    spec = cat.tables["accelerators"].set_index("accelerator_id").loc[ids]
    tdp = spec["tdp_w"].astype(float)
    missing = [i for i in ids if not np.isfinite(tdp[i])]
    if missing:
        raise ValueError(
            f"accelerators contains {missing[0]!r}, which has no TDP in the catalog (a cloud-only part); "
            "allowed: accelerators with tdp_w"
        )
    host = (
        cat.param_by_accelerator("facility", "host_overhead_kw_per_node")
        .reindex(ids)
        .fillna(0.0)
        .to_numpy(float)
    )
    per_rack = (
        cat.param_by_accelerator("facility", "nodes_per_rack_max")
        .reindex(ids)
        .fillna(1.0)
        .to_numpy(float)
    )
    gpn = spec["gpus_per_node"].to_numpy(float)
    pue = cat.param("facility", f"pue_{cooling}")
    n = np.full(len(ids), float(n_gpus))

    def power(limit):
        return cluster_power(
            n,
            gpus_per_node=gpn,
            tdp_w=tdp.to_numpy(),
            host_overhead_kw=host,
            rack_limit_kw=limit,
            nodes_per_rack_max=per_rack,
            pue=pue,
            scale_up_domain_gpus=spec["scale_up_domain_gpus"].to_numpy(float),
        )

    p = power(limits[0])
    art = [ARTICLE_POWER_TABLE.get(i, (np.nan, np.nan)) for i in ids]
    out = pd.DataFrame(
        {
            "accelerator": ids,
            "article_tdp_w": [x[0] for x in art],
            "article_kw": [x[1] for x in art],
            "tdp_w": tdp.to_numpy(),
            "tdp_x_gpus_kw": tdp.to_numpy() * n_gpus / 1000.0,
            "gpus_per_node": gpn.astype(int),
            "host_overhead_kw": host,
            "node_kw": p["node_kw"],
            "nodes": p["nodes"].astype(int),
            "it_kw": p["it_kw"],
        }
    )
    out["it_over_article"] = out["it_kw"] / out["article_kw"]
    out["facility_kw"] = p["facility_kw"]
    for limit in limits:
        q = power(limit)
        out[f"racks_{limit:g}kw"] = pd.array(
            np.where(q["block_exceeds_rack"], pd.NA, q["racks"]), dtype="Int64"
        )
    return out


def power_chart(table: pd.DataFrame) -> alt.Chart:
    """Grouped bars: the article's TDP x GPUs kW against the servers' kW (from :func:`power_table`)."""
    import altair as alt  # lazily: altair takes seconds to import, tables do not need it

    need_columns("table", table, {"accelerator", "article_kw", "tdp_x_gpus_kw", "it_kw"})
    d = table.assign(article=table["article_kw"].fillna(table["tdp_x_gpus_kw"]))
    long = d.melt(
        id_vars=["accelerator"], value_vars=["article", "it_kw"], var_name="method", value_name="kw"
    )
    long["method"] = long["method"].map(
        {"article": "article: TDP x GPUs", "it_kw": "engine: nodes x (GPUs + host)"}
    )
    return (
        alt.Chart(long)
        .mark_bar()
        .encode(
            y=alt.Y("accelerator:N", title=None),
            yOffset="method:N",
            x=alt.X("kw:Q", title="kW for the GPUs in the table"),
            color=alt.Color("method:N", title=None),
            tooltip=["accelerator", "method", alt.Tooltip("kw:Q", format=",.1f")],
        )
        .properties(
            width=WIDTH,
            height=max(HEIGHT, 40 * len(d)),
            title="Rack power: the article's method vs servers",
        )
    )


# ----------------------------------------------------------------------------------------------
# 05 team and software risk


def software_maturity_table(catalog: Catalog | None = None) -> pd.DataFrame:
    """The engine's software-stack throughput multipliers (data/assumptions.csv) and who uses them.

    Returns ``software_stack``, ``value`` (multiplier on every step time's denominator), ``low``,
    ``high``, ``source_kind``, ``accelerators`` (catalog ids on that stack) and ``notes``.
    """
    cat = resolve_catalog(catalog)
    a = cat.tables["assumptions"]
    rows = a[a["parameter"].str.startswith("software_maturity_") & a["accelerator_id"].isna()]
    acc = cat.tables["accelerators"]
    out = pd.DataFrame(
        {
            "software_stack": rows["parameter"].str.removeprefix("software_maturity_").to_numpy(),
            "value": rows["value"].to_numpy(float),
            "low": rows["low"].to_numpy(float),
            "high": rows["high"].to_numpy(float),
            "source_kind": rows["source_kind"].to_numpy(),
            "notes": rows["notes"].to_numpy(),
        }
    )
    out.insert(
        5,
        "accelerators",
        [
            ", ".join(acc.loc[acc["software_stack"] == s, "accelerator_id"])
            for s in out["software_stack"]
        ],
    )
    return out.sort_values("value", ascending=False).reset_index(drop=True)


def team_rules_table(catalog: Catalog | None = None) -> pd.DataFrame:
    """The team and software rules the decision engine applies (``workbook.decision``), with their values.

    Returns ``rule``, ``parameter``, ``value``, ``source_kind`` and ``source_url``.
    """
    cat = resolve_catalog(catalog)
    a = cat.tables["assumptions"]
    glob = a[a["accelerator_id"].isna()].set_index("parameter")
    rules = [
        (
            "AMD (ROCm) options need ROCm experience or at least this many platform engineers",
            "rocm_min_platform_engineers",
        ),
        (
            "An owned multi-node cluster needs ceil(nodes / this) platform engineers; one owned node needs none",
            "nodes_per_platform_engineer",
        ),
        (
            "Gaudi 3 (SynapseAI) is not used across nodes (the article: 'the software gap is an order of magnitude')",
            "software_maturity_synapse",
        ),
        ("ROCm throughput multiplier on every training estimate", "software_maturity_rocm"),
    ]
    return pd.DataFrame(
        [
            {
                "rule": text,
                "parameter": p,
                "value": float(glob.loc[p, "value"]),
                "source_kind": glob.loc[p, "source_kind"],
                "source_url": glob.loc[p, "source_url"],
            }
            for text, p in rules
        ]
    )


def team_risk_table(
    preset: str = "band-7b-to-70b",
    profiles: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    catalog: Catalog | None = None,
) -> pd.DataFrame:
    """Which accelerators each team profile may use, from :func:`workbook.recommend` itself.

    The preset scenario is re-run with each profile's team fields (``team_size``,
    ``platform_engineers``, ``rocm_experience``); an accelerator is allowed where the engine's
    ``team`` constraint passes (``why_team`` empty) for its options.

    Parameters
    ----------
    preset : str
        Name in :data:`workbook.presets`.
    profiles : dict of name -> dict of Scenario team fields, optional
        Default :data:`TEAM_PROFILES`.

    Returns
    -------
    DataFrame, one row per (profile, accelerator): ``allowed`` ("yes" | "no" | a limit such as
    "rent; own <= 1 node" or "<= 1 node"), ``reason`` (the engine's first team reason, "" if none),
    ``pick`` (the engine's recommendation for the profile).
    """
    cat = resolve_catalog(catalog)
    if not isinstance(preset, str) or preset not in presets:
        raise ValueError(f"preset={preset!r} is not a preset; allowed: {', '.join(presets)}")
    profiles = TEAM_PROFILES if profiles is None else profiles
    if not isinstance(profiles, Mapping) or not profiles:
        raise ValueError(f"profiles={profiles!r} is not a non-empty dict of name -> team fields")
    allowed_fields = ("team_size", "platform_engineers", "rocm_experience")
    rows = []
    for name, fields in profiles.items():
        if not isinstance(fields, Mapping) or any(k not in allowed_fields for k in fields):
            raise ValueError(
                f"profiles[{name!r}]={fields!r} is not allowed; allowed keys: {', '.join(allowed_fields)}"
            )
        s = presets[preset].replace(**dict(fields))
        rec = recommend(s, catalog=cat, sensitivity=False)
        o = rec.options
        pick = (
            f"{rec.top.acquisition} {rec.top.n_gpus} x {rec.top.accelerator}"
            if rec.top is not None
            else "nothing feasible"
        )
        for acc, g in o.groupby("accelerator", sort=False):
            ok = (g["why_team"] == "").to_numpy(bool)
            buy = g["is_buy"].to_numpy(bool)
            nodes = g["nodes"].to_numpy(float)
            reasons = [r for r in g["why_team"] if r]
            if ok.all():
                allowed = "yes"
            elif not ok.any():
                allowed = "no"
            elif (~ok & ~buy).any():  # even renting is limited: a node-count rule
                allowed = f"<= {int(nodes[ok].max())} node{'s' if nodes[ok].max() > 1 else ''}"
            elif (ok & buy).any():
                k = int(nodes[ok & buy].max())
                allowed = f"rent; own <= {k} node{'s' if k > 1 else ''}"
            else:
                allowed = "rent only"
            rows.append(
                {
                    "profile": name,
                    "accelerator": acc,
                    "allowed": allowed,
                    "reason": reasons[0] if reasons else "",
                    "pick": pick,
                }
            )
    return pd.DataFrame(rows)


def team_risk_matrix(table: pd.DataFrame) -> pd.DataFrame:
    """Accelerators x profiles of :func:`team_risk_table`'s ``allowed``, with the engine's pick as a last row."""
    need_columns("table", table, {"profile", "accelerator", "allowed", "pick"})
    order = list(dict.fromkeys(table["profile"]))
    m = table.pivot(index="accelerator", columns="profile", values="allowed")[order]
    m = m.reindex(list(dict.fromkeys(table["accelerator"])))
    picks = table.drop_duplicates("profile").set_index("profile")["pick"].reindex(order)
    m.loc["(engine's pick)"] = picks.to_numpy()
    m.columns.name = None
    return m


def team_risk_reasons(table: pd.DataFrame) -> pd.DataFrame:
    """The distinct team reasons of :func:`team_risk_table`, one row per (profile, reason)."""
    need_columns("table", table, {"profile", "accelerator", "allowed", "reason"})
    r = table[table["reason"] != ""].drop_duplicates(["profile", "reason"])
    return r[["profile", "accelerator", "allowed", "reason"]].reset_index(drop=True)


# ----------------------------------------------------------------------------------------------
# 06 the article's claims


def _verdict_close(claimed: float, engine: float, tolerance: float = 0.05) -> str:
    return "holds" if abs(claimed / engine - 1.0) <= tolerance else "wrong"


def _row(engine_says: str, engine_verdict: str, engine_basis: str) -> tuple[str, str, str]:
    """One engine entry of :func:`claims_table`."""
    return engine_says, engine_verdict, engine_basis


def _engine_claims(cat: Catalog) -> dict[str, tuple[str, str, str]]:
    """claim_id -> (engine_says, engine_verdict, engine_basis) for the claims the engine recomputes."""
    from ..calibrate import validate

    spec = cat.tables["accelerators"].set_index("accelerator_id")
    prices = cat.default_prices()
    out: dict[str, tuple[str, str, str]] = {}

    # Headline run and its money (the article's rent-vs-buy paragraph).
    art = ARTICLE_RENT_VS_BUY
    c = check_claim(
        art["n_params"],
        art["n_tokens"],
        art["accelerator"],
        art["n_gpus"],
        days=art["days"],
        catalog=cat,
    )
    out["c58-70b-5t-48days-128-h200"] = _row(
        f"needs {c.implied_mfu:.1f}x the dense BF16 peak ({c.implied_mfu_fp8:.1f}x FP8) in 48 days; the engine's run: "
        f"{c.realistic_days:,.0f} days, {c.realistic_gpu_hours:,.0f} GPU-h at {c.realistic_mfu:.0%} MFU",
        c.verdict,
        "check_claim + time model",
    )
    rvb = article_rent_vs_buy(cat).set_index("figure")
    spot = rvb.loc["rent on spot, per run (USD)", "engine"]
    out["c59-502k-spot"] = _row(
        f"${spot:,.0f} on spot for the {rvb.loc['run length (days)', 'engine']:,.0f}-day run "
        f"(${prices.loc['h200-sxm', 'rent-spot']:.2f}/GPU-h + spot preemption overhead)",
        _verdict_close(art["spot_usd_per_run"], spot, 0.25),
        "cost model",
    )
    capex = rvb.loc["buy new, capex (USD)", "engine"]
    out["c60-buy-1.8m"] = _row(
        f"${capex:,.0f} capex: 128 x ${prices.loc['h200-sxm', 'buy-new']:,.0f} + 16 servers + "
        "InfiniBand",
        _verdict_close(art["buy_usd"], capex, 0.15),
        "cost model",
    )
    be, busy = (
        rvb.loc["break-even (runs per year)", "engine"],
        rvb.loc["break-even (share of the year busy)", "engine"],
    )
    out["c61-breakeven-2.5-runs"] = _row(
        f"break-even {be:.2f} runs/yr of {rvb.loc['run length (days)', 'engine']:,.0f} days (cluster busy {busy:.0%} of "
        f"the year; the article's 2.5 x 48 days = {rvb.loc['break-even (share of the year busy)', 'article']:.0%})",
        _verdict_close(art["breakeven_runs_per_year"], be, 0.25),
        "cost model",
    )

    # Scale-out comparison.
    v = network_verdict(network_comparison(catalog=cat), cat)
    out["c09-b200-2node-vs-a100-8node"] = _row(
        f"B200 cluster {v['b200_speedup'].min():.2f}-{v['b200_speedup'].max():.2f}x the A100 cluster's tokens/s for "
        f"{v['model'].iloc[0]}-{v['model'].iloc[-1]} models (peak ratio {v['peak_ratio'].iloc[0]:.2f}x); its 200GbE "
        f"all-reduce ({v['b200_dp_comm_s'].max():.1f} s/step at most) hides behind the backward pass",
        "holds" if v["claim_holds"].all() else "wrong",
        "time model",
    )

    # Spec-sheet figures, against the catalog.
    fp8 = spec["tflops_dense_fp8"]
    out["c11-b300-fp8-doubled"] = _row(
        f"dense FP8 B300 / B200 = {fp8['b300-hgx']:,.0f} / {fp8['b200-hgx']:,.0f} = "
        f"{fp8['b300-hgx'] / fp8['b200-hgx']:.2f}x",
        _verdict_close(2.0, fp8["b300-hgx"] / fp8["b200-hgx"], 0.15),
        "catalog",
    )
    out["c12-b200-fp8-dense"] = _row(
        f"B200 dense FP8 {fp8['b200-hgx']:,.0f} TFLOP/s",
        _verdict_close(4500, fp8["b200-hgx"]),
        "catalog",
    )
    out["c13-b300-fp8-dense"] = _row(
        f"B300 dense FP8 {fp8['b300-hgx']:,.0f} TFLOP/s (GB300 {fp8['gb300-nvl72']:,.0f})",
        _verdict_close(8000, fp8["b300-hgx"], 0.15),
        "catalog",
    )
    bw = spec["memory_bw_tbps"]
    for cid, acc, claimed in (
        ("c06-a100-bandwidth", "a100-80gb-sxm", 2.0),
        ("c07-h100-bandwidth", "h100-sxm", 3.35),
        ("c08-b200-bandwidth", "b200-hgx", 8.0),
    ):
        out[cid] = _row(f"{acc} HBM {bw[acc]:g} TB/s", _verdict_close(claimed, bw[acc]), "catalog")
    mem = spec["memory_gb"]
    for cid, acc, claimed in (
        ("c03-mi300x-memory", "mi300x", 192),
        ("c04-h200-memory", "h200-sxm", 141),
        ("c33-rtx-pro-6000-96gb", "rtx-pro-6000-server", 96),
    ):
        out[cid] = _row(f"{acc} {mem[acc]:g} GB", _verdict_close(claimed, mem[acc]), "catalog")
    out["c24-mi350x-specs"] = _row(
        f"MI350X {mem['mi350x']:g} GB, {bw['mi350x']:g} TB/s",
        "holds" if (mem["mi350x"], bw["mi350x"]) == (288, 8) else "wrong",
        "catalog",
    )
    out["c14-b200-memory"] = _row(
        f"the engine plans with {mem['b200-hgx']:g} GB usable (192 GB is the physical figure)",
        "",
        "catalog",
    )
    tdp = spec["tdp_w"]
    out["c20-b200-tdp-1200w"] = _row(
        f"B200 {tdp['b200-hgx']:,.0f} W; GB200 {tdp['gb200-nvl72']:,.0f} W", "", "catalog"
    )
    out["c29-mi350x-750w-vs-1200w"] = _row(
        f"MI350X {tdp['mi350x']:,.0f} W vs B200 {tdp['b200-hgx']:,.0f} W",
        _verdict_close(750, tdp["mi350x"]),
        "catalog",
    )
    out["c45-power-h100-h200-700w"] = _row(
        f"H100 {tdp['h100-sxm']:,.0f} W, H200 {tdp['h200-sxm']:,.0f} W",
        "holds" if tdp["h100-sxm"] == tdp["h200-sxm"] == 700 else "wrong",
        "catalog",
    )
    out["c46-power-mi350x-750w"] = _row(
        f"MI350X {tdp['mi350x']:,.0f} W", _verdict_close(750, tdp["mi350x"]), "catalog"
    )
    out["c47-power-b200-1000w"] = _row(
        f"B200 {tdp['b200-hgx']:,.0f} W", _verdict_close(1000, tdp["b200-hgx"]), "catalog"
    )
    out["c48-power-b300-1200w"] = _row(
        f"B300 {tdp['b300-hgx']:,.0f} W", _verdict_close(1200, tdp["b300-hgx"]), "catalog"
    )

    # Rack power with host overhead.
    p = power_table(catalog=cat).set_index("accelerator")
    b = p.loc["b200-hgx"]
    out["c49-rack-power-method"] = _row(
        f"48 B200 as servers: {int(b['nodes'])} x {b['node_kw']:.1f} kW = {b['it_kw']:.1f} kW, {b['it_over_article']:.2f}x TDP x 48",
        _verdict_close(b["article_kw"], b["it_kw"], 0.10),
        "power model",
    )
    for cid, acc in (
        ("c50-rack-h100-h200-33.6kw", "h100-sxm"),
        ("c51-rack-mi350x-36kw", "mi350x"),
        ("c52-rack-b200-48kw", "b200-hgx"),
        ("c53-rack-b300-57.6kw", "b300-hgx"),
    ):
        r = p.loc[acc]
        out[cid] = _row(
            f"{int(r['nodes'])} x {r['node_kw']:.1f} kW = {r['it_kw']:.1f} kW (GPUs + host)",
            _verdict_close(r["article_kw"], r["it_kw"], 0.10),
            "power model",
        )
    nvl = power_table(["gb200-nvl72", "gb300-nvl72"], n_gpus=72, catalog=cat).set_index(
        "accelerator"
    )
    out["c21-nvl72-rack-power"] = _row(
        f"NVL72 rack: GB200 {nvl.loc['gb200-nvl72', 'it_kw']:.1f} kW, GB300 "
        f"{nvl.loc['gb300-nvl72', 'it_kw']:.1f} kW",
        "holds" if nvl["it_kw"].min() > 100 else "wrong",
        "power model",
    )
    dom = int(spec.loc["gb300-nvl72", "scale_up_domain_gpus"])
    out["c36-nvl72-72gpu-domain"] = _row(
        f"NVLink domain {dom} GPUs", "holds" if dom == 72 else "wrong", "catalog"
    )
    out["c37-nvl72-config-tp8-pp16"] = _row(
        f"TP8 x PP16 = 128 GPUs per replica > the {dom}-GPU NVLink domain",
        "contradicts-itself" if 128 > dom else "holds",
        "arithmetic",
    )

    # Throughput ratio (NVL72 vs H100 on Llama3-70B, the engine's prediction of the NeMo pairs).
    ratios = validate.throughput_ratios(cat).set_index("pair")
    gb300 = ratios.loc["NeMo Llama3-70B GB300 / H100 (fp8)"]
    gb200 = ratios.loc["NeMo Llama3-70B GB200 / H100 (fp8)"]
    out["c39-nvl72-3.5x-vs-h100"] = _row(
        f"predicted per-GPU speedup on Llama3-70B FP8: GB200 {gb200['predicted_ratio']:.2f}x, GB300 "
        f"{gb300['predicted_ratio']:.2f}x (published {gb200['published_ratio']:.2f}x, {gb300['published_ratio']:.2f}x)",
        "holds"
        if max(gb200["predicted_ratio"], gb300["predicted_ratio"]) >= 3.5 * 0.9
        else "wrong",
        "time model",
    )

    # Memory fit of the fine-tuning claims, and speed per dollar of the Series-A story.
    q70 = memory_fit_table(70e9, ["h200-sxm"], method="qlora", catalog=cat).iloc[0]
    q405 = memory_fit_table(405e9, ["h200-sxm"], method="qlora", catalog=cat).iloc[0]
    out["c64-qlora-4-h200"] = _row(
        f"QLoRA fits on {q70['min_gpus']} H200 for 70B, {q405['min_gpus']} for 405B",
        "holds" if q405["fits"] and q405["min_gpus"] <= 4 else "wrong",
        "memory model",
    )
    l17 = memory_fit_table(17e9, ["rtx-pro-6000-server"], method="lora", catalog=cat).iloc[0]
    out["c35-17b-lora-fits"] = _row(
        f"17B LoRA fits on {l17['min_gpus']} RTX PRO 6000 ({l17['total_gb']:.0f} GB per GPU)",
        "holds" if l17["fits"] and l17["min_gpus"] <= 4 else "wrong",
        "memory model",
    )
    out.update(_series_a_claims(cat, spec, prices))
    t1 = memory_fit_table(1e12, ["gb300-nvl72"], catalog=cat).iloc[0]
    one_rack = speed_table(
        1e12, 1e12, [{"accelerator": "gb300-nvl72", "n_gpus": 72}], catalog=cat
    ).iloc[0]
    out["c23-b300-1t-single-rack"] = _row(
        f"1T params fit on {t1['min_gpus']} GB300 ({t1['layout']}), but 1T tokens take {one_rack['wall_days']:,.0f} days on "
        "one rack",
        "",
        "memory + time model",
    )

    # Cross-vendor speed: the engine's time model with its ROCm derate.
    sp = speed_table(
        70e9,
        2e12,
        [{"accelerator": "mi300x", "n_gpus": 64}, {"accelerator": "h200-sxm", "n_gpus": 64}],
        catalog=cat,
    )
    r = sp["tokens_per_s"].iloc[1] / sp["tokens_per_s"].iloc[0]
    out["c05-mi300x-smoked-by-h200"] = _row(
        f"70B on 64 GPUs: H200 {r:.2f}x MI300X's tokens/s (with the ROCm derate "
        f"{cat.param('assumptions', 'software_maturity_rocm'):g} on MI300X)",
        "holds" if r > 1.0 else "wrong",
        "time model",
    )
    sp = speed_table(
        405e9,
        15e12,
        [{"accelerator": "mi350x", "n_gpus": 256}, {"accelerator": "h200-sxm", "n_gpus": 256}],
        catalog=cat,
    )
    r = sp["tokens_per_s"].iloc[0] / sp["tokens_per_s"].iloc[1]
    out["c25-mi350x-85pct-h200"] = _row(
        f"405B FSDP on 32 nodes: MI350X {r:.2f}x H200's tokens/s (ROCm derate included)",
        _verdict_close(0.85, r, 0.15),
        "time model",
    )
    return out


def _series_a_claims(
    cat: Catalog, spec: pd.DataFrame, prices: pd.DataFrame
) -> dict[str, tuple[str, str, str]]:
    """The Series-A story: a 2-node B200 cluster vs four RTX PRO 6000 for 17B LoRA."""
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
    return {
        "c31-startup-2node-b200-80pct-budget": _row(
            f"16 B200 + 2 servers + 200GbE = ${b200:,.0f} ({b200 / 250_000:.1f}x the $250K budget)",
            "wrong" if b200 > 250_000 else "holds",
            "cost model",
        ),
        "c34-rtx-4x-throughput-per-dollar": _row(
            f"17B LoRA tokens/s per hardware dollar: 4 RTX PRO 6000 (${rtx:,.0f}) {per_dollar:.2f}x the 2-node B200 (${b200:,.0f})",
            _verdict_close(4.0, per_dollar, 0.25),
            "time + cost model",
        ),
    }


def claims_table(catalog: Catalog | None = None) -> pd.DataFrame:
    """``data/article_claims.csv`` with the engine's own figure for every claim it can recompute.

    Returns
    -------
    DataFrame, one row per claim: ``claim_id``, ``section``, ``claim``, ``claimed_value``,
    ``checked_value``, ``verdict`` (the table's), ``explanation`` (the arithmetic behind it),
    ``engine_says`` ("" where the engine has nothing to add), ``engine_verdict`` (same vocabulary,
    "" where the engine gives context only), ``engine_basis`` (catalog, arithmetic, time / memory /
    power / cost model) and ``engine_agrees``: whether the engine and the table both find the claim
    holding or both find it failing (wrong, contradicts-itself, physically-impossible); <NA> where
    the engine has no verdict or the table calls the claim unverifiable (there the engine's verdict
    is new evidence from its model, not a second opinion).
    """
    cat = resolve_catalog(catalog)
    df = cat.tables["article_claims"][
        ["claim_id", "section", "claim", "claimed_value", "checked_value", "verdict", "explanation"]
    ].copy()
    engine = _engine_claims(cat)
    df["engine_says"] = [engine.get(c, ("", "", ""))[0] for c in df["claim_id"]]
    df["engine_verdict"] = [engine.get(c, ("", "", ""))[1] for c in df["claim_id"]]
    df["engine_basis"] = [engine.get(c, ("", "", ""))[2] for c in df["claim_id"]]
    agrees = [
        pd.NA if ev == "" or v == "unverifiable" else (ev == "holds") == (v == "holds")
        for ev, v in zip(df["engine_verdict"], df["verdict"])
    ]
    df["engine_agrees"] = pd.array(agrees, dtype="boolean")
    return df.reset_index(drop=True)


def claims_overview(claims: pd.DataFrame) -> pd.DataFrame:
    """Claims per verdict of :func:`claims_table`, with how many the engine recomputes and agrees with."""
    need_columns("claims", claims, {"verdict", "engine_verdict", "engine_agrees"})
    g = claims.groupby("verdict", sort=False)
    out = pd.DataFrame(
        {
            "claims": g.size(),
            "engine_recomputes": g["engine_verdict"].apply(lambda s: int((s != "").sum())),
            "engine_agrees": g["engine_agrees"].apply(lambda s: int(s.fillna(False).sum())),
            "engine_disagrees": g["engine_agrees"].apply(lambda s: int((~s.fillna(True)).sum())),
        }
    )
    return out.sort_values("claims", ascending=False).rename_axis("verdict").reset_index()


def claims_engine_view(claims: pd.DataFrame) -> pd.DataFrame:
    """The claims the engine has something to say about: id, the two verdicts, the engine's figure."""
    need_columns(
        "claims",
        claims,
        {"claim_id", "claimed_value", "verdict", "engine_verdict", "engine_says", "engine_basis"},
    )
    view = claims[claims["engine_says"] != ""]
    return view[
        ["claim_id", "claimed_value", "verdict", "engine_verdict", "engine_basis", "engine_says"]
    ].reset_index(drop=True)


#: The article's inference advice: "For inference-heavy workloads, the H200 or even the
#: previous-gen L40S is a better price point per token" than the B300 and MI350X.
ARTICLE_INFERENCE = {"better": ("h200-sxm", "l40s"), "worse": ("b300-hgx", "mi350x")}


def inference_table(
    model_sizes: Sequence[float] = (8e9, 70e9),
    accelerators=None,
    *,
    price_basis: str = "rent-on-demand",
    precision: str = "bf16",
    context_tokens: int = 4096,
    catalog: Catalog | None = None,
) -> pd.DataFrame:
    """Serving cost per million tokens by accelerator and model size (:func:`workbook.inference_frame`).

    Parameters
    ----------
    model_sizes : list of float
        Model parameters [count].
    accelerators : list of str, optional
        Catalog ids (default: the article's four, H200, L40S, B300, MI350X).
    price_basis : {"rent-on-demand", "rent-spot", "rent-reserved-1y", "owned"}
    precision : {"bf16", "fp8", "fp4"}
    context_tokens : int
        Tokens held in the KV cache per sequence [tokens].

    Returns
    -------
    DataFrame: ``model``, ``n_params``, ``article_says`` ("better" / "worse" / ""), ``rank`` (1 =
    cheapest per token for that model) and the columns of :func:`workbook.inference_frame`
    (``usd_per_million_tokens`` [USD per 1e6 tokens], per-GPU token rates [tokens/s]).
    """
    cat = resolve_catalog(catalog)
    sizes = _sizes("model_sizes", model_sizes)
    default = [*ARTICLE_INFERENCE["better"], *ARTICLE_INFERENCE["worse"]]
    ids = _accelerator_ids(cat, default if accelerators is None else accelerators)
    parts = []
    for n in sizes:
        f = inference_frame(
            n,
            ids,
            precision=precision,
            context_tokens=context_tokens,
            price_basis=price_basis,
            catalog=cat,
        )
        f.insert(0, "n_params", n)
        f.insert(0, "model", _label_params(n))
        f.insert(2, "rank", np.arange(1, len(f) + 1))
        f.insert(
            2,
            "article_says",
            [
                "better"
                if a in ARTICLE_INFERENCE["better"]
                else "worse"
                if a in ARTICLE_INFERENCE["worse"]
                else ""
                for a in f["accelerator"]
            ],
        )
        parts.append(f)
    return pd.concat(parts, ignore_index=True)


def inference_verdict(table: pd.DataFrame) -> pd.DataFrame:
    """Per model: cheapest of the article's picks (H200, L40S) vs cheapest of B300 / MI350X per token."""
    need_columns("table", table, {"model", "accelerator", "article_says", "usd_per_million_tokens"})
    rows = []
    for model, g in table.groupby("model", sort=False):
        better = g[g["article_says"] == "better"].sort_values("usd_per_million_tokens")
        worse = g[g["article_says"] == "worse"].sort_values("usd_per_million_tokens")
        if better.empty or worse.empty:
            continue
        b, w = better.iloc[0], worse.iloc[0]
        rows.append(
            {
                "model": model,
                "best_article_pick": b["accelerator"],
                "pick_usd_per_m": b["usd_per_million_tokens"],
                "best_other": w["accelerator"],
                "other_usd_per_m": w["usd_per_million_tokens"],
                "claim_holds": bool(b["usd_per_million_tokens"] < w["usd_per_million_tokens"]),
            }
        )
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------------------
# 07 how accurate the estimates are


def accuracy_chart(table: pd.DataFrame) -> alt.Chart:
    """Predicted vs published GPU-hours on log axes, y = x dashed, the +-25 % band shaded, by split."""
    import altair as alt  # lazily: altair takes seconds to import, tables do not need it

    need_columns(
        "table", table, {"model", "split", "published_gpu_hours", "predicted_gpu_hours", "error"}
    )
    lo = float(min(table["published_gpu_hours"].min(), table["predicted_gpu_hours"].min())) / 1.5
    hi = float(max(table["published_gpu_hours"].max(), table["predicted_gpu_hours"].max())) * 1.5
    x = np.geomspace(lo, hi, 60)
    ref = pd.DataFrame({"x": x, "y": x, "lo": 0.75 * x, "hi": 1.25 * x})
    scale = alt.Scale(type="log", domain=[lo, hi], nice=False)
    band = (
        alt.Chart(ref)
        .mark_area(opacity=0.18, color="#9aa5b1")
        .encode(
            x=alt.X("x:Q", scale=scale, title="published GPU-hours"),
            y=alt.Y("lo:Q", scale=scale),
            y2="hi:Q",
        )
    )
    line = (
        alt.Chart(ref)
        .mark_line(color="black", strokeDash=[4, 4])
        .encode(x=alt.X("x:Q", scale=scale), y=alt.Y("y:Q", scale=scale))
    )
    points = (
        alt.Chart(table)
        .mark_circle(size=70, opacity=0.9)
        .encode(
            x=alt.X("published_gpu_hours:Q", scale=scale, title="published GPU-hours"),
            y=alt.Y("predicted_gpu_hours:Q", scale=scale, title="predicted GPU-hours"),
            color=alt.Color("split:N", scale=alt.Scale(**_SPLIT_COLORS), title="split"),
            tooltip=[
                "model",
                "split",
                alt.Tooltip("published_gpu_hours:Q", format=",.0f"),
                alt.Tooltip("predicted_gpu_hours:Q", format=",.0f"),
                alt.Tooltip("error:Q", format="+.0%"),
            ],
        )
    )
    return (band + line + points).properties(
        width=WIDTH,
        height=WIDTH,
        title="Predicted vs published GPU-hours (dashed: y = x; band: +-25%)",
    )
