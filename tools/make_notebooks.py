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
    "app.ipynb": notebook([
        ("code", "from workbook import accelerators"),
        ("code", "# NBVAL_CHECK_OUTPUT\nprint(accelerators()[['accelerator_id', 'memory_gb', 'memory_bw_tbps', 'tflops_dense_bf16']].to_string(index=False))"),
    ], "# GPU training decision workbook\nThe accelerator catalog (dense FLOP/s, usable memory)."),
}


def main():
    NB.mkdir(exist_ok=True)
    for name, nb in NOTEBOOKS.items():
        nbf.write(nb, NB / name)
        print("wrote", NB / name)


if __name__ == "__main__":
    main()
