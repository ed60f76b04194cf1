"""Large conversations on the state changelog (a weakness found by the reliability work).

A checkpoint used to hold every applied event of its conversation in one record, so a few 400 kB
turns exceeded the producer's max_request_size (1 MiB) and the record raised inside the checkpoint
— which once skipped the checkpoints of the other conversations of the same batch while their
offsets were committed. The changelog now writes each event once, in a record of its own, so a
conversation of large turns is saved whole, and a record that still cannot be saved is logged and
skipped without touching the others (`PartitionState.write_changes`).
"""

from __future__ import annotations

import time

import pytest
from kafka import KafkaConsumer, TopicPartition

from monitor.scoring import ScoringConfig
from monitor.stream.changelog import group_changelog
from monitor.wiring import build_engine
from tests.support.kafka import MonitorThread, TopicSet, read_all, send, settings_for

pytestmark = pytest.mark.integration

BLOB = "y" * 400_000  # well below max_event_bytes; three such turns exceed a 1 MiB record


def event(cid: str, n: int, args: dict, final: bool = False) -> dict:
    call = {"tool_id": "t", "action": "a", "args": args}
    out = {
        "schema_version": 1,
        "conversation_id": cid,
        "release": "r",
        "turn_no": n,
        "turn": "Tool",
        "timestamp": "2026-01-01T00:00:00Z",
        "gold_turn": call,
        "predict_turn": call,
    }
    return out | ({"final": True} if final else {})


USER_SMALL = {
    "schema_version": 1,
    "conversation_id": "small",
    "release": "r",
    "turn_no": 1,
    "turn": "User",
    "timestamp": "2026-01-01T00:00:00Z",
    "predict_turn": {"content": "please build the report"},
}


def state_of(bootstrap: str, topic: str) -> dict[str, tuple[dict, list[bytes]]]:
    latest: dict[str, bytes] = {}
    for rec in read_all(bootstrap, topic, expect=10_000, timeout=5):
        if rec.key and rec.value:
            latest[rec.key.decode()] = rec.value
    return group_changelog(latest)


def test_an_oversized_checkpoint_does_not_drop_other_checkpoints(broker):
    engine = build_engine(ScoringConfig(), embed=False)
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)  # one partition: both conversations in one batch
    state_topic = topics.traces + ".state"
    monitor = MonitorThread(settings_for(broker.bootstrap, topics, state_topic=state_topic), engine).start()
    try:
        send(broker.bootstrap, topics.traces, [event("big", n, {"blob": BLOB, "n": n}) for n in (1, 2, 3)])
        send(broker.bootstrap, topics.traces, [event("big", 4, {"blob": BLOB, "n": 4}), USER_SMALL])
        read_all(broker.bootstrap, topics.verdicts, expect=4, timeout=30)
        deadline = time.monotonic() + 20
        committed = None
        while time.monotonic() < deadline and committed != 5:
            consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap, group_id=monitor.settings.group_id)
            committed = consumer.committed(TopicPartition(topics.traces, 0))
            consumer.close()
            time.sleep(0.5)
        # the monitor committed past small's first turn (a User turn: done at once) ...
        assert committed == 5
        assert monitor.thread is not None and monitor.thread.is_alive()
        # ... so small's turn 1 must be in its checkpoint, or a restart loses it for good
        state = state_of(broker.bootstrap, state_topic)
        assert len(state["small"][1]) == 1
        # and the conversation of 400 kB turns is saved whole: one record per event
        assert state["big"][0]["next_turn"] == 5 and len(state["big"][1]) == 4
    finally:
        monitor.stop()
