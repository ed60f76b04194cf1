"""The package's layer order, checked on the import graph: a module imports only from its own layer or lower.

models → embeddings, equivalence, verifier → scoring → judge → sources → stream → tools, wiring → demo
→ commands → cli → docs_tables
(`logs`, `settings_sources`, `cluster`, `asking` and `cache`-style utilities sit at the bottom; `report` formats
results and `calibration` measures them against people's labels, both beside `sources`.)
Function-level imports count too: a lazy import is no way around the order.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "monitor"

LAYERS: dict[str, int] = {
    "logs": 0,
    "cache": 0,
    "disk_cache": 0,
    "asking": 0,
    "settings_sources": 0,
    "cluster": 0,
    "models": 1,
    "embeddings": 2,
    "equivalence": 2,
    "verifier": 2,
    "scoring": 3,
    "judge": 4,
    "sources": 5,
    "otel": 5,
    "report": 5,
    "calibration": 5,
    "stream": 6,
    "tools": 7,
    "wiring": 7,
    "demo": 8,
    "commands": 9,
    "cli": 10,
    "docs_tables": 11,
}


def _layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "monitor" or len(parts) < 2:
        return None
    return parts[1]


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
    return found


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py" or p.parent != PACKAGE)


def test_every_package_module_has_a_layer() -> None:
    unknown = {p.relative_to(PACKAGE).parts[0].removesuffix(".py") for p in _modules()} - set(LAYERS)
    assert not unknown, f"give these a layer in tests/test_layers.py: {sorted(unknown)}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layer_order(path: Path) -> None:
    own = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
    upward = [
        f"line {line}: {module}"
        for line, module in _imports(path)
        if (target := _layer_of(module)) is not None and target in LAYERS and LAYERS[target] > LAYERS[own]
    ]
    assert not upward, f"{path.relative_to(PACKAGE)} imports a higher layer: {upward}"


def test_scoring_does_not_know_the_judge() -> None:
    offenders = [
        str(p.relative_to(PACKAGE))
        for p in _modules()
        if p.relative_to(PACKAGE).parts[0] in {"scoring", "sources"}
        and any(_layer_of(m) == "judge" for _, m in _imports(p))
    ]
    assert not offenders


def test_the_checker_catches_an_upward_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from monitor.stream.runner import Monitor\n    return Monitor\n")
    assert (2, "monitor.stream.runner") in _imports(bad)
    assert LAYERS["stream"] > LAYERS["scoring"]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (``from monitor.x import y`` names ``monitor.x.y`` when that
    is a module)."""
    names = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        targets: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                subs = {f"{node.module}.{a.name}" for a in node.names} & names.keys()
                targets |= subs or ({node.module} & names.keys())
            elif isinstance(node, ast.Import):
                targets |= {a.name for a in node.names} & names.keys()
        graph[name] = targets - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), a package and its own ``__init__``
    re-exports aside: importing ``monitor.a.b`` runs ``monitor.a`` first, which is no cycle of the code."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _drop_init_reexports(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """A package's ``__init__`` imports its own submodules to re-export them; a submodule importing a sibling
    through the package is an edge to the sibling, not to ``__init__``."""
    return {v: {w for w in ws if not v.startswith(w + ".")} for v, ws in graph.items()}


def test_no_import_cycle() -> None:
    cycles = _cycles(_drop_init_reexports(_graph()))
    assert not cycles, f"import cycles: {cycles}"


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _function_level_imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.append((node.lineno, node.module))
            elif isinstance(node, ast.Import):
                found.extend((node.lineno, a.name) for a in node.names)
    return [(line, m) for line, m in found if m == "monitor" or m.startswith("monitor.")]


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_function_level_import_of_the_package(path: Path) -> None:
    """A module imports the package's modules at its top: a lazy import hides a cycle or a layer breach."""
    assert not _function_level_imports(path), _function_level_imports(path)


def test_the_value_types_stand_alone() -> None:
    """``Money``, ``Quantity``, ``canon``, ``SCALES``: every reader builds on them, they on nothing of the package."""
    base = PACKAGE / "equivalence" / "values" / "base.py"
    assert [m for _, m in _imports(base) if m.startswith("monitor")] == []
