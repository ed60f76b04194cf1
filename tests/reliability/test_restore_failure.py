"""A Kafka error while restoring newly assigned partitions must not lose the batch polled with them.

`Monitor.run` polls a batch, then `_handle_rebalance` restores the checkpoints of new partitions. If
the restore raises a KafkaError (the state topic is briefly unreachable — brokers restarting is what
triggers rebalances), the loop logs it and polls again: the batch already polled is dropped, the
consumer's position has moved past it, and the next batches' offsets are committed — the dropped
events are never scored.
"""

from __future__ import annotations

import time

import pytest
from kafka.errors import KafkaTimeoutError

from monitor.demo.traffic import sample_dialogs
from monitor.models.dialog import Dialog
from monitor.scoring import ScoringConfig
from monitor.stream.state import KafkaStateStore
from monitor.tools.replay import dialog_events
from monitor.wiring import build_engine
from tests.support.kafka import MonitorThread, TopicSet, read_all, send, settings_for, verdicts

pytestmark = pytest.mark.integration


def test_events_polled_with_a_failed_restore_are_not_lost(broker, monkeypatch):
    engine = build_engine(ScoringConfig(), embed=False)
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    dialogs = [Dialog.model_validate(d) for d in sample_dialogs(per_release=5, seed=2)]
    events = [e for d in dialogs for e in dialog_events(d)]
    send(broker.bootstrap, topics.traces, events)  # all there before the monitor joins

    real = KafkaStateStore.load_many
    calls = {"n": 0}

    def flaky(self, partitions, **kwargs):  # the first restores fail, as if the state topic were unreachable
        calls["n"] += 1
        if calls["n"] <= 3:
            raise KafkaTimeoutError("state topic unreachable (injected)")
        return real(self, partitions, **kwargs)

    monkeypatch.setattr(KafkaStateStore, "load_many", flaky)
    settings = settings_for(broker.bootstrap, topics, state_topic=topics.traces + ".state", max_poll_records=20)
    monitor = MonitorThread(settings, engine).start()
    expected = len(dialogs) * 6  # 5 turn verdicts + 1 summary each
    got: set[tuple[str, int | None, str]] = set()
    try:
        # The topic also carries chain messages, so a record count alone can be reached early: read
        # again until every turn verdict and summary is there (or the wait is over).
        deadline = time.monotonic() + 60
        while len(got) < expected and time.monotonic() < deadline:
            out = verdicts(read_all(broker.bootstrap, topics.verdicts, expect=expected, timeout=10))
            got = {(v["conversation_id"], v.get("turn_no"), v["kind"]) for v in out if v["kind"] != "chain"}
    finally:
        monitor.stop()
    assert calls["n"] > 3
    assert len(got) == expected, f"{expected - len(got)} verdicts lost after a failed restore"


def test_a_slow_state_topic_is_a_retriable_kafka_error(broker):
    """A restore that does not reach the end of the state topic in time must raise a KafkaError,
    which the run loop retries (with the batch rewound), not a builtin TimeoutError that ends it."""
    from kafka.errors import KafkaError

    from monitor.cluster import ensure_topics, make_producer

    topic = TopicSet.fresh(broker.bootstrap, partitions=1).traces + ".state"
    ensure_topics(broker.bootstrap, [topic], partitions=1)
    producer = make_producer(broker.bootstrap)
    store = KafkaStateStore(broker.bootstrap, topic, producer, read_timeout_s=0.0)
    for i in range(3):
        store.save(0, f"c{i}", b'{"v": 2, "status": "finished", "seen": [1]}', source="t/0")
    producer.flush()
    producer.close()
    with pytest.raises(KafkaError):
        store.load_many([0])
