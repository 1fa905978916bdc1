"""Memory ledger: golden values from ZeRO (Rajbhandari et al. 2019) and Korthikanti et al. 2022."""

import numpy as np
import pytest

from workbook.model.memory import (
    activation_memory_gb,
    adapter_state_memory_gb,
    model_state_bytes_per_param,
    model_state_memory_gb,
    model_state_terms_gb,
)


def test_mixed_precision_adam_is_16_bytes_per_param():
    """ZeRO Sec. 3.1: 2 + 2 + 12 = 16 bytes per parameter."""
    assert model_state_bytes_per_param("adam-mixed") == 16


@pytest.mark.parametrize("stage, expected_gb", [(0, 120.0), (1, 31.4), (2, 16.6), (3, 1.9)])
def test_zero_figure_1(stage, expected_gb):
    """ZeRO (arXiv 1910.02054) Figure 1: 7.5B parameters, 64-way data parallel, K = 12."""
    got = model_state_memory_gb(7.5e9, zero_stage=stage, dp=64)
    assert got == pytest.approx(expected_gb, abs=0.05)


def test_tensor_and_pipeline_split_every_term():
    assert model_state_memory_gb(70e9, tp=8, pp=4) == pytest.approx(16 * 70e9 / 32 / 1e9)


def test_fp8_optimizer_scheme_is_6_bytes():
    """FP8-LM (arXiv 2310.18313): 16 -> 6 bytes per parameter of model states."""
    assert model_state_bytes_per_param("adam-fp8") == 6


def test_korthikanti_no_recompute_formula():
    """Korthikanti et al. 2022 (arXiv 2205.05198) Eq. 1: s b h (34 + 5 a s / h) bytes per layer.
    GPT-3 175B: s=2048, b=1, h=12288, a=96: 2048*12288*(34 + 5*96*2048/12288) = 2.869e9 bytes."""
    per_layer = activation_memory_gb(2048, 1, 12288, 1, 96, tp=1, recompute="none") * 1e9
    assert per_layer == pytest.approx(2048 * 12288 * (34 + 5 * 96 * 2048 / 12288))
    assert per_layer == pytest.approx(2.869e9, rel=1e-3)


def test_korthikanti_tensor_parallel_without_sp():
    """Eq. 2: s b h (10 + 24/t + 5 a s / (h t)), t = 8."""
    got = (
        activation_memory_gb(2048, 1, 12288, 1, 96, tp=8, sequence_parallel=False, recompute="none")
        * 1e9
    )
    assert got == pytest.approx(2048 * 12288 * (10 + 24 / 8 + 5 * 96 * 2048 / (12288 * 8)))


def test_korthikanti_selective_with_sp_is_34_over_t():
    """Eq. 5/Table 2: sequence parallel + selective recompute: 34 s b h / t per layer."""
    got = activation_memory_gb(2048, 1, 12288, 96, tp=8, recompute="selective") * 1e9
    assert got == pytest.approx(34 * 2048 * 12288 / 8 * 96)


def test_full_recompute_keeps_only_layer_inputs():
    """Full recompute: 2 s b h per layer (the layer input), divided by t with SP."""
    got = activation_memory_gb(4096, 1, 8192, 80, tp=8, recompute="full") * 1e9
    assert got == pytest.approx(2 * 4096 * 8192 * 80 / 8)


def test_recompute_order():
    kw = dict(seq_len=4096, micro_batch=1, d_model=8192, n_layers=80, tp=1)
    assert (
        activation_memory_gb(**kw, recompute="full")
        < activation_memory_gb(**kw, recompute="selective")
        < activation_memory_gb(**kw, recompute="none")
    )


def test_qlora_base_is_about_half_a_byte_per_param():
    """QLoRA (arXiv 2305.14314): NF4 + double quantization = 4.127 bits per parameter.
    A 70B base: 70e9 * 4.127 / 8 = 36.1 GB, plus 0.5 % adapters at 16 B = 5.6 GB."""
    got = adapter_state_memory_gb(70e9, method="qlora", trainable_fraction=0.005)
    assert got == pytest.approx(70e9 * 4.127 / 8 / 1e9 + 70e9 * 0.005 * 16 / 1e9)


@pytest.mark.parametrize("bad", [-1, 4, 1.5])
def test_bad_zero_stage(bad):
    with pytest.raises(ValueError, match="zero_stage"):
        model_state_memory_gb(7e9, zero_stage=bad)


def test_unknown_recompute_mode():
    with pytest.raises(ValueError, match="recompute='some'.*allowed"):
        activation_memory_gb(2048, 1, 4096, 32, recompute="some")


def test_zero_terms_split_in_stage_order():
    """ZeRO Fig. 1: stage 1 splits the optimizer states, 2 also the gradients, 3 also the weights
    (7.5B params, dp 64, mixed Adam 2 + 2 + 12 B/param)."""
    n, dp = 7.5e9, 64
    t1 = model_state_terms_gb(n, zero_stage=1, dp=dp)
    t2 = model_state_terms_gb(n, zero_stage=2, dp=dp)
    t3 = model_state_terms_gb(n, zero_stage=3, dp=dp)
    assert t1 == pytest.approx({"weights": 15.0, "grads": 15.0, "optimizer": 90.0 / dp})
    assert t2 == pytest.approx({"weights": 15.0, "grads": 15.0 / dp, "optimizer": 90.0 / dp})
    assert t3 == pytest.approx({"weights": 15.0 / dp, "grads": 15.0 / dp, "optimizer": 90.0 / dp})
    for z, t in ((1, t1), (2, t2), (3, t3)):
        assert sum(t.values()) == pytest.approx(model_state_memory_gb(n, zero_stage=z, dp=dp))


def test_zero_terms_take_an_optimizer_per_row():
    names = np.array(["adam-mixed", "adam-mixed-fp32-grads", "adam-fp8"], dtype=object)
    got = model_state_terms_gb(np.full(3, 1e9), zero_stage=1, dp=8, tp=2, optimizer=names)
    for i, name in enumerate(names):
        want = model_state_terms_gb(1e9, zero_stage=1, dp=8, tp=2, optimizer=name)
        for term in ("weights", "grads", "optimizer"):
            assert got[term][i] == pytest.approx(want[term])
    with pytest.raises(ValueError, match=r"optimizer='sgd' is not allowed"):
        model_state_terms_gb(1e9, optimizer=np.array(["adam-mixed", "sgd"], dtype=object))


def test_shape_coefficient_replaces_34():
    """Llama 3 8B's coefficient 36 (14 + 4 x 8/32 + 6 x 3.5): selective with SP, t = 4:
    4096 x 1 x 4096 x 36 / 4 x 32 layers = 4,831,838,208 B; without SP 10 + 26/4 = 16.5 per
    token-layer-d: 4096 x 4096 x 16.5 x 32 = 8,858,370,048 B."""
    kw = dict(seq_len=4096, micro_batch=1, d_model=4096, n_layers=32, tp=4, coefficient=36.0)
    assert activation_memory_gb(**kw) * 1e9 == pytest.approx(4_831_838_208)
    no_sp = activation_memory_gb(**kw, sequence_parallel=False) * 1e9
    assert no_sp == pytest.approx(8_858_370_048)
    # the default 34 is the paper's 10 + 24/t without SP
    base = activation_memory_gb(4096, 1, 4096, 32, tp=4, sequence_parallel=False) * 1e9
    assert base == pytest.approx(4096 * 4096 * (10 + 24 / 4) * 32)
