"""The documented schema of every table in ``data/``.

One :class:`Column` per column: its type, whether it is required, its range or allowed values. The
loader in :mod:`workbook.catalog.tables` enforces exactly this, and ``data/README.md`` documents
exactly this (``tests/catalog/test_schema.py`` checks that every column here is documented there).

Types
-----
``str``    free text; ``id``: lowercase ``[a-z0-9][a-z0-9.-]*``; ``int`` / ``float``: numbers;
``bool``: ``true`` / ``false``; ``date``: ISO ``YYYY-MM-DD``; ``enum``: one of ``allowed``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SOURCE_KINDS = ("vendor", "press", "aggregator", "paper", "model-card", "article", "derived",
                "estimate", "regulation")  # fmt: skip
VENDORS = ("NVIDIA", "AMD", "Intel", "Google", "AWS")
SOFTWARE_STACKS = ("cuda", "rocm", "synapse", "xla", "neuron")
COOLING_OPTIONS = ("air", "liquid", "air|liquid", "cloud")
AVAILABILITY = ("buy-and-rent", "rent-only")
#: Where a part is sold new: everywhere export rules allow, or only in China (a China-market variant
#: such as the H800, made for the 2022 export thresholds).
SOLD_IN = ("worldwide", "china")
PRICE_KINDS = ("buy-new", "buy-used", "rent-spot", "rent-on-demand", "rent-reserved-1y",
               "rent-reserved-3y")  # fmt: skip
VERDICTS = ("holds", "wrong", "contradicts-itself", "physically-impossible", "unverifiable")
RUN_SPLITS = ("calibration", "holdout", "excluded")
#: Training methods a published row can name (``workbook.model.METHODS``; a test keeps them equal).
RUN_METHODS = ("full", "lora", "qlora")
#: The training framework a published row names (data/README.md says how each row's was decided
#: from its own source; ``unknown`` when the source does not say).
TRAINING_SOFTWARE = (
    "megatron",  # Megatron-LM, NeMo / Megatron-Bridge, Megatron-DeepSpeed
    "llm-foundry",  # MosaicML llm-foundry / Composer
    "torchtitan",
    "jax",  # JAX / MaxText / T5X / Pathways on TPU
    "deepspeed",  # DeepSpeed (ZeRO) without Megatron's model parallelism
    "gpt-neox",
    "nanotron",
    "olmo",  # AI2's OLMo / OLMo-core
    "lit-gpt",
    "hf-transformers",  # the Hugging Face Trainer
    "in-house",  # a lab's own unreleased stack (Meta, TII's Gigatron, DeepSeek's HAI-LLM)
    "other",
    "unknown",
)
#: The class of each :data:`TRAINING_SOFTWARE`, declared before any class's error was computed:
#: ``tuned-framework``: the frameworks the tuned level's reference recipes run on (NeMo /
#: Megatron, llm-foundry, torchtitan, MaxText), whose kernels and parallelism a vendor tunes;
#: ``in-house``: a large lab's own stack, tuned for its cluster but undocumented; ``research``: open
#: research or general-purpose codebases (ZeRO data parallelism, GPT-NeoX, nanotron, OLMo, lit-gpt,
#: the HF Trainer); ``unknown``: the source does not say.
SOFTWARE_CLASS = {
    "megatron": "tuned-framework",
    "llm-foundry": "tuned-framework",
    "torchtitan": "tuned-framework",
    "jax": "tuned-framework",
    "deepspeed": "research",
    "gpt-neox": "research",
    "nanotron": "research",
    "olmo": "research",
    "lit-gpt": "research",
    "hf-transformers": "research",
    "other": "research",
    "in-house": "in-house",
    "unknown": "unknown",
}
SOFTWARE_CLASSES = ("tuned-framework", "in-house", "research", "unknown")
ROW_TYPES = ("full_run", "throughput_config", "throughput_benchmark", "projection", "mlperf",
             "energy_only")  # fmt: skip


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # str | id | int | float | bool | date | enum
    required: bool = True  # False: the cell may be empty (notes must say why for numbers)
    min: float | None = None
    max: float | None = None
    allowed: tuple[str, ...] = ()
    unique: bool = False
    doc: str = ""


@dataclass(frozen=True)
class Table:
    name: str  # file name without .csv
    doc: str
    columns: tuple[Column, ...]
    unique_together: tuple[str, ...] = ()
    extra: dict = field(default_factory=dict)

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]


def _provenance(source_col: str = "source_url") -> tuple[Column, ...]:
    return (
        Column(
            source_col,
            "str",
            doc="Where the row's figures come from (URL(s), ' | '-separated, or a citation).",
        ),
        Column("accessed", "date", doc="When the source was read (ISO date)."),
        Column(
            "notes", "str", required=False, doc="Derivations, conflicts between sources, caveats."
        ),
    )


ACCELERATORS = Table(
    "accelerators",
    "One row per accelerator SKU. All FLOP/s are DENSE (no 2:4 sparsity).",
    (
        Column(
            "accelerator_id", "id", unique=True, doc="Stable id used everywhere (e.g. h100-sxm)."
        ),
        Column("name", "str", doc="Marketing name and variant."),
        Column("vendor", "enum", allowed=VENDORS),
        Column("architecture", "str"),
        Column("release_year", "int", min=2015, max=2030),
        Column(
            "availability",
            "enum",
            allowed=AVAILABILITY,
            doc="rent-only: cloud-only context rows (TPU, Trainium).",
        ),
        Column(
            "sold_in",
            "enum",
            allowed=SOLD_IN,
            doc="Where the part is sold new: worldwide, or china (a China-market variant).",
        ),
        Column(
            "memory_gb", "float", min=1, max=2000, doc="Usable accelerator memory per GPU [GB]."
        ),
        Column("memory_bw_tbps", "float", min=0.1, max=100, doc="Memory bandwidth per GPU [TB/s]."),
        Column(
            "tflops_dense_bf16", "float", min=1, max=100000, doc="Dense BF16 tensor peak [TFLOP/s]."
        ),
        Column(
            "tflops_dense_fp8",
            "float",
            required=False,
            min=1,
            max=100000,
            doc="Dense FP8 peak [TFLOP/s]; empty = not supported.",
        ),
        Column(
            "tflops_dense_fp4",
            "float",
            required=False,
            min=1,
            max=100000,
            doc="Dense FP4 peak [TFLOP/s]; empty = not supported or unknown (notes say which).",
        ),
        Column(
            "tdp_w",
            "float",
            required=False,
            min=50,
            max=5000,
            doc="Max board power per GPU [W]; empty for cloud-only parts (not published).",
        ),
        Column(
            "cooling_options",
            "enum",
            allowed=COOLING_OPTIONS,
            doc="How the part can be cooled: air, liquid, air|liquid, or cloud (not our problem).",
        ),
        Column("form_factor", "str", doc="SXM, OAM, PCIe card, superchip tray, cloud chip."),
        Column(
            "gpus_per_node",
            "int",
            min=1,
            max=72,
            doc="GPUs in one server / tray used to build clusters [count].",
        ),
        Column("scale_up_interconnect", "str", doc="NVLink / Infinity Fabric / PCIe / ICI ..."),
        Column(
            "scale_up_bw_gbps",
            "float",
            required=False,
            min=1,
            max=100000,
            doc="Scale-up bandwidth per GPU, bidirectional [GB/s]; empty = PCIe only.",
        ),
        Column(
            "scale_up_domain_gpus",
            "int",
            min=1,
            max=100000,
            doc="GPUs in one scale-up (NVLink/IF) domain [count].",
        ),
        Column("software_stack", "enum", allowed=SOFTWARE_STACKS),
        *_provenance(),
    ),
)

PRICES = Table(
    "prices",
    "Purchase prices per GPU and cloud prices per GPU-hour. "
    "Exactly one of the two price columns is filled.",
    (
        Column("price_id", "id", unique=True),
        Column("accelerator_id", "id", doc="Must exist in accelerators.csv."),
        Column("kind", "enum", allowed=PRICE_KINDS),
        Column(
            "price_usd_per_gpu",
            "float",
            required=False,
            min=100,
            max=5_000_000,
            doc="Purchase price per GPU [USD] (buy-* rows).",
        ),
        Column(
            "price_usd_per_gpu_hour",
            "float",
            required=False,
            min=0.01,
            max=200,
            doc="Rental price per GPU-hour [USD/h] (rent-* rows).",
        ),
        Column(
            "provider",
            "str",
            doc="Who charges it: vendor list, street, a cloud, an aggregator median, the article.",
        ),
        Column(
            "price_date",
            "date",
            doc="When the price was quoted "
            "(ISO date; first of month when only the month is known).",
        ),
        Column("source_kind", "enum", allowed=SOURCE_KINDS),
        Column(
            "is_default",
            "bool",
            doc="true: the price the engine uses for this accelerator and kind "
            "(at most one per pair).",
        ),
        *_provenance(),
    ),
)

FABRICS = Table(
    "fabrics",
    "Scale-out networks between nodes.",
    (
        Column("fabric_id", "id", unique=True),
        Column("name", "str"),
        Column(
            "technology", "enum", allowed=("infiniband", "ethernet-roce", "ethernet-tcp", "cloud")
        ),
        Column("link_gbps", "float", min=1, max=10000, doc="Line rate of one port [Gb/s]."),
        Column(
            "bw_gbps_per_gpu",
            "float",
            min=1,
            max=10000,
            doc="Scale-out bandwidth per GPU, one direction [Gb/s] (ports x rate / GPUs).",
        ),
        Column(
            "efficiency",
            "float",
            min=0.1,
            max=1.0,
            doc="Achieved all-reduce bus bandwidth / line rate [fraction].",
        ),
        Column("latency_us", "float", min=0.1, max=1000, doc="Small-message latency [us]."),
        Column(
            "cost_usd_per_gpu",
            "float",
            min=0,
            max=100000,
            doc="NICs, switches, optics, cables per GPU [USD].",
        ),
        *_provenance(),
    ),
)

# Key-value tables: a parameter, optionally per accelerator, with a range for sensitivity analysis.
_KV_COLUMNS = (
    Column("parameter", "id", doc="Name read by the engine (see the list in data/README.md)."),
    Column(
        "accelerator_id",
        "id",
        required=False,
        doc="Empty: applies to all; else the accelerator it is for.",
    ),
    Column("value", "float", doc="The default value, in `unit`."),
    Column("low", "float", required=False, doc="Low end of the plausible range (sensitivity)."),
    Column("high", "float", required=False, doc="High end of the plausible range (sensitivity)."),
    Column("unit", "str"),
    Column("source_kind", "enum", allowed=SOURCE_KINDS),
)

FACILITY = Table(
    "facility",
    "Site defaults: PUE, electricity, rack limits, cooling, host power overhead, server cost, "
    "lead times.",
    (*_KV_COLUMNS, *_provenance()),
    unique_together=("parameter", "accelerator_id"),
)

ASSUMPTIONS = Table(
    "assumptions",
    "Model constants of the time and cost engine (efficiencies, derates, failure rates), "
    "each with a range.",
    (*_KV_COLUMNS, *_provenance()),
    unique_together=("parameter", "accelerator_id"),
)

PUBLISHED_RUNS = Table(
    "published_runs",
    "Published training runs and throughput benchmarks for calibration and validation.",
    (
        Column("run_id", "id", unique=True),
        Column("model", "str"),
        Column("row_type", "enum", allowed=ROW_TYPES),
        Column("params_total", "float", min=1e6, max=1e14),
        Column(
            "params_active",
            "float",
            required=False,
            min=1e6,
            max=1e14,
            doc="MoE active params; empty = dense.",
        ),
        Column("tokens", "float", required=False, min=1e6, max=1e15),
        Column(
            "accelerator_id",
            "id",
            required=False,
            doc="Catalog id; empty when the GPU is not in the catalog (e.g. V100).",
        ),
        Column("gpu_type", "str", doc="GPU as published."),
        Column("gpu_count", "int", required=False, min=1, max=1_000_000),
        Column("gpu_hours", "float", required=False, min=1, max=1e9),
        Column("wall_days", "float", required=False, min=0, max=1000),
        Column(
            "tokens_per_s_per_gpu",
            "float",
            required=False,
            min=0.1,
            max=1e7,
            doc="Throughput rows only.",
        ),
        Column("precision", "enum", allowed=("bf16", "fp16", "fp8", "fp4")),
        Column("seq_len", "int", required=False, min=128, max=1_000_000),
        Column(
            "method",
            "enum",
            required=False,
            allowed=RUN_METHODS,
            doc="Training method (LoRA fine-tuning trains adapters only); empty = full.",
        ),
        Column(
            "global_batch_tokens",
            "float",
            required=False,
            min=128,
            max=1e9,
            doc="Tokens per optimizer step of a throughput benchmark (global batch x sequence "
            "length) as its source gives it; empty = not published (the engine's default batch).",
        ),
        Column(
            "split",
            "enum",
            allowed=RUN_SPLITS,
            doc="calibration / holdout / excluded (from the hours validation).",
        ),
        Column("split_reason", "str", doc="Why this row is in its split."),
        Column("source", "str"),
        Column("accessed", "date"),
        Column("notes", "str", required=False),
        Column(
            "software",
            "enum",
            allowed=TRAINING_SOFTWARE,
            doc="Training framework as the row's source names it; unknown = not stated.",
        ),
        Column(
            "shape_id",
            "id",
            required=False,
            doc="The model's exact shape in model_shapes.csv (a benchmark row is predicted with "
            "it); empty = derived from the parameter count.",
        ),
    ),
)

#: model_shapes.csv's counts (whole numbers, far beyond any published model) and their meaning.
_SHAPE_COUNTS = {
    "n_layers": "Transformer layers.",
    "d_model": "Hidden size.",
    "n_heads": "Attention (query) heads.",
    "n_kv_heads": "Key / value heads (fewer than the heads: GQA).",
    "ffn_hidden": "Feed-forward width of one expert as a SwiGLU block (3 matrices); a two-matrix "
    "MLP of width f is entered at its equivalent 2f/3 (the notes say so).",
    "vocab_size": "Vocabulary (as padded by the framework where it pads).",
    "n_experts": "Experts per layer (1: dense).",
    "experts_per_token": "Experts a token passes through (1: dense).",
    "head_dim": "Size of one head; empty = d_model / n_heads.",
}
MODEL_SHAPES = Table(
    "model_shapes",
    "The exact shape of each model a benchmark row trains (workbook.model.ModelShape).",
    (
        Column("shape_id", "id", unique=True, doc="Used by published_runs.csv's shape_id."),
        Column("model", "str", doc="The model as its source names it."),
        *(
            Column(k, "int", required=k != "head_dim", min=1, max=10_000_000, doc=doc)
            for k, doc in _SHAPE_COUNTS.items()
        ),
        Column("tie_embeddings", "bool", doc="The LM head shares the embedding's weights."),
        *_provenance("source"),
    ),
)

ARTICLE_CLAIMS = Table(
    "article_claims",
    "Every numeric claim of the seed article, checked.",
    (
        Column("claim_id", "id", unique=True),
        Column("section", "str", doc="Article section the claim is in."),
        Column("claim", "str", doc="The claim, quoted or closely paraphrased."),
        Column("claimed_value", "str", doc="The figure as the article states it."),
        Column("checked_value", "str", doc="The sourced or computed figure."),
        Column("verdict", "enum", allowed=VERDICTS),
        Column(
            "explanation", "str", doc="The arithmetic or the source comparison behind the verdict."
        ),
        *_provenance(),
    ),
)

PRICE_DERIVATIONS = Table(
    "price_derivations",
    "How each derived price of prices.csv follows from other prices and assumptions; the catalog "
    "recomputes it when a user override changes one of its inputs.",
    (
        Column("price_id", "id", unique=True, doc="The derived row of prices.csv."),
        Column(
            "formula",
            "str",
            doc="Factors joined by ' * ' or ' / ': a default price `accelerator_id:kind`, a global "
            "assumption `parameter` or `(1 - parameter)`, or a number.",
        ),
        *_provenance(),
    ),
)

GRID_INTENSITY = Table(
    "grid_intensity",
    "Carbon intensity of electricity by region (life-cycle, all gases): what a run's kWh emit.",
    (
        Column("region_id", "id", unique=True, doc="Name used by Scenario.grid_region."),
        Column("name", "str", doc="The country or area as its source names it."),
        Column(
            "kg_co2e_per_kwh",
            "float",
            min=0,
            max=1.5,
            doc="Emissions per kWh generated [kg CO2e/kWh] (the source's g/kWh / 1,000).",
        ),
        Column("data_year", "int", min=2015, max=2030, doc="The year the figure describes."),
        Column("source_kind", "enum", allowed=SOURCE_KINDS),
        *_provenance(),
    ),
)

TABLES: dict[str, Table] = {
    t.name: t
    for t in (
        ACCELERATORS,
        PRICES,
        FABRICS,
        FACILITY,
        ASSUMPTIONS,
        PUBLISHED_RUNS,
        MODEL_SHAPES,
        ARTICLE_CLAIMS,
        PRICE_DERIVATIONS,
        GRID_INTENSITY,
    )
}
