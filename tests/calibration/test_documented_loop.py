"""The commands of README's "Trusting the verdicts" section and of docs/trusting-verdicts.md run as written, in
a directory holding only the virtualenv and a dialog file, against a broker of their own. The one step no
command does — people filling the label column — is done here from a known truth."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from monitor.calibration.sample import turn_records
from monitor.cluster import ensure_topics
from monitor.models.dialog import Dialog
from monitor.tools.broker import TansuBroker
from monitor.tools.replay import dialog_events
from tests.calibration.data import CONTEXTS, dialogs, truth_of, write_jsonl
from tests.support.kafka import MonitorProcess, read_all, send, verdicts

REPO = Path(__file__).resolve().parents[2]
VENV = Path(sys.executable).parent.parent

pytestmark = pytest.mark.integration


def sh_lines(text: str) -> list[str]:
    return [
        ln.strip()
        for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S)
        for ln in block.splitlines()
        if ln.strip() and not ln.strip().startswith("#")
    ]


def readme_loop() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text.split("## Trusting the verdicts", 1)[1].split("\n## ", 1)[0]
    return sh_lines(section)


def fill_labels(cwd: Path, truth: dict[tuple[str, int], str]) -> None:
    """What people do between `aem review` and `aem calibrate`: fill the label column."""
    path = cwd / "review.csv"
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        row["label"] = truth[(row["conversation_id"], int(row["turn_no"]))]
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_the_documented_loop_runs_as_written(tmp_path):
    loop = readme_loop()
    assert len(loop) == 5 and all(line.startswith(".venv/bin/aem ") for line in loop)
    page = sh_lines((REPO / "docs" / "trusting-verdicts.md").read_text())
    cwd = tmp_path / "work"
    cwd.mkdir()
    (cwd / ".venv").symlink_to(VENV)
    rows = dialogs(CONTEXTS[:4])
    write_jsonl(cwd / "dialogs.jsonl", rows)
    with TansuBroker() as broker:
        env = {
            **os.environ,
            "HF_HUB_OFFLINE": "1",
            "AEM_BOOTSTRAP_SERVERS": broker.bootstrap,
            "AEM_METRICS_PORT": "0",
            "AEM_IDLE_TIMEOUT_S": "5",
        }

        def run(line: str, expect: int = 0) -> str:
            done = subprocess.run(
                ["/bin/bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
            )
            assert done.returncode == expect, f"{line}: exit {done.returncode}\n{done.stderr[-2000:]}"
            return done.stdout

        monitor: MonitorProcess | None = None
        ran: set[str] = set()
        try:
            for line in loop:
                if line.startswith(".venv/bin/aem run "):
                    args = line.removeprefix(".venv/bin/aem run ").split()
                    monitor = MonitorProcess(args, env=env, cwd=cwd).start()
                    monitor.wait_for("partitions_assigned", timeout=180)
                else:
                    run(line)
                ran.add(line)
                if " review scores.json " in line:
                    truth = truth_of(turn_records(json.loads((cwd / "scores.json").read_text())))
                    fill_labels(cwd, truth)
            assert monitor is not None and monitor.metrics_port is not None
            # the agents' traffic reaches the calibrated monitor
            send(broker.bootstrap, "aem.traces", [e for d in rows for e in dialog_events(Dialog.model_validate(d))])
            deadline = time.monotonic() + 180
            while len(
                [v for v in verdicts(read_all(broker.bootstrap, "aem.verdicts", timeout=20)) if v["kind"] == "turn"]
            ) < 2 * len(rows):
                assert time.monotonic() < deadline, "no verdicts"
                time.sleep(1)
            metrics = httpx.get(f"http://127.0.0.1:{monitor.metrics_port}/metrics", timeout=5).text
            assert 'aem_calibration_agreement{kind="balanced_accuracy",turn_type="action"}' in metrics

            # the docs page's other commands: agreement only, review from the topic, labels from a topic
            labelled = [json.loads(ln) for ln in (cwd / "review.jsonl").read_text().splitlines()]
            for r in labelled:
                r["label"] = truth[(r["conversation_id"], r["turn_no"])]
            for line in page:
                if line in ran:
                    continue
                if "--from-topic aem.labels" in line:
                    ensure_topics(broker.bootstrap, ["aem.labels"], partitions=1)
                    send(broker.bootstrap, "aem.labels", [{"kind": "label", "row": r} for r in labelled])
                out = run(line)
                ran.add(line)
                if "--from-topic aem.verdicts" in line:
                    picked = [json.loads(ln) for ln in (cwd / "review.jsonl").read_text().splitlines()]
                    assert picked and all(r["calibration_id"] for r in picked)
                    fill_labels(cwd, truth)  # people label the new sample
                else:
                    assert "agreement on" in out
        finally:
            if monitor is not None:
                monitor.stop()
    assert set(page) <= ran
