"""Write the thin notebooks in notebooks/ (each: imports, a parameters cell, one call, one display).

Run: .venv/bin/python tools/make_notebooks.py   (then refresh outputs: tools/refresh_outputs.py)
"""

from pathlib import Path

import nbformat as nbf

NB = Path(__file__).resolve().parents[1] / "notebooks"


def notebook(cells, title):
    nb = nbf.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    out = [nbf.v4.new_markdown_cell(title)]
    for kind, src, *tags in cells:
        c = nbf.v4.new_markdown_cell(src) if kind == "md" else nbf.v4.new_code_cell(src)
        if tags:
            c.metadata["tags"] = tags[0]
        out.append(c)
    nb.cells = out
    return nb


NOTEBOOKS = {
    # The Voila app (make app). Every output of every cell shows in Voila, so: one parameters cell,
    # one import, one display. ``preset`` empty = the ?preset= URL parameter or the default.
    "app.ipynb": notebook([
        ("code", "preset: str = \"\"", ["parameters"]),
        ("code", "from workbook.ui import build_app"),
        ("code", "build_app(preset or None)"),
    ], "# GPU training decision workbook\nWhich accelerators to buy or rent, how many, and where to put them."),
}


def main():
    NB.mkdir(exist_ok=True)
    for name, nb in NOTEBOOKS.items():
        nbf.write(nb, NB / name)
        print("wrote", NB / name)


if __name__ == "__main__":
    main()
