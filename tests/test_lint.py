"""The code base stays ruff-clean (the same check a contributor runs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_ruff_check_is_clean():
    ruff = Path(sys.executable).with_name("ruff")
    proc = subprocess.run([str(ruff), "check", "--no-cache", str(REPO)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_is_clean():
    """Typed throughout: mypy (config in pyproject.toml, pydantic plugin) passes on the package."""
    mypy = Path(sys.executable).with_name("mypy")
    proc = subprocess.run(
        [str(mypy), "--no-incremental", "--config-file", str(REPO / "pyproject.toml")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
