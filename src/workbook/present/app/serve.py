"""Serve the Voila app offline on http://127.0.0.1:8866 (``make app``; ``PORT=8870 make app`` for
another port; ``python -m workbook app``).

Voila's ``lab`` template links Font Awesome from a CDN (voila#539); we generate a two-file template
``offline`` that extends it without those lines, from the *installed* template so it follows the
pinned Voila (../shared/reference/jupyter_stack.md), with its styles after the cells so the static
preview paints first (:data:`LATE_STYLES`). Settings live in the committed ``voila.json``;
the server itself is :class:`workbook.present.app.gate.WorkbookVoila` (a cap on kernels).
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

from ...shipped import CHECKOUT, NOTEBOOK_DIR

#: Voila reads voila.json from its launch directory: the checkout (``make app``), else the working
#: one.
REPO = CHECKOUT or Path.cwd()
SHARE = REPO / "build" / "share" / "jupyter"
APP_NOTEBOOK = NOTEBOOK_DIR / "app.ipynb"


#: Environment variable (set by :func:`voila_command`) naming the file where the app's kernels
#: leave the default page's static preview (:func:`workbook.present.app.warm.leave_preview`), which
#: the server shows to a visitor waiting for a kernel (:mod:`workbook.present.app.gate`).
PREVIEW_FILE_ENV = "WORKBOOK_PREVIEW_FILE"

#: Output metadata key of the app's static preview
#: (:meth:`workbook.present.app.page.WorkbookApp.show`).
PREVIEW_KEY = "workbook/preview"

#: Shows the app's static preview (``WorkbookApp.preview_html``, an output tagged with
#: ``PREVIEW_KEY``) as soon as the HTML arrives: Voila keeps every output hidden until its scripts
#: have loaded (~3 s). The live app's CSS hides the preview again once the widgets are on screen.
#: A ``?preset=`` link to another scenario gets no preview (the kernel ran the default one ahead of
#: the request).
PREVIEW_SCRIPT = (
    """
{%- if output and output.metadata and output.metadata.get('"""
    + PREVIEW_KEY
    + """') -%}
{%- set h = output.data['text/html'] -%}
{%- if h is not string %}{% set h = h | join('') %}{% endif -%}
<script>
(function () {
  var box = document.createElement('div');
  box.id = 'wb-preview';
  box.innerHTML = {{ h | tojson }};
  var shown = box.firstElementChild, asked = new URLSearchParams(location.search).get('preset');
  /* a deep link to another preset: no preview */
  if (!shown || (asked && asked !== shown.getAttribute('data-preset'))) { return; }
  shown.removeAttribute('hidden');
  document.body.insertBefore(box, document.body.firstChild);
})();
</script>
{%- endif -%}
"""
)


#: The page's styles and theme script go after the notebook's cells instead of in the head, so
#: the static preview is on screen as soon as the HTML has arrived: in the head,
#: ``voila-style.js`` (0.34 MB, parser-blocking) and the lab CSS (0.26 MB, render-blocking) held
#: back every paint until they were fetched and parsed, ~2.8 s of browser CPU for one visitor and
#: ~25 s of waiting with ten browsers on 2 cores (tools/bench_visitors.py). The head keeps the
#: spinner's inline CSS; the cells stay hidden until the theme has loaded (Voila's
#: ``voila_finish`` waits for it), so nothing shows unstyled but the preview, which carries its
#: own inline style. ``resources['wb_late_css']`` tells the block which place it renders in.
LATE_STYLES = (
    (
        "{%- block notebook_css -%}",
        "{%- block notebook_css -%}\n{%- if not resources.get('wb_late_css') %}"
        "{{ spinner.css() }}{% else -%}",
    ),
    (
        "{%- endblock notebook_css -%}",
        "{%- endif -%}\n{%- endblock notebook_css -%}",
    ),
    (
        "{%- block body_footer -%}",
        "{%- block body_footer -%}\n{%- set _ = resources.update(wb_late_css=True) -%}\n"
        "{{ self.notebook_css() }}",
    ),
)


def build_offline_template(share: Path = SHARE) -> Path:
    """Write share/jupyter/voila/templates/offline (lab without CDN links); return its folder."""
    import voila

    lab = Path(sys.prefix) / "share" / "jupyter" / "voila" / "templates" / "lab" / "index.html.j2"
    if not lab.exists():  # installed elsewhere (user site): look beside the package
        lab = (
            Path(voila.__file__).resolve().parents[3]
            / "share"
            / "jupyter"
            / "voila"
            / "templates"
            / "lab"
            / "index.html.j2"
        )
    out = share / "voila" / "templates" / "offline"
    out.mkdir(parents=True, exist_ok=True)
    lines = [ln for ln in lab.read_text().splitlines(keepends=True) if "fontawesome-free" not in ln]
    # nbconvert's lab base imports mermaid from cdnjs when a page has diagrams: empty that block
    # too.
    lines.append("\n{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}\n")
    text = "".join(lines)
    end = "{% endblock data_priority %}"
    if text.count(end) != 1:
        raise RuntimeError(
            f"{lab}: expected one '{end}'; Voila's template changed, "
            "update workbook.present.app.serve"
        )
    text = text.replace(end, PREVIEW_SCRIPT + end)
    for marker, late in LATE_STYLES:
        if text.count(marker) != 1:
            raise RuntimeError(
                f"{lab}: expected one '{marker}'; Voila's template changed, "
                "update workbook.present.app.serve"
            )
        text = text.replace(marker, late)
    (out / "index.html.j2").write_text(text)
    (out / "conf.json").write_text('{"base_template": "lab"}\n')
    return out


#: Voila with the kernel cap, the busy page and the _xsrf cookie (:mod:`.gate`).
#: The server skips the slow optional import first (:func:`.warm.skip_slow_optional_imports`: 2 s
#: of its start, under jupyter_server's jsonschema).
SERVER_ENTRY = (
    "from workbook.present.app.warm import skip_slow_optional_imports; "
    "skip_slow_optional_imports(); "
    "from workbook.present.app.gate import main; main()"
)


def voila_command(notebook: Path = APP_NOTEBOOK, port: int = 8866) -> tuple[list[str], dict]:
    """The command line and environment that serve ``notebook`` with the committed settings
    (:func:`workbook.present.app.gate.main`: Voila with a cap on kernels)."""
    build_offline_template()
    env = dict(os.environ)
    env["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(SHARE), env.get("JUPYTER_PATH")]))
    env[PREVIEW_FILE_ENV] = str(REPO / "build" / "cache" / f"preview-{port}.html")
    cmd = [
        sys.executable,
        "-c",
        SERVER_ENTRY,
        str(notebook),
        f"--port={port}",
        "--no-browser",
        f"--Voila.root_dir={Path(notebook).resolve().parent}",
    ]
    return cmd, env


#: Where ``make app`` serves (voila.json's port); ``PORT=8870 make app`` picks another.
DEFAULT_PORT = 8866


def app_port(environ=os.environ) -> int:
    """The port to serve on: ``PORT`` from the environment, else :data:`DEFAULT_PORT`."""
    raw = environ.get("PORT", "").strip() or str(DEFAULT_PORT)
    if not raw.isdigit() or not 1024 <= int(raw) <= 65535:
        raise ValueError(
            f"PORT={raw!r} is not a port number; allowed: a whole number from 1024 to 65535, "
            "e.g. PORT=8870"
        )
    return int(raw)


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    """Whether something already listens on ``host:port`` (Voila would then silently move to the
    next port)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return True
    return False


def main() -> int:
    """Serve the app on 127.0.0.1 at :func:`app_port`; exit 2 with a message when that port is
    taken or ``PORT`` is malformed, instead of Voila's silent move to another port than the one
    announced."""
    try:
        port = app_port()
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if port_in_use(port):
        print(
            f"error: port {port} on 127.0.0.1 is already in use (another `make app` still "
            f"running?). Stop it, or serve on another port: PORT={port + 4} make app",
            file=sys.stderr,
        )
        return 2
    cmd, env = voila_command(port=port)
    cmd.append("--Voila.port_retries=0")  # never serve anywhere but the announced address
    # The server prints "Serving the workbook on http://..." once its first kernel is ready.
    print(
        f"Starting the workbook on port {port}: its address follows when it can serve.", flush=True
    )
    os.chdir(REPO)  # voila.json is read from the launch directory
    os.execve(sys.executable, cmd, env)
    return 0  # not reached: execve replaces this process
