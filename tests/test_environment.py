"""environment.yml must describe the same pinned environment as pyproject.toml; `make app` must
serve where it says."""

import os
import re
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]


def _pyproject_pins() -> dict[str, str]:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    reqs = list(meta["dependencies"]) + list(meta["optional-dependencies"]["dev"])
    return dict(r.split("==", 1) for r in reqs)


def _environment_pins() -> dict[str, str]:
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    return dict(r.split("==", 1) for r in pip if "==" in r)


def test_every_dependency_is_pinned_exactly():
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    for r in list(meta["dependencies"]) + list(meta["optional-dependencies"]["dev"]):
        assert "==" in r, f"{r} in pyproject.toml is not pinned with =="


def test_environment_yml_matches_pyproject():
    py, env = _pyproject_pins(), _environment_pins()
    assert py == env, (
        f"only in pyproject.toml: {sorted(set(py.items()) - set(env.items()))}; "
        f"only in environment.yml: {sorted(set(env.items()) - set(py.items()))}"
    )


def test_environment_yml_python_matches_requires_python():
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    assert "python=3.11" in env["dependencies"]
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert "3.11" in meta["requires-python"] or ">=3.11" in meta["requires-python"]


def test_constraints_agree_with_pins():
    """constraints.txt (the full lock used by `make`) must not contradict a direct pin."""
    lock = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, ver = line.split("==", 1)
            lock[name.lower().replace("_", "-")] = ver.strip()
    for name, ver in _pyproject_pins().items():
        key = name.lower().replace("_", "-")
        assert key in lock, f"{name} is pinned in pyproject.toml but missing from constraints.txt"
        assert lock[key] == ver, f"{name}: pyproject {ver} vs constraints.txt {lock[key]}"


def test_app_refuses_a_taken_port_instead_of_serving_elsewhere():
    """Voila moves to the next free port when its port is taken, so `make app` would announce
    http://127.0.0.1:8866 while serving another address. It must say so and exit 2 instead, and a
    malformed PORT must be named with what is allowed."""
    from workbook.present.app.serve import DEFAULT_PORT, app_port, port_in_use

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert port_in_use(port)
        r = subprocess.run(
            [sys.executable, "-m", "workbook", "app"],
            env=dict(os.environ, PORT=str(port)),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert r.returncode == 2 and r.stdout == ""
    assert (
        f"port {port} on 127.0.0.1 is already in use" in r.stderr
        and f"PORT={port + 4} make app" in r.stderr
    )
    assert not port_in_use(port)  # released with the socket
    assert app_port({}) == DEFAULT_PORT == 8866 and app_port({"PORT": " 8870 "}) == 8870
    for bad in ("80x", "80", "70000", "-1"):
        with pytest.raises(
            ValueError,
            match=re.escape(
                f"PORT={bad!r} is not a port number; allowed: a whole number from 1024 to 65535"
            ),
        ):
            app_port({"PORT": bad})
