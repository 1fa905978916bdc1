"""Check a training-time claim against the hardware's peak: ``check_claim``.

Implied MFU = training FLOPs / (GPUs x seconds x dense peak). Above 1.0 at the BF16 peak the claim
needs more arithmetic than the chips can do at all; the best published large runs reach about
0.4-0.55 of the BF16 peak (data/published_runs.csv: LLaMA-65B 0.48, Llama 3.1 405B 0.38-0.43).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import Catalog, resolve_catalog
from ..checks import check_number
from ..text import power_text
from ..units import SECONDS_PER_DAY, TERA
from .estimate import estimate_training
from .flops import training_flops

#: Highest implied BF16-peak MFU among the published full runs in data/published_runs.csv is
#: ~0.5 (LLaMA-13B 0.514); NeMo FP8 benchmarks reach 0.7-0.8 of the BF16 peak. Above this a claim
#: is implausible; above 1.0 at the precision's own peak it is physically impossible.
PLAUSIBLE_MFU_BF16 = 0.60


def implied_peak_fraction(flops, n_gpus, days, tflops_dense):
    """Share of the hardware's dense peak a run of ``flops`` [FLOP] must sustain to finish in
    ``days`` on ``n_gpus`` GPUs of ``tflops_dense`` [TFLOP/s] each: the implied MFU. Above 1 no
    amount of software can do it."""
    return flops / (n_gpus * (days * SECONDS_PER_DAY) * (tflops_dense * TERA))


@dataclass
class ClaimCheck:
    """The verdict on a claim, the implied MFU behind it and what the engine estimates instead."""

    implied_mfu: float  #: claimed FLOPs / FLOPs at the dense BF16 peak [ratio]
    implied_mfu_fp8: float | None  #: the same at the dense FP8 peak (None: no FP8)
    verdict: str  #: physically-impossible | implausible | plausible
    reason: str  #: the arithmetic behind the verdict, then the realistic estimate
    flops_required: float  #: training FLOPs of the claim [FLOP]
    flops_available_at_peak: float  #: GPUs x seconds x BF16 peak [FLOP]
    realistic_days: float  #: :func:`workbook.estimate_training`'s wall time [days]
    realistic_gpu_hours: float  #: its GPU-hours [GPU-h]
    realistic_mfu: float  #: its MFU [ratio]


def _verdict(
    mfu: float,
    mfu_fp8: float | None,
    flops: float,
    days,
    n_gpus,
    accelerator: str,
    peak_bf16: float,
) -> tuple[str, str]:
    """The verdict and its reason from the implied MFU at the BF16 (and FP8) peak."""
    best = min(x for x in (mfu, mfu_fp8) if x is not None)
    published = "the best published large runs reach about 40-55%"
    if best > 1.0:
        return "physically-impossible", (
            f"{power_text(flops)} FLOP in {days:g} days on {n_gpus} x {accelerator} needs "
            f"{mfu:.1f}x the dense BF16 peak ({peak_bf16 / TERA:,.0f} TFLOP/s per GPU)"
            + (f" and {mfu_fp8:.1f}x the FP8 peak" if mfu_fp8 else "")
            + "; no precision of this hardware can do it"
        )
    if mfu > PLAUSIBLE_MFU_BF16:
        return "implausible", (
            f"needs {mfu:.0%} of the dense BF16 peak; {published} "
            f"(FP8 could make it {mfu_fp8:.0%} of the FP8 peak)"
            if mfu_fp8
            else f"needs {mfu:.0%} of the dense BF16 peak; {published}"
        )
    return "plausible", f"needs {mfu:.0%} of the dense BF16 peak, within what published runs reach"


def check_claim(
    n_params,
    n_tokens,
    accelerator: str,
    n_gpus,
    days,
    *,
    catalog: Catalog | None = None,
    seq_len: int = 4096,
    attention: str = "none",
) -> ClaimCheck:
    """Check "a model of ``n_params`` on ``n_tokens`` takes ``days`` on ``n_gpus`` x
    ``accelerator``".

    ``attention="none"`` uses 6 N D, the most favourable count for the claim (any attention FLOPs
    only make it harder). The realistic figures come from :func:`workbook.estimate_training`.
    """
    check_number("days", days, positive=True)
    check_number("n_gpus", n_gpus, positive=True, integer=True)
    cat = resolve_catalog(catalog)
    spec = cat.accelerator(accelerator)
    flops = float(training_flops(n_params, n_tokens, seq_len=seq_len, attention=attention))
    peak_bf16 = float(spec["tflops_dense_bf16"]) * TERA
    available = n_gpus * (float(days) * SECONDS_PER_DAY) * peak_bf16
    mfu = implied_peak_fraction(flops, n_gpus, float(days), float(spec["tflops_dense_bf16"]))
    fp8 = spec["tflops_dense_fp8"]
    mfu_fp8 = (
        implied_peak_fraction(flops, n_gpus, float(days), float(fp8))
        if fp8 == fp8 and fp8 is not None
        else None
    )
    real = estimate_training(
        n_params, n_tokens, accelerator, int(n_gpus), seq_len=seq_len, catalog=cat
    )
    verdict, reason = _verdict(mfu, mfu_fp8, flops, days, n_gpus, accelerator, peak_bf16)
    reason += (
        f". The estimate for this run: {real.wall_days:,.0f} days, {real.gpu_hours:,.0f} GPU-hours "
        f"at {real.mfu:.0%} MFU"
    )
    return ClaimCheck(
        implied_mfu=mfu,
        implied_mfu_fp8=mfu_fp8,
        verdict=verdict,
        reason=reason,
        flops_required=flops,
        flops_available_at_peak=available,
        realistic_days=real.wall_days,
        realistic_gpu_hours=real.gpu_hours,
        realistic_mfu=real.mfu,
    )
