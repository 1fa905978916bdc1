"""The engine's steady-state throughput against published benchmarks (tokens/s per GPU between
failures: the time model without goodput or site effects), and the per-GPU throughput ratios
between accelerators those benchmarks publish."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..catalog import Catalog, resolve_catalog
from ..model import assumption_values, benchmark_rows, estimate_frame, tuned_stack_factor
from .runs import is_moe, run_configs

#: Throughput-ratio checks: (label, numerator run_id, denominator run_id).
RATIO_PAIRS = [
    ("MPT-7B H100 / A100-80GB", "mpt-7b-bench-h100", "mpt-7b-bench-a100-80gb"),
    ("MPT-13B H100 / A100-80GB", "mpt-13b-bench-h100", "mpt-13b-bench-a100-80gb"),
    ("MPT-30B H100 / A100-80GB", "mpt-30b-bench-h100", "mpt-30b-bench-a100-80gb"),
    ("MPT-70B H100 / A100-80GB", "mpt-70b-bench-h100", "mpt-70b-bench-a100-80gb"),
    ("MPT-7B A100-80GB / A100-40GB", "mpt-7b-bench-a100-80gb", "mpt-7b-bench-a100-40gb"),
    ("NeMo Llama3-8B B200 / H100 (fp8)", "nemo-llama3-8b-b200", "nemo-llama3-8b-h100"),
    ("NeMo Llama3-8B GB200 / H100 (fp8)", "nemo-llama3-8b-gb200", "nemo-llama3-8b-h100"),
    ("NeMo Llama3-8B GB300 / H100 (fp8)", "nemo-llama3-8b-gb300", "nemo-llama3-8b-h100"),
    ("NeMo Llama3-70B GB200 / H100 (fp8)", "nemo-llama3-70b-gb200", "nemo-llama3-70b-h100"),
    ("NeMo Llama3-70B GB300 / H100 (fp8)", "nemo-llama3-70b-gb300", "nemo-llama3-70b-h100"),
    ("NeMo Llama3.1-405B B200 / H100 (fp8)", "nemo-llama31-405b-b200", "nemo-llama31-405b-h100"),
    ("NeMo Llama3.1-405B GB200 / H100 (fp8)", "nemo-llama31-405b-gb200", "nemo-llama31-405b-h100"),
    ("NeMo Llama3.1-405B GB300 / H100 (fp8)", "nemo-llama31-405b-gb300", "nemo-llama31-405b-h100"),
    # Cross-vendor, one benchmark (MLPerf Training v5.0 Llama 2 70B LoRA, 8 GPUs, fp8); the
    # MI325X and GB200 rows are held out (data/published_runs.csv split).
    ("MLPerf v5.0 LoRA MI300X / B200", "mlperf-v50-lora-mi300x-8", "mlperf-v50-lora-b200-8"),
    ("MLPerf v5.0 LoRA MI325X / B200", "mlperf-v50-lora-mi325x-8", "mlperf-v50-lora-b200-8"),
    ("MLPerf v5.0 LoRA MI325X / MI300X", "mlperf-v50-lora-mi325x-8", "mlperf-v50-lora-mi300x-8"),
    ("MLPerf v5.0 LoRA GB200 / B200", "mlperf-v50-lora-gb200-8", "mlperf-v50-lora-b200-8"),
    # A second submitter's ROCm recipe on the calibration part (MangoBoost, held out).
    (
        "MLPerf v5.0 LoRA MI300X (MangoBoost) / B200",
        "mlperf-v50-lora-mi300x-8-mangoboost",
        "mlperf-v50-lora-b200-8",
    ),
    # CDNA 4 (ROCm 7): the MI355X factor's calibration pair (exact by construction), and the two
    # held-out MLPerf v6.0 LoRA rows of one round (MXFP4).
    (
        "Llama 3.1 8B fp8 MI355X (Primus) / B200 (NeMo)",
        "primus-mlperf-llama31-8b-mi355x-8",
        "nemo-llama3-8b-b200",
    ),
    (
        "MLPerf v6.0 LoRA MI355X / MI350X (fp4)",
        "mlperf-v60-lora-mi355x-8",
        "mlperf-v60-lora-mi350x-8",
    ),
    # MLPerf v5.0 at scale (held out, declared 2026-12-03): across parts at one GPU count, and
    # one part across GPU counts (the per-GPU rate a larger cluster keeps).
    (
        "MLPerf v5.0 405B GB200 / H100, 512 GPUs",
        "mlperf-v50-405b-gb200-512",
        "mlperf-v50-405b-h100-512",
    ),
    (
        "MLPerf v5.0 405B H100 8,192 / 512 GPUs",
        "mlperf-v50-405b-h100-8192",
        "mlperf-v50-405b-h100-512",
    ),
    (
        "MLPerf v5.0 405B GB200 2,496 / 256 GPUs",
        "mlperf-v50-405b-gb200-2496",
        "mlperf-v50-405b-gb200-256",
    ),
    ("MLPerf v5.0 LoRA GB200 512 / 8 GPUs", "mlperf-v50-lora-gb200-512", "mlperf-v50-lora-gb200-8"),
    (
        "MLPerf v5.0 LoRA H200 (HPE) / B200, 8 GPUs",
        "mlperf-v50-lora-h200-8-hpe",
        "mlperf-v50-lora-b200-8",
    ),
    # The second batch (held out, declared 2026-12-03): H200 against H100 on one recipe and scale,
    # one submitter's parts, and one submitter's cluster across GPU counts.
    (
        "MLPerf v5.0 405B H200 (Nebius) / H100, 512 GPUs",
        "mlperf-v50-405b-h200-512-nebius",
        "mlperf-v50-405b-h100-512",
    ),
    (
        "MLPerf v5.0 405B GB200 (Carina) 2,048 / 512 GPUs",
        "mlperf-v50-405b-gb200-2048-carina",
        "mlperf-v50-405b-gb200-512-carina",
    ),
    (
        "MLPerf v5.0 LoRA H200 / B200 (Dell), 8 GPUs",
        "mlperf-v50-lora-h200-8-dell",
        "mlperf-v50-lora-b200-8-dell",
    ),
    (
        "MLPerf v5.0 LoRA H200 (Dell) 16 / 8 GPUs",
        "mlperf-v50-lora-h200-16-dell",
        "mlperf-v50-lora-h200-8-dell",
    ),
    (
        "MLPerf v5.0 LoRA MI300X (MangoBoost) 16 / 8 GPUs",
        "mlperf-v50-lora-mi300x-16-mangoboost",
        "mlperf-v50-lora-mi300x-8-mangoboost",
    ),
    # AMD Primus v26.1 on MI325X (held out, declared 2026-12-07) against NeMo 25.11 on H100, the
    # same model, precision and GPU count (CDNA 3 against Hopper); and its 64 / 8 GPUs.
    (
        "Llama 3.1 8B fp8 MI325X (Primus) / H100 (NeMo), 8 GPUs",
        "primus2601-llama31-8b-mi325x-8",
        "nemo-llama3-8b-h100",
    ),
    (
        "Llama 3.1 70B fp8 MI325X (Primus) / H100 (NeMo), 64 GPUs",
        "primus2601-llama31-70b-mi325x-64-fp8",
        "nemo-llama3-70b-h100",
    ),
    (
        "Llama 3.1 8B fp8 MI325X (Primus) 64 / 8 GPUs",
        "primus2601-llama31-8b-mi325x-64",
        "primus2601-llama31-8b-mi325x-8",
    ),
]
#: Tokens [tokens] of the run a benchmark row is predicted as: any long run will do, since the
#: steady-state throughput between failures does not depend on the run's length.
BENCHMARK_RUN_TOKENS = 1e11


def _steady_throughput(
    rows: pd.DataFrame,
    catalog: Catalog,
    software_stack: str = "engine",
    assumptions=None,
    exact_shapes: bool = True,
) -> np.ndarray:
    """Predicted tokens/s per GPU between failures (what a benchmark measures) of benchmark
    rows, each with its exact shape where it has one (``shape_id``), at the ``software_stack``
    level (``assumptions``: constants other than the stored; ``exact_shapes=False``: every row
    from its parameter count alone, as a plan that gives no shape is estimated)."""
    rows = rows.assign(n_gpus=rows["gpu_count"].astype(int))
    tokens = np.full(len(rows), BENCHMARK_RUN_TOKENS)
    # Each benchmark's exact shape where data/model_shapes.csv has its model (issue 19, part 1).
    shapes = catalog.tables["model_shapes"] if exact_shapes else None
    configs = run_configs(rows, tokens, software_stack, shapes)
    # The benchmark's own global batch where its source gives it (NaN: the engine's default).
    configs["global_batch_tokens"] = rows["global_batch_tokens"].to_numpy(float)
    frame = estimate_frame(configs, catalog=catalog, assumptions=assumptions)
    return frame["steady_tokens_per_s_per_gpu"].to_numpy(float)


#: The table label of PyTorch's own trainer's benchmarks (:func:`_benchmark_source`).
TORCHTITAN_SOURCE = "torchtitan (PyTorch)"


def _benchmark_source(source: pd.Series) -> np.ndarray:
    """The software a benchmark ran: llm-foundry (MosaicML), NeMo AutoModel (NVIDIA's PyTorch
    stack), NeMo (NVIDIA: Megatron-Core), MLPerf, Primus (AMD), torchtitan (PyTorch's own
    trainer), or papers."""
    src = source.fillna("")
    return np.select(
        [
            src.str.contains("llm-foundry"),
            src.str.contains("Automodel"),
            src.str.contains("NeMo"),
            src.str.contains("MLPerf"),
            src.str.contains("Primus"),
            src.str.contains("torchtitan"),
        ],
        [
            "llm-foundry (MosaicML)",
            "NeMo AutoModel (NVIDIA)",
            "NeMo (NVIDIA)",
            "MLPerf (vendor submissions)",
            "Primus (AMD)",
            TORCHTITAN_SOURCE,
        ],
        "papers",
    )


def benchmark_throughput(
    catalog: Catalog | None = None,
    software_stack: str = "engine",
    assumptions: dict[str, float] | None = None,
    exact_shapes: bool = True,
) -> pd.DataFrame:
    """Every published throughput benchmark (``row_type`` throughput_benchmark with tokens/s per
    GPU) against the engine's steady-state prediction for its model, part, GPU count, sequence
    length, precision, method and global batch (``global_batch_tokens``; the engine's default
    where the source gives none), at the ``software_stack`` level (``"engine"``: the step-time
    model as fitted; ``"tuned"``: with the tuned stack's speedups). One row each: ``run``,
    ``source`` (the software: llm-foundry, NeMo, MLPerf, or papers), ``accelerator``, ``n_gpus``,
    ``precision``, ``split`` (holdout rows fit no tuned constant), ``moe`` (a mixture of experts:
    it publishes active parameters), ``stack_factor`` (the part's
    tuned / typical software-stack derate, :func:`workbook.model.tuned_stack_factor`),
    ``published_tok_s_gpu``, ``predicted_tok_s_gpu`` [tokens/s per GPU], ``error`` (predicted /
    published - 1). ``assumptions`` (default the stored constants) is what the engine runs with:
    the tuned level's own HBM traffic (:func:`workbook.calibrate.bands.tuned_base_throughput`).
    Each row is predicted with its model's exact shape (``shape_id``, data/model_shapes.csv), or
    with ``exact_shapes=False`` from its parameter count alone."""
    cat = resolve_catalog(catalog)
    runs = cat.tables["published_runs"]
    rows = runs[benchmark_rows(runs)].reset_index(drop=True)
    pred = _steady_throughput(rows, cat, software_stack, assumptions, exact_shapes)
    pub = rows["tokens_per_s_per_gpu"].to_numpy(float)
    return pd.DataFrame(
        {
            "run": rows["run_id"],
            "source": _benchmark_source(rows["source"]),
            "accelerator": rows["accelerator_id"],
            "n_gpus": rows["gpu_count"].astype(int),
            "precision": rows["precision"],
            "split": rows["split"],
            "moe": is_moe(rows),
            "stack_factor": tuned_stack_factor(cat, rows["accelerator_id"], assumption_values(cat)),
            "published_tok_s_gpu": pub,
            "predicted_tok_s_gpu": pred,
            "error": pred / pub - 1.0,
        }
    )


def throughput_ratios(catalog: Catalog | None = None) -> pd.DataFrame:
    """Predicted (tuned level: every row is a vendor's or a framework's reference recipe) vs
    published per-GPU throughput ratios for every pair of :data:`RATIO_PAIRS` (a pair on one
    software stack and precision has the ratio of the engine level): one row each, ``pair``,
    ``across_parts`` (the two rows are on different accelerators, not one part at two scales),
    ``across_vendors`` (and of different vendors: data/accelerators.csv ``vendor``),
    ``published_ratio``, ``predicted_ratio``, the numerator's
    ``published_tok_s_gpu`` and ``predicted_tok_s_gpu`` [tokens/s per GPU], ``error``
    (predicted ratio / published ratio - 1)."""
    cat = resolve_catalog(catalog)
    runs = cat.tables["published_runs"].set_index("run_id")
    vendor = cat.tables["accelerators"].set_index("accelerator_id")["vendor"]
    out = []
    for label, num, den in RATIO_PAIRS:
        rows = runs.loc[[num, den]].reset_index()
        vendors = vendor.reindex(rows["accelerator_id"]).to_numpy(object)
        pred = _steady_throughput(rows, cat, "tuned")
        pub = rows["tokens_per_s_per_gpu"].to_numpy(float)
        out.append(
            {
                "pair": label,
                "across_parts": rows["accelerator_id"].iloc[0] != rows["accelerator_id"].iloc[1],
                "across_vendors": vendors[0] != vendors[1],
                "published_ratio": pub[0] / pub[1],
                "predicted_ratio": pred[0] / pred[1],
                "published_tok_s_gpu": pub[0],
                "predicted_tok_s_gpu": pred[0],
            }
        )
    df = pd.DataFrame(out)
    df["error"] = df["predicted_ratio"] / df["published_ratio"] - 1.0
    return df
