"""Notebook 02, speed and efficiency: time to train on several clusters with the engine's step-time
breakdown, the article's network claim computed, compute per byte of memory bandwidth, and the time
factor of your own stack from a pilot run.

Every figure is :func:`workbook.model.estimate_frame`'s; the charts are
:func:`workbook.present.guide_charts.step_breakdown_chart` and
:func:`workbook.present.guide_charts.bandwidth_chart`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..checks import check_choice, check_number, need_columns
from ..decide import TIME_FACTOR_RANGE
from ..model import (
    PRECISIONS,
    STEP_COLUMNS,
    ModelShape,
    estimate_frame,
    flops_per_token,
    with_shape,
)
from ..text import layout_labels, params_label
from ..units import TERA
from .inputs import PROBE_TOKENS, accelerator_id, accelerator_ids, sizes

__all__ = [
    "NETWORK_CLUSTERS",
    "bandwidth_vs_flops",
    "network_comparison",
    "network_verdict",
    "pilot_time_factor",
    "speed_table",
]


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

#: Columns of :func:`estimate_frame` a speed table keeps, in order (``layout`` goes in before
#: ``fits_in_memory``).
_SPEED_COLUMNS = (
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
)


def _speed_columns(est: pd.DataFrame) -> pd.DataFrame:
    out = est[list(_SPEED_COLUMNS)].copy()
    out.insert(out.columns.get_loc("fits_in_memory"), "layout", layout_labels(est).astype(str))
    return out


def _config_records(configs, cat: Catalog) -> list[Mapping]:
    """The clusters of :func:`speed_table` as a checked list of dicts."""
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
    allowed = ", ".join(_CONFIG_KEYS)
    for i, c in enumerate(records):
        if not isinstance(c, Mapping):
            raise ValueError(f"configs[{i}]={c!r} is not a dict; allowed keys: {allowed}")
        unknown = [k for k in c if k not in _CONFIG_KEYS]
        if unknown:
            raise ValueError(f"configs[{i}] has the unknown key {unknown[0]!r}; allowed: {allowed}")
        for k in ("accelerator", "n_gpus"):
            if k not in c:
                raise ValueError(f"configs[{i}] lacks {k!r}; required: accelerator, n_gpus")
        accelerator_id(cat, c["accelerator"], f"configs[{i}]['accelerator']")
    return records


def speed_table(
    n_params,
    n_tokens,
    configs,
    *,
    seq_len: int = 4096,
    shape: ModelShape | None = None,
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
    shape : ModelShape, optional
        The model's exact shape (:class:`workbook.model.ModelShape`, or
        ``ModelShape.from_hf_config``): its layers, width, heads, KV heads, FFN, vocabulary and
        experts enter FLOPs and memory; ``n_params`` may then be None (the shape's count), else
        must agree with it within 1 %.
    catalog, assumptions
        Data with overrides; assumption overrides by name.

    Returns
    -------
    DataFrame, one row per config: ``label``, the inputs, ``wall_days``, ``gpu_hours``, ``mfu``,
    ``tokens_per_s``, ``tokens_per_s_per_gpu``, ``steady_tokens_per_s_per_gpu`` (before goodput),
    ``layout``, ``fits_in_memory``, ``step_s`` and :data:`STEP_COLUMNS` [s per optimizer step],
    ``dp_comm_s`` (data-parallel traffic before overlap) [s].
    """
    cat = resolve_catalog(catalog)
    model = _model_columns(n_params, shape)
    check_number("n_tokens", n_tokens, positive=True)
    records = _config_records(configs, cat)
    cfg = pd.DataFrame([{k: v for k, v in c.items() if k != "label"} for c in records])
    for k, v in model.items():
        cfg[k] = v
    cfg["n_tokens"], cfg["seq_len"] = float(n_tokens), seq_len
    est = estimate_frame(cfg, catalog=cat, assumptions=dict(assumptions or {}))
    out = _speed_columns(est)
    labels = [c.get("label") or _config_label(c, r) for c, (_, r) in zip(records, out.iterrows())]
    out.insert(0, "label", labels)
    return out


def _model_columns(n_params, shape: ModelShape | None) -> dict:
    """The model's configuration columns: ``n_params`` alone (the shape derived from it), or the
    exact shape's columns and counts (``n_params`` None or within 1 % of its count)."""
    if shape is None:
        return {"n_params": float(check_number("n_params", n_params, positive=True))}
    given = {"n_params": n_params, "n_active_params": None, "n_layers": None, "d_model": None}
    return with_shape(given, shape)


def _config_label(c: Mapping, r: pd.Series) -> str:
    extra = [str(r["fabric"])] + [f"{c[k]}" for k in ("precision", "input_pipeline") if k in c]
    return f"{int(r['n_gpus'])} x {r['accelerator']} ({', '.join(extra)})"


