"""How far a run's time may land from its prediction: the level of the software stack it is
planned at and the band around it (arrays in, arrays out).

Three levels (``software_stack``, :data:`SOFTWARE_STACKS`):

- ``"typical"`` (the default): what published whole runs realized. Its median and its 10th and
  90th percentiles are the engine's prediction times ``realized_time_ratio_p10`` /
  ``_p50`` / ``_p90`` (data/assumptions.csv): the split-conformal quantiles of published /
  predicted GPU-hours over the held-out runs of data/published_runs.csv, which fitted no constant
  (:func:`workbook.calibrate.realized_band`).
- ``"tuned"``: a vendor's reference recipe. The engine's steady-state throughput (at the tuned
  level's own HBM traffic, ``memory_traffic_tuned_bytes_per_token_layer_dmodel``) times
  ``tuned_stack_speedup_<precision>`` (the median published / predicted tokens/s per GPU of the
  throughput benchmarks at that precision, :func:`workbook.calibrate.tuned_band`; at FP4 the
  part's own row, keyed by accelerator, where its vendor has FP4 benchmarks, else FP8's:
  :func:`workbook.calibrate.tuned_part_fp4`) times the
  part's stack factor (:func:`tuned_stack_factor`: ``software_maturity_tuned_<stack>`` /
  ``software_maturity_<stack>``, so that a vendor's own recipe on ROCm is not derated as a
  typical team's port), goodput still applied; its band is ``tuned_time_ratio_p10`` / ``_p90``,
  the split-conformal quantiles of the dense benchmarks' leave-one-out residuals, and for a
  mixture of experts ``tuned_time_ratio_moe_p10`` / ``_p90``, those of the MoE benchmarks' (whose
  recipes spread far wider: :func:`workbook.calibrate.tuned_band`).
- ``"engine"``: the step-time model as fitted, before either level (what
  ``python -m workbook validate`` checks its constants on); the typical band's spread around 1.

Between the quantiles the time follows a two-piece log-normal through them: median ``m``, log
spread ``sigma_below = ln(m / p10) / z90`` below it and ``sigma_above = ln(p90 / m) / z90`` above
(``z90`` the standard normal's 90th percentile), so that any probability (a deadline met, a budget
kept) and any quantile (the confidence a decision is made at) follow from the three numbers.

A part with no evidence of its own (no published full run for ``typical``, no benchmark row for
``tuned``; for a mixture of experts, also no MoE row of that kind, nor at the typical level MoE
benchmark rows of its own, whose factor it carries: :func:`level_moe_efficiency`) gets both
spreads multiplied by ``time_band_widening_no_evidence`` (data/assumptions.csv, with its
rationale): its estimate rests on the spec sheet and on constants fitted on other parts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Iterable

import numpy as np
import pandas as pd

from ..catalog import Catalog
from ..units import HOURS_PER_DAY

#: The levels a time can be planned at (see the module docstring).
SOFTWARE_STACKS = ("typical", "tuned", "engine")
#: The standard normal's 90th percentile: p10 and p90 sit this many log spreads from the median.
Z90 = NormalDist().inv_cdf(0.9)
#: The quantiles every estimate reports [probability].
BAND_QUANTILES = (0.1, 0.5, 0.9)
#: The part the whole-run MoE factor ``moe_efficiency`` rests on: the MoE calibration run of
#: data/published_runs.csv (Llama 4 Scout) is on H100 and the held-out MoE runs on H100 / H800
#: (Hopper; a test checks it). The typical level carries the factor to other parts by their MoE
#: benchmarks against this part's (:func:`level_moe_efficiency`).
MOE_WHOLE_RUN_PART = "h100-sxm"
#: Row types of data/published_runs.csv that carry a tokens/s-per-GPU benchmark usable by the tuned
#: level (MLPerf rows time a run from a checkpoint to a quality target: no tokens).
BENCHMARK_ROW_TYPES = ("throughput_benchmark",)


def used_full_runs(runs: pd.DataFrame) -> pd.Series:
    """Rows of data/published_runs.csv that are usable whole runs (``row_type`` full_run, ``split``
    not excluded): the evidence of the typical level."""
    return (runs["row_type"] == "full_run") & (runs["split"] != "excluded")


def benchmark_rows(runs: pd.DataFrame) -> pd.Series:
    """Rows of data/published_runs.csv with a published tokens/s per GPU from a throughput
    benchmark: the evidence of the tuned level."""
    return runs["row_type"].isin(BENCHMARK_ROW_TYPES) & runs["tokens_per_s_per_gpu"].notna()


def normal_cdf(x) -> np.ndarray:
    """The standard normal CDF, vectorised (Abramowitz & Stegun 7.1.26 for erf, |error| < 1.5e-7;
    numpy has no erf and scipy is not a dependency)."""
    x = np.asarray(x, float)
    t_in = np.abs(x) / math.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * t_in)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = 1.0 - poly * np.exp(-t_in * t_in)
    return 0.5 * (1.0 + np.sign(x) * erf)


def quantile_multiplier(p: float, sigma_below, sigma_above) -> np.ndarray:
    """The ``p`` quantile of the two-piece log-normal over its median [x]: ``exp(z_p sigma)``
    with the spread of the side ``p`` is on."""
    z = NormalDist().inv_cdf(p)
    return np.exp(z * np.asarray(sigma_above if p >= 0.5 else sigma_below, float))


def probability_within(ratio, sigma_below, sigma_above) -> np.ndarray:
    """P(time <= ``ratio`` x its median) under the two-piece log-normal [probability]; 0 where
    ``ratio`` <= 0 or is NaN."""
    r = np.asarray(ratio, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.log(np.where(r > 0, r, np.nan))
        sigma = np.where(x >= 0, sigma_above, sigma_below)
        p = normal_cdf(x / sigma)
    return np.where(np.isfinite(x), p, np.where(r == np.inf, 1.0, 0.0))


@dataclass(frozen=True)
class TimeBand:
    """The level and band of every configuration (one element per row)."""

    median: np.ndarray  #: the level's median time / the engine's predicted time [x]
    sigma_below: np.ndarray  #: log spread below the median (widened where no evidence) [ln x]
    sigma_above: np.ndarray  #: log spread above the median [ln x]
    speedup: np.ndarray  #: steady-state throughput of the level / the engine's [x]
    widened: np.ndarray  #: the part has no evidence of the level's kind: the band is widened

    def multiplier(self, p: float) -> np.ndarray:
        """The ``p`` quantile of the time / the engine's predicted time [x]."""
        return self.median * quantile_multiplier(p, self.sigma_below, self.sigma_above)

    def columns(self, wall_hours: np.ndarray, n_gpus: np.ndarray) -> dict[str, np.ndarray]:
        """The p10 and p90 of days and GPU-hours [days, GPU-h] of runs whose median is
        ``wall_hours`` on ``n_gpus``."""
        lo = quantile_multiplier(0.1, self.sigma_below, self.sigma_above)
        hi = quantile_multiplier(0.9, self.sigma_below, self.sigma_above)
        return {
            "wall_days_p10": wall_hours * lo / HOURS_PER_DAY,
            "wall_days_p90": wall_hours * hi / HOURS_PER_DAY,
            "gpu_hours_p10": wall_hours * lo * n_gpus,
            "gpu_hours_p90": wall_hours * hi * n_gpus,
        }


