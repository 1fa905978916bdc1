"""Notebook 01, model sizing and memory fit: the fewest GPUs of each accelerator that hold a
training job, and the per-GPU memory ledger there.

Bookkeeping over the engine, never a second copy of it: the cluster sizes are
:func:`workbook.decide.gpu_counts`, the fit and the layout :func:`workbook.model.estimate_frame`,
the memory terms :mod:`workbook.model.memory`. The ledger's chart is
:func:`workbook.present.guide_charts.memory_ledger_chart`.
"""

from __future__ import annotations

import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..checks import check_choice, check_number
from ..decide import MAX_GPUS, gpu_counts
from ..model import (
    FROZEN_BASE_BYTES,
    METHODS,
    STATE_BYTES,
    activation_memory_gb,
    assumption_values,
    estimate_frame,
    model_state_terms_gb,
)
from ..text import layout_label
from ..units import GB
from .inputs import PROBE_TOKENS, accelerator_ids

__all__ = ["memory_fit_table"]


def memory_fit_table(
    n_params,
    accelerators=None,
    *,
    method: str = "full",
    seq_len: int = 4096,
    max_gpus: int = 4096,
    catalog: Catalog | None = None,
) -> pd.DataFrame:
    """Fewest GPUs of each accelerator that hold a training job, and the per-GPU memory ledger.

    For every accelerator the engine's cluster sizes (:func:`workbook.decide.gpu_counts`: 1, 2, 4,
    whole nodes, whole NVL72 racks) up to ``max_gpus`` are estimated at once
    (:func:`workbook.model.estimate_frame`, which picks tensor / pipeline / data parallelism, the
    ZeRO stage and recompute); the smallest size that fits is kept. The ledger splits the engine's
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
    check_number("max_gpus", max_gpus, minimum=1, maximum=MAX_GPUS, integer=True)
    ids = accelerator_ids(cat, accelerators)
    est = _estimates(cat, ids, float(n_params), method, int(seq_len), int(max_gpus))
    a = assumption_values(cat)
    memory_gb = cat.tables["accelerators"].set_index("accelerator_id")["memory_gb"]
    df = pd.DataFrame(
        [
            _fit_row(
                acc,
                float(memory_gb[acc]),
                a,
                est[est["accelerator"] == acc],
                n_params,
                method,
                seq_len,
            )
            for acc in ids
        ]
    )
    df["min_gpus"] = df["min_gpus"].astype("Int64")
    return df.sort_values(
        ["fits", "min_gpus", "accelerator"], ascending=[False, True, True]
    ).reset_index(drop=True)


def _estimates(
    cat: Catalog, ids: list[str], n_params: float, method: str, seq_len: int, max_gpus: int
) -> pd.DataFrame:
    """:func:`estimate_frame` of every (accelerator, cluster size) the engine tries, in one call."""
    spec = cat.tables["accelerators"].set_index("accelerator_id")
    rows = [
        (acc, n)
        for acc in ids
        for n in gpu_counts(
            int(spec.loc[acc, "gpus_per_node"]),
            int(spec.loc[acc, "scale_up_domain_gpus"]),
            max_gpus,
        )
    ]
    cfg = pd.DataFrame(rows, columns=["accelerator", "n_gpus"])
    # The tokens do not change the memory per GPU.
    cfg["n_params"], cfg["n_tokens"], cfg["seq_len"], cfg["method"] = (
        n_params,
        PROBE_TOKENS,
        seq_len,
        method,
    )
    return estimate_frame(cfg, catalog=cat)


def _fit_row(
    acc: str, memory_gb: float, a: dict, e: pd.DataFrame, n_params, method: str, seq_len
) -> dict:
    """One accelerator's row from its estimates ``e``: the smallest size that fits (else the
    largest tried) and its ledger; ``memory_gb`` [GB per GPU], ``a`` the assumption values."""
    fit = e[e["fits_in_memory"]]
    r = fit.iloc[0] if len(fit) else e.iloc[-1]
    return {
        "accelerator": acc,
        "memory_gb": memory_gb,
        "usable_gb": memory_gb * a["memory_usable_fraction"],
        "fits": bool(len(fit)),
        "min_gpus": int(r["n_gpus"]) if len(fit) else pd.NA,
        "n_gpus": int(r["n_gpus"]),
        "layout": layout_label(r["tp"], r["pp"], r["dp"], r["zero_stage"], r["recompute"]),
        **_ledger(float(n_params), r, method, a["lora_trainable_fraction"], int(seq_len)),
        "total_gb": float(r["memory_per_gpu_gb"]),
    }


def _ledger(
    n_params: float, r: pd.Series, method: str, lora_fraction: float, seq_len: int
) -> dict[str, float]:
    """The per-GPU memory terms [GB] of one estimate row ``r`` (its layout and shape): full training
    takes the model states term by term from :func:`workbook.model.model_state_terms_gb` (the one
    ZeRO split); adapters keep the frozen base sharded over every GPU used plus the adapters' own
    mixed-precision Adam states."""
    tp, pp, dp, zero = float(r["tp"]), float(r["pp"]), float(r["dp"]), int(r["zero_stage"])
    if method == "full":
        gb = model_state_terms_gb(n_params, zero_stage=zero, dp=dp, tp=tp, pp=pp)
        weights, grads, optimizer = (float(gb[k]) * GB for k in ("weights", "grads", "optimizer"))
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
