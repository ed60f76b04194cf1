"""A turn held for its order-invariant group, on a real broker: lag says what it keeps uncommitted, and after
`gap_timeout_s` it keeps nothing (the changelog holds it), through a restart, with its verdict sent once.

A conversation's order-invariant action waits for the rest of its group, and its verdict with it. Until the
gap timeout its offset is not committed: ordinary traffic after it is scored, but a restart would read it
all again, and `aem_consumer_lag_messages` must say so (not 0: the fetch position is at the end). After the
timeout its position is released, since the changelog written before that commit holds its event.
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


def test_lag_counts_the_events_a_held_turn_keeps_uncommitted(broker, engine):
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    held = sales_events()[:2]
    after = ordinary_events("after", per_release=1)
    settings = settings_for(broker.bootstrap, topics, lag_interval_s=0.5, gap_timeout_s=120.0)
    monitor = MonitorThread(settings, engine).start()
    try:
        send(broker.bootstrap, topics.traces, [*held, *after])
        got = set(turn_verdicts(broker.bootstrap, topics.verdicts, scored_turns(after)))
        assert scored_turns(after) <= got  # the later traffic is scored
        assert ("held", 2) not in got  # the held action waits for its group
        # the commit of the last verdict (nothing left waiting for one), then a lag reading of that commit
        checkpoint = monitor.monitor.checkpoint
        wait_until(lambda: not (checkpoint._completed or checkpoint._output), timeout=30, what="a commit")
        end, tp = len(held) + len(after), TopicPartition(topics.traces, 0)

        def lag() -> float:
            return monitor.value("aem_consumer_lag_messages", topic=topics.traces, partition="0")

        wait_until(lambda: lag() == end - committed(broker.bootstrap, settings.group_id, tp), timeout=30, what="lag")
        lag_read = lag()
    finally:
        monitor.stop()
    assert lag_read >= len(after)  # everything after the held turn would be read again by a restart


def test_a_held_turn_gives_up_its_offset_after_the_gap_timeout_and_is_sent_once_after_a_restart(broker, engine):
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    events = sales_events()
    after = ordinary_events("after", per_release=1)
    settings = settings_for(broker.bootstrap, topics, state_topic=topics.traces + ".state", gap_timeout_s=1.0)
    tp = TopicPartition(topics.traces, 0)
    first = MonitorThread(settings, engine).start()
    try:
        send(broker.bootstrap, topics.traces, [*events[:2], *after])
        turn_verdicts(broker.bootstrap, topics.verdicts, scored_turns(after))
        deadline = time.monotonic() + 30
        while committed(broker.bootstrap, settings.group_id, tp) < 2 + len(after) and time.monotonic() < deadline:
            time.sleep(0.5)
        moved_to = committed(broker.bootstrap, settings.group_id, tp)
    finally:
        first.stop()
    assert moved_to == 2 + len(after)  # past the held action: a restart does not read the traffic again
    second = MonitorThread(settings, engine).start()
    try:
        send(broker.bootstrap, topics.traces, events[2:])
        got = turn_verdicts(broker.bootstrap, topics.verdicts, {("held", 2), ("held", 3)})
    finally:
        second.stop()
    assert got.count(("held", 2)) == 1  # restored from the changelog, sent once its group ended
    assert got.count(("held", 3)) == 1
    assert all(got.count(turn) == 1 for turn in scored_turns(after))  # nothing scored twice
