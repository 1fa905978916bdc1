"""The app's model-config upload: the user's own Hugging Face ``config.json``, Megatron-LM / NeMo
YAML or torchtitan TOML sets the scenario's ``hf_config`` (the exact shape: layers, width, heads,
KV heads, FFN, vocabulary, experts), so the parameter counts come from the file; a Clear button
returns to the size inputs.

The uploaded bytes go to a private copy (``tempfile.mkstemp``: a new file, mode 0600, in a
directory of this kernel's own, removed when the kernel exits), never into the repository or over
an existing file. A file that cannot be used (suffix, size, text, keys) shows one message next to
the upload naming it, and changes nothing else: the inputs and the recommendation stay.

The scenario download (YAML) refers to the uploaded file by its own name, with a comment saying
so, and the page offers the file itself beside it: the two files saved in one folder reproduce the
app's recommendation (``python -m workbook report scenario.yaml`` run there).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import ipywidgets as w

from ...decide import Scenario, ScenarioError
from ...model import CONFIG_SUFFIXES, MAX_CONFIG_BYTES, ModelConfig, read_model_config
from ...text import params_label, shown
from ..format import download_link, escape
from .form import FROM_CONFIG

INTRO = (
    "<b>Your model's config file</b> <span class='wb-small'>(a Hugging Face config.json, a "
    "Megatron-LM / NeMo YAML or a torchtitan TOML: its exact shape sets the parameters)</span>"
)
#: What the upload accepts, in the words of a message's "allowed:" part.
ALLOWED = (
    "a .json (Hugging Face config.json), .yaml / .yml (Megatron-LM / NeMo) or .toml (torchtitan) "
    f"file of at most {MAX_CONFIG_BYTES:,} bytes"
)
#: Longest file name a message or the summary shows [characters] (the start and the suffix kept).
NAME_CHARS = 60
#: The scenario fields the file sets while it is in use.
SIZE_FIELDS = tuple(FROM_CONFIG)


def short_name(name: str) -> str:
    """A file name for a message: at most :data:`NAME_CHARS` characters, its end kept."""
    name = str(name)
    return name if len(name) <= NAME_CHARS else f"{name[: NAME_CHARS - 18]}...{name[-15:]}"


def safe_name(name: str) -> str:
    """The uploaded file's base name with only letters, digits, ``.``, ``_`` and ``-`` (what the
    scenario export names and the download offers); ``model-config.json`` if nothing is left."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(str(name).replace("\\", "/")).name)
    base = base.strip(".-")[-120:]
    return base if Path(base).suffix.lower() in CONFIG_SUFFIXES else "model-config.json"


