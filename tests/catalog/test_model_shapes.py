"""data/model_shapes.csv: each benchmark row's exact shape (issue 19, part 1). The shapes count
what the rows publish, every benchmark row has one unless its architecture is one the shape does
not describe, and a row naming an unknown shape is refused by name."""

import pandas as pd
import pytest

from workbook.calibrate.runs import SHAPE_CONFIG_COLUMNS
from workbook.catalog import CatalogError
from workbook.catalog.tables import check_references, load_shipped_tables
from workbook.model import ModelShape


def _shape(r) -> ModelShape:
    counts = [int(r[k]) for k in SHAPE_CONFIG_COLUMNS if k != "head_dim"]
    head = None if pd.isna(r["head_dim"]) else int(r["head_dim"])
    return ModelShape(*counts, tie_embeddings=bool(r["tie_embeddings"]), head_dim=head)


def test_each_shape_counts_the_parameters_its_rows_publish():
    """A shape's total parameter count is within 0.5 % of every row that names it (e.g. Llama 3.1
    405B 405,853,388,800 = the NeMo rows' 405.85B; Llama 2 70B 68,976,648,192 = the MLPerf LoRA
    rows'; Nemotron-4 340B 341.0B; gpt-oss-120b 116.8B). The two-matrix MLPs at their
    SwiGLU-equivalent width count the same: MPT-7B 6.649B against the benchmark's 6.659B."""
    tables = load_shipped_tables()
    shapes = tables["model_shapes"].set_index("shape_id")
    runs = tables["published_runs"].dropna(subset=["shape_id"])
    assert len(runs) >= 50
    for r in runs.itertuples():
        n = _shape(shapes.loc[r.shape_id]).n_params
        assert n == pytest.approx(r.params_total, rel=0.005), (r.run_id, n)


def test_every_benchmark_row_has_a_shape_unless_its_attention_is_latent():
    """Only DeepSeek-V3 and Kimi K2 (multi-head latent attention, shared experts, dense first
    layers: what ModelShape refuses) keep the shape derived from their active parameters."""
    runs = load_shipped_tables()["published_runs"]
    bench = runs[
        (runs["row_type"] == "throughput_benchmark") & runs["tokens_per_s_per_gpu"].notna()
    ]
    unshaped = bench[bench["shape_id"].isna()]["model"]
    assert len(unshaped) == 15  # NeMo 25.09 adds 3 DeepSeek-V3 rows
    assert unshaped.str.contains("DeepSeek|Kimi").all()


def test_an_unknown_shape_id_is_refused_by_name():
    tables = load_shipped_tables()
    runs = tables["published_runs"].copy()
    runs.loc[runs.index[0], "shape_id"] = "llama9-1t"
    tables["published_runs"] = runs
    with pytest.raises(CatalogError, match="'llama9-1t' is not in model_shapes.csv"):
        check_references(tables)
