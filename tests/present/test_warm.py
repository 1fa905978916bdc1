"""A kernel's warm start (workbook.present.app.warm): the cached Vega bundle, the skipped
optional import, the startup slots."""

import json
import sys
from importlib.metadata import version
from pathlib import Path

import altair as alt
import pytest

from workbook.present.app import warm


def test_no_vega_lite_format_needs_the_skipped_iri_checker():
    """rfc3987_syntax only serves jsonschema's "iri" / "iri-reference" formats: skipping it
    changes no validation of a chart as long as the Vega-Lite schema uses neither."""
    schema = Path(alt.__file__).parent / "vegalite" / "v6" / "schema" / "vega-lite-schema.json"
    formats = set()

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("format"), str):
                formats.add(node["format"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(json.loads(schema.read_text()))
    assert formats, "the schema names no format at all: the walk is broken"
    assert not {f for f in formats if f.startswith("iri")}, formats


def test_skipping_makes_the_optional_import_fail_like_a_missing_package(monkeypatch):
    monkeypatch.delitem(sys.modules, "rfc3987_syntax", raising=False)
    warm.skip_slow_optional_imports()
    with pytest.raises(ImportError):
        import rfc3987_syntax  # noqa: F401
    monkeypatch.delitem(sys.modules, "rfc3987_syntax", raising=False)


def test_the_bundle_is_keyed_by_the_installed_versions(tmp_path):
    name = warm.bundle_path(tmp_path).name
    assert version("altair") in name and version("vl-convert-python") in name


def test_a_kernel_reads_the_bundle_the_first_one_wrote(tmp_path, monkeypatch):
    assert warm.use_cached_vega_bundle(tmp_path) is False  # none yet: built and written
    written = warm.bundle_path(tmp_path).read_text(encoding="utf-8")
    assert "vega" in written.lower() and len(written) > 100_000  # ~0.9 MB of JavaScript
    monkeypatch.setattr(alt.JupyterChart, "_esm", "")
    monkeypatch.setattr(alt.JupyterChart, "_is_offline", False)
    assert warm.use_cached_vega_bundle(tmp_path) is True
    assert alt.JupyterChart._esm == written and alt.JupyterChart._is_offline
    alt.JupyterChart.enable_offline()  # what the app calls next: nothing left to do
    assert alt.JupyterChart._esm == written
    assert not list(tmp_path.glob("*.tmp"))  # no half-written file left behind


def test_startup_slots_let_one_kernel_per_slot_through(tmp_path):
    first, second = warm.StartupSlot(tmp_path, slots=1), warm.StartupSlot(tmp_path, slots=1)
    assert first.acquire(wait_s=1)
    assert second.acquire(wait_s=0.2) is False and second.waited_s >= 0.2
    first.release()
    assert second.acquire(wait_s=1)
    second.release()
    two = [warm.StartupSlot(tmp_path, slots=2) for _ in range(3)]
    assert [s.acquire(wait_s=0.1) for s in two] == [True, True, False]
    for s in two:
        s.release()