@functools.cache
def kernel_dir() -> Path:
    """This kernel's private directory for uploaded configs (mode 0700; removed at exit)."""
    path = Path(tempfile.mkdtemp(prefix="workbook-model-configs-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


@dataclass(frozen=True)
class UploadedConfig:
    """A model configuration file the user uploaded, and what it says."""

    name: str  #: the file's name as uploaded (:func:`safe_name`)
    path: str  #: the private copy the scenario's ``hf_config`` reads
    content: bytes  #: the file as uploaded (offered again beside the scenario download)
    config: ModelConfig

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()


class ModelConfigError(ValueError):
    """An uploaded model config that cannot be used; the message names the file."""


def _named(message: str, path: str, name: str) -> str:
    """``message`` with the private copy's path replaced by the uploaded file's name."""
    for form in (shown(path), path):
        message = message.replace(form, shown(short_name(name)))
    return message


def save_upload(name: str, content: bytes) -> UploadedConfig:
    """Check an uploaded file (suffix, size), copy it to a private file with the same suffix and
    read its shape (:func:`workbook.model.read_model_config`). Raises :class:`ModelConfigError`
    naming the file and what is allowed; a refused file leaves no copy behind."""
    suffix = Path(str(name)).suffix.lower()
    what = shown(short_name(name))
    if suffix not in CONFIG_SUFFIXES:
        raise ModelConfigError(f"{what} has the suffix {shown(suffix)}; allowed: {ALLOWED}")
    if len(content) > MAX_CONFIG_BYTES:
        raise ModelConfigError(f"{what} is {len(content):,} bytes; allowed: {ALLOWED}")
    if not content.strip():
        raise ModelConfigError(f"{what} is empty; allowed: {ALLOWED}")
    fd, path = tempfile.mkstemp(suffix=suffix, prefix="model-config-", dir=kernel_dir())
    with os.fdopen(fd, "wb") as f:
        f.write(content)
    try:
        config = read_model_config(path)
    except (ValueError, RecursionError) as e:
        discard(path)
        why = str(e) if isinstance(e, ValueError) else f"is nested too deeply; allowed: {ALLOWED}"
        why = _named(why, path, name).removeprefix("model config ")
        raise ModelConfigError(why if what in why else f"{what}: {why}") from None
    except Exception as e:  # a reader's own bug must not become a silent, dead upload
        discard(path)
        raise ModelConfigError(
            f"{what} could not be read ({type(e).__name__}); allowed: {ALLOWED}"
        ) from None
    return UploadedConfig(safe_name(name), path, bytes(content), config)


def discard(path: str) -> None:
    """Remove a private copy (gone already: nothing to do)."""
    with contextlib.suppress(OSError):
        os.unlink(path)


def with_config(s: Scenario, up: UploadedConfig) -> Scenario:
    """Scenario ``s`` planned with the uploaded config: ``hf_config`` set, the sizes (and a YAML's
    or TOML's training sequence length) from the file. Raises :class:`ModelConfigError` (naming
    the file) when the scenario refuses it."""
    seq = {"seq_len": up.config.seq_len} if up.config.seq_len else {}
    try:
        return s.replace(hf_config=up.path, **dict.fromkeys(SIZE_FIELDS), **seq)
    except ScenarioError as e:
        why = "; ".join(_named(f"{f}: {m}", up.path, up.name) for f, _, m in e.errors)
        raise ModelConfigError(f"{shown(short_name(up.name))}: {why}") from None


def _short(n: int) -> str:
    """A count to three significant digits: 8,030,261,248 -> '8.03B'."""
    return params_label(float(f"{n:.3g}"))


def shape_html(up: UploadedConfig) -> str:
    """What was read, next to the upload: the shape and the parameter counts."""
    c, sh = up.config, up.config.shape
    experts = (
        f"{sh.n_experts} experts, {sh.experts_per_token} per token"
        if sh.n_experts > 1
        else "dense (no experts)"
    )
    active = (
        f"{sh.n_active_params:,} ({_short(sh.n_active_params)}) active per token"
        if sh.n_experts > 1
        else "all active"
    )
    head = f" of {sh.head_dim}" if sh.head_dim * sh.n_heads != sh.d_model else ""
    seq = (
        f" The file's sequence length, {c.seq_len:,} tokens, is now the run's (the Sequence "
        "length input; change it there)."
        if c.seq_len
        else ""
    )
    return (
        f"<div class='wb-small' id='wb-model-config'>Read from <b>{escape(short_name(up.name))}"
        f"</b> ({escape(c.source)}): {sh.n_layers} layers, d_model {sh.d_model:,}, "
        f"{sh.n_heads} heads{head}, {sh.n_kv_heads} KV heads, FFN {sh.ffn_hidden:,}, vocabulary "
        f"{sh.vocab_size:,}, {experts}; {sh.n_params:,} parameters "
        f"({_short(sh.n_params)}), {active}. The parameter inputs are taken from this "
        f"file; Clear returns to them.{escape(seq)}</div>"
    )


def scenario_yaml(s: Scenario, up: UploadedConfig | None) -> str:
    """The scenario as YAML; with an uploaded config, ``hf_config`` names that file (not the
    kernel's private copy) and a comment says how to use the two together."""
    if up is None or s.hf_config != up.path:
        return s.to_yaml()
    sh = up.config.shape
    head = (
        f"# hf_config refers to the model config file uploaded in the app, {up.name}\n"
        f"# ({up.config.source}, sha256 {up.sha256[:16]}..., {sh.n_params:,} parameters).\n"
        "# Save that file in the folder of this one and run there:\n"
        "#   python -m workbook report scenario.yaml -o memo.html\n"
    )
    return head + s.model_copy(update={"hf_config": up.name}).to_yaml()


class ModelConfigPanel:
    """``box`` holds the upload, the Clear button, the error line and what was read.

    ``scenario()`` gives the scenario in force; ``on_scenario(s)`` is called with the scenario to
    plan with after a good upload (the sizes from the file) or a clear (the sizes from before)."""

    def __init__(
        self,
        scenario: Callable[[], Scenario],
        on_scenario: Callable[[Scenario], None],
        html: Callable[..., w.HTML],
        button: Callable[..., w.Button],
    ):
        self.scenario, self.on_scenario = scenario, on_scenario
        self.current: UploadedConfig | None = None
        #: n_params, n_active_params and seq_len before the first upload (what Clear goes back
        #: to; seq_len only if it is still the file's).
        self.sizes: dict[str, float | None] = {}
        accept = ",".join(CONFIG_SUFFIXES)
        self.upload = w.FileUpload(accept=accept, multiple=False, description="Upload")
        self.upload.observe(self._on_upload, names="value")
        self.clear_button = button("Clear model config", lambda _b: self.clear(), disabled=True)
        self.error = html("")
        self.error.add_class("wb-error")
        self.summary = html("")
        self.box = w.VBox(
            [html(INTRO), w.HBox([self.upload, self.clear_button]), self.error, self.summary]
        )

    def _on_upload(self, change):
        if change["new"]:
            f = change["new"][0]
            self.load(str(f.get("name") or "config.json"), bytes(f.get("content") or b""))
            self.upload.value = ()  # the same file again (after Clear) is a change again

    def load(self, name: str, content: bytes) -> bool:
        """Plan with an uploaded file; on a file that cannot be used show why next to the upload
        and keep everything else. Returns whether the file is now in use."""
        try:
            up = save_upload(name, content)
            base = self.scenario()
            try:
                s = with_config(base, up)
            except ModelConfigError:
                discard(up.path)
                raise
        except ModelConfigError as e:
            self.error.value = escape(f"Model config not used: {e}")
            return False
        if self.current is None:
            self.sizes = {f: getattr(base, f) for f in (*SIZE_FIELDS, "seq_len")}
        self.error.value = ""
        self.show(up)
        self.on_scenario(s)
        return True

    def show(self, up: UploadedConfig | None) -> None:
        """Show ``up`` as the config in use (None: none)."""
        self.current = up
        self.summary.value = shape_html(up) if up is not None else ""
        self.clear_button.disabled = up is None

    def sync(self, s: Scenario) -> None:
        """The inputs now show scenario ``s`` (a preset, Reset): forget a config it does not use."""
        if self.current is not None and s.hf_config != self.current.path:
            self.show(None)

    def clear(self) -> None:
        """Back to the size inputs as they were before the upload."""
        self.error.value = ""
        base = self.scenario()
        if base.hf_config is not None:
            back = dict(self.sizes)
            if self.current is None or base.seq_len != self.current.config.seq_len:
                back.pop("seq_len", None)  # the reader changed it since: theirs stays
            try:
                s = base.replace(hf_config=None, **back)
            except ScenarioError as e:  # the sizes from before were valid: not expected
                self.error.value = escape(f"Model config not cleared: {e}")
                return
            self.on_scenario(s)
        self.show(None)

    def downloads_html(self, s: Scenario) -> str:
        """The download line: the scenario (YAML) and, when it refers to an uploaded config, that
        file."""
        up = self.current if self.current is not None and s.hf_config == self.current.path else None
        yml = scenario_yaml(s, up).encode()
        links = download_link(yml, "scenario.yaml", "text/yaml", "this scenario (YAML)")
        if up is not None:
            text = f"the model config it refers to ({escape(short_name(up.name))})"
            links += " and " + download_link(up.content, up.name, "text/plain", text)
        return f"<p class='wb-small'>Download: {links}</p>"
