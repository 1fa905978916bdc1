"""The app's model-config upload (workbook.present.app.model_upload, issue 19 item 2): a published
config.json, torchtitan TOML or NeMo YAML sets the scenario's exact shape and its published
parameter count, the size inputs say they come from the file, and the recommendation follows; a
bad file shows one message naming it and changes nothing else; Clear returns to the size inputs;
the scenario download refers to the uploaded file, and the two files reproduce the app's pick.

Published counts: Llama 3 8B 8,030,261,248 and 70B 70,553,706,496 parameters (their config.json
files; Meta's model cards: 8.03B, 70.6B); Mixtral 8x7B 46.7B total, 12.9B active (Jiang et al.
2024, arXiv:2401.04088).
"""

import base64
import json
import os
import re
import stat
from pathlib import Path

import pytest
from framework_configs import NEMO_LLAMA31_8B, NEMO_MIXTRAL_8X7B, TORCHTITAN_LLAMA3_8B
from hf_configs import LLAMA3_8B, LLAMA3_70B, MIXTRAL_8X7B, QWEN3_30B_A3B

import workbook.present.app.model_upload as mu
from workbook.decide import Scenario, recommend
from workbook.present.app.model_upload import (
    kernel_dir,
    safe_name,
    save_upload,
    scenario_yaml,
    short_name,
)
from workbook.present.app.page import WorkbookApp

PRESET = "small-team-instruction-tuning"  # 8e9 parameters, 2e9 tokens: a quick sweep
REPO = Path(__file__).resolve().parents[2]


def _json(cfg: dict) -> bytes:
    return json.dumps(cfg, indent=2).encode()


@pytest.fixture()
def app():
    return WorkbookApp(PRESET)


@pytest.fixture(scope="module")
def app_with_70b():
    """One app with Llama 3 70B's config in use, for the bad files (each must change nothing)."""
    a = WorkbookApp(PRESET)
    assert a.model_config.load("config.json", _json(LLAMA3_70B))
    return a


def _copies() -> set[str]:
    return {p.name for p in kernel_dir().iterdir()}


def test_llama3_70b_config_json_sets_the_published_count_and_moves_the_pick(app):
    before = app.headline.value
    assert app.model_config.load("config.json", _json(LLAMA3_70B))
    s = app.rec.scenario
    assert s.n_params == 70_553_706_496 and s.n_active_params is None  # dense
    copy = Path(s.hf_config)
    assert copy.parent == kernel_dir() and copy.suffix == ".json"
    assert copy.read_bytes() == _json(LLAMA3_70B)
    assert REPO not in copy.parents
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert stat.S_IMODE(kernel_dir().stat().st_mode) == 0o700
    assert app.headline.value != before and "70.6B" not in before
    summary = app.model_config.summary.value
    for said in ("config.json", "(Hugging Face)", "80 layers", "d_model 8,192", "64 heads",
                 "8 KV heads", "FFN 28,672", "vocabulary 128,256", "dense (no experts)",
                 "70,553,706,496 parameters (70.6B)", "all active"):  # fmt: skip
        assert said in summary, said
    size = app.inputs["n_params"]
    assert size.disabled and size.value == "70.553706496"
    assert size.description == "Parameters (B; from your file)"
    assert app.inputs["n_active_params"].disabled
    assert not app.model_config.clear_button.disabled and app.model_config.error.value == ""


@pytest.mark.parametrize(
    ("name", "content", "n_params", "source"),
    [
        ("Meta-Llama-3-8B.json", _json(LLAMA3_8B), 8_030_261_248, "Hugging Face"),
        ("llama3_8b.toml", TORCHTITAN_LLAMA3_8B.encode(), 8_030_261_248, "torchtitan"),
        ("llama3_1_8b.yaml", NEMO_LLAMA31_8B.encode(), 8_030_261_248, "Megatron/NeMo"),
    ],
)
def test_each_framework_file_gives_llama3_8b(app, name, content, n_params, source):
    assert app.model_config.load(name, content)
    assert app.rec.scenario.n_params == n_params
    assert Path(app.rec.scenario.hf_config).suffix == Path(name).suffix
    assert f"({source})" in app.model_config.summary.value
    assert "8.03B" in app.model_config.summary.value


@pytest.mark.parametrize(
    ("name", "content"),
    [("mixtral.json", _json(MIXTRAL_8X7B)), ("mixtral_8x7b.yml", NEMO_MIXTRAL_8X7B.encode())],
)
def test_mixtral_sets_total_and_active_parameters(app, name, content):
    assert app.model_config.load(name, content)
    s = app.rec.scenario
    assert s.n_params == pytest.approx(46.70e9, rel=1e-3)
    assert s.n_active_params == pytest.approx(12.88e9, rel=1e-3)
    summary = app.model_config.summary.value
    assert "8 experts, 2 per token" in summary and "(12.9B) active per token" in summary
    assert app.inputs["n_active_params"].value == f"{s.n_active_params / 1e9!r}"


