"""docs/architecture.md matches the code: its diagram names modules that exist, and it names every pipeline module."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGE = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
MODULE = re.compile(r"monitor/[\w/]+\.py")


def _diagram() -> str:
    blocks = re.findall(r"```mermaid\n(.*?)```", PAGE, flags=re.S)
    assert len(blocks) == 1, "docs/architecture.md should hold one Mermaid diagram"
    return blocks[0]


def test_every_module_the_diagram_names_exists():
    named = set(MODULE.findall(_diagram()))
    assert len(named) >= 10, sorted(named)
    missing = sorted(path for path in named if not (REPO / path).is_file())
    assert not missing, f"the diagram names modules that do not exist: {missing}"


def test_every_module_the_page_names_exists():
    missing = sorted(path for path in set(MODULE.findall(PAGE)) if not (REPO / path).is_file())
    assert not missing, f"docs/architecture.md names modules that do not exist: {missing}"


def test_the_page_names_every_pipeline_module():
    """A module added to monitor/stream/ gets its place on the page (in the diagram or the list below it)."""
    named = {Path(path).name for path in MODULE.findall(PAGE)} | set(re.findall(r"`(\w+\.py)`", PAGE))
    modules = {p.name for p in (REPO / "monitor" / "stream").glob("*.py") if p.name != "__init__.py"}
    assert not modules - named, f"not on docs/architecture.md: {sorted(modules - named)}"


NODE = re.compile(r'^\s*(\w+)\[\(?"([^"]*)"\)?\]', re.M)
EDGE = re.compile(r'^\s*([\w &]+?)\s+--\s+"([^"]+)"\s+-->\s+([\w &]+?)\s*$', re.M)


def _modules_of_nodes() -> dict[str, list[Path]]:
    return {node: [REPO / path for path in MODULE.findall(label)] for node, label in NODE.findall(_diagram())}


def _edges() -> list[tuple[str, str, str]]:
    """(caller node, method, callee node) for every labelled arrow; a label lists methods, after a step number."""
    out = []
    for callers, label, callees in EDGE.findall(_diagram()):
        methods = [m.strip() for m in re.sub(r"^\d+\s+", "", label).split(",")]
        for a in callers.split("&"):
            for b in callees.split("&"):
                out += [(a.strip(), method, b.strip()) for method in methods]
    return out


def test_every_arrow_of_the_diagram_is_a_call():
    """An arrow A -- "m" --> B: a module of A calls `.m(`, and a module of B defines `def m(` (a node without
    modules, like the Kafka client, is the library's)."""
    modules = _modules_of_nodes()
    edges = _edges()
    assert len(edges) >= 20, edges
    wrong = []
    for a, method, b in edges:
        assert a in modules and b in modules, f"arrow between unknown nodes: {a} -> {b}"
        if not any(re.search(rf"\.{method}\(", path.read_text()) for path in modules[a]):
            wrong.append(f"{a} does not call .{method}(")
        if modules[b] and not any(re.search(rf"def {method}\(", path.read_text()) for path in modules[b]):
            wrong.append(f"{b} does not define {method}")
    assert not wrong, wrong
