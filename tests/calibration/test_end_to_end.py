"""The calibration loop on the real broker: score dialogs, review, label from a known truth, calibrate, restart
`aem run` with the overlay; agreement on held-out conversations rises and /metrics shows it. Review and labels
also travel over topics."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import httpx
import pytest
import yaml

from monitor.calibration.sample import turn_records
from monitor.cluster import ensure_topics
from monitor.models.dialog import Dialog
from monitor.tools.replay import dialog_events
from tests.calibration.data import CONTEXTS, agreement, dialogs, truth_of, write_jsonl
from tests.support.kafka import AEM, REPO, MonitorProcess, TopicSet, read_all, send, verdicts

pytestmark = pytest.mark.integration


def aem(*args: str | Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([AEM, *map(str, args)], capture_output=True, text=True, cwd=REPO, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    return result


def turn_verdicts(bootstrap: str, topic: str, expect: int, timeout: float = 180) -> list[dict]:
    deadline = time.monotonic() + timeout
    while True:
        found = [v for v in verdicts(read_all(bootstrap, topic, expect=expect, timeout=30)) if v["kind"] == "turn"]
        if len(found) >= expect or time.monotonic() > deadline:
            return found
        time.sleep(1)


def run_monitor(bootstrap: str, topics: TopicSet, group: str, *extra: str) -> tuple[MonitorProcess, int]:
    monitor = MonitorProcess(topics.run_args(bootstrap, "--idle-timeout", "5", *extra, group=group)).start()
    monitor.wait_for("metrics on http")
    monitor.wait_for("partitions_assigned")
    assert monitor.metrics_port is not None
    return monitor, monitor.metrics_port


def test_review_label_calibrate_restart_on_the_broker(broker, tmp_path):
    labelled = write_jsonl(tmp_path / "labelled.jsonl", dialogs(CONTEXTS[:4]))
    held_out = dialogs(CONTEXTS[4:])
    scores = tmp_path / "scores.json"
    scores.write_text(aem("score", labelled, "--format", "json").stdout)

    # review, then labels from the team's known truth
    review = tmp_path / "review.jsonl"
    aem("review", scores, "--dialogs", labelled, "--out", review, "--max", "200", "--seed", "1")
    truth_file = tmp_path / "truth.json"
    truth_file.write_text(
        json.dumps({f"{c} {t}": v for (c, t), v in truth_of(turn_records(json.loads(scores.read_text()))).items()})
    )
    truth = json.loads(truth_file.read_text())
    rows = [json.loads(line) for line in review.read_text().splitlines()]
    for row in rows:
        row["label"] = truth[f"{row['conversation_id']} {row['turn_no']}"]
    labels = write_jsonl(tmp_path / "labels.jsonl", rows)
    overlay = tmp_path / "calibration.yaml"
    aem("calibrate", labels, "--dialogs", labelled, "--write", overlay)
    calibration_id = yaml.safe_load(overlay.read_text())["calibration"]["id"]

    # the held-out conversations through the monitor, shipped cut first, then calibrated
    bootstrap = broker.bootstrap
    topics = TopicSet.fresh(bootstrap)
    send(bootstrap, topics.traces, [e for d in held_out for e in dialog_events(Dialog.model_validate(d))])
    expect = 2 * len(held_out)
    shipped, _ = run_monitor(bootstrap, topics, "shipped")
    try:
        before = turn_verdicts(bootstrap, topics.verdicts, expect)
    finally:
        shipped.stop()
    assert len(before) == expect and all("calibration_id" not in v for v in before)

    calibrated_topics = TopicSet(topics.traces, topics.verdicts + ".calibrated", topics.dlq)
    ensure_topics(bootstrap, [calibrated_topics.verdicts], partitions=3)
    calibrated, port = run_monitor(bootstrap, calibrated_topics, "calibrated", "--config", str(overlay))
    try:
        after = turn_verdicts(bootstrap, calibrated_topics.verdicts, expect)
        metrics = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    finally:
        calibrated.stop()
    assert len(after) == expect and {v["calibration_id"] for v in after} == {calibration_id}

    held_truth = truth_of(before)  # the same team rule on the held-out conversations
    actions = [[v for v in found if v["turn"] == "Tool"] for found in (before, after)]
    shipped_agreement, calibrated_agreement = (agreement(found, held_truth) for found in actions)
    assert shipped_agreement < 0.8  # the shipped cut fails every pair this team calls the same
    assert calibrated_agreement > shipped_agreement + 0.15
    line = next(
        ln
        for ln in metrics.splitlines()
        if ln.startswith('aem_calibration_agreement{kind="balanced_accuracy",turn_type="action"}')
    )
    assert float(line.split()[-1]) > 0.9
    assert 'aem_calibration_info{created="' in metrics and f'id="{calibration_id}"' in metrics
    assert "aem_calibration_agreement_low{" in metrics and "aem_calibration_agreement_high{" in metrics
    threshold = yaml.safe_load(overlay.read_text())["scoring"]["threshold"]
    near = sum(abs(v["score"] - threshold) < 0.05 for v in after if v["turn"] == "Tool")
    assert f'aem_confidence_checked_turns_total{{turn_type="action"}} {float(len(held_out))}' in metrics
    assert f'aem_low_confidence_turns_total{{turn_type="action"}} {float(near)}' in metrics and near > 0

    # the verdict topic as review input, bounded by --max and a time window
    from_topic = tmp_path / "from-topic.jsonl"
    aem(
        "review",
        "--from-topic",
        calibrated_topics.verdicts,
        "--bootstrap-servers",
        bootstrap,
        "--since",
        "1h",
        "--max",
        "20",
        "--out",
        from_topic,
    )
    picked = [json.loads(line) for line in from_topic.read_text().splitlines()]
    assert len(picked) == 20 and {r["calibration_id"] for r in picked} == {calibration_id}
    aem(
        "review",
        "--from-topic",
        calibrated_topics.verdicts,
        "--bootstrap-servers",
        bootstrap,
        "--until",
        "2h",
        "--out",
        from_topic,
    )
    assert from_topic.read_text() == ""  # nothing was written two hours ago

    # labels from a tool on a topic, read by calibrate
    label_topic = f"{topics.traces}.labels"
    ensure_topics(bootstrap, [label_topic], partitions=1)
    send(bootstrap, label_topic, [{"kind": "label", "labelled_by": "chatops", "row": row} for row in rows])
    result = aem("calibrate", "--from-topic", label_topic, "--bootstrap-servers", bootstrap, "--scores", scores)
    assert f"agreement on {len(rows)} labelled turns" in result.stdout and "adopted" in result.stdout
