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
