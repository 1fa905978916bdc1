"""Execute notebooks in place to refresh the outputs nbval compares: the one command to run after
editing a notebook or changing a number it shows.

Run, from the repository root::

    PYTHONPATH=src .venv/bin/python tools/refresh_outputs.py notebooks/0X_....ipynb [...]

(no argument: every notebook in notebooks/). Each notebook runs in a fresh kernel with notebooks/
as its working directory, as nbval runs it. Relative ``PYTHONPATH`` entries are made absolute
first, so ``PYTHONPATH=src`` means this checkout's package in the kernel too (otherwise the kernel
looks for notebooks/src and quietly imports whichever ``workbook`` is installed). The file
written is deterministic, so refreshing twice stores the same bytes: no widget state
(``store_widget_state=False`` and no ``widgets`` metadata) and no execution timestamps
(``record_timing=False``, and timing metadata from older runs removed). Then check with
``pytest notebooks/0X_....ipynb`` (pyproject's addopts run nbval; give it an absolute
``PYTHONPATH`` for the same reason).
"""

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NB = Path(__file__).resolve().parents[1] / "notebooks"


def refresh(path: Path) -> None:
    """Execute ``path`` in place and write it back without widget state or timing metadata."""
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        store_widget_state=False,
        record_timing=False,
        resources={"metadata": {"path": str(NB)}},
    ).execute()
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nbformat.write(nb, path)
    print("refreshed", path)


def absolute_pythonpath() -> None:
    """Resolve relative ``PYTHONPATH`` entries against the current directory (the kernel, which
    inherits the environment, starts in notebooks/)."""
    entries = [e for e in os.environ.get("PYTHONPATH", "").split(os.pathsep) if e]
    if entries:
        os.environ["PYTHONPATH"] = os.pathsep.join(str(Path(e).resolve()) for e in entries)


if __name__ == "__main__":
    absolute_pythonpath()
    targets = [Path(p) for p in sys.argv[1:]] or sorted(NB.glob("*.ipynb"))
    for t in targets:
        refresh(t)
