"""The benchmarks run from a clone: their evaluation data ships in benchmarks/data with its licences, and
every benchmark that reads data defaults to that folder."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "benchmarks" / "data"
READS_DATA = sorted(p for p in (REPO / "benchmarks").glob("*.py") if '"--data"' in p.read_text())


def test_every_data_file_is_listed_with_a_licence_that_ships():
    readme = (DATA / "README.md").read_text()
    rows = re.findall(r"^\| `([^`]+)` \|.*\| ([^|]+) \|$", readme, flags=re.M)
    shipped = {p.name for p in DATA.iterdir() if not p.name.startswith(("LICENSE", "README"))}
    assert {name for name, _ in rows} == shipped
    for name, licence in rows:
        for file in re.findall(r"`(LICENSE[^`]*)`", licence):
            assert list(DATA.glob(file.replace("*", "?*"))), f"{name}: licence file {file} missing"


@pytest.mark.parametrize("script", READS_DATA, ids=lambda p: p.name)
def test_data_defaults_to_the_shipped_folder(script):
    proc = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=300,
                          cwd="/", env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stderr[-1000:]
    assert "default: benchmarks/data" in " ".join(proc.stdout.split())
