"""Consumer lag counts from the committed offset: a held turn that stops commits shows as lag, on a real broker.

A conversation's order-invariant action waits for the rest of its group, and its offset cannot be
committed until its verdict is published. Ordinary traffic after it is scored, but a restart would read
it all again: `aem_consumer_lag_messages` must say so, not 0 (the fetch position is at the end).
"""

from __future__ import annotations

import json
import time

import pytest

from monitor.models.dialog import Dialog
from monitor.stream.events import encode_event
from monitor.stream.kafka_io import make_producer
from monitor.stream.replay import dialog_events
from tests.conftest import EXAMPLES
from tests.reliability.test_crash_loops import ordinary_events, scored_turns
from tests.support.kafka import MonitorThread, TopicSet, read_all, settings_for

pytestmark = pytest.mark.integration


def test_lag_counts_the_events_a_held_turn_keeps_uncommitted(broker, engine):
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    sales = Dialog.model_validate(
        {"dialog_id": "held", "release": "r", "turns": json.loads((EXAMPLES / "sales_report.json").read_text())}
    )
    held = list(dialog_events(sales))[:2]  # the user turn and the OrderInvariant action that waits for turn 3
    after = ordinary_events("after", per_release=1)
    monitor = MonitorThread(settings_for(broker.bootstrap, topics, lag_interval_s=0.5), engine).start()
    try:
        producer = make_producer(broker.bootstrap, client_id="held-lag")
        try:
            for event in [*held, *after]:
                producer.send(topics.traces, key=event["conversation_id"].encode(), value=encode_event(event))
            producer.flush(timeout=30)
        finally:
            producer.close(timeout=30)
        want, got = scored_turns(after), set()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not want <= got:
            for record in read_all(broker.bootstrap, topics.verdicts, expect=10_000, timeout=1.0):
                verdict = json.loads(record.value)
                if verdict["kind"] == "turn":
                    got.add((verdict["conversation_id"], verdict["turn_no"]))
        assert want <= got  # the later traffic is scored
        assert ("held", 2) not in got  # the held action waits for its group
        time.sleep(2.0)  # a commit and a lag reading after the last verdict
        lag = monitor.value("aem_consumer_lag_messages", topic=topics.traces, partition="0")
    finally:
        monitor.stop()
    assert lag >= len(after)  # everything after the held turn would be read again by a restart
