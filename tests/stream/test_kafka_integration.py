"""`aem run` against a real broker: exact metrics, DLQ, verdict identity with `aem score`, groups."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections import Counter

import pytest

from monitor.cli import main
from monitor.models.dialog import Dialog
from monitor.tools.replay import dialog_events
from tests.conftest import EXAMPLES
from tests.support.kafka import (
    MonitorProcess,
    MonitorThread,
    TopicSet,
    join_chains_wire,
    read_all,
    send,
    settings_for,
    verdicts,
)
from tests.support.polling import wait_until

pytestmark = pytest.mark.integration

SALES = json.loads((EXAMPLES / "sales_report.json").read_text())
RELEASES = ("agent-v1", "agent-v2")


def sales_events(conversations: int, prefix: str = "c"):
    for i in range(conversations):
        for release in RELEASES:
            dialog = Dialog.model_validate(
                {"dialog_id": f"{prefix}-{release}-{i}", "agent": "sales", "release": release, "turns": SALES}
            )
            yield from dialog_events(dialog)


def test_exact_metrics_for_known_traffic(broker, engine):
    topics = TopicSet.fresh(broker.bootstrap)
    monitor = MonitorThread(settings_for(broker.bootstrap, topics), engine).start()
    try:
        n = 6
        sent = send(broker.bootstrap, topics.traces, sales_events(n))
        assert sent == n * 2 * 5
        records = read_all(broker.bootstrap, topics.verdicts, expect=n * 2 * 7)
        out = verdicts(records)
        assert Counter(v["kind"] for v in out) == {"turn": n * 2 * 5, "chain": n * 2, "dialog": n * 2}
        for release in RELEASES:
            labels = {"agent": "sales", "release": release, "mode": "reference"}
            v = monitor.value
            assert v("aem_turns_total", **labels, turn_type="response", outcome="pass") == n
            assert v("aem_turns_total", **labels, turn_type="response", outcome="fail") == n
            assert v("aem_turns_total", **labels, turn_type="action", outcome="fail") == 3 * n
            assert v("aem_turns_total", **labels, turn_type="action", outcome="pass") == 0
            fail = {**labels, "turn_type": "action", "sub_metric": "truthfulness"}
            assert (
                v("aem_turn_failures_total", **fail, reason="inconsistent_parameter_values", attribution="root_cause")
                == n
            )
            assert v("aem_turn_failures_total", **fail, reason="prior_action_failed", attribution="cascading") == 2 * n
            assert (
                v(
                    "aem_turn_failures_total",
                    **{**fail, "turn_type": "response"},
                    reason="prior_action_failed",
                    attribution="cascading",
                )
                == n
            )
            chain = {"agent": "sales", "release": release, "chain_length": "3+"}
            assert v("aem_chain_turns_total", **chain, outcome="fail") == 3 * n
            assert v("aem_dialogs_total", **labels, outcome="fail") == n
            assert v("aem_turn_score_count", agent="sales", release=release, turn_type="action") == 3 * n
            assert v("aem_release_first_seen_timestamp_seconds", agent="sales", release=release) > 0
        assert monitor.value("aem_events_total", outcome="scored") == n * 2 * 5
        assert monitor.value("aem_events_total", outcome="invalid") == 0
        assert monitor.value("aem_event_latency_seconds_count") == n * 2 * 5
        assert monitor.value("aem_open_dialogs") == 0
    finally:
        monitor.stop()


def test_streamed_verdicts_equal_aem_score(broker, engine, capsys):
    topics = TopicSet.fresh(broker.bootstrap)
    monitor = MonitorThread(settings_for(broker.bootstrap, topics), engine).start()
    try:
        dialog = Dialog.model_validate({"dialog_id": "same", "release": "r", "turns": SALES})
        send(broker.bootstrap, topics.traces, dialog_events(dialog))
        out = verdicts(read_all(broker.bootstrap, topics.verdicts, expect=7))
    finally:
        monitor.stop()
    assert main(["score", str(EXAMPLES / "sales_report.json")]) == 0
    batch = json.loads(capsys.readouterr().out)
    chains = [v for v in out if v["kind"] == "chain"]
    assert [(c["turns"], c["chain_length"]) for c in chains] == [([2, 3, 4], "3+")]
    turns = join_chains_wire(out)
    summary = next(v for v in out if v["kind"] == "dialog")
    strip = ("kind", "conversation_id", "agent", "release", "mode")
    assert [{k: v for k, v in t.items() if k not in strip} for t in turns] == [
        {k: v for k, v in t.items() if k != "mode"} for t in batch["turns"]
    ]
    for key in (
        "success_rate",
        "test_pass",
        "first_failure_turn",
        "root_cause",
        "root_cause_count",
        "cascading_count",
        "total_failures",
    ):
        assert summary[key] == batch[key]


def test_bad_events_go_to_the_dlq_and_the_monitor_keeps_going(broker, engine):
    topics = TopicSet.fresh(broker.bootstrap)
    monitor = MonitorThread(settings_for(broker.bootstrap, topics, max_event_bytes=10_000), engine).start()
    bad = [
        b"{not json",
        b"\xff\xfe invalid utf-8",
        b'{"schema_version": 2, "conversation_id": "x"}',
        json.dumps(
            {
                "schema_version": 1,
                "conversation_id": "x",
                "release": "r",
                "turn_no": -1,
                "turn": "Tool",
                "timestamp": "2026-01-01T00:00:00Z",
                "predict_turn": {"tool_id": "a", "action": "b"},
            }
        ).encode(),
        b'{"schema_version": 1, "pad": "' + b"x" * 20_000 + b'"}',
        b"[" * 5000 + b"]" * 5000,
    ]
    try:
        send(broker.bootstrap, topics.traces, bad)
        send(broker.bootstrap, topics.traces, sales_events(1, prefix="after"))
        dlq = read_all(broker.bootstrap, topics.dlq, expect=len(bad))
        good = verdicts(read_all(broker.bootstrap, topics.verdicts, expect=14))
        assert sorted(r.value for r in dlq) == sorted(bad)
        for record in dlq:
            headers = dict(record.headers)
            assert headers["aem-error"]
        errors = sorted(dict(r.headers)["aem-error"].decode() for r in dlq)
        assert any("schema_version" in e for e in errors) and any("UTF-8" in e for e in errors)
        assert any("turn_no" in e for e in errors) and any("bytes" in e for e in errors)
        assert monitor.value("aem_events_total", outcome="invalid") == len(bad)
        assert monitor.value("aem_dlq_messages_total") == len(bad)
        assert len(good) == 14 and monitor.thread.is_alive()
    finally:
        monitor.stop()


def read_until_summary(bootstrap: str, topic: str, expect: int, timeout: float = 60.0) -> list[dict]:
    """The verdict topic's records once a dialog summary is among them (it is the last of its dialog)."""
    deadline = time.monotonic() + timeout
    out = verdicts(read_all(bootstrap, topic, expect=expect))
    while not any(v["kind"] == "dialog" for v in out) and time.monotonic() < deadline:
        time.sleep(0.3)
        out = verdicts(read_all(bootstrap, topic, expect=expect, timeout=5))
    return out


