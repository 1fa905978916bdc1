"""Write the guided analyst notebooks notebooks/01_*.ipynb ... 07_*.ipynb.

Each notebook is thin (STYLE.md): imports, a ``parameters`` cell (papermill tag; type-annotated,
no '=' inside comments), then one markdown explanation and one call into ``workbook.analyses``
per step, charts as static SVG (``workbook.charts.to_svg``: no JavaScript, works offline), and
one summary cell marked ``# NBVAL_CHECK_OUTPUT`` that prints the key figures as plain text.

Run: .venv/bin/python tools/make_guides.py
then: .venv/bin/python tools/refresh_outputs.py notebooks/0*.ipynb   (stores the reference outputs)
"""

from __future__ import annotations

from pathlib import Path

import nbformat as nbf

NB = Path(__file__).resolve().parents[1] / "notebooks"

SNAPSHOT_MD = "### Data\nWhich data snapshot and which overrides these numbers used."
SNAPSHOT_CODE = "print(about_data(catalog))"


def notebook(title: str, imports: str, parameters: str, steps: list[tuple[str, str]], summary: str) -> nbf.NotebookNode:
    """A guided notebook: title, imports, parameters (tagged), (markdown, code) steps, checked summary."""
    nb = nbf.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    cells = [nbf.v4.new_markdown_cell(title), nbf.v4.new_code_cell(imports),
             nbf.v4.new_markdown_cell("### Parameters\nChange these, or pass them with papermill "
                                      "(`papermill -p name value`). Ids: `workbook.accelerators()`, "
                                      "`data/fabrics.csv`. `overrides` is the path of an overrides CSV "
                                      "(table,key,column,value,source,notes) or None for the shipped data.")]
    params = nbf.v4.new_code_cell(parameters)
    params.metadata["tags"] = ["parameters"]
    cells.append(params)
    cells.append(nbf.v4.new_code_cell("catalog = load_catalog(overrides)"))
    for md, code in steps:
        cells += [nbf.v4.new_markdown_cell(md), nbf.v4.new_code_cell(code)]
    cells += [nbf.v4.new_markdown_cell("### Summary\nThe key figures as plain text (checked by nbval)."),
              nbf.v4.new_code_cell("# NBVAL_CHECK_OUTPUT\n" + summary),
              nbf.v4.new_markdown_cell(SNAPSHOT_MD), nbf.v4.new_code_cell(SNAPSHOT_CODE)]
    nb.cells = cells
    return nb


def step(markdown: str, code: str) -> tuple[str, str]:
    """One step: a markdown explanation and the code cell that calls the package."""
    return markdown, code


def imports(*names: str, svg: bool = True) -> str:
    lines = ["from typing import Optional  # papermill reads Optional[str], not str | None", ""]
    if svg:
        lines += ["from IPython.display import SVG", ""]
    lines += ["from workbook import load_catalog"]
    lines += ["from workbook.analyses import (", *[f"    {n}," for n in ("about_data", *names)], ")"]
    if svg:
        lines += ["from workbook.charts import to_svg"]
    return "\n".join(lines)


