"""`benchmarks/outcome_probes.py` runs as docs/benchmarks.md writes it, and decides every probe of the shipped
model the way the verifier tests do (the probes' strict expected failures are the reversals that pass)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.conftest import REPO


def test_the_outcome_probe_benchmark_runs_as_documented() -> None:
    out = subprocess.run(
        [sys.executable, "benchmarks/outcome_probes.py"], cwd=REPO, capture_output=True, text=True, timeout=300,
        env={**os.environ, "HF_HUB_OFFLINE": "1"}, check=True,
    ).stdout  # fmt: skip
    rows = [line for line in out.splitlines() if line.startswith(("| pass |", "| fail |"))]
    assert len(rows) == 17
    summary = re.search(r"(\d+) of 17 right at pass_threshold 0.1; bare cosine >= 0.5: (\d+) of 17", out)
    assert summary is not None
    # every rewording passes the shipped model; the reversals it passes are the documented limit
    assert all(row.split("|")[3].strip() == "yes" for row in rows if row.startswith("| pass |"))
    assert "14 of 17" in (REPO / "docs" / "benchmarks.md").read_text() and summary.group(1) == "14"