def _metric(port: int, name: str, **labels: str) -> float:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            got = line[len(name) :].split(" ")[0].strip("{}")
            if all(part in got.split(",") for part in want.split(",") if part):
                total += float(line.rsplit(" ", 1)[1])
    return total


PARTITION_EVENT = re.compile(r"partitions_(assigned|revoked)\b.*?partitions=\[([\d, ]*)\]")


def owned(process: MonitorProcess) -> set[int]:
    """The partitions an `aem run` process owns, from its assignment and revocation log lines."""
    out: set[int] = set()
    for line in list(process.lines):
        found = PARTITION_EVENT.search(line)
        if found:
            parts = {int(p) for p in found.group(2).split(",") if p.strip()}
            out = out | parts if found.group(1) == "assigned" else out - parts
    return out


def test_two_processes_in_one_group_split_partitions_without_double_scoring(broker):
    topics = TopicSet.fresh(broker.bootstrap, partitions=4)
    group = f"{topics.traces}-group"
    args = [
        "--bootstrap-servers",
        broker.bootstrap,
        "--topic",
        topics.traces,
        "--group-id",
        group,
        "--metrics-port",
        "0",
    ]
    env_topics = ["--verdict-topic", topics.verdicts, "--dlq-topic", topics.dlq]
    first = MonitorProcess(args + env_topics).start()
    second = MonitorProcess(args + env_topics).start()
    try:
        first.wait_for("partitions_assigned")
        second.wait_for("partitions_assigned")
        # Let the group settle: the two members own disjoint parts that together are the whole topic.
        wait_until(
            lambda: (a := owned(first)) and (b := owned(second)) and not (a & b) and a | b == {0, 1, 2, 3},
            timeout=60,
            what="the two members split the 4 partitions",
        )
        n = 10
        send(broker.bootstrap, topics.traces, sales_events(n, prefix="grp"))
        out = verdicts(read_all(broker.bootstrap, topics.verdicts, expect=n * 2 * 7, timeout=90))
        turns = Counter((v["conversation_id"], v["turn_no"]) for v in out if v["kind"] == "turn")
        assert len(turns) == n * 2 * 5
        assert max(turns.values()) == 1, "a turn was scored twice"
        ports = [first.metrics_port, second.metrics_port]
        per_process = [_metric(p, "aem_events_total", outcome="scored") for p in ports]
        assert sum(per_process) == n * 2 * 5
        assert all(count > 0 for count in per_process), f"one process got no partitions: {per_process}"
    finally:
        assert first.stop() == 0
        assert second.stop() == 0


