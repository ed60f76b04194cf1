"""`aem review --from-topic` after `aem replay`: the replayed conversation ids carry a run tag
(`<dialog_id>-<tag>`), and the review still finds their gold and predicted turns in `--dialogs`; a row that
finds none is counted on stderr, never left empty silently. `aem calibrate --dialogs` reads such a review."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import pytest

from monitor.sources.replay_ids import conversation_ids, dialog_id_candidates
from tests.support.kafka import AEM, REPO, MonitorProcess, TopicSet, read_all, verdicts

TRIP = "examples/unaligned_trip.json"


def aem(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([AEM, *map(str, args)], capture_output=True, text=True, cwd=REPO, timeout=300, check=False)


def test_a_replayed_conversation_id_names_its_dialog():
    for repeat in (1, 3):
        for cid in conversation_ids("trip-7", repeat, "8bc580"):
            assert "trip-7" in dialog_id_candidates(cid)
    assert dialog_id_candidates("trip-7")[0] == "trip-7"  # an exact dialog id is tried first
    assert dialog_id_candidates("unaligned_trip-8bc580") == ["unaligned_trip-8bc580", "unaligned_trip"]


@pytest.mark.integration
def test_review_from_the_topic_after_replay_joins_the_dialogs(broker, tmp_path):
    bootstrap = broker.bootstrap
    topics = TopicSet.fresh(bootstrap)
    replay = aem("replay", TRIP, "--topic", topics.traces, "--bootstrap-servers", bootstrap)
    assert replay.returncode == 0, replay.stderr
    (cid,) = re.search(r"conversation ids: (.*)$", replay.stdout, flags=re.M).group(1).split()  # type: ignore[union-attr]
    assert cid != "unaligned_trip"  # a run tag
    monitor = MonitorProcess(topics.run_args(bootstrap, "--reference", TRIP, "--idle-timeout", "5")).start()
    try:
        deadline = time.monotonic() + 180
        while not any(v["kind"] == "dialog" for v in verdicts(read_all(bootstrap, topics.verdicts, timeout=10))):
            assert time.monotonic() < deadline, "".join(monitor.lines[-20:])
    finally:
        monitor.stop()

    out = tmp_path / "review.jsonl"
    common = ("--from-topic", topics.verdicts, "--bootstrap-servers", bootstrap, "--out", out)
    review = aem("review", *common, "--dialogs", TRIP)
    assert review.returncode == 0, review.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows and {r["conversation_id"] for r in rows} == {cid}
    assert all(r["predict_turn"] is not None for r in rows), rows
    assert any(r["gold_turn"] is not None for r in rows)
    assert "found no turn" not in review.stderr

    # labelled, the review reads back against the dialog files
    for row in rows:
        row["label"] = "pass" if row["verdict"] == "pass" else row["failure_reason"]
    out.write_text("".join(json.dumps(row) + "\n" for row in rows))
    calibrate = aem("calibrate", out, "--dialogs", TRIP)
    assert "no longer exists" not in calibrate.stderr, calibrate.stderr
    assert f"agreement on {len(rows)} labelled turns" in calibrate.stdout, calibrate.stdout + calibrate.stderr

    # dialog files that hold none of the conversations: said, with a count
    other = aem("review", *common, "--dialogs", "examples/sales_report.json")
    assert other.returncode == 0, other.stderr
    assert f"{len(rows)} of {len(rows)} rows found no turn in --dialogs" in other.stderr, other.stderr
