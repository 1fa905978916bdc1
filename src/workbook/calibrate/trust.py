"""How far to trust a time estimate: one paragraph for the app and the memo, measured live on
data/published_runs.csv with the catalog's constants.

The measurement does not depend on the pick, so it is made once per catalog object
(:class:`PerCatalog`); only the sentences about the pick's days, time factor and accelerator are
written per call. The app asks for the paragraph on every input change.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..checks import check_number
from ..model import assumption_values
from ..text import days_text, duration_text
from .accuracy import accuracy_bias, accuracy_summary, accuracy_table, twin_pair_table
from .bands import band_coverage, realized_band
from .cache import PerCatalog
from .metrics import RANGE_QUANTILES, TWIN_RATIO_25PCT
from .runs import full_runs

#: Share of held-out runs the band nominally holds (80 %).
RANGE_SHARE = RANGE_QUANTILES[1] - RANGE_QUANTILES[0]
#: How far below :data:`RANGE_SHARE` the band's forward check must fall to call it a floor.
FLOOR_SHORTFALL = 0.1
#: Median signed error on an accelerator's runs beyond which its estimates read as optimistic
#: (below minus this) or pessimistic (above it).
BIAS_NOTED = 0.1


@dataclass(frozen=True)
class TrustBasis:
    """The part of the trust paragraph that does not depend on the pick, for one catalog."""

    #: The held-out error sentence, or that the out-of-sample error is unknown.
    holdout_text: str
    #: :func:`workbook.calibrate.accuracy.accuracy_bias`, indexed by ``group``.
    bias: pd.DataFrame
    #: The band the decision plans with, how often it held and, when it held well under its
    #: nominal share forward in time, that it is a floor ("" without held-out runs).
    band_text: str = ""
    #: The most contradictory twin runs and what to do about them ("" without).
    twins_text: str = ""
    #: :func:`workbook.calibrate.bands.realized_band` (None without held-out runs).
    band: dict | None = None
    #: ``time_band_widening_no_evidence`` (data/assumptions.csv) [x].
    widening: float = 1.0
    #: Accelerators with a used published full run (their band is not widened).
    evidence: frozenset = frozenset()


def _holdout_error_text(m: pd.Series) -> str:
    """The engine's error on the held-out runs (a row of :func:`accuracy_summary`)."""
    return (
        f" on the {int(m['n'])} held-out runs, which fitted no constant, the predicted GPU-hours "
        f"are off by a median {m['mdape']:.0%} ({m['within_25pct']:.0%} within +-25 %, worst "
        f"{m['max_ratio_off']:.1f}x)."
    )


def _plan_text(predicted_days: float | None, band: dict, widening: float = 1.0) -> str:
    """The band (its log spread times ``widening``) applied to the predicted days, a median of the
    typical stack ("" without them)."""
    if predicted_days is None:
        return ""
    lo = predicted_days * (band["p10"] / band["p50"]) ** widening
    hi = predicted_days * (band["p90"] / band["p50"]) ** widening
    low = days_text(lo, unit=False) if lo >= 1 else duration_text(lo)  # hours under a day
    return (
        f" For the predicted {duration_text(predicted_days)} (the median), plan for {low} to "
        f"{duration_text(hi)} (p10-p90)."
    )


def _band_text(band: dict, cov: dict) -> str:
    """How the decision's band is made and how often it held."""
    return (
        " Every option's days and costs carry a band from the same held-out runs: their "
        f"split-conformal 10th and 90th percentiles, {band['p10']:.2f}x to {band['p90']:.2f}x the "
        f"engine's prediction, around their median {band['p50']:.2f}x (which the typical stack's "
        "days include), with a two-piece log-normal between them for the probability of a "
        f"deadline or a budget. It held for {cov['loo_coverage']:.0%} of the held-out runs left "
        f"out one at a time and for {cov['forward_inside']} of {cov['forward_runs']} "
        f"({cov['forward_coverage']:.0%}) checked forward in time (nominal 80 %); its p90 / p10 is "
        f"{cov['width']:.1f}x."
    ) + _floor_text(cov)


def _floor_text(cov: dict) -> str:
    """That the band is a floor on the uncertainty, when it held for well under its nominal share
    of the runs checked forward in time ("" otherwise)."""
    if not cov["forward_runs"] or cov["forward_coverage"] >= RANGE_SHARE - FLOOR_SHORTFALL:
        return ""
    return (
        f" Forward in time it held for well under {RANGE_SHARE:.0%}: treat it as a floor on the "
        "uncertainty, not a bound."
    )


def _part_names(cat: Catalog) -> pd.Series:
    """Each accelerator's name (data/accelerators.csv), indexed by its id."""
    return cat.tables["accelerators"].set_index("accelerator_id")["name"]


def _twins_text(cat: Catalog, table: pd.DataFrame) -> str:
    """The most contradictory twin runs and what to do about them ("" when none is beyond
    +-25 %)."""
    twins = twin_pair_table(cat)
    if not (len(twins) and twins["ratio"].iloc[0] > TWIN_RATIO_25PCT):
        return ""
    t, names = twins.iloc[0], table.set_index("run_id")["model"]
    part = _part_names(cat)[t["accelerator"]]
    return (
        f" Part of the spread is in the runs themselves: {names[t['slower']]} reached "
        f"{t['ratio']:.1f}x less of the {part}'s peak than {names[t['faster']]}, a model of its "
        f"size ({t['slower_gpus']:,} GPUs and {t['slower_seq_len']:,}-token sequences against "
        f"{t['faster_gpus']:,} and {t['faster_seq_len']:,}, where every physical model expects "
        "the first to be at least as fast). The cluster, its scheduler and the software stack "
        "matter as much as the chip: time a short pilot run of your stack and enter measured / "
        "predicted time as the time factor."
    )