def moe_rows(runs: pd.DataFrame) -> pd.Series:
    """Rows of data/published_runs.csv that are a mixture of experts (they publish an active
    parameter count)."""
    return runs["params_active"].notna()


def evidence_parts(catalog: Catalog, mask_of) -> frozenset:
    """The parts with a row of ``mask_of`` in data/published_runs.csv (``used_full_runs``: the
    typical level's evidence; ``benchmark_rows``: the tuned level's)."""
    runs = catalog.tables["published_runs"]
    return frozenset(runs.loc[mask_of(runs), "accelerator_id"])


def _has_evidence(
    catalog: Catalog, mask_of, accelerator: np.ndarray, also: Iterable[str] = ()
) -> np.ndarray:
    """Whether each configuration's part is one of :func:`evidence_parts` (or of the parts
    ``also``)."""
    codes, parts = pd.factorize(np.asarray(accelerator, object))  # each distinct part once
    parts = pd.Series(parts)
    has = parts.isin(list(evidence_parts(catalog, mask_of))) | parts.isin(list(also))
    return has.to_numpy()[codes]


#: A part whose scale-up domain holds at most this many GPUs (a server: NVLink or Infinity Fabric
#: inside 8 GPUs) sends a large expert-parallel all-to-all over its scale-out network; a larger
#: domain (an NVL72 rack, a TPU pod) keeps it on its scale-up links. The two classes of the MoE
#: carry (:func:`moe_by_class`).
MOE_SERVER_CLASS_GPUS = 8


