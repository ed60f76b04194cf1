"""`benchmarks/outcome_probes.py` runs as docs/benchmarks.md writes it, and decides every probe of the shipped
model the way the verifier tests do."""

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
    # every probe is decided right by the shipped model, as docs/benchmarks.md says; the bare cosine passes the
    # reversals
    assert all(row.split("|")[3].strip() == "yes" for row in rows)
    assert "17 of 17" in (REPO / "docs" / "benchmarks.md").read_text() and summary.group(1) == "17"
    assert int(summary.group(2)) < 17
