"""The app's overrides upload: the user's own numbers as a CSV file (table,key,column,value,
source,notes; the README's "Your own numbers"), the overrides in force, and a Clear button.

A file that cannot be used shows one message next to the upload and changes nothing else: the
catalog, the inputs and the recommendation stay as they were.
"""

from __future__ import annotations

from collections.abc import Callable

import ipywidgets as w

from ...catalog import Catalog, CatalogError, load_catalog
from ...catalog.overrides import decode_overrides, parse_overrides
from ...text import derived_text, overrides_text
from ..format import escape

INTRO = (
    "<b>Your own numbers</b> <span class='wb-small'>(an overrides CSV: table,key,column,value,"
    "source,notes)</span>"
)


def uploaded_file(value) -> tuple[str, bytes] | None:
    """(name, content) of a ``FileUpload`` value (ipywidgets 8: a tuple of dicts), None if empty."""
    if not value:
        return None
    f = value[0]
    return str(f.get("name") or "overrides.csv"), bytes(f.get("content") or b"")


def catalog_from_upload(name: str, content: bytes) -> Catalog:
    """The shipped catalog with the uploaded overrides; raises :class:`CatalogError` (a
    ``ValueError``) naming the file, line and column of what is wrong."""
    return load_catalog(parse_overrides(decode_overrides(content, name), name))


def active_html(catalog: Catalog) -> str:
    """The overrides in force and the derived prices they moved, for the page."""
    snap = catalog.snapshot()
    if not snap["overrides"]:
        return "<div class='wb-small'>No overrides: the shipped data.</div>"
    moved = derived_text(snap["derived"])
    return (
        f"<div class='wb-small'>Active overrides ({len(snap['overrides'])}): "
        f"{escape(overrides_text(snap['overrides']))}"
        + (f"<br>Derived prices recomputed: {escape(moved)}" if moved else "")
        + "</div>"
    )


class OverridesPanel:
    """``box`` holds the upload, the Clear button, the error line and the overrides in force;
    ``on_catalog(catalog)`` is called with the new catalog after a good upload or a clear."""

    def __init__(
        self,
        catalog: Catalog,
        on_catalog: Callable[[Catalog], None],
        html: Callable[..., w.HTML],
        button: Callable[..., w.Button],
    ):
        self.on_catalog = on_catalog
        self.upload = w.FileUpload(accept=".csv,text/csv", multiple=False, description="Upload")
        self.upload.observe(self._on_upload, names="value")
        self.clear_button = button("Clear overrides", lambda _b: self.clear())
        self.error = html("")
        self.error.add_class("wb-error")
        self.active = html(active_html(catalog))
        self.box = w.VBox(
            [html(INTRO), w.HBox([self.upload, self.clear_button]), self.error, self.active]
        )

    def _on_upload(self, change):
        got = uploaded_file(change["new"])
        if got is not None:
            self.load(*got)

    def load(self, name: str, content: bytes) -> bool:
        """Apply an uploaded file; on a bad file show why next to the upload and keep everything
        else. Returns whether the file was applied."""
        try:
            catalog = catalog_from_upload(name, content)
        except CatalogError as e:
            self.error.value = escape(f"Overrides not applied: {e}")
            return False
        self.error.value = ""
        self.active.value = active_html(catalog)
        self.on_catalog(catalog)
        return True

    def clear(self) -> None:
        """Back to the shipped data."""
        self.error.value = ""
        catalog = load_catalog()
        self.active.value = active_html(catalog)
        self.on_catalog(catalog)
