"""The eight guided notebooks (``notebooks/0*.ipynb``): they exist, they are thin, and the outputs
nbval compares are stored and deterministic. nbval itself executes them
(``pytest notebooks/0*.ipynb``, pyproject's addopts); ``tools/refresh_outputs.py`` stores the
outputs."""

import re
from pathlib import Path

import nbformat
import papermill
import pytest

ROOT = Path(__file__).resolve().parents[2]

GUIDES = sorted(p.name for p in (ROOT / "notebooks").glob("0*.ipynb"))
#: The widget-driven guides (issue 17): one panel of workbook.guides each, its charts inside it.
PANELS = {
    "01_model_sizing_and_memory.ipynb": "memory_guide(",
    "02_speed_and_efficiency.ipynb": "speed_guide(",
    "03_rent_vs_buy.ipynb": "rent_vs_buy_guide(",
    "04_power_and_cooling.ipynb": "power_guide(",
    "05_team_and_software_risk.ipynb": "team_guide(",
    "08_your_recommendation.ipynb": "recommendation_guide(",
}


def test_eight_guides_exist():
    assert len(GUIDES) == 8
    assert set(PANELS) <= set(GUIDES)


@pytest.mark.parametrize("name", sorted(PANELS))
def test_widget_guides_build_one_panel_from_their_parameters(name):
    """One cell builds the panel from the parameters and shows it; the summary prints what the
    panel shows (``panel.result``), and the choices file is a parameter."""
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    panel = [s for s in code if PANELS[name] in s]
    assert len(panel) == 1 and panel[0].startswith(("panel = ", "scenario = "))
    assert panel[0].rstrip().endswith("\npanel")
    summary = next(s for s in code if s.startswith("# NBVAL_CHECK_OUTPUT"))
    assert "panel.result" in summary
    assert "choices_file" in papermill.inspect_notebook(str(ROOT / "notebooks" / name))


@pytest.mark.parametrize("name", sorted(GUIDES))
def test_guides_are_thin(name):
    """Imports, one tagged parameters cell (annotated, no '=' in comments), calls, one checked
    summary."""
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    params = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1
    names = re.findall(r"^(\w+)\s*[:=]", params[0].source, re.MULTILINE)
    for line in params[0].source.splitlines():
        if re.match(r"^\w+\s*[:=]", line):
            assert re.match(r"^\w+: [\w\[\]]+ = ", line), f"not annotated: {line}"
        assert "=" not in line.partition("#")[2], f"'=' in a comment breaks papermill: {line}"
    # papermill sees every parameter (a 'str | None' annotation or an '=' in a comment would hide
    # it)
    assert list(papermill.inspect_notebook(str(ROOT / "notebooks" / name))) == names
    assert "overrides" in names
    checked = [c for c in code if c.source.startswith("# NBVAL_CHECK_OUTPUT")]
    assert len(checked) == 1 and "to_string(" in checked[0].source
    for c in code:
        assert not re.search(
            r"^\s*(def |class |for |while |import altair)|lambda|alt\.", c.source, re.MULTILINE
        ), c.source
        # the guides' tables by module path, their charts from present (workbook.guides.analyses
        # is gone)
        assert "analyses" not in c.source, c.source
    # every chart is static SVG, never the default html renderer
    charts = [c for c in code if "_chart(" in c.source]
    assert all(c.source.startswith("SVG(to_svg(") or "\nSVG(to_svg(" in c.source for c in charts)


@pytest.mark.parametrize("name", sorted(GUIDES))
def test_guides_store_deterministic_text_outputs(name):
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    checked = next(
        c for c in nb.cells if c.cell_type == "code" and c.source.startswith("# NBVAL_CHECK_OUTPUT")
    )
    text = "".join(o.get("text", "") for o in checked.outputs if o.get("output_type") == "stream")
    assert text.strip(), f"{name}: run tools/refresh_outputs.py to store reference outputs"
    assert not re.search(r"\d{4}-\d{2}-\d{2}|/work/|0x[0-9a-f]{6,}", text)
    assert "widgets" not in nb.metadata
    # no execution timestamps: refreshing twice stores the same file
    assert not [c for c in nb.cells if "execution" in c.metadata]


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_every_notebook_with_parameters_takes_an_overrides_file(path):
    """The user's numbers everywhere (issue 14, part 5): an ``overrides`` parameter, default None,
    passed on to the catalog (``load_catalog(overrides)``, or the app and memo that call it)."""
    params = papermill.inspect_notebook(str(path))
    if not params:
        return
    assert params["overrides"]["default"] == "None"
    nb = nbformat.read(path, as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert re.search(r"load_catalog\(overrides\)|overrides=overrides|, overrides\)", code)
