"""Where the files shipped beside the code are: ``data/``, and the ``notebooks/`` that the app and
the memo run.

In a wheel they sit inside the package (``workbook/data``, ``workbook/notebooks``: pyproject.toml
maps the top-level folders there); in a checkout (an editable install, or ``src/`` on the path)
they are the top-level folders themselves. Read them relative to the package, never the working
directory: Voila and papermill run notebooks from their own.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
#: The checkout's root when the package runs from ``src/workbook`` (None in an installed wheel).
CHECKOUT = PACKAGE.parents[1] if PACKAGE.parent.name == "src" else None


def shipped_dir(name: str) -> Path:
    """``workbook/<name>`` inside an installed wheel, else ``<checkout>/<name>``."""
    inside = PACKAGE / name
    if inside.is_dir() or CHECKOUT is None:
        return inside
    return CHECKOUT / name


#: The shipped tables. A user's own numbers go through an overrides file
#: (:func:`workbook.catalog.load_catalog`), the one way in, so every output names them.
DATA_DIR = shipped_dir("data")
NOTEBOOK_DIR = shipped_dir("notebooks")