def moe_classes(spec: pd.DataFrame, own: dict[str, float]) -> list[tuple[pd.Index, pd.Series]]:
    """The scale-up classes of :func:`moe_by_class` (rack-scale, then server): each class's parts
    and the own factors of those of them with one and a dense BF16 peak (accelerator id ->
    factor)."""
    spec = spec.set_index("accelerator_id")
    rack = (spec["scale_up_domain_gpus"] > MOE_SERVER_CLASS_GPUS).to_numpy()
    peak = spec["tflops_dense_bf16"].astype(float)
    out = []
    for in_class in (rack, ~rack):
        parts = spec.index[in_class]
        known = pd.Series({p: own[p] for p in parts if p in own}, dtype=float)
        out.append((parts, known[np.isfinite(peak.reindex(known.index).to_numpy())]))
    return out


def moe_by_class(spec: pd.DataFrame, own: dict[str, float], pooled: float) -> dict[str, float]:
    """Each part's tuned MoE factor [x]: its own (``own``: accelerator id -> factor, fitted on its
    MoE benchmarks), else interpolated on the log of its dense BF16 peak between the parts of its
    scale-up class (:data:`MOE_SERVER_CLASS_GPUS`) that have their own (parts of one peak averaged;
    clamped to their range: no extrapolation), else ``pooled`` (no part of its class has one).

    The rule declared in CHANGELOG.md on 2026-12-04: in the vendors' own MoE tables a server part's
    MoE factor falls as its compute grows on the same 400-800 Gb/s scale-out network (H100 0.52,
    B200 and B300 0.32 and 0.37), so a part with none of its own takes what its class shows at its
    compute, not the pooled factor (whose rows are mostly H100's and rack-scale parts')."""
    log_peak = np.log(spec.set_index("accelerator_id")["tflops_dense_bf16"].astype(float))
    out = {}
    for parts, known in moe_classes(spec, own):
        points = known.groupby(log_peak[known.index].round(12).to_numpy()).mean()
        for p in parts:
            if p in own:
                out[p] = float(own[p])
            elif points.empty or not np.isfinite(log_peak[p]):
                out[p] = float(pooled)
            else:
                out[p] = float(np.interp(log_peak[p], points.index, points.to_numpy()))
    return out


def level_moe_efficiency(
    catalog: Catalog, accelerator, stack: np.ndarray, a: dict, tuned_pooled: float | None = None
) -> np.ndarray:
    """The mixture-of-experts throughput multiplier of each configuration's level [x].

    - ``"tuned"``: the part's own ``moe_efficiency_tuned`` row (keyed by accelerator: fitted on
      its own MoE benchmarks), else its scale-up class's at its compute (:func:`moe_by_class`),
      else the pooled one (``tuned_pooled``, default ``a``'s).
    - ``"typical"``: ``moe_efficiency``, fitted on whole runs that are all on Hopper
      (:data:`MOE_WHOLE_RUN_PART`), times the part's tuned factor over the Hopper part's: the
      vendor's MoE benchmarks of both parts, side by side in one table, carry the whole-run factor
      to the other part (rules declared in CHANGELOG.md, 2026-12-03 and 2026-12-04). A part with
      no MoE benchmark of its own has its band widened (:func:`time_band`).
    - ``"engine"``: ``moe_efficiency`` (the step-time model as fitted: what the fits compare).
    """
    own = catalog.own_values("assumptions", "moe_efficiency_tuned")
    pooled = a["moe_efficiency_tuned"] if tuned_pooled is None else tuned_pooled
    by_part = moe_by_class(catalog.tables["accelerators"], own, pooled)
    tuned = _per_part(accelerator, lambda part: by_part.get(part, pooled))
    anchor = own.get(MOE_WHOLE_RUN_PART)
    carried = _per_part(
        accelerator, lambda part: by_part[part] / anchor if part in by_part and anchor else 1.0
    )
    return np.select(
        [stack == "tuned", stack == "typical"],
        [tuned, a["moe_efficiency"] * carried],
        a["moe_efficiency"],
    )


