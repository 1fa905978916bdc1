"""Notebook 06, the article's claims checked: ``data/article_claims.csv`` with the engine's own
figure and verdict for every claim it can recompute, and the article's inference advice computed.

The article is the seed article, N. Dixit (SIVARO), "The Best GPU Architecture for Training Large
Models in 2026" (``../shared/seed/000_e6c314b433b91124.txt``). The engine's figures are
:func:`workbook.guides.recomputed_claims.engine_claims`; serving costs come from
:func:`workbook.model.inference_frame`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..checks import need_columns
from ..model import inference_frame
from ..text import params_label
from .inputs import accelerator_ids, sizes
from .recomputed_claims import engine_claims

__all__ = [
    "ARTICLE_INFERENCE",
    "claims_engine_view",
    "claims_overview",
    "claims_table",
    "inference_table",
    "inference_verdict",
]

#: The article's inference advice: "For inference-heavy workloads, the H200 or even the
#: previous-gen L40S is a better price point per token" than the B300 and MI350X.
ARTICLE_INFERENCE = {"better": ("h200-sxm", "l40s"), "worse": ("b300-hgx", "mi350x")}


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
    engine = engine_claims(cat)
    found = [engine.get(c, ("", "", "")) for c in df["claim_id"]]
    df["engine_says"] = [e[0] for e in found]
    df["engine_verdict"] = [e[1] for e in found]
    df["engine_basis"] = [e[2] for e in found]
    agrees = [
        pd.NA if ev == "" or v == "unverifiable" else (ev == "holds") == (v == "holds")
        for ev, v in zip(df["engine_verdict"], df["verdict"])
    ]
    df["engine_agrees"] = pd.array(agrees, dtype="boolean")
    return df.reset_index(drop=True)


def claims_overview(claims: pd.DataFrame) -> pd.DataFrame:
    """Claims per verdict of :func:`claims_table`, with how many the engine recomputes and agrees
    with."""
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
    """The claims the engine has something to say about: id, the two verdicts, its figure."""
    need_columns(
        "claims",
        claims,
        {"claim_id", "claimed_value", "verdict", "engine_verdict", "engine_says", "engine_basis"},
    )
    view = claims[claims["engine_says"] != ""]
    return view[
        ["claim_id", "claimed_value", "verdict", "engine_verdict", "engine_basis", "engine_says"]
    ].reset_index(drop=True)


def _article_says(accelerator: str) -> str:
    if accelerator in ARTICLE_INFERENCE["better"]:
        return "better"
    return "worse" if accelerator in ARTICLE_INFERENCE["worse"] else ""


def inference_table(
    model_sizes: Sequence[float] = (8e9, 70e9),
    accelerators=None,
    *,
    price_basis: str = "rent-on-demand",
    precision: str = "bf16",
    context_tokens: int = 4096,
    catalog: Catalog | None = None,
) -> pd.DataFrame:
    """Serving cost per million tokens by accelerator and model size
    (:func:`workbook.model.inference_frame`).

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
    cheapest per token for that model) and the columns of :func:`workbook.model.inference_frame`
    (``usd_per_million_tokens`` [USD per 1e6 tokens], per-GPU token rates [tokens/s]).
    """
    cat = resolve_catalog(catalog)
    n_params = sizes("model_sizes", model_sizes)
    default = [*ARTICLE_INFERENCE["better"], *ARTICLE_INFERENCE["worse"]]
    ids = accelerator_ids(cat, default if accelerators is None else accelerators)
    parts = []
    for n in n_params:
        f = inference_frame(
            n,
            ids,
            precision=precision,
            context_tokens=context_tokens,
            price_basis=price_basis,
            catalog=cat,
        )
        f.insert(0, "n_params", n)
        f.insert(0, "model", params_label(n))
        f.insert(2, "rank", np.arange(1, len(f) + 1))
        f.insert(2, "article_says", [_article_says(a) for a in f["accelerator"]])
        parts.append(f)
    return pd.concat(parts, ignore_index=True)


def inference_verdict(table: pd.DataFrame) -> pd.DataFrame:
    """Per model: cheapest of the article's picks (H200, L40S) vs cheapest of B300 / MI350X per
    token."""
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
