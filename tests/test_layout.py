"""The package's shape (docs/architecture.md): layers whose imports run only down or sideways, no
import circle, small modules and functions, no module that is also a script, and a wheel that
carries every package folder.

Read from the source with ``ast`` (nothing is imported), so a lazy import inside a function counts
like any other.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "workbook"

#: Floors of the house, bottom first: a module may import its own floor and any floor below.
LAYERS = {
    "checks": 0,
    "units": 0,
    "text": 0,
    "shipped": 0,
    "catalog": 1,
    "model": 2,
    "calibrate": 3,
    "decide": 4,
    "present": 5,
    "guides": 6,
    "cli": 7,
    "__init__": 8,
    "__main__": 9,
}
MAX_MODULE_LINES = 500
#: Lines of code of one function, its docstring not counted (:func:`_code_lines`).
MAX_FUNCTION_LINES = 60
#: Declared tables: data written as code, longer than a function may be. (module, function)
DECLARED_TABLES: set[tuple[str, str]] = set()
#: Third-party packages that take seconds to import; only the presentation and the command line
#: may import them inside a function (so that a table or the CLI's other commands start fast).
HEAVY = {
    "altair",
    "vl_convert",
    "papermill",
    "nbconvert",
    "nbformat",
    "nbclient",
    "jupyter_client",
    "traitlets",
    "voila",
    "IPython",
    "tqdm",
    "anywidget",
    "ipywidgets",
}


def _modules() -> dict[str, Path]:
    """Dotted name under workbook (``decide.recommend``) -> file."""
    out = {}
    for p in sorted(SRC.rglob("*.py")):
        parts = list(p.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


MODULES = _modules()


def _package_of(name: str, path: Path) -> list[str]:
    parts = name.split(".")
    return parts if path.name == "__init__.py" else parts[:-1]


def _imports(name: str, path: Path) -> list[tuple[str, int, bool]]:
    """(imported workbook module, line, inside a function) for every import of ``name``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(n) for n in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            base = _package_of(name, path)[: len(_package_of(name, path)) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{target}.{alias.name}" if target else alias.name
                mod = full if full in MODULES else target
                if mod:
                    found.append((mod, node.lineno, id(node) not in top))
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and (
            getattr(node, "module", "") or ""
        ).startswith("workbook"):
            found.append((node.module.removeprefix("workbook").lstrip("."), node.lineno, True))
    return found


def _layer(module: str) -> int:
    return LAYERS[module.split(".")[0]]


def test_every_module_sits_on_a_floor():
    assert {m.split(".")[0] for m in MODULES} <= set(LAYERS)


def test_imports_run_only_down_or_sideways():
    up = [
        f"{name} (floor {_layer(name)}) imports {target} (floor {_layer(target)}), line {line}"
        for name, path in MODULES.items()
        for target, line, _ in _imports(name, path)
        if target and _layer(target) > _layer(name)
    ]
    assert not up, "\n".join(up)


def test_no_import_circle():
    graph = {
        name: {t for t, _, _ in _imports(name, path) if t and t != name}
        for name, path in MODULES.items()
    }
    # A package's face (__init__) re-exports its modules: drop module -> own-package-face edges
    for name in graph:
        graph[name] = {t for t in graph[name] if not name.startswith(t + ".")}
    seen, stack, circles = set(), [], []

    def visit(n):
        if n in stack:
            circles.append(" -> ".join(stack[stack.index(n) :] + [n]))
            return
        if n in seen:
            return
        seen.add(n)
        stack.append(n)
        for t in sorted(graph.get(n, ())):
            visit(t)
        stack.pop()

    for n in sorted(graph):
        visit(n)
    assert not circles, "\n".join(circles)


def test_function_level_imports_only_for_heavy_optional_dependencies():
    bad = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or id(node) in top:
                continue
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "__future__":
                continue
            roots = (
                [a.name.split(".")[0] for a in node.names]
                if isinstance(node, ast.Import)
                else [(node.module or "").split(".")[0]]
                if node.level == 0
                else ["workbook"]
            )
            allowed = name.split(".")[0] in ("present", "cli") and all(r in HEAVY for r in roots)
            if not allowed:
                bad.append(f"{name}, line {node.lineno}: {ast.unparse(node)}")
    assert not bad, "\n".join(bad)


def _code_lines(node: ast.FunctionDef) -> int:
    """Lines of a function from its ``def`` to its end, less its docstring (numpydoc docstrings are
    documentation, and STYLE.md asks for them in full)."""
    n = node.end_lineno - node.lineno + 1
    first = node.body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        n -= first.end_lineno - first.lineno + 1
    return n


def test_modules_and_functions_are_small():
    big = []
    for name, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_MODULE_LINES:
            big.append(f"{name}: {len(text.splitlines())} lines (at most {MAX_MODULE_LINES})")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = _code_lines(node)
                if n > MAX_FUNCTION_LINES and (name, node.name) not in DECLARED_TABLES:
                    big.append(f"{name}.{node.name}: {n} lines (at most {MAX_FUNCTION_LINES})")
    assert not big, "\n".join(big)


def test_no_library_module_is_also_a_script():
    scripts = [
        name
        for name, path in MODULES.items()
        if name != "__main__" and '__name__ == "__main__"' in path.read_text(encoding="utf-8")
    ]
    assert not scripts


@pytest.mark.parametrize("table", ["packages", "package-dir"])
def test_the_wheel_lists_every_package_folder(table):
    """pyproject.toml lists the packages (data/ and notebooks/ are mapped in, so they cannot be
    found); a new folder under src/workbook must be added there or the wheel would lack it."""
    cfg = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {
        "workbook." + ".".join(p.parent.relative_to(SRC).parts) if p.parent != SRC else "workbook"
        for p in SRC.rglob("__init__.py")
    }
    if table == "packages":
        assert set(cfg["packages"]) == folders | {"workbook.data", "workbook.notebooks"}
    else:
        assert cfg["package-dir"] == {
            "": "src",
            "workbook.data": "data",
            "workbook.notebooks": "notebooks",
        }