def tuned_stack_factor(
    catalog: Catalog, accelerator, a: dict, keyed: dict[str, float] | None = None
) -> np.ndarray:
    """Each part's tuned / typical software-stack derate [x]: ``software_maturity_tuned_<stack>``
    over ``software_maturity_<stack>`` (data/assumptions.csv) of the part's ``software_stack``
    (accelerators.csv); 1 on CUDA, whose two levels are both 1. A part with its own
    ``software_maturity_tuned_<stack>`` row (keyed by accelerator, as ``mamf_efficiency`` is:
    CDNA 4 on ROCm 7) takes it instead of the global one; ``keyed`` (accelerator id -> value)
    overrides those rows (the live measurement, :func:`workbook.calibrate.tuned_part_maturity`)."""
    stacks = catalog.tables["accelerators"].set_index("accelerator_id")["software_stack"]

    def factor(part: str) -> float:
        stack = stacks.get(part)
        name = f"software_maturity_tuned_{stack}"
        tuned = (keyed or {}).get(part, catalog.own_values("assumptions", name).get(part, a[name]))
        return tuned / a[f"software_maturity_{stack}"]

    return _per_part(accelerator, factor)


def _per_part(accelerator, value) -> np.ndarray:
    """``value(part)`` for each entry of ``accelerator``, computed once per distinct part [x]."""
    codes, parts = pd.factorize(np.asarray(accelerator, object))
    return np.asarray([value(part) for part in parts], float)[codes]


def time_band(
    catalog: Catalog,
    stack: np.ndarray,
    accelerator: np.ndarray,
    precision: np.ndarray,
    a: dict,
    moe: np.ndarray | bool = False,
) -> TimeBand:
    """The level (``stack``, :data:`SOFTWARE_STACKS`) and band of every configuration, from the
    constants of data/assumptions.csv (``a``: :func:`workbook.model.assumption_values`); ``moe``
    (per configuration) takes the tuned level's MoE band."""
    typical_lo = math.log(a["realized_time_ratio_p50"] / a["realized_time_ratio_p10"]) / Z90
    typical_hi = math.log(a["realized_time_ratio_p90"] / a["realized_time_ratio_p50"]) / Z90
    p10 = np.where(moe, a["tuned_time_ratio_moe_p10"], a["tuned_time_ratio_p10"])
    p90 = np.where(moe, a["tuned_time_ratio_moe_p90"], a["tuned_time_ratio_p90"])
    tuned_lo, tuned_hi = -np.log(p10) / Z90, np.log(p90) / Z90
    tuned = stack == "tuned"
    fp8 = a["tuned_stack_speedup_fp8"]
    fp4 = precision == "fp4"
    if np.any(fp4 & tuned):  # a vendor's own FP4 speedup, keyed by accelerator; else FP8's
        own = catalog.own_values("assumptions", "tuned_stack_speedup_fp4")
        fp4_speedup = _per_part(accelerator, lambda part: own.get(part, fp8))
    else:
        fp4_speedup = fp8
    speedup = np.select(
        [precision == "bf16", fp4], [a["tuned_stack_speedup_bf16"], fp4_speedup], fp8
    ) * np.where(tuned, tuned_stack_factor(catalog, accelerator, a), 1.0)
    has = np.where(
        tuned,
        _has_evidence(catalog, benchmark_rows, accelerator),
        _has_evidence(catalog, used_full_runs, accelerator),
    )
    if np.any(moe):  # a mixture of experts needs MoE evidence on the part: its level's kind
        own = catalog.own_values("assumptions", "moe_efficiency_tuned")  # or, typical, carried
        moe_has = np.where(
            tuned,
            _has_evidence(catalog, lambda r: benchmark_rows(r) & moe_rows(r), accelerator),
            _has_evidence(catalog, lambda r: used_full_runs(r) & moe_rows(r), accelerator, own),
        )
        has = has & np.where(moe, moe_has, True)
    widen = np.where(has, 1.0, a["time_band_widening_no_evidence"])
    level_speedup = np.select(
        [tuned, stack == "typical"], [speedup, 1.0 / a["realized_time_ratio_p50"]], 1.0
    )
    return TimeBand(
        median=1.0 / level_speedup,
        sigma_below=np.where(tuned, tuned_lo, typical_lo) * widen,
        sigma_above=np.where(tuned, tuned_hi, typical_hi) * widen,
        speedup=level_speedup,
        widened=~has,
    )
