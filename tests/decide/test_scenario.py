"""Scenario: validation with errors naming field and value, YAML / JSON round trips, defaults."""

import json

import pytest
from decide_cases import BASE
from framework_configs import NEMO_MIXTRAL_8X7B, TORCHTITAN_LLAMA3_8B
from hf_configs import MIXTRAL_8X7B

from workbook import Scenario, ScenarioError
from workbook.decide import WORKLOADS


def test_scenario_round_trips_yaml_and_json(tmp_path):
    s = Scenario(**BASE)
    assert Scenario.from_yaml(s.to_yaml()) == s
    assert Scenario.from_json(s.to_json()) == s
    s.save(tmp_path / "s.yaml")
    assert Scenario.load(tmp_path / "s.yaml") == s
    assert set(json.loads(s.to_json())) == set(Scenario.model_fields)  # keys = field names


@pytest.mark.parametrize(
    "field, value, match",
    [
        ("n_params", -1, r"n_params=-1: allowed: a value greater than 0"),
        ("cooling", "water", r"cooling='water': is not allowed; allowed: 'air' or 'liquid'"),
        (
            "budget_usd",
            "a lot",
            r"budget_usd='a lot': is not a number; allowed: a number at least 0 and at most "
            r"1 × 10¹¹$",
        ),
        (
            "deadline_days",
            "abc",
            r"deadline_days='abc': is not a number; allowed: a number greater than 0 and at "
            r"most 3,650$",
        ),
        (
            "seq_len",
            "4k",
            r"seq_len='4k': is not a whole number; allowed: a whole number at least 128 and at "
            r"most 1,048,576$",
        ),
        (
            "confidence",
            float("inf"),
            r"confidence=inf: is not a finite number; allowed: a finite number at least 0.5 and "
            r"at most 0.99$",
        ),
        ("accelerators", [7], r"accelerators\.0=7: is not text; allowed: text$"),
        ("team_size", 0, r"team_size=0"),
        # An element's error names the element and its value, not the whole list.
        (
            "acquisition_modes",
            ["rent-spot", "lease"],
            r"acquisition_modes\.1='lease': is not allowed; allowed: 'rent-spot'",
        ),
        ("colour", "red", r"colour='red': is not a scenario field"),
        ("time_factor", 0, r"time_factor=0: allowed: a value greater than or equal to 0.25"),
        ("time_factor", 11, r"time_factor=11: allowed: a value less than or equal to 10"),
        # A list or a yes/no of the wrong kind read "allowed: a value a valid list".
        (
            "acquisition_modes",
            "buy-new",
            r"acquisition_modes='buy-new': is not a list; allowed: a list$",
        ),
        (
            "rocm_experience",
            "maybe",
            r"rocm_experience='maybe': is not true or false; allowed: true or false$",
        ),
    ],
)
def test_bad_fields_raise_a_valueerror_naming_field_and_value(field, value, match):
    data = dict(BASE, **{field: value})
    with pytest.raises(ValueError, match=match) as e:
        Scenario(**data)
    assert isinstance(e.value, ScenarioError)


def test_missing_fields_are_named_without_the_whole_file_as_their_value():
    """A scenario file that leaves out required fields: each named, "is required", and not the
    file's whole mapping printed as the value of each."""
    with pytest.raises(ScenarioError) as e:
        Scenario.from_yaml("name: a\nn_params: 7e9\n")
    assert str(e.value) == (
        "invalid scenario: deadline_days: is required; budget_usd: is required; "
        "site_power_kw: is required"
    )


def test_contradictory_inputs_are_rejected_with_a_reason():
    with pytest.raises(ScenarioError, match="n_active_params=.* exceeds n_params"):
        Scenario(**dict(BASE, n_active_params=80e9))
    with pytest.raises(ScenarioError, match="n_tokens is required for workload='lora'"):
        Scenario(**dict(BASE, workload="lora", n_tokens=None))


def test_chinchilla_default_tokens():
    s = Scenario(**dict(BASE, n_tokens=None))
    assert s.tokens == pytest.approx(20 * 70e9)


