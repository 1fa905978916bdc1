"""How far to trust a time estimate: one paragraph for the app and the memo, measured live on
data/published_runs.csv with the catalog's constants."""

from __future__ import annotations

import numpy as np

from ..catalog import Catalog, resolve_catalog
from ..checks import check_number
from ..text import days_text
from .accuracy import accuracy_bias, accuracy_summary, accuracy_table, twin_pair_table


def time_model_trust(
    accelerator: str | None = None,
    catalog: Catalog | None = None,
    wall_days: float | None = None,
    time_factor: float = 1.0,
) -> str:
    """How far to trust a time estimate, measured on data/published_runs.csv with the catalog's constants.

    One paragraph: the median absolute error of GPU-hours on the held-out runs (never used to fit a
    constant); the range those runs landed in relative to their predictions
    (:func:`workbook.validate.time_range`, 10th-90th percentile, with its leave-one-out coverage and
    its coverage checked forward in time, :func:`workbook.validate.forward_range_check`), applied to
    ``wall_days`` [days, as planned] when given; how far published twin runs disagree
    (:func:`workbook.validate.twin_pairs`) and what to do about it; with a ``time_factor`` other than 1
    (:attr:`workbook.Scenario.time_factor`: ``wall_days`` is then that many times the engine's
    prediction) the range is applied to the prediction and the factor named; and, for ``accelerator``,
    the median signed error on its published dense runs (or that none exists). Derived live from :func:`accuracy_table`,
    :func:`accuracy_summary` and :func:`accuracy_bias`, so overrides of the constants show here.
    """
    from ..calibrate import validate

    if wall_days is not None:
        check_number("wall_days", wall_days, positive=True)
    check_number("time_factor", time_factor, positive=True)
    predicted = None if wall_days is None else wall_days / time_factor
    table = accuracy_table(catalog)
    summary = accuracy_summary(table).set_index(["model", "runs"])
    text = "Measured against published training runs (python -m workbook validate):"
    if ("engine", "holdout") not in summary.index:
        text += " no run is held out of the calibration, so the out-of-sample error is unknown."
    else:
        m = summary.loc[("engine", "holdout")]
        text += (
            f" on the {int(m['n'])} held-out runs, which fitted no constant, the predicted GPU-hours are off by a "
            f"median {m['mdape']:.0%} ({m['within_25pct']:.0%} within +-25 %, worst {m['max_ratio_off']:.1f}x)."
        )
        hold = table[table["split"] == "holdout"]
        rng = validate.time_range(hold["published_gpu_hours"], hold["predicted_gpu_hours"])
        share = validate.RANGE_QUANTILES[1] - validate.RANGE_QUANTILES[0]
        text += (
            f" {share:.0%} of them took between {rng['low']:.2f}x and {rng['high']:.2f}x the predicted time, "
            f"median {rng['median']:.2f}x."
        )
        if predicted is not None:
            text += (
                f" For the predicted {days_text(predicted)}, plan for {days_text(predicted * rng['low'], unit=False)}"
                f" to {days_text(predicted * rng['high'])}."
            )
        if np.isfinite(rng["loo_coverage"]):
            text += (
                f" That range held for {rng['loo_coverage']:.0%} of the held-out runs when each was left out "
                "of it"
            )
            fw = validate.forward_range_check(
                table["entry_batch"],
                table["split"] == "holdout",
                table["published_gpu_hours"],
                table["predicted_gpu_hours"],
            )
            if len(fw):
                inside, runs = int(fw["inside"].sum()), int(fw["runs"].sum())
                fwd = inside / runs
                text += (
                    f", {'but only' if fwd < rng['loo_coverage'] - 0.05 else 'and'} for {inside} of {runs} "
                    f"({fwd:.0%}) checked forward in time (each batch of runs entered later, against the range "
                    "of the runs entered before it)."
                )
                if fwd < share - 0.1:  # well under the nominal 80 %
                    text += " Treat the range as a floor on the uncertainty, not a bound."
            else:
                text += "."
        cat = resolve_catalog(catalog)
        twins = twin_pair_table(cat)
        if len(twins) and twins["ratio"].iloc[0] > validate.TWIN_RATIO_25PCT:
            t, names = twins.iloc[0], table.set_index("run_id")["model"]
            part = (
                cat.tables["accelerators"].set_index("accelerator_id").loc[t["accelerator"], "name"]
            )
            text += (
                f" Part of the spread is in the runs themselves: {names[t['slower']]} reached {t['ratio']:.1f}x less "
                f"of the {part}'s peak than {names[t['faster']]}, a model of its size ({t['slower_gpus']:,} GPUs and "
                f"{t['slower_seq_len']:,}-token sequences against {t['faster_gpus']:,} and {t['faster_seq_len']:,}, "
                "where every physical model expects the first to be at least as fast). The cluster, its "
                "scheduler and the software stack matter as much as "
                "the chip: time a short pilot run of your stack and enter measured / predicted time as the time "
                "factor."
            )
        if time_factor != 1.0 and wall_days is not None:
            text += (
                f" You set a time factor of {time_factor:g}x, so the recommendation plans for {days_text(wall_days)} "
                f"where the engine predicts {days_text(predicted)}."
            )
    if accelerator:
        bias = accuracy_bias(table).set_index("group")
        if accelerator not in bias.index:
            text += (
                f" No published dense run on {accelerator} checks the model: its estimate rests on the spec "
                "sheet and on constants fitted on other accelerators."
            )
        else:
            runs, med = (
                int(bias.loc[accelerator, "runs"]),
                float(bias.loc[accelerator, "median_error"]),
            )
            way = "took longer than predicted" if med < 0 else "were faster than predicted"
            text += (
                f" On the {runs} published dense run{'s' if runs > 1 else ''} on {accelerator} the runs "
                f"{way} by a median {abs(med):.0%}"
            )
            text += (
                "; read its days and GPU-hour costs as optimistic."
                if med < -0.1
                else "; read its days and GPU-hour costs as pessimistic."
                if med > 0.1
                else "."
            )
    return text
