"""The options table's columns, declared once: the data bus between decide, present and guides.

:func:`workbook.decide.recommend` returns ``Recommendation.options``, one row per option
(accelerator x GPU count x acquisition mode, ~2,850 rows for the full catalog). Its columns are
added in steps, and the frame holds them in this order (tests/decide/test_columns.py checks it
for every preset):

``estimate``
    :func:`workbook.model.estimate_frame` of every (accelerator, GPU count), through
    :func:`workbook.decide.options.sweep`, which multiplies the whole-run times
    (:data:`~workbook.decide.options.TIME_COLUMNS`) and divides the rates
    (:data:`~workbook.decide.options.RATE_COLUMNS`) by the scenario's time factor.
``sweep``
    Added by :func:`~workbook.decide.options.sweep` itself.
``options``
    :func:`workbook.decide.options.build_options`: power and spec columns per configuration, one
    copy per acquisition mode with its price, lead time and ownership inputs, and the constraints
    that do not move with prices or efficiency (``why_*``: one reason string, '' where it holds).
``evaluate``
    :func:`workbook.decide.evaluate.evaluate_arrays` at base values: times, costs and the moving
    checks. ``wall_days`` and ``lead_time_days`` replace the estimate's and the option's (the spot
    overhead and the lead-time factor applied), so they sit here in the frame.
``reasons``
    :func:`workbook.decide.explain.moving_reasons`: the moving constraints in words, every failure
    of an option in one string, and how far it is from feasible.

A unit is in brackets style (``USD``, ``days``, ``kW``); where a column is not a quantity its kind
is given instead: ``id`` (a catalog key), ``choice`` (one of a fixed set), ``text`` (words),
``bool``. The table itself (:data:`OPTION_COLUMNS`) is appended below.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The steps that add columns, in the order the frame holds them.
STEPS = ("estimate", "sweep", "options", "evaluate", "reasons")


@dataclass(frozen=True)
class Column:
    """One column of the options table."""

    #: Column name in the frame.
    name: str
    #: Unit of a quantity, or the kind of a non-quantity (``id``, ``choice``, ``text``, ``bool``).
    unit: str
    #: The step that adds it (one of :data:`STEPS`).
    step: str
    #: What it holds, in one line.
    meaning: str


# A declared table: (name, unit or kind, meaning) per step, in the frame's column order.
_ESTIMATE = (
    ("accelerator", "id", "accelerator id (data/accelerators.csv)"),
    ("n_gpus", "GPUs", "GPUs in the cluster"),
    ("n_params", "params", "model parameters"),
    ("n_active_params", "params", "parameters active per token (MoE); n_params when dense"),
    ("n_tokens", "tokens", "training tokens per run"),
    ("seq_len", "tokens", "sequence length"),
    ("precision", "choice", "training precision: bf16, fp8"),
    ("method", "choice", "training method: full, lora, qlora"),
    ("fabric", "id", "scale-out network (data/fabrics.csv); None: the engine's default"),
    ("cooling", "choice", "cooling the estimate runs at: the part's designed cooling"),
    ("attention", "choice", "attention FLOPs convention (workbook.model.flops)"),
    ("input_pipeline", "choice", "data loader: compiled or python"),
    ("stack_level", "choice", "software stack level the times are at: typical or tuned"),
    ("n_layers", "layers", "transformer layers (derived from the size)"),
    ("d_model", "width", "hidden size (derived from the size)"),
    ("global_batch_tokens", "tokens", "tokens per optimizer step"),
    ("supported", "bool", "the accelerator has the precision (else NaN times)"),
    ("flops_per_token", "FLOP", "training FLOPs per token"),
    ("flops_total", "FLOP", "training FLOPs per run"),
    ("wall_hours", "h", "hours per run, goodput and time factor included"),
    ("gpu_hours", "GPU-h", "GPU-hours per run (median), time factor included"),
    ("gpu_hours_p10", "GPU-h", "10th percentile of gpu_hours (the time band)"),
    ("gpu_hours_p90", "GPU-h", "90th percentile of gpu_hours (the time band)"),
    ("tokens_per_s", "tokens/s", "whole-run throughput of the cluster, time factor included"),
    ("tokens_per_s_per_gpu", "tokens/s", "tokens_per_s per GPU"),
    ("steady_tokens_per_s_per_gpu", "tokens/s", "per GPU between failures (what a pilot measures)"),
    ("mfu", "ratio", "model FLOPs utilisation of the precision's dense peak"),
    ("mfu_bf16_peak", "ratio", "model FLOPs utilisation of the BF16 dense peak"),
    ("memory_per_gpu_gb", "GB", "memory one GPU needs in the chosen layout"),
    ("memory_gb_available", "GB", "memory one GPU has (data/accelerators.csv)"),
    ("fits_in_memory", "bool", "the chosen layout fits in the GPU's memory"),
    ("tp", "count", "tensor-parallel degree"),
    ("pp", "count", "pipeline-parallel degree"),
    ("dp", "count", "data-parallel degree"),
    ("n_gpus_used", "GPUs", "GPUs the layout keeps busy (tp x pp x dp)"),
    ("zero_stage", "count", "ZeRO stage of the optimizer state sharding"),
    ("recompute", "choice", "activation recompute: full or selective"),
    ("goodput", "ratio", "useful share of wall time (Young/Daly checkpointing)"),
    ("software_maturity", "ratio", "derate of the software stack"),
    ("thermal_factor", "ratio", "derate of a liquid-cooled part in air"),
    ("input_pipeline_factor", "ratio", "derate of a python input pipeline"),
    ("moe_factor", "ratio", "derate of a mixture of experts"),
    ("qlora_factor", "ratio", "derate of QLoRA's dequantisation"),
    ("step_overhead_factor", "ratio", "derate of a per-step overhead (tuned level)"),
    ("throttled", "bool", "a liquid-cooled part estimated in air"),
    ("stack_speedup", "x", "steady throughput of the stack level / the engine's"),
    ("time_sigma_below", "ln x", "log spread of the time band below its median"),
    ("time_sigma_above", "ln x", "log spread of the time band above its median"),
    ("time_band_widened", "bool", "no published evidence on the part: the band is widened"),
    ("step_s", "s", "seconds per optimizer step (the engine's, no time factor)"),
    ("matmul_s", "s", "matmul part of step_s"),
    ("memory_s", "s", "memory-traffic part of step_s"),
    ("optimizer_s", "s", "optimizer-update part of step_s"),
    ("dp_comm_s", "s", "data-parallel gradient reduction per step (before overlap)"),
    ("dp_exposed_s", "s", "dp_comm_s not hidden behind the backward pass"),
    ("tp_exposed_s", "s", "tensor-parallel communication not overlapped"),
    ("bubble_s", "s", "pipeline bubble per step"),
    ("derate_s", "s", "seconds the named derates add to a step"),
)
_SWEEP = (
    (
        "port_time_factor",
        "x",
        "a PyTorch team's first TPU port: slower than the tuned stack (1 elsewhere)",
    ),
    ("time_factor", "x", "the scenario's planned / predicted run time"),
    ("name", "text", "the accelerator's name (data/accelerators.csv)"),
)
_OPTIONS = (
    ("nodes", "nodes", "servers in the cluster"),
    ("it_kw", "kW", "IT power: nodes x node_kw"),
    ("racks", "racks", "racks the cluster fills at the rack limit"),
    ("rack_kw", "kW", "power of the heaviest rack"),
    ("facility_kw", "kW", "IT power x the site's PUE"),
    ("node_kw", "kW", "one node: GPUs at TDP plus the host"),
    ("block_kw", "kW", "smallest unit that must share a rack (a node, an NVL72 rack)"),
    ("block_exceeds_rack", "bool", "block_kw is above the rack limit"),
    ("gpus_per_node", "GPUs", "GPUs per server (data/accelerators.csv), or in the workstation"),
    ("cooling_options", "choice", "designed cooling: air, liquid, air|liquid, cloud"),
    ("software_stack", "choice", "cuda, rocm, synapse, xla, neuron"),
    ("architecture", "text", "the part's architecture (data/accelerators.csv), e.g. CDNA 4"),
    ("availability", "choice", "buy-and-rent or rent-only"),
    ("sold_in", "choice", "where the part is sold new: worldwide or china"),
    ("tpp", "TPP", "export-control Total Processing Performance: dense TFLOP/s x bits"),
    ("lead_time_weeks_new", "weeks", "delivery of new hardware (data/facility.csv)"),
    ("workstation", "bool", "1-4 actively cooled cards in one tower workstation, not a server"),
    ("server_cost_usd_per_node", "USD", "server (or workstation) around the GPUs, per node"),
    ("fabric_cost_usd_per_gpu", "USD/GPU", "scale-out network per GPU (0 on one node)"),
    ("layout", "text", "parallel layout (workbook.text.layout_label)"),
    ("acquisition", "choice", "rent-spot, rent-on-demand, rent-reserved, buy-new, buy-used"),
    ("price", "USD", "default price: per GPU-hour to rent, per GPU to buy; NaN if none"),
    ("price_basis", "text", "where the price comes from (data/prices.csv basis)"),
    ("price_sourced", "bool", "a price a buyer can check or their own (catalog.price_is_sourced)"),
    (
        "price_derivation",
        "text",
        "a sourced price derived from others: its formula in the part's own terms "
        "(data/price_derivations.csv, catalog.derived.generic_formula); '' for a quote",
    ),
    ("is_buy", "bool", "an owned cluster (buy-new or buy-used)"),
    ("life_years", "yr", "years the hardware is depreciated over"),
    ("needs_retrofit", "bool", "bought liquid-only hardware for air racks"),
    ("retrofit_usd", "USD", "liquid-cooling retrofit, where the scenario allows it"),
    ("pue", "ratio", "facility power / IT power (liquid after a retrofit)"),
    ("base_lead_time_days", "days", "wait for hardware and any port before the lead-time factor"),
    ("delivery_days", "days", "new hardware's delivery within that wait, median (else 0)"),
    ("delivery_sigma_below", "ln x", "its log spread below the median (data/facility.csv low)"),
    ("delivery_sigma_above", "ln x", "its log spread above the median (data/facility.csv high)"),
    ("porting_weeks", "weeks", "weeks to port the team's code to the stack (TPU, Trainium)"),
    ("porting_usd", "USD", "engineers' cost of that port, charged to the first year"),
    ("spot_overhead", "ratio", "extra run time on spot (preemptions)"),
    ("electricity", "USD/kWh", "electricity price"),
    ("colocation", "USD/kW-month", "colocation price of owned racks"),
    ("resale", "ratio", "resale value at end of life / purchase price"),
    ("capital_rate", "1/yr", "cost of capital"),
    ("idle_power_fraction", "ratio", "power drawn while idle / busy power"),
    ("base_wall_days", "days", "days per run before the spot overhead and factors"),
    (
        "staff_full_year_usd",
        "USD/yr",
        "platform engineers of an owned multi-node cluster or a large rental, a whole year",
    ),
    (
        "software_usd_per_year",
        "USD/yr",
        "the team's time an immature software stack takes a year (ROCm, SynapseAI)",
    ),
    ("run_pue", "ratio", "PUE a run's energy is counted at: the site's if owned, cloud_pue rented"),
    ("grid_kg_co2e_per_kwh", "kg CO2e/kWh", "carbon intensity of the run's electricity"),
    ("network_tiers", "count", "switch layers of the scale-out network: 0 (one node) to 3"),
    ("network_usd", "USD", "scale-out network of an owned cluster, by its tiers (capex)"),
    ("spare_fraction", "ratio", "spare GPUs and servers kept by an owned multi-node cluster"),
    ("burn_in_days", "days", "setup and burn-in of an owned cluster, in its lead time"),
    ("setup_usd", "USD", "energy of the burn-in at full power, capitalised (capex)"),
    ("support_fraction", "1/yr", "support contract a year / hardware capex (owned)"),
    ("storage_tb", "TB", "dataset and kept checkpoints the project stores"),
    ("storage_usd_per_year", "USD/yr", "that storage a year: owned, or the provider tier's"),
    ("egress_usd_per_run", "USD", "a rental's egress of one full checkpoint per run"),
    ("provider_price_factor", "x", "a rental's provider tier price / the default price"),
    ("provider_goodput", "ratio", "a rental's provider tier goodput / the engine's"),
    ("why_precision", "text", "why the precision fails ('' where it holds)"),
    ("why_memory", "text", "why the model does not fit in memory"),
    ("why_scale", "text", "why too few GPUs can be kept busy"),
    ("why_availability", "text", "why this mode or count cannot be had"),
    ("why_site_power", "text", "why an owned cluster exceeds the site's power"),
    ("why_rack_power", "text", "why one block exceeds the rack limit"),
    ("why_cooling", "text", "why the racks cannot cool it"),
    ("why_team", "text", "why the team cannot run it (the article's rules)"),
    ("static_ok", "bool", "no why_* of this step is set"),
)
_EVALUATE = (
    ("wall_days", "days", "days per run (median): base x time factors x (1 + spot overhead)"),
    ("wall_days_p10", "days", "10th percentile of wall_days (the time band)"),
    ("wall_days_p90", "days", "90th percentile of wall_days"),
    ("lead_time_days", "days", "wait for the hardware (and any port to its stack)"),
    ("time_to_result_days", "days", "lead time + one run (median)"),
    ("time_to_result_days_p10", "days", "lead time + wall_days_p10"),
    ("time_to_result_days_p90", "days", "lead time + wall_days_p90"),
    ("cost_per_run_usd", "USD", "cost per year / runs per year (median run time)"),
    ("cost_per_run_usd_p10", "USD", "cost per run at wall_days_p10"),
    ("cost_per_run_usd_p90", "USD", "cost per run at wall_days_p90"),
    ("cost_per_year_usd", "USD/yr", "rent for the year's runs (+ any port), or owning a year"),
    ("first_year_cost_usd", "USD", "capex + a year's opex (owned); a year's opex (rented)"),
    ("usd_per_million_tokens", "USD/Mtoken", "cost per run per million training tokens"),
    (
        "schedule_fits_year",
        "bool",
        "the year's runs fit in 8,760 hours at the run time's confidence quantile",
    ),
    ("capex_usd", "USD", "purchase of an owned cluster: GPUs to setup (0 when rented)"),
    ("gpu_usd", "USD", "the GPUs of an owned cluster (capex)"),
    ("server_usd", "USD", "the servers around them (capex)"),
    ("spares_usd", "USD", "spare GPUs and servers on the shelf (capex)"),
    ("depreciation_usd_per_year", "USD/yr", "(capex - resale) / life (owned)"),
    ("capital_usd_per_year", "USD/yr", "cost of capital on the average book value (owned)"),
    ("energy_usd_per_year", "USD/yr", "electricity of an owned cluster, busy and idle"),
    ("colocation_usd_per_year", "USD/yr", "colocation of the owned racks"),
    ("support_usd_per_year", "USD/yr", "support contract of an owned cluster"),
    ("fixed_usd_per_year", "USD/yr", "cost per year of an owned cluster but its energy"),
    ("rent_usd_per_year", "USD/yr", "GPU rent of the year's runs (a reservation: the year's)"),
    (
        "staff_usd_per_year",
        "USD/yr",
        "platform engineers paid: owned or reserved the whole year, else the runs' share of it",
    ),
    ("egress_usd_per_year", "USD/yr", "a rental's egress of the year's runs"),
    ("opex_usd_per_year", "USD/yr", "energy to support (owned); rent, port, storage, egress"),
    ("steady_year_cost_usd", "USD/yr", "a year after the first: opex without one-off costs"),
    ("energy_kwh", "kWh", "one run's electricity (median): it_kw x run_pue x hours"),
    ("co2e_kg", "kg CO2e", "one run's emissions: energy_kwh x grid_kg_co2e_per_kwh"),
    (
        "p_deadline",
        "probability",
        "a finished run by the deadline, lead time included (new hardware's delivery as a band)",
    ),
    ("p_budget", "probability", "the first year within the budget"),
    ("p_schedule", "probability", "the year's runs fit in a year (they share the run's band)"),
    ("deadline_ok", "bool", "p_deadline at least the scenario's confidence"),
    ("lead_ok", "bool", "lead time within the scenario's tolerance"),
    ("budget_ok", "bool", "p_budget at least the scenario's confidence"),
    ("feasible", "bool", "every constraint holds and the cost is finite"),
)
_REASONS = (
    ("why_deadline", "text", "why the runs miss the deadline or do not fit in a year"),
    ("why_lead_time", "text", "why the wait for the hardware is too long"),
    ("why_budget", "text", "why the first year exceeds the budget"),
    ("failed", "text", "every why_* of the option, joined by '; '"),
    ("n_failed", "count", "constraints that fail"),
    ("shortfall", "score", "distance from feasible: 10 per static failure + log overshoots"),
)

#: Every column of ``Recommendation.options``, in the frame's order.
OPTION_COLUMNS: tuple[Column, ...] = tuple(
    Column(name, unit, step, meaning)
    for step, table in zip(STEPS, (_ESTIMATE, _SWEEP, _OPTIONS, _EVALUATE, _REASONS))
    for name, unit, meaning in table
)


def option_columns(step: str | None = None) -> tuple[str, ...]:
    """Names of the declared columns (of one step, or all), in the frame's order."""
    if step is not None and step not in STEPS:
        raise ValueError(f"step={step!r} is unknown; allowed: {', '.join(STEPS)}")
    return tuple(c.name for c in OPTION_COLUMNS if step is None or c.step == step)


def _table_text() -> str:
    """The declared table as reStructuredText lines for the module docstring."""
    title = "Columns (name [unit or kind], step: meaning)"
    lines = ["", title, "-" * len(title), ""]
    lines += [f"- ``{c.name}`` [{c.unit}], {c.step}: {c.meaning}" for c in OPTION_COLUMNS]
    return "\n".join(lines) + "\n"


__doc__ = (__doc__ or "") + _table_text()