def test_the_removed_inference_heavy_workload_says_what_to_use_instead():
    """It was computed as full training (issue 14, part 7): refused with the way to compare
    serving instead, not silently trained."""
    with pytest.raises(ScenarioError, match=r"workload='inference-heavy': was computed as full"):
        Scenario(
            workload="inference-heavy",
            n_params=7e9,
            n_tokens=1e9,
            deadline_days=30,
            budget_usd=1e5,
            site_power_kw=100,
        )
    assert "inference-heavy" not in WORKLOADS


def test_hf_config_sets_the_sizes(tmp_path):
    """Mixtral 8x7B: 46,702,792,704 parameters, 12,879,925,248 active (tests/model/test_shape.py
    has the arithmetic); the path round-trips and a given size must agree within 1 %."""
    p = tmp_path / "config.json"
    p.write_text(json.dumps(MIXTRAL_8X7B), encoding="utf-8")
    base = {k: v for k, v in BASE.items() if k != "n_params"}
    s = Scenario(**base, hf_config=str(p))
    assert s.n_params == 46_702_792_704
    assert s.n_active_params == 12_879_925_248
    assert Scenario.from_yaml(s.to_yaml()) == s
    assert Scenario(**base, n_params=46.7e9, hf_config=str(p)).n_params == 46_702_792_704
    with pytest.raises(ScenarioError, match="hf_config=.*n_params=7.*disagrees"):
        Scenario(**BASE, hf_config=str(p))


#: Mixtral 8x7B's shape as ModelShape's fields (its config.json: tests/hf_configs.py).
MIXTRAL_SHAPE = dict(
    n_layers=32, d_model=4096, n_heads=32, n_kv_heads=8, ffn_hidden=14336, vocab_size=32000,
    n_experts=8, experts_per_token=2,
)  # fmt: skip


def test_an_inline_model_shape_is_the_same_as_its_config_file(tmp_path):
    """model_shape with Mixtral 8x7B's numbers gives the sizes its config.json does (46,702,792,704
    and 12,879,925,248), the same exact shape for the sweep, and round-trips through YAML; a
    given size must agree within 1 %."""
    p = tmp_path / "config.json"
    p.write_text(json.dumps(MIXTRAL_8X7B), encoding="utf-8")
    base = {k: v for k, v in BASE.items() if k != "n_params"}
    inline, filed = Scenario(**base, model_shape=MIXTRAL_SHAPE), Scenario(**base, hf_config=str(p))
    assert (inline.n_params, inline.n_active_params) == (46_702_792_704, 12_879_925_248)
    assert inline.exact_shape == filed.exact_shape
    assert Scenario(**BASE).exact_shape is None
    assert Scenario.from_yaml(inline.to_yaml()) == inline
    with pytest.raises(ScenarioError, match="model_shape: n_params=7.*disagrees"):
        Scenario(**BASE, model_shape=MIXTRAL_SHAPE)


@pytest.mark.parametrize(
    "shape, match",
    [
        ({**MIXTRAL_SHAPE, "ffn": 1}, "model_shape has no field 'ffn'; allowed: n_layers, "),
        ({"n_layers": 2}, "lacks d_model, n_heads, n_kv_heads, ffn_hidden, vocab_size"),
        ({**MIXTRAL_SHAPE, "n_kv_heads": 5}, "n_kv_heads=5 does not divide n_heads=32"),
        ({**MIXTRAL_SHAPE, "n_layers": -1}, "model_shape: n_layers=-1 must be greater than 0"),
        ("32 layers", "model_shape='32 layers' is not a mapping"),
    ],
)
def test_a_bad_inline_shape_is_one_clear_error(shape, match):
    base = {k: v for k, v in BASE.items() if k != "n_params"}
    with pytest.raises(ScenarioError, match=match):
        Scenario(**base, model_shape=shape)


def test_a_shape_inline_and_a_config_file_together_are_refused(tmp_path):
    p = tmp_path / "config.json"
    p.write_text(json.dumps(MIXTRAL_8X7B), encoding="utf-8")
    base = {k: v for k, v in BASE.items() if k != "n_params"}
    with pytest.raises(ScenarioError, match="given with hf_config=.*allowed: one of the two"):
        Scenario(**base, model_shape=MIXTRAL_SHAPE, hf_config=str(p))


