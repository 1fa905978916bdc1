"""Notebook 05, team and software risk: the software-stack throughput multipliers, the team rules of
the decision engine, and which accelerators each team profile may use.

The multipliers and thresholds are rows of data/assumptions.csv; the rules themselves live in
:mod:`workbook.decide.options`, and the profiles are re-run through
:func:`workbook.decide.recommend`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..checks import need_columns
from ..decide import presets, recommend
from ..text import option_label

__all__ = [
    "TEAM_PROFILES",
    "software_maturity_table",
    "team_risk_matrix",
    "team_risk_reasons",
    "team_risk_table",
    "team_rules_table",
]

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

#: The team and software rules of the decision engine, each with the assumption that sets it.
TEAM_RULES = (
    (
        "AMD (ROCm) options need ROCm experience or at least this many platform engineers",
        "rocm_min_platform_engineers",
    ),
    (
        "An owned multi-node cluster needs ceil(nodes / this) platform engineers; "
        "one owned node needs none",
        "nodes_per_platform_engineer",
    ),
    (
        "Gaudi 3 (SynapseAI) is not used across nodes "
        "(the article: 'the software gap is an order of magnitude')",
        "software_maturity_synapse",
    ),
    ("ROCm throughput multiplier on every training estimate", "software_maturity_rocm"),
    (
        "Engineer-weeks a year each affected engineer loses to ROCm, charged as a cost "
        "(Engineers' time on an immature stack)",
        "stack_debug_weeks_rocm",
    ),
    ("The same for Gaudi's SynapseAI", "stack_debug_weeks_synapse"),
    ("Engineers affected (at most the team)", "stack_debug_engineers"),
    (
        "Share of the ROCm weeks a team with ROCm experience still loses",
        "stack_debug_experienced_fraction",
    ),
)

#: The Scenario fields a team profile may set.
_TEAM_FIELDS = ("team_size", "platform_engineers", "rocm_experience")


def software_maturity_table(catalog: Catalog | None = None) -> pd.DataFrame:
    """The engine's software-stack throughput multipliers (data/assumptions.csv) and who uses them.

    Returns ``software_stack``, ``value`` (multiplier on every step time's denominator), ``low``,
    ``high``, ``source_kind``, ``accelerators`` (catalog ids on that stack) and ``notes``.
    """
    cat = resolve_catalog(catalog)
    glob = cat.global_rows("assumptions")
    name = glob["parameter"]
    # The typical level's multipliers; software_maturity_tuned_<stack> is the tuned level's.
    rows = glob[name.str.startswith("software_maturity_") & ~name.str.contains("_tuned_")]
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
    """The team and software rules the decision engine applies (:data:`TEAM_RULES`), with their
    values from data/assumptions.csv.

    Returns ``rule``, ``parameter``, ``value``, ``source_kind`` and ``source_url``.
    """
    glob = resolve_catalog(catalog).global_rows("assumptions").set_index("parameter")
    return pd.DataFrame(
        [
            {
                "rule": text,
                "parameter": p,
                "value": float(glob.loc[p, "value"]),
                "source_kind": glob.loc[p, "source_kind"],
                "source_url": glob.loc[p, "source_url"],
            }
            for text, p in TEAM_RULES
        ]
    )


def _check_profiles(preset: str, profiles) -> Mapping[str, Mapping[str, Any]]:
    """The checked team profiles (default :data:`TEAM_PROFILES`) for a known preset."""
    if not isinstance(preset, str) or preset not in presets:
        raise ValueError(f"preset={preset!r} is not a preset; allowed: {', '.join(presets)}")
    profiles = TEAM_PROFILES if profiles is None else profiles
    if not isinstance(profiles, Mapping) or not profiles:
        raise ValueError(f"profiles={profiles!r} is not a non-empty dict of name -> team fields")
    return profiles


def _nodes_text(n: float) -> str:
    return f"{int(n)} node{'s' if n > 1 else ''}"


def _allowed(g: pd.DataFrame) -> str:
    """How far one accelerator's options (``g``) pass the team rules: "yes", "no", or a limit."""
    ok = (g["why_team"] == "").to_numpy(bool)
    buy = g["is_buy"].to_numpy(bool)
    nodes = g["nodes"].to_numpy(float)
    if ok.all():
        return "yes"
    if not ok.any():
        return "no"
    if (~ok & ~buy).any():  # even renting is limited: a node-count rule
        return f"<= {_nodes_text(nodes[ok].max())}"
    if (ok & buy).any():
        return f"rent; own <= {_nodes_text(int(nodes[ok & buy].max()))}"
    return "rent only"


def _profile_rows(name: str, rec) -> list[dict]:
    """One row per accelerator of the recommendation for one team profile."""
    top = rec.top
    pick = (
        option_label(top.acquisition, top.n_gpus, top.accelerator)
        if top is not None
        else "nothing feasible"
    )
    rows = []
    for acc, g in rec.options.groupby("accelerator", sort=False):
        reasons = [r for r in g["why_team"] if r]
        rows.append(
            {
                "profile": name,
                "accelerator": acc,
                "allowed": _allowed(g),
                "reason": reasons[0] if reasons else "",
                "pick": pick,
            }
        )
    return rows


def team_risk_table(
    preset: str = "band-7b-to-70b",
    profiles: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    catalog: Catalog | None = None,
) -> pd.DataFrame:
    """Which accelerators each team profile may use, from :func:`workbook.decide.recommend` itself.

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
    profiles = _check_profiles(preset, profiles)
    rows = []
    for name, fields in profiles.items():
        if not isinstance(fields, Mapping) or any(k not in _TEAM_FIELDS for k in fields):
            raise ValueError(
                f"profiles[{name!r}]={fields!r} is not allowed; "
                f"allowed keys: {', '.join(_TEAM_FIELDS)}"
            )
        s = presets[preset].replace(**dict(fields))
        rows += _profile_rows(name, recommend(s, catalog=cat, sensitivity=False))
    return pd.DataFrame(rows)


def team_risk_matrix(table: pd.DataFrame) -> pd.DataFrame:
    """Accelerators x profiles of :func:`team_risk_table`'s ``allowed``, with the engine's pick as
    a last row."""
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
