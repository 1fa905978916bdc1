"""Execute the notebooks in place to refresh the outputs nbval compares (no widget state stored).

Run: .venv/bin/python tools/refresh_outputs.py [notebook ...]
"""

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NB = Path(__file__).resolve().parents[1] / "notebooks"


def refresh(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        store_widget_state=False,
        resources={"metadata": {"path": str(NB)}},
    ).execute()
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)
    print("refreshed", path)


if __name__ == "__main__":
    targets = [Path(p) for p in sys.argv[1:]] or sorted(NB.glob("*.ipynb"))
    for t in targets:
        refresh(t)
