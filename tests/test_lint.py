"""The code base stays ruff-clean (the same check a contributor runs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def test_ruff_check_is_clean():
    ruff = Path(sys.executable).with_name("ruff")
    proc = subprocess.run([str(ruff), "check", "--no-cache", str(REPO)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_is_clean(request: pytest.FixtureRequest, tmp_path: Path):
    """Typed throughout: mypy (config in pyproject.toml, pydantic plugin) passes on the package.

    Its incremental cache is kept in pytest's cache folder (`.pytest_cache/d/mypy`; a temporary one when the
    cache plugin is off): the first run checks everything (about 11 s of CPU: torch, transformers and
    sentence-transformers are not followed, see pyproject.toml), a later one only the modules that changed and
    what depends on them, with the same result."""
    mypy = Path(sys.executable).with_name("mypy")
    cache = getattr(request.config, "cache", None)
    cache_dir = cache.mkdir("mypy") if cache is not None else tmp_path / "mypy"
    proc = subprocess.run(
        [str(mypy), "--cache-dir", str(cache_dir), "--config-file", str(REPO / "pyproject.toml")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
