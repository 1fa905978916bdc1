"""Reading scenario files that may be hostile: bounded, alias-free YAML and JSON.

A scenario is a flat mapping of field: value (lists of ids at most), a few hundred bytes. So the
reader refuses what a scenario never needs and an attacker does: YAML aliases (a "billion laughs"
file of 422 bytes expands to gigabytes), duplicate keys (the last would silently win), nesting
deeper than the schema, files larger than :data:`MAX_SCENARIO_BYTES`, binary and non-UTF-8 files.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..catalog import YamlError, bounded_yaml
from ..text import shown

#: The largest scenario file or text read [bytes]: a full scenario is under 2 kB.
MAX_SCENARIO_BYTES = 100_000
#: The deepest nesting of collections a scenario has: the mapping, and a list inside it.
MAX_NESTING = 2


def _check_size(text: str) -> None:
    if not isinstance(text, str):
        raise YamlError(f"{shown(text)} is not text; allowed: the text of a scenario")
    if len(text) > MAX_SCENARIO_BYTES:
        raise YamlError(
            f"is {len(text):,} characters; allowed: at most {MAX_SCENARIO_BYTES:,} for a scenario"
        )


def safe_yaml(text: str):
    """The YAML value of ``text`` (one document), read by the bounded loader
    (:func:`workbook.catalog.bounded_yaml`: no aliases, unique keys, :data:`MAX_NESTING` levels);
    raises :class:`YamlError` in one line."""
    _check_size(text)
    return bounded_yaml(
        text,
        max_nesting=MAX_NESTING,
        what="a scenario",
        nesting_hint="field: value, or field: [a, b]",
    )


def _unique_pairs(pairs):
    keys = [k for k, _ in pairs]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise YamlError(f"{shown(dupes[0])} appears twice; allowed: each field once")
    return dict(pairs)


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def safe_json(text: str):
    """The JSON value of ``text`` (duplicate keys refused, nesting and size bounded)."""
    _check_size(text)
    try:
        data = json.loads(text, object_pairs_hook=_unique_pairs)
    except json.JSONDecodeError as e:
        raise YamlError(f"is not valid JSON: line {e.lineno}: {e.msg}") from None
    except RecursionError:
        raise YamlError("is nested too deeply to be a scenario") from None
    if _depth(data) > MAX_NESTING:
        raise YamlError(f"is nested deeper than a scenario ({MAX_NESTING} levels)")
    return data


def read_scenario_file(path) -> str:
    """The text of a scenario file: it exists, is a file of at most :data:`MAX_SCENARIO_BYTES`,
    and is UTF-8 text (a byte-order mark is dropped). Raises :class:`YamlError`."""
    if not isinstance(path, (str, Path)):
        raise YamlError(f"{shown(path)} is not a path; allowed: a file name")
    p = Path(path)
    try:
        if not p.exists():
            raise YamlError("file not found")
        if p.is_dir():
            raise YamlError("is a folder, not a scenario file")
        size = p.stat().st_size
        if size > MAX_SCENARIO_BYTES:
            raise YamlError(f"is {size:,} bytes; allowed: at most {MAX_SCENARIO_BYTES:,}")
        data = p.read_bytes()
    except OSError as e:
        raise YamlError(f"cannot be read ({e.strerror})") from None
    if b"\x00" in data:
        raise YamlError("is a binary file, not YAML or JSON text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise YamlError(f"is not UTF-8 text (byte {e.start + 1}); save it as UTF-8") from None
