"""JupyterHub for a room larger than one `make app` serves (README, "Serving a room").

One `make app` server holds at most ``CappedKernelManager.max_kernels`` visitors (voila.json) on
one machine. For more, put JupyterHub in front of several cores or machines: every visitor gets a
temporary user (no login) whose own single-user Jupyter server renders the app with Voila's
server extension (one kernel per visitor, as with `make app`), the hub caps the servers that run
at once (``active_server_limit``: beyond it a visitor gets the hub's 429 "try again" page, the
same role as the workbook's busy page) and stops idle ones (jupyterhub-idle-culler).

Install beside the workbook (not part of `make venv`):
    .venv/bin/pip install jupyterhub jupyterhub-tmpauthenticator jupyterhub-idle-culler
    npm install -g configurable-http-proxy
    .venv/bin/python -c "from workbook.present.app.serve import build_offline_template as b; b()"
Run from the checkout:
    .venv/bin/jupyterhub -f deploy/jupyterhub_config.py
and put the organisation's TLS reverse proxy in front of http://127.0.0.1:8000. A container per
N visitors behind any proxy works the same way: each container runs `make app` (its own cap),
the proxy spreads visitors over the containers with sticky sessions (a page keeps talking to the
kernel of the server that served it).

The sizes below come from tools/bench_visitors.py on the 2-core VM (README, "Serving a room");
the idle and memory settings mirror voila.json. tests/test_deploy.py executes this file with a
stub ``c`` and checks them.
"""

import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821 (JupyterHub defines get_config when it loads this file)

#: The workbook checkout: this file's parent's parent unless WORKBOOK_CHECKOUT says otherwise.
CHECKOUT = Path(os.environ.get("WORKBOOK_CHECKOUT") or Path(__file__).resolve().parents[1])
#: Visitors one CPU core serves with their pages live (measured: README, "Serving a room").
VISITORS_PER_CORE = 5
#: Memory one visitor's single-user server and kernel hold (measured ~0.17 GB for the kernel,
#: ~0.1 GB for its Jupyter server; rounded up for the charts' data after a few changes).
MEMORY_PER_VISITOR = "400M"
#: Seconds without activity before a visitor's server is stopped (a closed tab).
IDLE_TIMEOUT_S = 300
CORES = os.cpu_count() or 1

c.JupyterHub.bind_url = "http://127.0.0.1:8000"
c.JupyterHub.authenticator_class = "tmpauthenticator.TmpAuthenticator"
c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
c.JupyterHub.active_server_limit = VISITORS_PER_CORE * CORES
c.JupyterHub.concurrent_spawn_limit = max(1, CORES - 1)  # as voila.json: one CPU for the pages
c.JupyterHub.cookie_max_age_days = 1

c.Spawner.notebook_dir = str(CHECKOUT / "notebooks")
c.Spawner.default_url = "/voila/render/app.ipynb"
c.Spawner.environment = {
    "PYTHONPATH": str(CHECKOUT / "src"),
    "JUPYTER_PATH": str(CHECKOUT / "build" / "share" / "jupyter"),  # the offline template
}
c.Spawner.args = [
    "--VoilaConfiguration.template=offline",
    "--VoilaConfiguration.strip_sources=True",
    "--VoilaConfiguration.show_tracebacks=False",
    "--VoilaConfiguration.file_allowlist=[]",
    "--VoilaExecutor.timeout=120",
    "--MappingKernelManager.cull_idle_timeout=45",
    "--MappingKernelManager.cull_interval=10",
    "--MappingKernelManager.cull_connected=False",
]
c.Spawner.mem_limit = MEMORY_PER_VISITOR  # enforced by spawners that can (systemd, docker)
c.Spawner.cpu_limit = 1.0
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 60

c.JupyterHub.services = [
    {
        "name": "idle-culler",
        "command": [
            sys.executable,
            "-m",
            "jupyterhub_idle_culler",
            f"--timeout={IDLE_TIMEOUT_S}",
            "--cull-every=60",
            "--cull-users",  # temporary users go with their server
        ],
    }
]
c.JupyterHub.load_roles = [
    {
        "name": "idle-culler",
        "scopes": [
            "list:users",
            "read:users:activity",
            "read:servers",
            "delete:servers",
            "admin:users",
        ],
        "services": ["idle-culler"],
    }
]
