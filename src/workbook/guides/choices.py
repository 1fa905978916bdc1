"""The reader's choices, carried from the guided notebooks 01-05 to notebook 08.

A small JSON file (default ``my_choices.json`` next to the notebooks: the kernel's working
directory in JupyterLab and Voila). Each guide's widgets save the choices it owns after every
change (:class:`workbook.guides.widgets.GuidePanel`); notebook 08 reads them as its starting
values, in place of its own parameters. The file::

    {"kind": "workbook-guide-choices", "version": 1,
     "choices": {"n_params": {"value": 30000000000.0, "from": "01_model_sizing_and_memory"}}}

Only the fields of :data:`CARRIED` are written or read. A file that is not a choices file (no
``kind``) is never overwritten, and the file is replaced whole (written to a temporary file
first), so a failed write leaves the last good one.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["CARRIED", "DEFAULT_CHOICES_FILE", "load_choices", "save_choices"]

KIND, VERSION = "workbook-guide-choices", 1
DEFAULT_CHOICES_FILE = "my_choices.json"
#: Largest choices file read [bytes]: a few dozen fields take under 2 KB.
MAX_BYTES = 64_000

#: The Scenario fields a guide hands on, and the guide that owns each.
CARRIED = {
    "n_params": "01_model_sizing_and_memory",
    "method": "01_model_sizing_and_memory",
    "seq_len": "01_model_sizing_and_memory",
    "n_tokens": "02_speed_and_efficiency",
    "time_factor": "02_speed_and_efficiency",
    "runs_per_year": "03_rent_vs_buy",
    "budget_usd": "03_rent_vs_buy",
    "deadline_days": "03_rent_vs_buy",
    "cooling": "04_power_and_cooling",
    "site_power_kw": "04_power_and_cooling",
    "rack_limit_kw": "04_power_and_cooling",
    "team_size": "05_team_and_software_risk",
    "platform_engineers": "05_team_and_software_risk",
    "rocm_experience": "05_team_and_software_risk",
}


def _path(path) -> Path:
    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise ValueError(
            f"choices_file={path!r} is not a file path; allowed: e.g. 'my_choices.json'"
        )
    p = Path(path).expanduser()
    if p.suffix.lower() != ".json":
        raise ValueError(
            f"choices_file={str(path)[:80]!r} does not end in .json; allowed: a .json path"
        )
    return p


def load_choices(path) -> dict[str, dict[str, Any]]:
    """The choices saved in ``path``: field -> {"value", "from"}; {} when the file does not exist.

    Raises
    ------
    ValueError
        Naming the file, when it is not a choices file (unreadable, too large, not JSON, another
        kind, a field not in :data:`CARRIED`).
    """
    p = _path(path)
    if not p.exists():
        return {}
    name = str(path)[:80]
    try:
        if p.stat().st_size > MAX_BYTES:
            raise ValueError(f"is over {MAX_BYTES:,} bytes")
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(
            f"choices_file={name!r} cannot be read ({type(e).__name__}); allowed: "
            "a file the guides wrote, or delete it"
        ) from None
    except ValueError as e:
        raise ValueError(f"choices_file={name!r} {e}; allowed: a file the guides wrote") from None
    if (
        not isinstance(data, dict)
        or data.get("kind") != KIND
        or not isinstance(data.get("choices"), dict)
    ):
        raise ValueError(
            f"choices_file={name!r} is not a choices file (no kind {KIND!r}); "
            "allowed: a file the guides wrote, or another path"
        )
    choices = data["choices"]
    unknown = [k for k in choices if k not in CARRIED]
    bad = [k for k, v in choices.items() if not isinstance(v, dict) or "value" not in v]
    if unknown or bad:
        raise ValueError(
            f"choices_file={name!r} has fields {', '.join((unknown + bad)[:5])} that "
            f"are not choices; allowed: {', '.join(CARRIED)}"
        )
    return {k: {"value": v["value"], "from": str(v.get("from", ""))} for k, v in choices.items()}


def save_choices(path, guide: str, values: dict[str, Any]) -> Path:
    """Merge ``values`` (fields of :data:`CARRIED`) from notebook ``guide`` into ``path``, and
    return the path. Keeps the other guides' choices; refuses (``ValueError``) to overwrite a
    file that is not a choices file."""
    p = _path(path)
    unknown = [k for k in values if k not in CARRIED]
    if unknown:
        raise ValueError(f"not choices: {', '.join(unknown)}; allowed: {', '.join(CARRIED)}")
    choices = load_choices(p)
    choices.update({k: {"value": _plain(v), "from": guide} for k, v in values.items()})
    text = json.dumps({"kind": KIND, "version": VERSION, "choices": choices}, indent=1)
    fd, tmp = tempfile.mkstemp(prefix=".choices-", suffix=".json", dir=p.parent.resolve())
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        os.replace(tmp, p)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p


def _plain(v: Any) -> Any:
    """A JSON value for ``v`` (numpy scalars to Python numbers)."""
    if hasattr(v, "item"):
        return v.item()
    return v