def _trust_basis(cat: Catalog) -> TrustBasis:
    """The pick-free measurement of :func:`time_model_trust` for one catalog."""
    table = accuracy_table(cat)
    summary = accuracy_summary(table).set_index(["model", "runs"])
    bias = accuracy_bias(table).set_index("group")
    if ("engine", "holdout") not in summary.index:
        unknown = " no run is held out of the calibration, so the out-of-sample error is unknown."
        return TrustBasis(unknown, bias)
    band, widening = realized_band(cat), assumption_values(cat)["time_band_widening_no_evidence"]
    return TrustBasis(
        holdout_text=_holdout_error_text(summary.loc[("engine", "holdout")]),
        bias=bias,
        band_text=_band_text(band, band_coverage(cat)),
        twins_text=_twins_text(cat, table),
        band=band,
        widening=widening,
        evidence=frozenset(full_runs(cat)["accelerator_id"]),
    )


#: :func:`_trust_basis` cached per catalog object.
trust_basis = PerCatalog(_trust_basis)


def _time_factor_text(wall_days: float | None, predicted_days: float | None, factor: float) -> str:
    """The reader's time factor and the days it turns the prediction into ("" at 1)."""
    if factor == 1.0 or wall_days is None:
        return ""
    return (
        f" You set a time factor of {factor:g}x, so the recommendation plans for "
        f"{duration_text(wall_days)} where the engine predicts {duration_text(predicted_days)}."
    )


def _widening_text(widening: float) -> str:
    """That a part no published run checks has its band widened (said once: by the accelerator
    sentence when the pick's part is such a part)."""
    return f" On a part no published run checks it is widened {widening:g}x."


def _accelerator_text(
    bias: pd.DataFrame, accelerator: str, basis: TrustBasis, part: str | None = None
) -> str:
    """The median signed error on the accelerator's published dense runs, or that none exists
    (and, with no published run at all, that its band is widened); ``part`` names it ("the
    NVIDIA H100 SXM5 80GB"; its id without)."""
    part = f"the {part}" if part else accelerator
    if accelerator not in bias.index:
        widened = (
            f", so its band is widened {basis.widening:g}x"
            if accelerator not in basis.evidence
            else ""
        )
        return (
            f" No published dense run on {part} checks the model: its estimate rests on the "
            f"spec sheet and on constants fitted on other accelerators{widened}."
        )
    runs, med = int(bias.loc[accelerator, "runs"]), float(bias.loc[accelerator, "median_error"])
    way = "took longer than predicted" if med < 0 else "were faster than predicted"
    text = (
        f" On the {runs} published dense run{'s' if runs > 1 else ''} on {part} the runs "
        f"{way} by a median {abs(med):.0%}"
    )
    if med < -BIAS_NOTED:
        return text + "; read its days and GPU-hour costs as optimistic."
    if med > BIAS_NOTED:
        return text + "; read its days and GPU-hour costs as pessimistic."
    return text + "."


def time_model_trust(
    accelerator: str | None = None,
    catalog: Catalog | None = None,
    wall_days: float | None = None,
    time_factor: float = 1.0,
) -> str:
    """How far to trust a time estimate, measured on data/published_runs.csv with the catalog's
    constants.

    One paragraph: the median absolute error of GPU-hours on the held-out runs (never used to fit a
    constant); the one band every option carries and the decision plans with
    (:func:`workbook.calibrate.bands.realized_band`, split-conformal, with its leave-one-out and
    forward-in-time coverage, :func:`workbook.calibrate.bands.band_coverage`, and, when it held
    for well under 80 % forward, that it is a floor), applied to ``wall_days`` [days, as planned,
    the typical stack's median] when given; how far published twin runs disagree
    (:func:`workbook.calibrate.metrics.twin_pairs`) and what to do about it; with a
    ``time_factor`` other than 1 (:attr:`workbook.decide.Scenario.time_factor`: ``wall_days`` is
    then that many times the engine's prediction) the range is applied to the prediction and the
    factor named; and, for ``accelerator``, the median signed error on its published dense runs
    (or that none exists). Derived live from :func:`accuracy_table`, :func:`accuracy_summary` and
    :func:`accuracy_bias`, so overrides of the constants show here; the pick-free part is computed
    once per catalog object (:data:`trust_basis`).
    """
    if wall_days is not None:
        check_number("wall_days", wall_days, positive=True)
    check_number("time_factor", time_factor, positive=True)
    predicted = None if wall_days is None else wall_days / time_factor
    cat = resolve_catalog(catalog)
    basis = trust_basis(cat)
    text = "Measured against published training runs (python -m workbook validate):"
    text += basis.holdout_text
    unchecked = bool(accelerator) and accelerator not in basis.evidence
    if basis.band is not None:
        widen = basis.widening if unchecked else 1.0
        text += _plan_text(predicted, basis.band, widen) + basis.band_text
        text += "" if unchecked else _widening_text(basis.widening)
        text += basis.twins_text + _time_factor_text(wall_days, predicted, time_factor)
    if accelerator:
        part = _part_names(cat).get(accelerator)
        text += _accelerator_text(basis.bias, accelerator, basis, part)
    return text
