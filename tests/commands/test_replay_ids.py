"""`aem replay` gives every run fresh conversation ids; `--keep-ids` repeats are dropped, and `aem run` says so."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.conftest import EXAMPLES
from tests.support.kafka import AEM, REPO, MonitorProcess, TopicSet

pytestmark = pytest.mark.integration


def replay(bootstrap: str, topic: str, *extra: str) -> str:
    proc = subprocess.run(
        [
            AEM,
            "replay",
            str(EXAMPLES / "sales_report.json"),
            "--bootstrap-servers",
            bootstrap,
            "--topic",
            topic,
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    found = re.search(r"conversation ids: (\S+)", proc.stdout)
    assert found, proc.stdout
    return found.group(1)


def inspect(bootstrap: str, topics: TopicSet, cid: str) -> str:
    proc = subprocess.run(
        [AEM, "inspect", cid, "--bootstrap-servers", bootstrap, "--verdict-topic", topics.verdicts, "--wait", "90"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_replays_score_again_unless_ids_are_kept(broker):
    topics = TopicSet.fresh(broker.bootstrap)
    monitor = MonitorProcess(topics.run_args(broker.bootstrap)).start()
    try:
        monitor.wait_for("group_joined", timeout=180)
        first, second = (
            replay(broker.bootstrap, topics.traces),
            replay(broker.bootstrap, topics.traces, "--release", "v2"),
        )
        assert first != second and first.startswith("sales_report-") and second.startswith("sales_report-")
        for cid in (first, second):
            out = inspect(broker.bootstrap, topics, cid)
            assert "success_rate=0.20" in out and "↳ caused by turn 2" in out
        assert "release=v2" in inspect(broker.bootstrap, topics, second)

        kept = replay(broker.bootstrap, topics.traces, "--keep-ids")
        assert kept == "sales_report"
        inspect(broker.bootstrap, topics, kept)
        replay(broker.bootstrap, topics.traces, "--keep-ids")
        monitor.wait_for(r"duplicates_dropped", timeout=60)
        warning = next(line for line in monitor.lines if "duplicates_dropped" in line)
        assert "dropped=5" in warning and "sales_report" in warning
    finally:
        monitor.stop()
