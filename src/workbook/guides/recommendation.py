"""Notebook 08, your recommendation: the reader's choices from guides 01-05 into the decision
engine the app uses (:class:`workbook.decide.Scenario`, :func:`workbook.decide.recommend`).

The starting values are the notebook's parameters, replaced by every choice the guides saved in
the choices file (:mod:`workbook.guides.choices`; ``choices_file=None`` uses the parameters
only). The widgets then move any of them; each change re-runs the engine (with the app's
Monte Carlo: data/assumptions.csv monte_carlo_draws draws).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..decide import WORKLOADS, Scenario, recommend
from ..present.charts import frontier_chart
from ..present.format import usd
from ..text import CAVEATS_TITLE, params_label
from ..units import GIGA, MEGA, TERA
from .choices import load_choices
from .widgets import Control, GuidePanel, Rendered

__all__ = ["FIELDS", "recommendation_guide", "starting_values", "value_text"]

#: The scenario fields notebook 08 shows, as controls (see panels.py on the slider ranges).
FIELDS = [
    Control("workload", "Workload", "choice", options=WORKLOADS),
    Control("n_params", "Parameters [billions]", "log", 0.1, 2000, scale=GIGA),
    Control("n_tokens", "Training tokens [trillions]", "log", 0.001, 100, scale=TERA),
    Control(
        "seq_len",
        "Sequence length [tokens]",
        "choice",
        options=(1024, 2048, 4096, 8192, 16384, 32768),
    ),
    Control("time_factor", "Your stack's time vs the engine [x]", "float", 0.5, 3, 0.05),
    Control("budget_usd", "Budget, first year [$M]", "log", 0.1, 1000, scale=MEGA),
    Control("deadline_days", "Deadline [days]", "int", 7, 730),
    Control("runs_per_year", "Runs per year", "float", 0.25, 12, 0.25),
    Control("cooling", "Cooling", "choice", options=("air", "liquid")),
    Control("site_power_kw", "Site power [kW]", "log", 10, 1e5),
    Control("rack_limit_kw", "Rack limit [kW]", "float", 5, 200, 1),
    Control("team_size", "ML team size [people]", "int", 1, 500),
    Control("platform_engineers", "Platform engineers", "int", 0, 100),
    Control("rocm_experience", "Team has shipped on ROCm", "bool"),
]
#: Columns of the nearest options shown when nothing is feasible.
NEAREST_COLUMNS = [
    "accelerator",
    "n_gpus",
    "acquisition",
    "time_to_result_days",
    "first_year_cost_usd",
    "failed",
]
#: Workloads of full training, for the method notebook 01 hands on.
FULL_WORKLOADS = ("pretrain", "continued-pretrain", "full-finetune")


def starting_values(params: dict[str, Any], choices_file: str | None) -> tuple[dict, dict]:
    """The values 08 starts from and where each came from: ``params`` with every saved choice
    in its place (notebook 01's method sets the workload: lora / qlora, or full training as
    the parameters name it). Raises ``ValueError`` naming a choices file that cannot be used."""
    values = dict(params)
    source = {k: "this notebook's parameters" for k in values}
    saved = load_choices(choices_file) if choices_file else {}
    for k, c in saved.items():
        if k == "method":
            full = values["workload"] in FULL_WORKLOADS
            values["workload"] = (
                c["value"] if c["value"] != "full" else (values["workload"] if full else "pretrain")
            )
            source["workload"] = f"{c['from']} (method {c['value']})"
        elif k in values:
            values[k], source[k] = c["value"], c["from"]
    return values, source


def value_text(field: str, v: Any) -> str:
    """A scenario value as the origin table shows it: 70B, 1T, $3,000,000, yes / no, 4096."""
    if field in ("n_params", "n_tokens"):
        return params_label(float(v))
    if field.endswith("_usd"):
        return usd(v)
    if isinstance(v, bool):
        return "yes" if v else "no"
    return f"{v:g}" if isinstance(v, float) else str(v)


def _options_table(rec) -> pd.DataFrame:
    picks = ([rec.top] if rec.top is not None else []) + list(rec.runners_up)
    return pd.DataFrame(
        [
            {
                "": "pick" if i == 0 and rec.top is not None else "runner-up",
                "accelerator": o.accelerator,
                "n_gpus": o.n_gpus,
                "acquisition": o.acquisition,
                "time_to_result_days": o.time_to_result_days,
                "cost_per_run_usd": o.cost_per_run_usd,
                "first_year_cost_usd": o.first_year_cost_usd,
            }
            for i, o in enumerate(picks)
        ]
    )


def recommendation_guide(
    params: dict[str, Any], *, choices_file: str | None = None, catalog: Catalog | None = None
) -> GuidePanel:
    """Notebook 08's panel: ``params`` (the Scenario fields of :data:`FIELDS`) replaced by the
    saved choices, then the engine's recommendation for them, re-run on every change."""
    cat = resolve_catalog(catalog)
    values, source = starting_values(params, choices_file)
    start = dict(values)

    def render(v: dict) -> Rendered:
        s = Scenario.make(name="your-choices", **v)
        rec = recommend(s, catalog=cat, monte_carlo_samples=None)  # monte_carlo_draws, as the app
        origin = pd.DataFrame(
            [
                {
                    "field": k,
                    "value": value_text(k, v[k]),
                    "from": source[k] if v[k] == start[k] else "changed here",
                }
                for k in v
            ]
        )
        if rec.top is not None:
            shown = ("The pick and the runners-up", _options_table(rec))
        else:
            shown = ("The nearest options and what they fail on", rec.nearest[NEAREST_COLUMNS])
        parts = [(CAVEATS_TITLE, rec.caveats)] if rec.caveats else []
        parts += [("Why", rec.reasons), shown]
        if not rec.pareto.empty:
            parts.append(("Time against cost (the frontier)", frontier_chart(rec)))
        parts.append(("Where each value came from", origin))
        return Rendered(headline=rec.verdict, parts=parts, data={"rec": rec, "origin": origin})

    return GuidePanel(FIELDS, values, render, "08_your_recommendation", None)
