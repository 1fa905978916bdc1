"""What a faster :func:`workbook.model.estimate_frame` must not change: its every output column on a
varied, seeded set of configurations (every accelerator and fabric, 1-16,384 GPUs, dense and MoE
sizes, derived and exact shapes, every precision (unsupported ones included), method, optimizer,
attention convention, input pipeline, cooling and software stack, given and default batches).

``tests/model/estimate_frame_fixture.csv.gz`` holds the configurations and what the engine returned
for them at the commit that wrote it (floats written with ``repr``, read back exactly);
``tests/model/test_frame_fixture.py`` compares. Write it anew only for a change that is meant to
move an estimate, and say so in the CHANGELOG:

    .venv/bin/python tests/frame_capture.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from workbook import estimate_frame, load_catalog

FIXTURE = Path(__file__).resolve().parent / "model" / "estimate_frame_fixture.csv.gz"
#: Rows in the fixture, and the seed that draws them.
ROWS, SEED = 600, 19
#: Prefix of the configuration columns in the fixture (the rest are estimate_frame's outputs).
IN = "in:"
#: Exact shapes (layers, d_model, heads, KV heads, FFN, vocabulary, experts, experts per token):
#: Llama 3 8B and 70B, Mixtral 8x7B (their Hugging Face config.json), a small MHA model.
SHAPES = (
    (32, 4096, 32, 8, 14336, 128256, 1, 1),
    (80, 8192, 64, 8, 28672, 128256, 1, 1),
    (32, 4096, 32, 8, 14336, 32000, 8, 2),
    (12, 768, 12, 12, 3072, 50257, 1, 1),
)
SHAPE_NAMES = (
    "n_layers",
    "d_model",
    "n_heads",
    "n_kv_heads",
    "ffn_hidden",
    "vocab_size",
    "n_experts",
    "experts_per_token",
)


def _pick(rng, values, n):
    """``n`` draws from ``values`` (any objects, None included)."""
    return [values[i] for i in rng.integers(0, len(values), n)]


def fixture_configs(n: int = ROWS, seed: int = SEED) -> pd.DataFrame:
    """The seeded configuration frame of the fixture."""
    cat = load_catalog()
    rng = np.random.default_rng(seed)
    size = np.array(_pick(rng, [1.2e8, 1e9, 7e9, 13e9, 34e9, 70e9, 180e9, 405e9, 1e12], n))
    active = np.where(rng.random(n) < 0.2, size * rng.choice([0.05, 0.25, 0.5], n), np.nan)
    derived = rng.random(n) < 0.15
    cfg = pd.DataFrame(
        {
            "accelerator": _pick(rng, cat.tables["accelerators"]["accelerator_id"].tolist(), n),
            "n_gpus": _pick(rng, [1, 2, 8, 16, 24, 64, 72, 128, 512, 1024, 4096, 16384], n),
            "n_params": size,
            "n_active_params": active,
            "n_tokens": size * np.array(_pick(rng, [1.0, 20.0, 100.0], n)),
            "seq_len": _pick(rng, [512, 2048, 4096, 8192, 32768], n),
            "n_layers": np.where(derived, np.round(np.cbrt(size / 196608.0)) + 1, np.nan),
            "d_model": np.where(derived, 128.0 * (np.round(np.cbrt(size / 196608.0)) + 1), np.nan),
            "precision": _pick(rng, ["bf16", "bf16", "fp8", "fp4"], n),
            "method": _pick(rng, ["full", "full", "lora", "qlora"], n),
            "fabric": _pick(rng, [None, *cat.tables["fabrics"]["fabric_id"].tolist()], n),
            "cooling": _pick(rng, [None, None, "air", "liquid"], n),
            "attention": _pick(rng, ["causal", "full", "none"], n),
            "input_pipeline": _pick(rng, ["compiled", "compiled", "python"], n),
            "global_batch_tokens": _pick(rng, [np.nan, np.nan, 1e6, 4e6, 6e7], n),
            "optimizer": _pick(rng, ["adam-mixed", "adam-mixed-fp32-grads", "adam-fp8"], n),
            "software_stack": _pick(rng, ["typical", "typical", "tuned", "engine"], n),
        }
    )
    exact = (rng.random(n) < 0.15) & ~derived
    shapes = np.array(SHAPES, float)[rng.integers(0, len(SHAPES), n)]
    for j, name in enumerate(SHAPE_NAMES):
        given = cfg[name].to_numpy(float) if name in cfg else np.full(n, np.nan)
        cfg[name] = np.where(exact, shapes[:, j], given)
    cfg.loc[exact, "n_active_params"] = np.nan  # the shape's counts are not checked here
    return cfg


def capture() -> pd.DataFrame:
    """The fixture: the configurations (``in:`` columns) and estimate_frame's outputs."""
    cfg = fixture_configs()
    out = estimate_frame(cfg)
    return pd.concat([cfg.add_prefix(IN), out], axis=1)


def read_fixture() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The fixture's configurations and expected outputs (floats exactly as written)."""
    df = pd.read_csv(FIXTURE, float_precision="round_trip", keep_default_na=False, na_values=[""])
    cfg = df[[c for c in df.columns if c.startswith(IN)]]
    cfg = cfg.rename(columns=lambda c: c[len(IN) :])
    for c in ("fabric", "cooling"):
        cfg[c] = cfg[c].astype(object).where(cfg[c].notna(), None)
    return cfg, df[[c for c in df.columns if not c.startswith(IN)]]


if __name__ == "__main__":
    capture().to_csv(FIXTURE, index=False, float_format=None)
    print(f"wrote {FIXTURE} ({ROWS} configurations)")
