"""Published training-framework configuration files (torchtitan TOML, NeMo YAML) shared by the
config-file tests (imported as a module, like hf_configs.py)."""

#: pytorch/torchtitan, torchtitan/models/llama3/train_configs/llama3_8b.toml (commit f3534d7),
#: the tables the reader uses, as published (the other tables only shortened).
TORCHTITAN_LLAMA3_8B = """\
# torchtitan Config.toml
# NOTE: this toml config is a preset for 64 A100 GPUs.

[job]
dump_folder = "./outputs"
description = "Llama 3 8B training"

[model]
name = "llama3"
flavor = "8B"
tokenizer_path = "./assets/tokenizer/original/tokenizer.model"
# converters = ["float8"]

[optimizer]
name = "AdamW"
lr = 3e-4
eps = 1e-8

[training]
batch_size = 1
seq_len = 8192
max_norm = 1.0  # grad norm clipping
steps = 1000
compile = false
dataset = "c4"

[parallelism]
data_parallel_replicate_degree = 1
data_parallel_shard_degree = -1
tensor_parallel_degree = 1

[activation_checkpoint]
mode = "selective"  # ["none", "selective", "full"]
"""

#: NVIDIA/NeMo-Framework-Launcher, launcher_scripts/conf/training/llama/llama3_1_8b.yaml: the
#: run, trainer and model sections as published (model keys the reader does not use shortened;
#: the data_prefix list cut to two entries).
NEMO_LLAMA31_8B = """\
defaults:
  - _self_
  - optional tp_overlap@model.ub_tp_comm_overlap_cfg:
run:
  name: llama3_1_8b
  results_dir: ${base_results_dir}/${.name}
trainer:
  num_nodes: 16
  devices: 8
  precision: bf16
model:
  mcore_gpt: true
  micro_batch_size: 1
  global_batch_size: 2048
  tensor_model_parallel_size: 1
  pipeline_model_parallel_size: 1
  context_parallel_size: 2
  encoder_seq_length: 8192
  max_position_embeddings: 8192
  num_layers: 32
  hidden_size: 4096
  ffn_hidden_size: 14336
  num_attention_heads: 32
  num_query_groups: 8
  normalization: rmsnorm
  make_vocab_size_divisible_by: 128
  bias: false
  activation: fast-swiglu
  position_embedding_type: rope
  rotary_base: 500000.0
  attention_type: multihead
  share_embeddings_and_output_weights: false
  tokenizer:
    library: huggingface
    type: meta-llama/Meta-Llama-3.1-8B
    use_fast: true
  optim:
    name: mcore_distributed_optim
    lr: 1e-4
    betas:
      - 0.9
      - 0.95
    sched:
      name: CosineAnnealing
      warmup_steps: 500
  data:
    seq_length: 8192
    data_prefix:
    - .0333
    - ${data_dir}/my-llama_00_text_document
"""

#: NVIDIA/NeMo-Framework-Launcher, launcher_scripts/conf/training/mixtral/mixtral_8x7b.yaml:
#: the model keys of the shape, as published.
NEMO_MIXTRAL_8X7B = """\
model:
  mcore_gpt: true
  moe_grouped_gemm: true
  global_batch_size: 256
  encoder_seq_length: 4096
  num_layers: 32
  hidden_size: 4096
  ffn_hidden_size: 14336
  num_attention_heads: 32
  activation: fast-swiglu
  moe_router_topk: 2
  num_moe_experts: 8
  share_embeddings_and_output_weights: false
  num_query_groups: 8
  tokenizer:
    library: huggingface
    type: mistralai/Mixtral-8x7B-v0.1
  data:
    seq_length: 4096
"""

#: A Megatron-LM / NeMo style YAML of Qwen3-30B-A3B (the keys of Megatron-Bridge's Qwen3 MoE
#: provider: kv_channels 128 is the head size; 128 experts, top 8, expert FFN 768).
NEMO_QWEN3_30B_A3B = """\
model:
  num_layers: 48
  hidden_size: 2048
  ffn_hidden_size: 6144
  moe_ffn_hidden_size: 768
  num_attention_heads: 32
  num_query_groups: 4
  kv_channels: 128
  num_moe_experts: 128
  moe_router_topk: 8
  swiglu: true
  share_embeddings_and_output_weights: false
  vocab_size: 151936
  seq_length: 4096
"""
