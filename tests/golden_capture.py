"""What the re-layout must not change: every preset's recommendation and the validator's output.

``capture_recommendations()`` and ``capture_validate()`` read only public behaviour (the preset
scenarios, ``recommend``, the trust paragraph, the validator's printed text and figures) so the same
capture runs before and after a move. ``tests/golden/`` holds what they returned at the commit that
wrote it; ``tests/test_golden.py`` compares. Write it anew only for a change that is meant to move a
result, and say so in the CHANGELOG:

    .venv/bin/python tests/golden_capture.py
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import math
from pathlib import Path

import numpy as np

GOLDEN = Path(__file__).resolve().parent / "golden"
RECOMMENDATIONS = GOLDEN / "recommendations.json"
VALIDATE = GOLDEN / "validate.json"


def _plain(x):
    """JSON-able copy: numpy scalars to Python, NaN/inf to strings (JSON has neither)."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else repr(x)
    return x


def _options_digest(o) -> str:
    """One hash over every option's key, feasibility, reasons, cost and time (rounded)."""
    h = hashlib.sha256()
    cols = zip(
        o["accelerator"],
        o["n_gpus"],
        o["acquisition"],
        o["feasible"],
        o["failed"],
        o["cost_per_run_usd"],
        o["time_to_result_days"],
        o["first_year_cost_usd"],
    )
    for acc, n, mode, feas, failed, cost, ttr, first in cols:
        h.update(
            f"{acc}|{int(n)}|{mode}|{bool(feas)}|{failed}|{cost:.4f}|{ttr:.6f}|{first:.4f}\n".encode()
        )
    return h.hexdigest()


def capture_recommendations() -> dict:
    from workbook import article_comparison, presets, recommend
    from workbook.calibrate.trust import time_model_trust

    out = {}
    for name, s in presets.items():
        rec = recommend(s)
        top = rec.top
        out[name] = _plain(
            {
                "headline": rec.headline,
                "top": dataclasses.asdict(top) if top is not None else None,
                "reasons": rec.reasons,
                "runners_up": [dataclasses.asdict(r) for r in rec.runners_up],
                "rejected": rec.rejected,
                "breakeven_runs_per_year": rec.breakeven_runs_per_year,
                "pareto": rec.pareto[
                    [
                        "accelerator",
                        "n_gpus",
                        "acquisition",
                        "time_to_result_days",
                        "cost_per_run_usd",
                    ]
                ]
                .to_numpy()
                .tolist(),
                "nearest": (
                    rec.nearest[["accelerator", "n_gpus", "acquisition", "failed"]]
                    .to_numpy()
                    .tolist()
                    if len(rec.nearest)
                    else []
                ),
                "sensitivity": rec.sensitivity.to_dict("records"),
                "monte_carlo": rec.monte_carlo.to_dict("records"),
                "n_options": len(rec.options),
                "n_feasible": int(rec.options["feasible"].sum()),
                "options_digest": _options_digest(rec.options),
                "article": article_comparison(rec, name),
                "trust": time_model_trust(
                    top.accelerator if top else None,
                    wall_days=top.wall_days if top else None,
                    time_factor=s.time_factor,
                ),
            }
        )
    return out


def capture_validate() -> dict:
    from workbook.cli import validate

    buf = io.StringIO()
    figures = validate.report(out=buf, cv=True)
    return _plain({"figures": figures, "text": buf.getvalue()})


def write() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for path, data in (
        (RECOMMENDATIONS, capture_recommendations()),
        (VALIDATE, capture_validate()),
    ):
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print("wrote", path)


if __name__ == "__main__":
    write()