@pytest.mark.parametrize(
    ("example", "with_reference", "mode"),
    [("unaligned_trip.json", True, "reference"), ("judge_only_booking.json", False, "judge")],
)
def test_reference_set_and_judge_only_paths_stream_like_aem_score(
    broker, engine, capsys, example, with_reference, mode
):
    """Unaligned dialogs resolve `reference_id` in the reference set; reference-free ones are judged."""
    path = EXAMPLES / example
    topics = TopicSet.fresh(broker.bootstrap)
    extra = {"reference": [str(path)]} if with_reference else {}
    monitor = MonitorThread(settings_for(broker.bootstrap, topics, **extra), engine).start()
    assert main(["score", str(path)]) == 0
    batch = json.loads(capsys.readouterr().out)
    try:
        dialog = Dialog.model_validate(json.loads(path.read_text()))
        send(broker.bootstrap, topics.traces, dialog_events(dialog))
        out = read_until_summary(broker.bootstrap, topics.verdicts, expect=len(batch["turns"]) + 1)
    finally:
        monitor.stop()
    wire_only = ("kind", "conversation_id", "agent", "release", "mode")
    turns = [{k: v for k, v in t.items() if k not in wire_only} for t in join_chains_wire(out)]
    assert turns == [{k: v for k, v in t.items() if k != "mode"} for t in batch["turns"]]
    assert {t["mode"] for t in out} == {mode}
    summary = next(v for v in out if v["kind"] == "dialog")
    assert summary["success_rate"] == batch["success_rate"] and summary["mode"] == batch["mode"] == mode
    labels = {"agent": batch["agent"], "release": batch["release"], "mode": mode}
    scored = sum(
        monitor.value("aem_turns_total", **labels, turn_type=tt, outcome=o)
        for tt in ("action", "response")
        for o in ("pass", "fail")
    )
    assert scored == len([t for t in batch["turns"] if t["success"] is not None])


