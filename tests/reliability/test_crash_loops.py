"""Events and state records that used to end `aem run` on every start, on a real broker.

Each test runs real `aem run` processes on fresh topics: ordinary traffic at 100 events/s with the
hostile record amid it; the monitor stays up through a restart, ordinary verdicts are not late, and
the hostile record is scored, or sent to the DLQ / skipped with a reason and counted.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from monitor.cluster import ensure_topics, make_producer
from monitor.demo.traffic import sample_dialogs
from monitor.models.dialog import Dialog
from monitor.stream.state import STATE_TOPIC_CONFIG
from monitor.tools.replay import dialog_events
from tests.reliability.test_hostile_stream import scrape
from tests.support.kafka import MonitorProcess, TopicSet, read_all, send

pytestmark = pytest.mark.integration

HUGE = int("7" * 400)  # above a float's range (about 1.8e308), below Python's int-digit limit
MAX_LATE_S = 2.0  # an ordinary verdict's record time minus its event's record time


def ordinary_events(tag: str, per_release: int = 3) -> list[dict[str, Any]]:
    dialogs = [Dialog.model_validate(d) for d in sample_dialogs(per_release=per_release, seed=5)]
    return [e for i, d in enumerate(dialogs) for e in dialog_events(d, conversation_id=f"{tag}-{i}")]


def huge_integer_event(cid: str) -> dict[str, Any]:
    """A valid tool event whose argument, gold and predicted, is an integer no float can hold."""
    return {
        "schema_version": 1,
        "conversation_id": cid,
        "release": "r-hostile",
        "turn_no": 1,
        "turn": "Tool",
        "timestamp": "2026-01-01T00:00:00Z",
        "predict_turn": {"tool_id": "pay", "action": "Transfer", "args": {"amount": HUGE + 1}},
        "gold_turn": {"tool_id": "pay", "action": "Transfer", "args": {"amount": HUGE}},
        "final": True,
    }


def start(topics: TopicSet, bootstrap: str, group: str, state_topic: str) -> MonitorProcess:
    args = topics.run_args(bootstrap, "--idle-timeout", "30", group=group)
    monitor = MonitorProcess(args, env={"AEM_STATE_TOPIC": state_topic, "AEM_METRICS_HOST": "127.0.0.1"}).start()
    monitor.wait_for("partitions_assigned")
    return monitor


def wait_turns(bootstrap: str, topic: str, want: set[tuple[str, int]], timeout: float = 120) -> list[Any]:
    """Verdict records until every wanted (conversation_id, turn_no) has a turn verdict (or the wait ends)."""
    deadline = time.monotonic() + timeout
    records: list[Any] = []
    while time.monotonic() < deadline:
        records = read_all(bootstrap, topic, timeout=5)
        got = {(v["conversation_id"], v["turn_no"]) for v in map(json.loads, (r.value for r in records))
               if v["kind"] == "turn"}  # fmt: skip
        if want <= got:
            break
        time.sleep(0.5)
    return records


def worst_lateness(bootstrap: str, traces: str, records: list[Any], prefix: str) -> float:
    """The largest verdict-record time minus event-record time over the turns of conversations `prefix`*."""
    sent = {}
    for rec in read_all(bootstrap, traces, timeout=5):
        try:
            event = json.loads(rec.value)
        except ValueError:
            continue
        if isinstance(event, dict) and str(event.get("conversation_id", "")).startswith(prefix):
            sent[(event["conversation_id"], event["turn_no"])] = rec.timestamp
    late = [
        (rec.timestamp - sent[(v["conversation_id"], v["turn_no"])]) / 1000
        for rec in records
        if (v := json.loads(rec.value))["kind"] == "turn" and (v["conversation_id"], v["turn_no"]) in sent
    ]
    assert late, "no ordinary verdicts"
    return max(late)


def scored_turns(events: list[dict[str, Any]]) -> set[tuple[str, int]]:
    return {(e["conversation_id"], e["turn_no"]) for e in events if e["turn"] != "User"}


def amid(ordinary: list[dict[str, Any]], hostile: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The hostile events in the middle of the ordinary ones."""
    half = len(ordinary) // 2
    return [*ordinary[:half], *hostile, *ordinary[half:]]