def pilot_time_factor(
    measured_tokens_per_s_per_gpu: float,
    n_params: float | None,
    config: Mapping,
    *,
    seq_len: int = 4096,
    attention: str = "causal",
    shape: ModelShape | None = None,
    catalog: Catalog | None = None,
) -> dict:
    """The :attr:`workbook.Scenario.time_factor` of your own stack, from a short pilot run.

    A pilot of minutes to hours sees no failures or restarts, so its throughput is compared with
    the engine's steady-state throughput for the same model and cluster: global batch / step time
    / GPUs, before goodput (:func:`speed_table`). The time factor is predicted / measured tokens per
    second per GPU: 1.3 means your runs will take 1.3x the engine's days.

    Parameters
    ----------
    measured_tokens_per_s_per_gpu : float
        Training tokens per second per GPU your pilot logged (whole-job throughput / GPUs)
        [tokens/s].
    n_params : float or None
        Parameters of the pilot's model [count] (dense unless ``shape`` gives experts); None
        with a ``shape`` (its count).
    config : dict
        The pilot's cluster, as one :func:`speed_table` config: ``accelerator`` and ``n_gpus``
        required; ``precision``, ``fabric``, ``global_batch_tokens``, ``input_pipeline``, ...
    seq_len : int
        Sequence length [tokens].
    attention : str
        FLOP convention for the MFU figures (:func:`workbook.flops_per_token`): "causal" (the
        engine's) or "full" (what llm-foundry and Megatron report).
    shape : ModelShape, optional
        The pilot model's exact shape (as :func:`speed_table`'s): the engine's prediction and
        the MFU figures then count its FLOPs (GQA, SwiGLU width, vocabulary, experts), not
        those of the shape derived from ``n_params``. A pilot of a model with a large
        vocabulary needs it: the factor would otherwise carry the derived shape's error.
    catalog
        Data with overrides.

    Returns
    -------
    dict: ``time_factor``, ``predicted_tokens_per_s_per_gpu``, ``measured_tokens_per_s_per_gpu``,
    ``predicted_mfu`` and ``measured_mfu`` (FLOPs per token x tokens/s per GPU / the dense peak at
    the precision), ``in_scenario_range`` (whether a Scenario accepts the factor, 0.25 to 10).
    """
    check_number("measured_tokens_per_s_per_gpu", measured_tokens_per_s_per_gpu, positive=True)
    if not isinstance(config, Mapping):
        raise ValueError(
            f"config={config!r} is not a dict; allowed keys: {', '.join(_CONFIG_KEYS)}"
        )
    cat = resolve_catalog(catalog)
    # The tokens do not change the step time.
    r = speed_table(
        n_params, PROBE_TOKENS, [dict(config)], seq_len=seq_len, shape=shape, catalog=cat
    ).iloc[0]
    if not math.isfinite(float(r["step_s"])):
        raise ValueError(
            f"config={dict(config)!r}: the engine has no step time for it (precision "
            f"{r['precision']!r} unsupported on {r['accelerator']}); "
            "allowed: a precision the part has"
        )
    predicted = float(r["steady_tokens_per_s_per_gpu"])
    measured = float(measured_tokens_per_s_per_gpu)
    spec = cat.tables["accelerators"].set_index("accelerator_id").loc[r["accelerator"]]
    peak_flop_per_s = float(spec[f"tflops_dense_{r['precision']}"]) * TERA
    if shape is None:
        fpt = float(flops_per_token(n_params, seq_len=seq_len, attention=attention))
    else:
        fpt = float(shape.flops_per_token(seq_len, attention=attention))
    factor = predicted / measured
    return {
        "time_factor": factor,
        "predicted_tokens_per_s_per_gpu": predicted,
        "measured_tokens_per_s_per_gpu": measured,
        "predicted_mfu": fpt * predicted / peak_flop_per_s,
        "measured_mfu": fpt * measured / peak_flop_per_s,
        "in_scenario_range": bool(TIME_FACTOR_RANGE[0] <= factor <= TIME_FACTOR_RANGE[1]),
    }


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
    :func:`workbook.model.estimate_frame`; the rows carry its step breakdown, so the data-parallel
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
    n_params = sizes("model_sizes", model_sizes)
    check_number("n_tokens", n_tokens, positive=True)
    if global_batch_tokens is not None:
        check_number("global_batch_tokens", global_batch_tokens, positive=True)
    rows = [
        {
            **{k: c[k] for k in ("accelerator", "n_gpus", "fabric")},
            "n_params": n,
            "n_tokens": float(n_tokens),
            "global_batch_tokens": global_batch_tokens or np.nan,
        }
        for n in n_params
        for c in NETWORK_CLUSTERS
    ]
    est = estimate_frame(pd.DataFrame(rows), catalog=cat, assumptions=dict(assumptions or {}))
    out = _speed_columns(est)
    k = len(NETWORK_CLUSTERS)
    out.insert(0, "cluster", [c["cluster"] for _ in n_params for c in NETWORK_CLUSTERS])
    out.insert(0, "model", [params_label(n) for n in n_params for _ in NETWORK_CLUSTERS])
    ref = out["tokens_per_s"].to_numpy(float).reshape(len(n_params), k)[:, 1]
    out["speed_vs_a100"] = out["tokens_per_s"] / np.repeat(ref, k)
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
    ids = accelerator_ids(cat, accelerators)
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
    # TFLOP/s over TB/s: the prefixes cancel.
    out["flop_per_byte"] = out["tflops_dense"] / out["memory_bw_tbps"]
    out["mfu"] = est["mfu"].to_numpy()
    out["tokens_per_s_per_gpu"] = est["tokens_per_s_per_gpu"].to_numpy()
    out["matmul_share"] = (est["matmul_s"] / est["step_s"]).to_numpy()
    out["memory_share"] = (est["memory_s"] / est["step_s"]).to_numpy()
    out["software_maturity"] = est["software_maturity"].to_numpy()
    return out.sort_values("flop_per_byte").reset_index(drop=True)
