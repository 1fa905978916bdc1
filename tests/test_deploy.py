"""deploy/jupyterhub_config.py, executed as JupyterHub would (``c = get_config()``) with a
traitlets Config instead of a hub (jupyterhub is not a dependency of the workbook)."""

import runpy
from pathlib import Path

from traitlets.config import Config

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "deploy" / "jupyterhub_config.py"


def _load(monkeypatch, checkout: Path | None = None) -> tuple[Config, dict]:
    c = Config()
    if checkout is not None:
        monkeypatch.setenv("WORKBOOK_CHECKOUT", str(checkout))
    else:
        monkeypatch.delenv("WORKBOOK_CHECKOUT", raising=False)
    names = runpy.run_path(str(CONFIG), init_globals={"get_config": lambda: c})
    return c, names


def test_every_visitor_gets_the_app_from_this_checkout(monkeypatch):
    c, _ = _load(monkeypatch)
    notebook_dir = Path(c.Spawner.notebook_dir)
    assert c.Spawner.default_url == "/voila/render/app.ipynb"
    assert (notebook_dir / "app.ipynb").is_file()
    src = Path(c.Spawner.environment["PYTHONPATH"])
    assert (src / "workbook" / "present" / "app" / "page.py").is_file()
    assert c.Spawner.environment["JUPYTER_PATH"].endswith("build/share/jupyter")
    assert c.JupyterHub.bind_url == "http://127.0.0.1:8000"
    assert c.JupyterHub.authenticator_class == "tmpauthenticator.TmpAuthenticator"
    c2, _ = _load(monkeypatch, Path("/srv/workbook"))
    assert c2.Spawner.notebook_dir == "/srv/workbook/notebooks"


def test_the_hub_caps_servers_by_cores_and_mirrors_voila_json(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    c, names = _load(monkeypatch)
    assert c.JupyterHub.active_server_limit == 8 * names["VISITORS_PER_CORE"] > 0
    assert c.JupyterHub.concurrent_spawn_limit == 7
    args = " ".join(c.Spawner.args)
    assert "template=offline" in args and "strip_sources=True" in args
    assert "show_tracebacks=False" in args and "cull_connected=False" in args
    assert "disable_check_xsrf" not in args and "token=''" not in args  # XSRF and auth stay on
    assert c.Spawner.mem_limit == names["MEMORY_PER_VISITOR"]


def test_idle_servers_are_culled_by_a_service_with_the_scopes_it_needs(monkeypatch):
    c, names = _load(monkeypatch)
    (service,) = c.JupyterHub.services
    assert service["command"][1:3] == ["-m", "jupyterhub_idle_culler"]
    assert f"--timeout={names['IDLE_TIMEOUT_S']}" in service["command"]
    (role,) = c.JupyterHub.load_roles
    assert role["services"] == [service["name"]]
    assert {"list:users", "read:servers", "delete:servers", "admin:users"} <= set(role["scopes"])