def test_qwen3_moe_config_says_its_heads_are_128_wide(app):
    """Qwen3-30B-A3B: 32 heads of 128 in a width of 2,048 (its active count 3.35B, not the 2.90B
    that heads of 2048 / 32 would give: tests/model/test_shape.py)."""
    assert app.model_config.load("config.json", _json(QWEN3_30B_A3B))
    assert app.rec.scenario.n_active_params == 3_353_020_416
    summary = app.model_config.summary.value
    assert "32 heads of 128, 4 KV heads" in summary and "128 experts, 8 per token" in summary
    assert "(3.35B) active per token" in summary


BAD = [
    ("weights.bin", b"\x00\x01", "has the suffix '.bin'; allowed: a .json"),
    ("notes.txt", b"num_layers: 2", "has the suffix '.txt'"),
    ("config.json", b"{not json", "is not JSON text; allowed: a config.json file"),
    ("config.json", b"[1, 2]", "is not a JSON object"),
    ("config.json", b"", "is empty; allowed: a .json"),
    ("config.json", _json({**LLAMA3_8B, "num_hidden_layers": None}), "has no num_hidden_layers"),
    ("config.json", _json({**LLAMA3_8B, "hidden_size": -4096}), "hidden_size"),
    ("config.json", _json({**LLAMA3_8B, "kv_lora_rank": 512}), "latent attention"),
    ("config.json", b"{" + b" " * 1_000_000 + b"}", "is 1,000,002 bytes; allowed:"),
    ("config.json", b"\xff\xfe\x00binary", "is not JSON text"),
    ("deep.json", b"[" * 200_000, "nested too deeply"),
    ("m.yaml", b"a: 1\n", "has no num_layers and hidden_size"),
    ("m.yaml", b"a: [1\n", "YAML"),
    ("m.yaml", b"\xff\xfe\x00", "is not UTF-8 text"),
    ("t.toml", b"[model]\nname = 'gpt'\n", "[model] name='gpt'; allowed: llama3"),
    ("t.toml", b"[model\n", "is not valid TOML"),
]


@pytest.mark.parametrize(("name", "content", "says"), BAD)
def test_a_bad_file_shows_one_message_and_changes_nothing_else(app_with_70b, name, content, says):
    app = app_with_70b  # a config in use already
    scenario, headline, copies = app.rec.scenario, app.headline.value, _copies()
    summary = app.model_config.summary.value
    assert not app.model_config.load(name, content)
    error = app.model_config.error.value.replace("&#x27;", "'")
    assert error.startswith(f"Model config not used: '{name}'"), error
    assert says in error, error
    assert "Traceback" not in error and "workbook-model-configs" not in error and len(error) < 600
    assert app.rec.scenario is scenario and app.headline.value == headline
    assert app.model_config.summary.value == summary and app.inputs["n_params"].disabled
    assert _copies() == copies  # the refused file left no copy behind


def test_a_long_file_name_is_shortened_in_the_message(app):
    name = "my-very-" + "long-" * 40 + "model-config.txt"
    assert not app.model_config.load(name, b"{}")
    error = app.model_config.error.value
    assert "config.txt" in error and name not in error and len(error) < 400


def test_clear_returns_to_the_size_inputs_as_they_were(app):
    headline = app.headline.value
    app.model_config.load("config.json", _json(LLAMA3_70B))
    app.model_config.clear_button.click()
    s = app.rec.scenario
    assert s.hf_config is None and s.n_params == 8e9 and s.name == PRESET
    assert app.headline.value == headline
    size = app.inputs["n_params"]
    assert not size.disabled and size.value == "8" and size.description == "Parameters (billions)"
    assert app.model_config.summary.value == "" and app.model_config.clear_button.disabled


def test_a_framework_files_sequence_length_is_applied_and_clear_restores_it(app):
    """The NeMo Llama 3.1 8B YAML trains at ``seq_length: 8192`` (tests/framework_configs.py): the
    run is planned at 8,192 and the Sequence length input shows it; Clear goes back to the
    preset's 4,096 unless the reader changed it since."""
    before = app.rec.scenario.seq_len
    assert before == 4096
    assert app.model_config.load("llama3_1_8b.yaml", NEMO_LLAMA31_8B.encode())
    assert app.rec.scenario.seq_len == 8192 and app.inputs["seq_len"].value == "8192"
    assert "8,192 tokens, is now the run&#x27;s" in app.model_config.summary.value
    app.model_config.clear_button.click()
    assert app.rec.scenario.seq_len == before and app.inputs["seq_len"].value == "4096"
    assert app.model_config.load("llama3_1_8b.yaml", NEMO_LLAMA31_8B.encode())
    app.inputs["seq_len"].value = "2048"
    app.model_config.clear_button.click()
    assert app.rec.scenario.seq_len == 2048 and app.rec.scenario.hf_config is None


