"""The app's offline Voila template (workbook.present.app.serve.build_offline_template): the page
Voila renders from it, checked without a browser or a kernel."""

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor

import nbformat
from voila.exporter import VoilaExporter
from voila.paths import collect_template_paths

from workbook.present.app.serve import PREVIEW_KEY, build_offline_template

BLOCKING = ("voila-style.js", "static/index.css", "theme-light.css")


def _page(share) -> str:
    """The offline template rendered the way Voila renders a preheated kernel's page, with a
    notebook whose one output is the app's preview (``kernel_start`` and ``cell_generator`` stand
    in for the kernel)."""
    build_offline_template(share)
    preview = nbformat.v4.new_output(
        "display_data",
        data={"text/html": "<div class='wb-preview' hidden>Rent 64 H100 in the cloud</div>"},
        metadata={PREVIEW_KEY: True},
    )
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("app.show()", outputs=[preview])],
        metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "P"}},
    )

    async def kernel_start(_nb):
        return "kernel-id"

    async def cells(notebook, _kernel_id):
        for cell in notebook.cells:
            yield cell

    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(share), old]))
    try:
        paths = collect_template_paths(["voila", "nbconvert"], "offline")
    finally:
        os.environ.pop("JUPYTER_PATH") if old is None else os.environ.update(JUPYTER_PATH=old)
    exporter = VoilaExporter(template_paths=paths, template_name="offline", theme="light")
    context = {
        "frontend": "voila",
        "main_js": "voila.js",
        "kernel_start": kernel_start,
        "notebook_execute": None,
        "progressive_rendering": False,
        "cell_generator": cells,
    }
    resources = {"base_url": "/", "theme": "light", "template": "offline", "metadata": {}}

    async def render():
        parts = exporter.generate_from_notebook_node(nb, resources, extra_context=context)
        return "".join([html async for html, _ in parts])

    # Its own thread: a session's sync playwright (the e2e tests) keeps a loop running in this one.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, render()).result()


def test_the_preview_comes_before_every_blocking_script_and_stylesheet(tmp_path):
    """In the head, voila-style.js (parser-blocking) and the lab CSS (render-blocking) held back
    the preview's paint until ~0.6 MB was fetched and parsed: with ten browsers on 2 cores the
    recommendation showed after ~25 s. Each of them is on the page once, after the preview."""
    html = _page(tmp_path / "share")
    preview = html.index("box.id = 'wb-preview'")
    assert "Rent 64 H100 in the cloud" in html[preview:]
    for name in BLOCKING:
        assert html.count(name) == 1, name
        assert preview < html.index(name) < html.index('voila.js"></script>'), name
    head = html[: html.index("<body")]
    assert "#loading" in head and ".spinner" in head  # the spinner is styled from the start
