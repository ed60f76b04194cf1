"""10,000 events over 3 partitions, 500 conversations held open by a gap, across 3 restarts of `aem run`.

The changelog is the commit point: every event the monitor took is on the state topic before its offset is
committed, so the committed offsets reach the end of what was sent after every phase — held turns and all —
and a restart (twice kill -9, once SIGTERM) rebuilds the held conversations from the changelog. When the
missing turns finally come, every turn verdict is there, none is wrong, duplicates stay within a poll batch
per crash, and every conversation's summary is sent.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from kafka import TopicPartition

from tests.support.kafka import MonitorProcess, TopicSet, committed, read_all, send

pytestmark = pytest.mark.integration

CONVERSATIONS = 1000
TURNS = 10  # 10,000 events, every one a scored action turn
GAPPED = range(0, CONVERSATIONS, 2)  # 500 conversations whose turn 2 comes last: turns 3-10 wait for it
PARTITIONS = 3
MAX_POLL_RECORDS = 500
CRASHES = 2


def event(i: int, turn_no: int) -> dict[str, Any]:
    wrong = (i + turn_no) % 7 == 0  # some turns fail, so a cascade state must survive the restarts
    return {
        "schema_version": 1,
        "conversation_id": f"g-{i:04d}",
        "release": "r1",
        "turn_no": turn_no,
        "turn": "Tool",
        "timestamp": "2026-01-01T00:00:00Z",
        "gold_turn": {"tool_id": "inventory", "action": "Count", "args": {"sku": f"SKU-{i}-{turn_no}"}},
        "predict_turn": {
            "tool_id": "inventory",
            "action": "Count",
            "args": {"sku": f"SKU-{i}-{turn_no}" + ("-X" if wrong else "")},
        },
        "final": turn_no == TURNS,
    }


def phases() -> list[list[dict[str, Any]]]:
    """Four sends: every event but the gapped turns 2, turn by turn across conversations, in three slices;
    then the gapped turns 2."""
    withheld = {(i, 2) for i in GAPPED}
    flowing = [event(i, n) for n in range(1, TURNS + 1) for i in range(CONVERSATIONS) if (i, n) not in withheld]
    third = len(flowing) // 3
    return [flowing[:third], flowing[third : 2 * third], flowing[2 * third :], [event(i, 2) for i in GAPPED]]


def start(topics: TopicSet, bootstrap: str, group: str) -> MonitorProcess:
    env = {
        "AEM_STATE_TOPIC": f"{topics.traces}.state",
        "AEM_GAP_TIMEOUT_S": "3600",  # the gaps stay open through every restart
        "AEM_MAX_POLL_RECORDS": str(MAX_POLL_RECORDS),
        "AEM_METRICS_HOST": "127.0.0.1",
    }
    args = topics.run_args(bootstrap, "--idle-timeout", "3600", group=group)
    monitor = MonitorProcess(args, env=env).start()
    monitor.wait_for("state_restored", timeout=180)
    return monitor


def committed_total(bootstrap: str, group: str, topic: str) -> int:
    return sum(committed(bootstrap, group, TopicPartition(topic, p)) for p in range(PARTITIONS))


def wait_committed(bootstrap: str, group: str, topic: str, want: int, timeout: float = 300) -> int:
    deadline = time.monotonic() + timeout
    while (got := committed_total(bootstrap, group, topic)) < want and time.monotonic() < deadline:
        time.sleep(0.5)
    return got


def turn_records(bootstrap: str, topic: str) -> list[dict[str, Any]]:
    return [json.loads(r.value) for r in read_all(bootstrap, topic, timeout=30)]


def test_held_conversations_survive_three_restarts_and_every_verdict_is_sent(broker):
    bootstrap = broker.bootstrap
    topics = TopicSet.fresh(bootstrap, partitions=PARTITIONS)
    group = f"{topics.traces}-g"
    sends = phases()
    assert sum(map(len, sends)) == CONVERSATIONS * TURNS
    sent = 0
    stops = ["kill9", "sigterm", "kill9"]
    monitor = start(topics, bootstrap, group)
    try:
        for number, batch in enumerate(sends):
            send(bootstrap, topics.traces, batch)
            sent += len(batch)
            # the offsets reach the end of what was sent, held turns and all
            reached = wait_committed(bootstrap, group, topics.traces, sent)
            assert reached == sent, f"phase {number}: committed {reached} of {sent}\n" + "".join(monitor.lines[-20:])
            if number < len(stops):
                if stops[number] == "kill9":
                    monitor.kill9()
                else:
                    assert monitor.stop() == 0
                monitor = start(topics, bootstrap, group)
        want = {(f"g-{i:04d}", n) for i in range(CONVERSATIONS) for n in range(1, TURNS + 1)}
        deadline = time.monotonic() + 300
        values = turn_records(bootstrap, topics.verdicts)
        while time.monotonic() < deadline and not want <= {
            (v["conversation_id"], v["turn_no"]) for v in values if v["kind"] == "turn"
        }:
            time.sleep(1)
            values = turn_records(bootstrap, topics.verdicts)
        assert monitor.stop() == 0
    finally:
        monitor.stop()
    turns = [v for v in values if v["kind"] == "turn"]
    got = [(v["conversation_id"], v["turn_no"]) for v in turns]
    lost = want - set(got)
    assert not lost, f"{len(lost)} turn verdicts lost, e.g. {sorted(lost)[:5]}"
    duplicated = len(got) - len(set(got))
    assert duplicated <= CRASHES * MAX_POLL_RECORDS, f"{duplicated} duplicate turn verdicts"
    for v in turns:  # a restart changes no verdict
        i, n = int(v["conversation_id"][2:]), v["turn_no"]
        assert v["success"] is ((i + n) % 7 != 0), v
    dialogs = {v["conversation_id"] for v in values if v["kind"] == "dialog"}
    assert dialogs == {f"g-{i:04d}" for i in range(CONVERSATIONS)}
    assert committed_total(bootstrap, group, topics.traces) == CONVERSATIONS * TURNS
