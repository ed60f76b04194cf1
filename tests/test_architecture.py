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