def test_other_inputs_keep_working_with_a_config_and_a_preset_forgets_it(app):
    app.model_config.load("config.json", _json(LLAMA3_70B))
    app.inputs["deadline_days"].value = "30"
    assert app.rec.scenario.deadline_days == 30 and app.rec.scenario.n_params == 70_553_706_496
    app.apply_preset("funded-startup-30b-domain")
    assert app.rec.scenario.hf_config is None and app.rec.scenario.n_params == 30e9
    assert not app.inputs["n_params"].disabled and app.model_config.summary.value == ""


def test_the_file_widget_feeds_the_panel_and_takes_the_same_file_again(app):
    content = _json(LLAMA3_70B)
    state = {"name": "config.json", "type": "application/json", "size": len(content),
             "content": content, "last_modified": 0}  # fmt: skip
    app.model_config.upload.set_state({"value": [state]})
    assert app.rec.scenario.n_params == 70_553_706_496
    assert app.model_config.upload.value == ()
    app.model_config.clear_button.click()
    app.model_config.upload.set_state({"value": [state]})
    assert app.rec.scenario.n_params == 70_553_706_496


def _links(html: str) -> dict[str, bytes]:
    return {
        name: base64.b64decode(data)
        for name, data in re.findall(r"download='([^']+)' href='data:[^;]+;base64,([^']+)'", html)
    }


def test_the_download_refers_to_the_file_and_the_two_reproduce_the_pick(app, tmp_path, monkeypatch):
    app.model_config.load("Meta-Llama-3-70B config.json", _json(LLAMA3_70B))
    files = _links(app.downloads.value)
    assert set(files) == {"scenario.yaml", "Meta-Llama-3-70B-config.json"}
    assert files["Meta-Llama-3-70B-config.json"] == _json(LLAMA3_70B)
    text = files["scenario.yaml"].decode()
    assert text.startswith("# hf_config refers to the model config file uploaded in the app")
    assert (
        "hf_config: Meta-Llama-3-70B-config.json" in text and "workbook-model-configs" not in text
    )
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)  # as the comment says: both files in one folder, run there
    loaded = Scenario.load("scenario.yaml")
    assert loaded.model_dump() == {
        **app.rec.scenario.model_dump(),
        "hf_config": "Meta-Llama-3-70B-config.json",
    }
    assert recommend(loaded, sensitivity=False).headline == app.rec.headline


def test_without_a_config_the_download_is_the_plain_scenario(app):
    files = _links(app.downloads.value)
    assert set(files) == {"scenario.yaml"}
    assert files["scenario.yaml"].decode() == app.rec.scenario.to_yaml()
    assert scenario_yaml(app.rec.scenario, None) == app.rec.scenario.to_yaml()


@pytest.mark.parametrize(
    ("name", "safe"),
    [
        ("../../etc/config.json", "config.json"),
        ("C:\\Users\\me\\config.json", "config.json"),
        ("my model <b>.yaml", "my-model-b-.yaml"),
        ("config.exe", "model-config.json"),
        ("..json", "model-config.json"),
    ],
)
def test_the_name_the_export_uses_is_a_plain_base_name(name, safe):
    assert safe_name(name) == safe


def test_short_name_keeps_the_start_and_the_suffix():
    assert short_name("config.json") == "config.json"
    long = "a" * 100 + ".json"
    assert len(short_name(long)) == 60 and short_name(long).endswith("aaa.json")


def test_the_private_copy_never_replaces_a_file():
    a = save_upload("config.json", _json(LLAMA3_8B))
    b = save_upload("config.json", _json(LLAMA3_70B))
    assert a.path != b.path and Path(a.path).read_bytes() == _json(LLAMA3_8B)
    assert a.config.shape.n_params == 8_030_261_248 and a.name == "config.json"
    assert len(a.sha256) == 64
    for p in (a.path, b.path):
        os.unlink(p)


def test_a_readers_unexpected_error_is_a_message_too(app_with_70b, monkeypatch):
    """Not a ValueError (a bug of a reader): still one message, no copy left, nothing changed."""

    def broken(path):
        raise TypeError("unhashable type: 'list'")

    monkeypatch.setattr(mu, "read_model_config", broken)
    app = app_with_70b
    headline, copies = app.headline.value, _copies()
    assert not app.model_config.load("config.json", b'{"a": 1}')
    error = app.model_config.error.value.replace("&#x27;", "'")
    assert error.startswith("Model config not used: 'config.json' could not be read (TypeError)")
    assert app.headline.value == headline and _copies() == copies