def test_an_unknown_reference_id_is_unscored_and_counted_never_judged(broker, engine):
    """The same unaligned dialog, streamed to a monitor that was not given its reference set."""
    path = EXAMPLES / "unaligned_trip.json"
    topics = TopicSet.fresh(broker.bootstrap)
    monitor = MonitorThread(settings_for(broker.bootstrap, topics), engine).start()
    try:
        dialog = Dialog.model_validate(json.loads(path.read_text()))
        predicted = len([t for t in dialog.predict_turns or [] if t.turn != "User"])
        send(broker.bootstrap, topics.traces, dialog_events(dialog))
        out = read_until_summary(broker.bootstrap, topics.verdicts, expect=predicted + 1)
    finally:
        monitor.stop()
    turns = [v for v in out if v["kind"] == "turn"]
    assert len(turns) == predicted
    assert {(t["success"], t["failure_reason"], t["mode"]) for t in turns} == {(None, "unknown_reference", "reference")}
    summary = next(v for v in out if v["kind"] == "dialog")
    assert summary["success_rate"] is None and summary["unscored_count"] == predicted
    assert monitor.value("aem_turns_unscored_total", reason="unknown_reference") == predicted
    judged = sum(
        monitor.value("aem_turns_total", agent=dialog.agent, release=dialog.release or "unknown", mode="judge",
                      turn_type=tt, outcome=o)
        for tt in ("action", "response") for o in ("pass", "fail")
    )  # fmt: skip
    assert judged == 0


def test_unknown_event_fields_go_to_the_dlq_naming_the_field_and_extra_is_metadata(broker, engine):
    topics = TopicSet.fresh(broker.bootstrap)
    monitor = MonitorThread(settings_for(broker.bootstrap, topics), engine).start()
    event = {
        "schema_version": 1, "conversation_id": "typo-1", "release": "r", "turn_no": 1, "turn": "Tool",
        "timestamp": "2026-01-01T00:00:00Z", "predict_turn": {"tool_id": "a", "action": "b", "args": {"x": 1}},
        "gold_turn": {"tool_id": "a", "action": "b", "args": {"x": 1}}, "final": True,
    }  # fmt: skip
    misspelt_gold = {**event, "conversation_id": "typo-2", "gold": event["gold_turn"]}
    del misspelt_gold["gold_turn"]
    misspelt_args = {
        **event,
        "conversation_id": "typo-3",
        "predict_turn": {"tool_id": "a", "action": "b", "arguments": {}},
    }
    with_metadata = {**event, "conversation_id": "meta-1", "extra": {"team": "search", "trace": {"span": "ab12"}}}
    try:
        send(broker.bootstrap, topics.traces, [misspelt_gold, misspelt_args, with_metadata])
        dlq = read_all(broker.bootstrap, topics.dlq, expect=2)
        good = read_until_summary(broker.bootstrap, topics.verdicts, expect=2)
    finally:
        monitor.stop()
    errors = {json.loads(r.value)["conversation_id"]: dict(r.headers)["aem-error"].decode() for r in dlq}
    assert set(errors) == {"typo-2", "typo-3"}
    assert errors["typo-2"].startswith("gold: unknown field")
    assert errors["typo-3"].startswith("predict_turn.arguments: unknown field")
    assert all("aem-source" in dict(r.headers) for r in dlq)
    turns = [v for v in good if v["kind"] == "turn"]
    assert [(t["conversation_id"], t["success"]) for t in turns] == [("meta-1", True)]
    assert monitor.value("aem_events_total", outcome="invalid") == 2


@pytest.mark.parametrize("session_ms", [6000, 2000])
def test_the_group_session_setting_reaches_the_consumer_and_sets_the_first_join_wait(broker, engine, session_ms):
    """`session_timeout_ms` (default 6000) is the consumer's session, with a heartbeat every sixth of it; against
    the embedded broker a first join waits about half of it (so the tests' monitors use 2000)."""
    topics = TopicSet.fresh(broker.bootstrap)
    started = time.monotonic()
    monitor = MonitorThread(settings_for(broker.bootstrap, topics, session_timeout_ms=session_ms), engine).start()
    joined = time.monotonic() - started
    try:
        assert monitor.monitor is not None
        config = monitor.monitor.link.consumer.config
        heartbeat = min(1000, session_ms // 6)
        assert (config["session_timeout_ms"], config["heartbeat_interval_ms"]) == (session_ms, heartbeat)
        assert joined >= session_ms / 2000 - 0.2  # the embedded broker's wait for other members
        print(f"session {session_ms} ms: joined in {joined:.2f} s")
    finally:
        monitor.stop()