NOTEBOOKS = {
    "01_model_sizing_and_memory.ipynb": notebook(
        "# 1. Model sizing and memory fit\n"
        "How many GPUs of each kind does it take just to *hold* a training job, and where does the memory go? "
        "Full training with mixed-precision Adam needs 16 bytes per parameter before activations "
        "(ZeRO, arXiv 1910.02054); the engine shards them (ZeRO-1/3, tensor and pipeline parallelism) and "
        "recomputes activations until the job fits in the usable memory of each GPU.",
        imports("memory_fit_table", "memory_ledger_chart"),
        'n_params: float = 70e9  # model parameters [count]\n'
        'method: str = "full"  # full, lora or qlora\n'
        'compare_method: str = "qlora"  # a second method to compare with\n'
        'seq_len: int = 4096  # tokens per sequence\n'
        'max_gpus: int = 4096  # largest cluster tried [GPUs]\n'
        'accelerators: Optional[list] = None  # catalog ids, None for all\n'
        'overrides: Optional[str] = None  # overrides CSV path, None for the shipped data',
        [
            step("### The fewest GPUs that hold the job\nFor every accelerator the engine tries its cluster sizes "
             "(1, 2, 4 GPUs, whole nodes, whole NVL72 racks) and keeps the smallest that fits, with the layout it "
             "chose and the per-GPU ledger: weights, gradients, optimizer states, activations [GB]. `usable_gb` is "
             "the memory left after the runtime's share (`memory_usable_fraction`).",
             "fit = memory_fit_table(n_params, accelerators, method=method, seq_len=seq_len, max_gpus=max_gpus,\n"
             "                       catalog=catalog)\nfit"),
            step("### Where the memory goes\nThe ledger as stacked bars; the black tick is the usable memory per GPU. "
             "Optimizer states (12 of the 16 bytes per parameter) dominate full training.",
             "SVG(to_svg(memory_ledger_chart(fit)))"),
            step("### The same model, another method\nAdapters change the picture: LoRA keeps a frozen BF16 base, "
             "QLoRA a 4-bit one (0.516 bytes per parameter, arXiv 2305.14314). The article: \"If you are using QLoRA, "
             "you only need 4 GPUs at H200-level.\"",
             "other = memory_fit_table(n_params, accelerators, method=compare_method, seq_len=seq_len,\n"
             "                         max_gpus=max_gpus, catalog=catalog)\nother"),
        ],
        'print(f"{n_params:,.0f} parameters, {method} training, {seq_len} tokens per sequence")\n'
        'print(fit[["accelerator", "usable_gb", "min_gpus", "layout", "weights_gb", "grads_gb", "optimizer_gb",\n'
        '           "activations_gb", "total_gb"]].round(1).to_string(index=False))\n'
        'print(f"\\n{compare_method}:")\n'
        'print(other[["accelerator", "min_gpus", "total_gb"]].round(1).to_string(index=False))',
    ),
    "02_speed_and_efficiency.ipynb": notebook(
        "# 2. Speed and efficiency\n"
        "How long a run takes, and why. The engine's step time adds matmuls at measured achievable FLOP/s, "
        "HBM-bound work, the optimizer update, the exposed part of data- and tensor-parallel communication, the "
        "pipeline bubble and the named derates (software maturity, throttling, a Python input pipeline). This "
        "notebook shows that breakdown, checks the article's claim that the network beats the GPU (*\"A B200 in a "
        "2-node cluster with 200GbE networking is slower than an A100 in an 8-node cluster with InfiniBand "
        "400Gb/s NDR\"*) and its claim that memory bandwidth is the biggest factor in throughput.",
        imports("speed_table", "step_breakdown_chart", "network_comparison", "network_verdict",
                "bandwidth_vs_flops", "bandwidth_chart", "pilot_time_factor"),
        'n_params: float = 70e9  # model parameters [count]\n'
        'n_tokens: float = 1e12  # training tokens\n'
        'configs: list = [\n'
        '    {"accelerator": "a100-80gb-sxm", "n_gpus": 64},\n'
        '    {"accelerator": "h100-sxm", "n_gpus": 64},\n'
        '    {"accelerator": "h100-sxm", "n_gpus": 64, "input_pipeline": "python"},\n'
        '    {"accelerator": "h100-sxm", "n_gpus": 64, "precision": "fp8"},\n'
        '    {"accelerator": "b200-hgx", "n_gpus": 64},\n'
        '    {"accelerator": "b200-hgx", "n_gpus": 64, "fabric": "eth-200-shared"},\n'
        ']  # clusters to compare, keys accelerator, n_gpus, fabric, precision, input_pipeline\n'
        'network_model_sizes: list = [1e9, 7e9, 13e9, 30e9, 70e9]  # model sizes for the network claim\n'
        'no_overlap_fraction: float = 0.0  # stress case, share of gradient traffic hidden by the backward pass\n'
        'bandwidth_n_params: float = 7e9  # model for the bandwidth table\n'
        'bandwidth_n_gpus: int = 8  # GPUs for the bandwidth table\n'
        'pilot_tokens_per_s_per_gpu: float = 10643.0  # your pilot run, tokens/s per GPU (default MPT-7B on 8 H100, llm-foundry benchmark)\n'
        'pilot_n_params: float = 6658859008  # the pilot model, parameters [count]\n'
        'pilot_seq_len: int = 2048  # the pilot sequence length [tokens]\n'
        'pilot_config: dict = {"accelerator": "h100-sxm", "n_gpus": 8}  # the pilot cluster, keys as in configs\n'
        'overrides: Optional[str] = None  # overrides CSV path, None for the shipped data',
        [
            step("### Time to train on each cluster\nOne row per cluster: days, GPU-hours, MFU (of the dense peak at "
             "the precision used) and the step-time components in seconds per optimizer step. They add up to "
             "`step_s`; `derate_s` is the time lost to the named derates.",
             "speed = speed_table(n_params, n_tokens, configs, catalog=catalog)\nspeed"),
            step("### Where the step time goes\nThe same components per million tokens, so clusters of different "
             "sizes compare directly. A Python input pipeline shows up as `derate_s` (the article's 22 %), "
             "a slow fabric as exposed data-parallel time (`dp_exposed_s`) only when the backward pass cannot hide it.",
             "SVG(to_svg(step_breakdown_chart(speed)))"),
            step("### The article's network claim, computed\n2 nodes of 8 B200 on one 200GbE port per node "
             "(25 Gb/s per GPU, fabric `eth-200-shared`) against 8 nodes of 8 A100-80GB on NDR InfiniBand "
             "(400 Gb/s per GPU, `ib-ndr-400`), for several model sizes. `speed_vs_a100` is the tokens/s ratio; "
             "`dp_comm_s` the gradient traffic per step before overlap.",
             "network = network_comparison(network_model_sizes, n_tokens=n_tokens, catalog=catalog)\nnetwork"),
            step("### Verdict per model size\n`peak_ratio` is the clusters' dense BF16 peak ratio (16 x 2,250 vs "
             "64 x 312 TFLOP/s); `b200_speedup` what the engine predicts; the claim holds where it is below 1.",
             "network_verdict(network, catalog)"),
            step("### Stress case: no overlap at all\nThe same comparison with none of the gradient traffic hidden "
             "behind the backward pass (`dp_overlap_fraction` set to the parameter above): the most the network "
             "can cost.",
             "stressed = network_comparison(network_model_sizes, n_tokens=n_tokens, catalog=catalog,\n"
             "                              assumptions={\"dp_overlap_fraction\": no_overlap_fraction})\n"
             "network_verdict(stressed, catalog)"),
            step("### Step breakdown of the network comparison",
             "SVG(to_svg(step_breakdown_chart(network)))"),
            step("### Compute per byte of memory bandwidth\nDense FLOP per byte of HBM bandwidth (the roofline "
             "ridge point) for each accelerator, with the MFU the engine predicts and the share of the step spent "
             "in HBM-bound work (`memory_share`) versus matmuls (`matmul_share`). ROCm and Gaudi parts also carry "
             "their software-maturity derate.",
             "bandwidth = bandwidth_vs_flops(bandwidth_n_params, bandwidth_n_gpus, catalog=catalog)\nbandwidth"),
            step("### FLOP per byte against MFU", "SVG(to_svg(bandwidth_chart(bandwidth)))"),
            step("### Your own stack: a pilot run's time factor\nPublished runs on the same part and model size differ "
             "by up to 4.3x in efficiency (notebook 7), so the number that moves a plan most is your own. Run a short "
             "pilot, read its tokens/s per GPU from the training log, and compare it with the engine's steady-state "
             "throughput for the same model and cluster (no failures in a short run, so before goodput). "
             "`time_factor` (predicted / measured) is what to enter as the scenario's time factor (app step 4, "
             "`--set time_factor=` in reports). The default pilot is MosaicML's published MPT-7B benchmark on 8 H100 "
             "(`data/published_runs.csv`, `mpt-7b-bench-h100`): its MFU under llm-foundry's full-attention FLOP "
             "count, 46.44 % as published, comes out as `measured_mfu`.",
             "pilot = pilot_time_factor(pilot_tokens_per_s_per_gpu, pilot_n_params, pilot_config, seq_len=pilot_seq_len,\n"
             "                          attention=\"full\", catalog=catalog)\n"
             "pilot"),
        ],
        'cols = ["label", "wall_days", "mfu", "tokens_per_s", "step_s", "matmul_s", "memory_s", "dp_exposed_s",\n'
        '        "tp_exposed_s", "bubble_s", "derate_s"]\n'
        'print(speed[cols].round(3).to_string(index=False))\n'
        'print()\n'
        'print(network[["model", "cluster", "tokens_per_s", "speed_vs_a100", "step_s", "matmul_s", "memory_s",\n'
        '               "dp_comm_s", "dp_exposed_s", "tp_exposed_s", "bubble_s"]].round(3).to_string(index=False))\n'
        'print()\n'
        'print(network_verdict(stressed, catalog)[["model", "b200_speedup", "claim_holds"]].round(3).to_string(index=False))\n'
        'print()\n'
        'print(bandwidth[["accelerator", "flop_per_byte", "mfu", "matmul_share", "memory_share"]].round(3)\n'
        '      .to_string(index=False))\n'
        'print()\n'
        'print({k: round(v, 3) if isinstance(v, float) else v for k, v in pilot.items()})',
    ),
    "03_rent_vs_buy.ipynb": notebook(
        "# 3. Rent vs buy\n"
        "What one cluster costs per run and per year under every way of getting it: spot, on-demand, a 1-year "
        "reservation, buying new or used. Costs come from the decision engine (`workbook.decision.evaluate`): "
        "renting is GPU-hours x price (spot with its preemption overhead); owning is capex (GPUs, servers, "
        "network, any liquid retrofit) amortized to resale over the hardware life, plus cost of capital, "
        "colocation and energy at PUE. The article: *\"If you aren't training more than 3x/year, rent.\"*",
        imports("rent_vs_buy_table", "rent_vs_buy_curve", "rent_vs_buy_chart", "article_rent_vs_buy"),
        'accelerator: str = "h200-sxm"  # catalog id\n'
        'n_gpus: int = 128  # cluster size [GPUs], whole nodes\n'
        'n_params: float = 70e9  # model parameters [count]\n'
        'n_tokens: float = 1e12  # tokens per run\n'
        'runs_per_year: float = 2.0  # runs of this size per year\n'
        'cooling: str = "air"  # air or liquid racks for an owned cluster\n'
        'overrides: Optional[str] = None  # overrides CSV path, None for the shipped data',
        [
            step("### Cost of the cluster by acquisition mode\nPer run and per year at `runs_per_year`, first-year "
             "cash, capex and dollars per million training tokens; `schedule_fits_year` is False when the runs do "
             "not fit in 8,760 hours. `breakeven_runs_per_year` is where buying new beats renting on demand, "
             "`breakeven_busy_fraction` the share of the year the cluster must then be busy.",
             "table = rent_vs_buy_table(accelerator, n_gpus, n_params=n_params, n_tokens=n_tokens,\n"
             "                          runs_per_year=runs_per_year, cooling=cooling, catalog=catalog)\ntable"),
            step("### Cost per year against runs per year\nRenting grows with every run; owning is mostly fixed. "
             "The green dashed line is the break-even against on-demand.",
             "curve = rent_vs_buy_curve(accelerator, n_gpus, n_params=n_params, n_tokens=n_tokens, cooling=cooling,\n"
             "                          catalog=catalog)\n"
             "SVG(to_svg(rent_vs_buy_chart(curve, table[\"breakeven_runs_per_year\"].iloc[0])))"),
            step("### The article's rent-vs-buy paragraph, recomputed\n*\"A typical 70B pretraining run (5T tokens) "
             "takes roughly 48 days on 128 GPUs of H200. That's $502K in spot pricing. Buying the GPUs outright costs "
             "$1.8M ... you break even at about 2.5 long runs per year.\"* The same cluster and run through the "
             "engine. The run takes about ten times longer than claimed (the 48 days need 4x the H200's peak), so "
             "every money figure moves with it; the break-even expressed as the share of the year the cluster is "
             "busy stays close.",
             "article_rent_vs_buy(catalog)"),
        ],
        'print(f"{n_gpus} x {accelerator}, {n_params:,.0f} parameters on {n_tokens:,.0f} tokens, {runs_per_year:g} runs/yr")\n'
        'print(table[["acquisition", "price", "wall_days", "cost_per_run_usd", "cost_per_year_usd", "capex_usd",\n'
        '             "schedule_fits_year"]].round(2).to_string(index=False))\n'
        'print(table[["breakeven_runs_per_year", "breakeven_busy_fraction"]].iloc[:1].round(3).to_string(index=False))\n'
        'print()\n'
        'print(article_rent_vs_buy(catalog).round(3).to_string(index=False))',
    ),
    "04_power_and_cooling.ipynb": notebook(
        "# 4. Power and cooling\n"
        "A rack's power is not TDP x GPUs. Every GPU sits in a server whose CPUs, memory, NICs, switches, fans "
        "and power-supply losses draw several kW more (DGX B200: 14.3 kW for 8 x 1.0 kW GPUs). The article's power "
        "table multiplies TDP by 48; this notebook adds the host, counts racks at a few rack limits and converts "
        "to facility power at the PUE.",
        imports("power_table", "power_chart"),
        'accelerators: list = ["h100-sxm", "h200-sxm", "mi350x", "b200-hgx", "b300-hgx"]  # the article\'s table\n'
        'n_gpus: int = 48  # GPUs, as in the article\'s table\n'
        'rack_limits_kw: list = [20, 40, 135]  # rack power limits [kW], air, dense air, NVL72 liquid\n'
        'cooling: str = "air"  # air or liquid, sets the PUE\n'
        'nvl72_accelerators: list = ["gb200-nvl72", "gb300-nvl72"]  # rack-scale systems\n'
        'overrides: Optional[str] = None  # overrides CSV path, None for the shipped data',
        [
            step("### The article's method against servers\n`article_kw` is the article's \"Rack Power (48 GPUs)\", "
             "`tdp_x_gpus_kw` the same method with the catalog's TDP, `it_kw` nodes x (GPUs + host overhead). "
             "`racks_<L>kw` is the number of racks at each limit (<NA>: one node does not fit such a rack).",
             "power = power_table(accelerators, n_gpus=n_gpus, rack_limits_kw=rack_limits_kw, cooling=cooling,\n"
             "                    catalog=catalog)\npower"),
            step("### TDP x GPUs vs nodes x (GPUs + host)", "SVG(to_svg(power_chart(power)))"),
            step("### Rack-scale systems\nOne NVL72 rack (72 GPUs, 18 compute trays) must sit whole in one rack, "
             "so it needs a liquid-cooled rack of well over 100 kW (the article: \"a full 72-GPU NVL72 rack pulls "
             "more than a 100kW\").",
             "nvl72 = power_table(nvl72_accelerators, n_gpus=72, rack_limits_kw=rack_limits_kw, cooling=\"liquid\",\n"
             "                    catalog=catalog)\nnvl72"),
        ],
        'print(power.round(2).to_string(index=False))\n'
        'print()\n'
        'print(nvl72.round(2).to_string(index=False))',
    ),
    "05_team_and_software_risk.ipynb": notebook(
        "# 5. Team and software risk\n"
        "The article: *\"If your team is 5 people, do not pick AMD\"*, Gaudi 3 is not for distributed training, "
        "and CUDA's ecosystem is still the moat. The engine turns this into two things: a throughput multiplier "
        "per software stack (applied to every estimate) and team rules in the decision engine. This notebook "
        "shows both, then re-runs a preset scenario for several team profiles to see which accelerators each "
        "team may use and what the engine then recommends.",
        imports("software_maturity_table", "team_rules_table", "team_risk_table", "team_risk_matrix",
                "team_risk_reasons", svg=False),
        'preset: str = "band-7b-to-70b"  # a name in workbook.presets\n'
        'profiles: dict = {\n'
        '    "5 people, no platform eng.": {"team_size": 5, "platform_engineers": 0, "rocm_experience": False},\n'
        '    "15 people, 2 platform eng.": {"team_size": 15, "platform_engineers": 2, "rocm_experience": False},\n'
        '    "12 people, ROCm experience": {"team_size": 12, "platform_engineers": 1, "rocm_experience": True},\n'
        '    "platform team of 40": {"team_size": 300, "platform_engineers": 40, "rocm_experience": True},\n'
        '}  # team profiles, keys team_size, platform_engineers, rocm_experience\n'
        'overrides: Optional[str] = None  # overrides CSV path, None for the shipped data',
        [
            step("### Software maturity multipliers\nThroughput relative to CUDA, with the range the sensitivity "
             "analysis sweeps and the evidence (data/assumptions.csv).",
             "maturity = software_maturity_table(catalog)\nmaturity"),
            step("### The team rules of the decision engine\nThe thresholds come from data/assumptions.csv; "
             "the rules themselves live in `workbook.decision`.",
             "team_rules_table(catalog)"),
            step("### Which accelerators each team may use\nThe preset re-run once per profile through "
             "`workbook.recommend`. `yes`: every option passes the team rules; `rent; own <= k nodes`: owning more "
             "nodes needs more platform engineers; `<= 1 node`: not across nodes (Gaudi 3); `no`: not at all "
             "(ROCm without experience or platform engineers). The last row is the engine's pick for that team.",
             "risk = team_risk_table(preset, profiles, catalog=catalog)\nmatrix = team_risk_matrix(risk)\nmatrix"),
            step("### The engine's reasons\nThe first team reason for each rejected accelerator, word for word.",
             "team_risk_reasons(risk)"),
        ],
        'print(maturity[["software_stack", "value", "low", "high", "accelerators"]].to_string(index=False))\n'
        'print()\n'
        'print(matrix.to_string())',
    ),
    "06_article_claims_checked.ipynb": notebook(
        "# 6. The article's claims, checked\n"
        "Every numeric claim of the seed article is a row of `data/article_claims.csv` with the sourced or "
        "computed figure, a verdict (holds, wrong, contradicts-itself, physically-impossible, unverifiable) and the "
        "arithmetic behind it. Where the engine can recompute a claim (the headline run, spec-sheet figures, rack "
        "power, costs, memory fit, speed ratios), its own figure and verdict sit beside the table's.",
        imports("claims_table", "claims_overview", "claims_engine_view", "inference_table", "inference_verdict",
                svg=False) + "\nfrom workbook import check_claim",
        'inference_model_sizes: list = [8e9, 70e9]  # models for the inference claim [parameters]\n'
        'inference_price_basis: str = "rent-on-demand"  # rent-on-demand, rent-spot, rent-reserved-1y or owned\n'
        'overrides: Optional[str] = None  # overrides CSV path, None for the shipped data',
        [
            step("### Every claim and its verdict\nThe claimed value, the checked value and the verdict, with the "
             "arithmetic (`explanation`) and the engine's figure where it has one.",
             "claims = claims_table(catalog)\nclaims"),
            step("### Verdicts at a glance\nHow many claims fall in each verdict, how many the engine recomputes, "
             "and whether it reaches the same conclusion (for claims the table calls unverifiable the engine's "
             "verdict is new evidence from its model, so it is not counted as agreeing or disagreeing).",
             "claims_overview(claims)"),
            step("### What the engine says\nThe claims the engine recomputes, with the basis of its figure "
             "(catalog, arithmetic, or its time, memory, power and cost models).",
             "claims_engine_view(claims)"),
            step("### The headline: 70B on 5T tokens in 48 days on 128 H200\nTraining FLOPs (6 N D, the most "
             "favourable count) against what 128 GPUs can do in 48 days at their dense peak.",
             "print(check_claim(70e9, 5e12, \"h200-sxm\", 128, days=48, catalog=catalog).reason)"),
            step("### The inference claim\n*\"For inference-heavy workloads, the H200 or even the previous-gen L40S "
             "is a better price point per token\"* than the B300 and MI350X. Not in `article_claims.csv`; computed "
             "here with the serving model (`workbook.inference_frame`: decode bandwidth-bound, batch capped by KV-cache "
             "memory).",
             "inference = inference_table(inference_model_sizes, price_basis=inference_price_basis, catalog=catalog)\n"
             "inference"),
            step("### Inference verdict per model size", "inference_verdict(inference)"),
        ],
        'print(claims_overview(claims).to_string(index=False))\n'
        'print()\n'
        'print(claims_engine_view(claims)[["claim_id", "verdict", "engine_verdict", "engine_says"]].to_string(index=False))\n'
        'print()\n'
        'print(inference[["model", "accelerator", "article_says", "rank", "gpus_per_replica", "batch",\n'
        '                 "usd_per_million_tokens"]].round(3).to_string(index=False))\n'
        'print(inference_verdict(inference).round(3).to_string(index=False))',
    ),
    "07_estimate_accuracy.ipynb": notebook(
        "# 7. How accurate the estimates are\n"
        "The time model is calibrated and tested against published training runs (`data/published_runs.csv`: "
        "model cards and papers with GPU-hours). Calibration rows set the free constants; holdout rows were never "
        "used to fit anything. Next to it, a naive baseline: 6 N D at one constant MFU fitted to the same "
        "calibration rows. Most holdout runs were entered only after the constants were frozen, in batches "
        "(the prospective holdout, column `entry_batch`): the cleanest test. Every run is also predicted out of sample once: with the "
        "constants refitted on all the other runs (leave-one-out, `loo_error`).",
        imports("accuracy_table", "accuracy_summary", "accuracy_bias", "accuracy_floor", "twin_pair_table",
                "accuracy_chart", "benchmark_table", "throughput_ratio_table"),
        'overrides: Optional[str] = None  # overrides CSV path, None for the shipped data',
        [
            step("### Published vs predicted GPU-hours\nOne row per usable full run (`gpu_count_assumed`: the GPU "
             "count was not published, 2,048 assumed). `error` is predicted / published - 1; `loo_error` the same "
             "with the run left out of the fit.",
             "table = accuracy_table(catalog, out_of_sample=True)\ntable"),
            step("### Error metrics\nMedian absolute percentage error, share of runs within +-25 %, and the worst "
             "ratio either way; for the engine and the baseline, on all, calibration and holdout runs, and left out "
             "one at a time. The leave-one-out row is the honest error to expect on a run the model has not seen.",
             "summary = accuracy_summary(table)\nsummary"),
            step("### Systematic error by accelerator\nMedian signed error per accelerator (dense runs) and for "
             "MoE runs: negative means the runs took longer than predicted. A bias here is what to correct with "
             "your own measured MFU (the `gemm_efficiency` override) before trusting a comparison between "
             "accelerators.",
             "bias = accuracy_bias(table)\nbias"),
            step("### What no recalibration can fix\nThe best the engine could score if every accelerator (and the "
             "MoE runs) got its own multiplier, chosen in hindsight on these same runs, next to the targets. Where "
             "even that misses a target, no efficiency per part or software factor per vendor closes the gap: the "
             "published runs disagree with each other more than the target allows.",
             "floor = accuracy_floor(table)\nfloor"),
            step("### Twin runs that contradict any physical model\nDense runs on the same accelerator at the same "
             "precision, within 10 % in size, both with a published GPU count, where the run with no more GPUs and "
             "no longer sequences (less communication, fewer attention FLOPs per token) was the slower one. "
             "`ratio` is the faster's implied MFU over the slower's: a predictor that expects the slower run to be "
             "at least as fast is off by at least `min_worst_off` on one of the two. Above 1.67 both cannot be "
             "within +-25 %; above 4 both cannot be within 2x. What separates such runs (the cluster, its "
             "scheduler, the software, what the published hours include) is not in the published rows.",
             "twins = twin_pair_table(catalog)\ntwins"),
            step("### Predicted vs published\nLog axes; the dashed line is a perfect prediction, the band +-25 %.",
             "SVG(to_svg(accuracy_chart(table)))"),
            step("### Steady-state throughput against published benchmarks\nTokens/s per GPU between failures, "
             "as the vendors' and MosaicML's benchmarks measure it, against the engine's steady state for the same "
             "model, part, GPU count and precision: the time model with no goodput and no site in the way. The "
             "`source` is the software that set the record.",
             "bench = benchmark_table(catalog)\nbench.groupby(\"source\")[\"error\"].describe()"),
            step("### Speed ratios between accelerators\nPer-GPU throughput of the same model and software on two "
             "accelerators (MPT and NeMo benchmarks), predicted vs published: does the engine rank hardware right?",
             "ratios = throughput_ratio_table(catalog)\nratios"),
        ],
        'print(table[["run_id", "split", "accelerator", "n_gpus", "published_gpu_hours", "predicted_gpu_hours", "error",\n'
        '             "loo_error", "baseline_error"]].round(3).to_string(index=False))\n'
        'print()\n'
        'print(summary.round(3).to_string(index=False))\n'
        'print()\n'
        'print(bias.round(3).to_string(index=False))\n'
        'print()\n'
        'print(floor.round(3).to_string(index=False))\n'
        'print()\n'
        'print(twins[["slower", "faster", "accelerator", "ratio", "min_worst_off"]].round(3).to_string(index=False))\n'
        'print()\n'
        'print(bench[["run", "source", "published_tok_s_gpu", "predicted_tok_s_gpu", "error"]].round(3).to_string(index=False))\n'
        'print()\n'
        'print(ratios[["pair", "published_ratio", "predicted_ratio", "error"]].round(3).to_string(index=False))',
    ),
}


def main() -> None:
    NB.mkdir(exist_ok=True)
    for name, nb in NOTEBOOKS.items():
        nbf.validate(nb)
        nbf.write(nb, NB / name)
        print("wrote", NB / name)


if __name__ == "__main__":
    main()
