"""Step time and the layout search (workbook.model.step_time): communication, the chosen layout's
memory ledger, and the choice between layouts."""

import numpy as np
import pandas as pd
import pytest

from workbook import estimate_frame, estimate_training
from workbook.model.memory import activation_memory_gb, model_state_memory_gb
from workbook.model.step_time import Layout, pick_layout


def test_network_matters_for_big_dp_and_not_inside_one_node():
    """70B on 256 H100: a 12.5 Gb/s-per-GPU Ethernet forces a layout with less data-parallel traffic
    (more pipeline stages) and is slower than NDR InfiniBand; inside one node the fabric is unused.
    """
    ib = estimate_training(70e9, 1e11, "h100-sxm", 256, fabric="ib-ndr-400")
    eth = estimate_training(70e9, 1e11, "h100-sxm", 256, fabric="eth-100-shared")
    one_node_ib = estimate_training(7e9, 1e10, "h100-sxm", 8, fabric="ib-ndr-400")
    one_node_eth = estimate_training(7e9, 1e10, "h100-sxm", 8, fabric="eth-100-shared")
    assert eth.wall_days > ib.wall_days
    assert one_node_eth.wall_days == pytest.approx(one_node_ib.wall_days)


def test_article_b200_200gbe_vs_a100_ib_is_computed_not_asserted():
    """The article: 'A B200 in a 2-node cluster with 200GbE is slower than an A100 in an 8-node
    cluster with InfiniBand 400Gb/s NDR.' For a 7B model, 100B tokens, the engine finds the
    opposite: data-parallel gradients cross the 200GbE link once per 4M-token step, which a backward
    pass mostly hides."""
    b200 = estimate_training(7e9, 1e11, "b200-hgx", 16, fabric="eth-200-shared")
    a100 = estimate_training(7e9, 1e11, "a100-80gb-sxm", 64, fabric="ib-ndr-400")
    assert b200.wall_days < a100.wall_days


def test_the_chosen_layout_keeps_the_memory_ledger():
    """memory_per_gpu_gb = model states (memory.model_state_memory_gb of the chosen ZeRO stage and
    degrees, mixed Adam) + activations (memory.activation_memory_gb of the chosen recompute)."""
    cfg = pd.DataFrame(
        {
            "n_params": [7e9, 70e9, 405e9, 13e9],
            "n_tokens": [1e12] * 4,
            "accelerator": ["h100-sxm", "h100-sxm", "h200-sxm", "a100-40gb-sxm"],
            "n_gpus": [8, 256, 2048, 1],
        }
    )
    df = estimate_frame(cfg)
    assert set(df["zero_stage"]) >= {1, 3}
    for _, r in df.iterrows():
        states = model_state_memory_gb(
            r.n_params, zero_stage=r.zero_stage, dp=r.dp, tp=r.tp, pp=r.pp
        )
        act = activation_memory_gb(
            r.seq_len, 1.0, r.d_model, r.n_layers, tp=r.tp, recompute=r.recompute
        )
        assert r.memory_per_gpu_gb == pytest.approx(states + act, rel=1e-12)


def _layout(fits, memory_gb, valid=True):
    one = np.ones(2)
    return Layout(
        tp=one,
        pp=one,
        dp=one,
        n_used=one,
        zero_stage=0 * one,
        recompute=0 * one,
        state_gb=np.asarray(memory_gb, float),
        activation_gb=0 * one,
        memory_per_gpu_gb=np.asarray(memory_gb, float),
        fits_in_memory=np.asarray(fits),
        valid=np.asarray(valid),
        micro_batches=one,
    )


def test_pick_layout_takes_the_fastest_fit_and_never_an_invalid_layout():
    """Row 0: the slower layout fits, the faster does not -> the fit. Row 1: nothing fits -> a
    valid layout, never the invalid one however fast."""
    fast = (_layout([False, False], [90.0, 200.0]), {"step_s": np.array([1.0, 1.0])})
    slow = (_layout([True, False], [70.0, 150.0]), {"step_s": np.array([5.0, 9.0])})
    invalid = (
        _layout([False, False], [1.0, 1.0], valid=False),
        {"step_s": np.array([0.1, 0.1])},
    )
    layout, step = pick_layout([fast, slow, invalid])
    assert step["step_s"][0] == 5.0 and layout.memory_per_gpu_gb[0] == 70.0
    assert step["step_s"][1] in (1.0, 9.0) and layout.valid[1]


@pytest.mark.parametrize("optimizer", ["adam-mixed-fp32-grads", "adam-fp8"])
def test_the_layout_search_uses_the_memory_ledgers_zero_split(optimizer):
    """Every optimizer scheme's states follow memory.model_state_memory_gb at the chosen stage
    (before, ZeRO-1 kept 4 B/param of weights + gradients unsharded whatever the scheme)."""
    cfg = pd.DataFrame(
        {
            "n_params": [7e9, 70e9, 13e9],
            "n_tokens": [1e12] * 3,
            "accelerator": ["h100-sxm", "h100-sxm", "b200-hgx"],
            "n_gpus": [64, 256, 16],
            "optimizer": [optimizer] * 3,
        }
    )
    for _, r in estimate_frame(cfg).iterrows():
        states = model_state_memory_gb(
            r.n_params, zero_stage=r.zero_stage, dp=r.dp, tp=r.tp, pp=r.pp, optimizer=optimizer
        )
        act = activation_memory_gb(
            r.seq_len, 1.0, r.d_model, r.n_layers, tp=r.tp, recompute=r.recompute
        )
        assert r.memory_per_gpu_gb == pytest.approx(states + act, rel=1e-12)


def test_a_sweep_picks_the_same_layouts_as_each_row_alone():
    """The layout search skips, per layout, the rows that cannot host it (too few GPUs, a tensor
    degree beyond the part's scale-up domain) and computes the rest together: every row of a mixed
    sweep (1-16,384 GPUs, PCIe cards, NVL72 racks, LoRA, ZeRO-3 sizes) gets exactly the layout and
    step time it gets alone, where nothing is skipped."""
    rows = [
        (7e9, "h100-sxm", 1, "full"),
        (70e9, "h100-sxm", 512, "full"),
        (405e9, "gb200-nvl72", 4096, "full"),
        (70e9, "gb200-nvl72", 72, "lora"),
        (13e9, "l40s", 8, "full"),
        (180e9, "b200-hgx", 16384, "full"),
        (34e9, "mi300x", 64, "qlora"),
        (7e9, "rtx-6000-ada", 2, "lora"),
    ]
    cfg = pd.DataFrame(
        [dict(n_params=p, n_tokens=1e11, accelerator=a, n_gpus=g, method=m) for p, a, g, m in rows]
    )
    together = estimate_frame(cfg)
    cols = ["tp", "pp", "dp", "zero_stage", "recompute", "memory_per_gpu_gb", "step_s"]
    alone = pd.concat([estimate_frame(cfg.iloc[[i]]) for i in range(len(cfg))], ignore_index=True)
    assert set(together["tp"]) >= {1, 8} and together["pp"].max() > 1
    pd.testing.assert_frame_equal(together[cols], alone[cols], check_exact=True)