def test_a_framework_files_sequence_length_is_the_runs_unless_the_scenario_gives_one(tmp_path):
    """torchtitan's Llama 3 8B TOML says ``[training] seq_len = 8192`` (tests/framework_configs.py):
    a scenario without seq_len trains at 8,192; one that gives 2,048 keeps it; a config.json
    (no training sequence length) leaves the default 4,096."""
    p = tmp_path / "llama3_8b.toml"
    p.write_text(TORCHTITAN_LLAMA3_8B, encoding="utf-8")
    base = {k: v for k, v in BASE.items() if k not in ("n_params", "seq_len")}
    assert Scenario(**base, hf_config=str(p)).seq_len == 8192
    assert Scenario(**base, hf_config=str(p), seq_len=2048).seq_len == 2048
    j = tmp_path / "config.json"
    j.write_text(json.dumps(MIXTRAL_8X7B), encoding="utf-8")
    assert Scenario(**base, hf_config=str(j)).seq_len == 4096


@pytest.mark.parametrize(
    "content, match",
    [
        (None, "cannot be read"),
        ("{not json", "not JSON"),
        (json.dumps({"hidden_size": 4096}), "num_hidden_layers"),
        ("x" * 1_000_001, "at most 1,000,000 bytes"),
    ],
)
def test_bad_hf_config_is_one_clear_error(tmp_path, content, match):
    p = tmp_path / "cfg.json"
    if content is not None:
        p.write_text(content, encoding="utf-8")
    base = {k: v for k, v in BASE.items() if k != "n_params"}
    with pytest.raises(ScenarioError, match=f"hf_config=.*cfg.json.*{match}"):
        Scenario(**base, hf_config=str(p))
    with pytest.raises(ScenarioError, match="hf_config=3 is not a path"):
        Scenario(**base, hf_config=3)


@pytest.mark.parametrize("bad", [-0.1, 1.6])
def test_grid_intensity_is_range_checked(bad):
    with pytest.raises(ScenarioError, match=f"grid_kg_co2e_per_kwh={bad}"):
        Scenario(**BASE, grid_kg_co2e_per_kwh=bad)


def test_grid_intensity_accepts_its_range_and_true_is_not_a_number():
    assert Scenario(**BASE, grid_kg_co2e_per_kwh=0).grid_kg_co2e_per_kwh == 0
    assert Scenario(**BASE, grid_kg_co2e_per_kwh=1.5).grid_kg_co2e_per_kwh == 1.5
    with pytest.raises(ScenarioError, match="grid_kg_co2e_per_kwh"):
        Scenario(**BASE, grid_kg_co2e_per_kwh=True)


def test_hf_config_takes_a_torchtitan_or_nemo_file(tmp_path):
    """Scenario.hf_config accepts the three formats: the shape sets n_params."""
    toml = tmp_path / "llama3_8b.toml"
    toml.write_text(TORCHTITAN_LLAMA3_8B, encoding="utf-8")
    base = {k: v for k, v in BASE.items() if k != "n_params"}
    s = Scenario(**base, hf_config=str(toml))
    assert s.n_params == 8_030_261_248
    mix = tmp_path / "mixtral.yaml"
    mix.write_text(NEMO_MIXTRAL_8X7B, encoding="utf-8")
    m = Scenario(**base, hf_config=str(mix))
    assert m.n_active_params == pytest.approx(12.88e9, rel=1e-3)


def test_used_price_factor_is_range_checked_and_named():
    from workbook import presets

    s = presets["band-7b-to-70b"]
    assert s.used_price_factor == 1.0  # data/prices.csv as listed
    with pytest.raises(ScenarioError, match=r"used_price_factor=3(\.0)?: .*less than or equal to"):
        s.replace(used_price_factor=3)
    with pytest.raises(ScenarioError, match="precision"):
        s.replace(precision="fp2")
