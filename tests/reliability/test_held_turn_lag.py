"""A turn held for its order-invariant group, on a real broker: its offset is committed at once (the changelog
holds it), lag counts from the committed offset, and after a restart its verdict is sent once.

A conversation's order-invariant action waits for the rest of its group, and its verdict with it. Its event
is on the state changelog, written before the commit: so the commit moves past it without waiting for the
gap timeout, `aem_consumer_lag_messages` (end minus committed) falls to 0, and a restart restores it.
"""

from __future__ import annotations

import json
import time

import pytest
from kafka import TopicPartition

from monitor.models.dialog import Dialog
from monitor.tools.replay import dialog_events
from tests.conftest import EXAMPLES
from tests.reliability.test_crash_loops import ordinary_events, scored_turns
from tests.support.kafka import MonitorThread, TopicSet, committed, read_all, send, settings_for
from tests.support.polling import wait_until

pytestmark = pytest.mark.integration


def sales_events() -> list[dict]:
    sales = Dialog.model_validate(
        {"dialog_id": "held", "release": "r", "turns": json.loads((EXAMPLES / "sales_report.json").read_text())}
    )
    return list(dialog_events(sales))  # turn 2 is an OrderInvariant action that waits for turn 3


def turn_verdicts(bootstrap: str, topic: str, want: set, timeout: float = 60) -> list[tuple[str, int]]:
    got: list[tuple[str, int]] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not want <= set(got):
        records = read_all(bootstrap, topic, expect=10_000, timeout=1.0)
        got = [(v["conversation_id"], v["turn_no"]) for v in map(json.loads, (r.value for r in records))
               if v["kind"] == "turn"]  # fmt: skip
    return got


def wait_committed(bootstrap: str, group: str, tp: TopicPartition, want: int, timeout: float = 30) -> int:
    deadline = time.monotonic() + timeout
    while (got := committed(bootstrap, group, tp)) < want and time.monotonic() < deadline:
        time.sleep(0.5)
    return got


def test_a_held_turn_keeps_no_offset_uncommitted_and_lag_counts_from_the_commit(broker, engine):
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    held = sales_events()[:2]
    after = ordinary_events("after", per_release=1)
    settings = settings_for(
        broker.bootstrap, topics, state_topic=topics.traces + ".state", lag_interval_s=0.5, gap_timeout_s=120.0
    )
    tp = TopicPartition(topics.traces, 0)
    monitor = MonitorThread(settings, engine).start()
    try:
        send(broker.bootstrap, topics.traces, [*held, *after])
        got = set(turn_verdicts(broker.bootstrap, topics.verdicts, scored_turns(after)))
        assert scored_turns(after) <= got  # the later traffic is scored
        assert ("held", 2) not in got  # the held action waits for its group
        moved_to = wait_committed(broker.bootstrap, settings.group_id, tp, 2 + len(after))
        wait_until(  # a lag reading after the commit
            lambda: monitor.value("aem_consumer_lag_messages", topic=topics.traces, partition="0") == 0,
            timeout=30, what="a lag reading of the commit",
        )
        lag = monitor.value("aem_consumer_lag_messages", topic=topics.traces, partition="0")
    finally:
        monitor.stop()
    assert moved_to == 2 + len(after)  # past the held action, long before its gap timeout
    assert lag == 0  # lag counts from the committed offset: nothing would be read again


def test_a_held_turn_is_restored_after_a_restart_and_sent_once(broker, engine):
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    events = sales_events()
    after = ordinary_events("after", per_release=1)
    settings = settings_for(broker.bootstrap, topics, state_topic=topics.traces + ".state", gap_timeout_s=120.0)
    tp = TopicPartition(topics.traces, 0)
    first = MonitorThread(settings, engine).start()
    try:
        send(broker.bootstrap, topics.traces, [*events[:2], *after])
        turn_verdicts(broker.bootstrap, topics.verdicts, scored_turns(after))
        moved_to = wait_committed(broker.bootstrap, settings.group_id, tp, 2 + len(after))
    finally:
        first.stop()
    assert moved_to == 2 + len(after)  # a restart does not read the traffic again
    second = MonitorThread(settings, engine).start()
    try:
        send(broker.bootstrap, topics.traces, events[2:])
        got = turn_verdicts(broker.bootstrap, topics.verdicts, {("held", 2), ("held", 3)})
    finally:
        second.stop()
    assert got.count(("held", 2)) == 1  # restored from the changelog, sent once its group ended
    assert got.count(("held", 3)) == 1
    assert all(got.count(turn) == 1 for turn in scored_turns(after))  # nothing scored twice