def probe(
    bootstrap: str, hostile: list[dict[str, Any]], hostile_turns: set[tuple[str, int]], max_late: float = MAX_LATE_S
) -> tuple[list[Any], float]:
    """The probe's shape: `hostile` amid ordinary traffic at 100 events/s through a real `aem run` on fresh
    topics; the monitor stays up, ordinary verdicts are at most `MAX_LATE_S` late, and after a restart later
    traffic is scored. Returns the verdict records (the hostile turns' among them) and the worst lateness."""
    topics = TopicSet.fresh(bootstrap, partitions=2)
    group, state = f"{topics.traces}-g", f"{topics.traces}.state"
    before, after = ordinary_events("before"), ordinary_events("after")
    monitor = start(topics, bootstrap, group, state)
    try:
        send(bootstrap, topics.traces, amid(before, hostile), rate=100)
        records = wait_turns(bootstrap, topics.verdicts, scored_turns(before) | hostile_turns)
        assert monitor.process is not None and monitor.process.poll() is None, "".join(monitor.lines[-20:])
        late = worst_lateness(bootstrap, topics.traces, records, "before-")
        assert late <= max_late, f"ordinary verdicts up to {late:.2f} s late"
        assert monitor.stop() == 0
        monitor = start(topics, bootstrap, group, state)  # the restart reads on from the commit
        send_and_check_after(bootstrap, topics, after, monitor)
        assert monitor.stop() == 0
    finally:
        monitor.stop()
    return records, late


def test_a_huge_integer_argument_is_scored_and_the_monitor_stays_up(broker):
    records, _ = probe(broker.bootstrap, [huge_integer_event("hostile-int")], {("hostile-int", 1)})
    values = [json.loads(r.value) for r in records]
    [verdict] = [v for v in values if v["conversation_id"] == "hostile-int" and v["kind"] == "turn"]
    assert (verdict["success"], verdict["failure_reason"], verdict["field"]) == (
        False,
        "inconsistent_parameter_values",
        "amount",
    )


def send_and_check_after(bootstrap: str, topics: TopicSet, events: list[dict[str, Any]], monitor: Any) -> None:
    send(bootstrap, topics.traces, events, rate=100)
    records = wait_turns(bootstrap, topics.verdicts, scored_turns(events))
    got = {(v["conversation_id"], v["turn_no"]) for v in (json.loads(r.value) for r in records) if v["kind"] == "turn"}
    assert scored_turns(events) <= got, "verdicts missing after the restart:\n" + "".join(monitor.lines[-20:])
    assert monitor.process is not None and monitor.process.poll() is None


BAD_STATE = {  # key -> value of records no checkpoint writes
    b"not-json": b"\x00garbage, not JSON",
    b"a-list": b"[1, 2, 3]",
    b"bad-head": json.dumps({"v": 2, "cid": "bad-head", "status": "open", "next_turn": "x", "emitted": "x"}).encode(),
    b"bad-event": b'{"conversation_id": "bad-head", "turn_no": "nine"}',
}


def test_unreadable_state_records_are_skipped_and_counted(broker):
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    group, state = f"{topics.traces}-g", f"{topics.traces}.state"
    ensure_topics(broker.bootstrap, [state], partitions=1, configs=STATE_TOPIC_CONFIG)
    producer = make_producer(broker.bootstrap, client_id="state-poison")
    try:
        for key, value in BAD_STATE.items():
            producer.send(state, key=key, value=value, partition=0)
        producer.flush(timeout=30)
    finally:
        producer.close(timeout=30)
    monitor = start(topics, broker.bootstrap, group, state)
    try:
        assert monitor.process is not None and monitor.process.poll() is None, "".join(monitor.lines[-20:])
        monitor.wait_for("state_restored")
        assert any("state_record_skipped" in line for line in monitor.lines)
        send_and_check_after(broker.bootstrap, topics, ordinary_events("first"), monitor)
        assert monitor.metrics_port is not None
        # the head and the event that claims it are one conversation's records: counted together
        assert scrape(monitor.metrics_port, "aem_state_records_skipped_total") == len(BAD_STATE)
        assert monitor.stop() == 0
        monitor = start(topics, broker.bootstrap, group, state)  # again: the bad records are still there
        monitor.wait_for("state_restored")
        send_and_check_after(broker.bootstrap, topics, ordinary_events("second"), monitor)
        assert monitor.stop() == 0
    finally:
        monitor.stop()
