"""Poison pills on a real broker: each lands in the DLQ (whole, cut, or as metadata) and commits move on."""

from __future__ import annotations

import hashlib
import json
import time

import pytest
from kafka import KafkaConsumer, TopicPartition

from monitor.cluster import make_producer
from monitor.tools.replay import publish
from tests.reliability.hostile import VALID_EVENTS
from tests.support.kafka import MonitorThread, TopicSet, read_all, settings_for

pytestmark = pytest.mark.integration


def committed(bootstrap: str, group: str, topic: str, partitions: int) -> int:
    """The group's committed offsets on `topic`, summed over its partitions."""
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False)
    try:
        return sum(consumer.committed(TopicPartition(topic, p)) or 0 for p in range(partitions))
    finally:
        consumer.close()


def huge_int_event(cid: str) -> bytes:
    event = dict(VALID_EVENTS[1]) | {"conversation_id": cid, "turn_no": "__slot__"}
    return json.dumps(event).encode().replace(b'"__slot__"', b"9" * 5_000, 1)


def oversize_event(cid: str, size: int) -> bytes:
    event = dict(VALID_EVENTS[1]) | {"conversation_id": cid, "pad": "x" * size}
    return json.dumps(event).encode()


def test_poison_pills_reach_the_dlq_and_commits_move_on(broker, engine):
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    settings = settings_for(broker.bootstrap, topics, dlq_max_bytes=64 * 1024)
    pills = [huge_int_event("pill-int"), oversize_event("pill-big", 1_200_000)]  # above 1 MiB
    monitor = MonitorThread(settings, engine).start()
    try:
        producer = make_producer(broker.bootstrap, client_id="pills", max_request_size=8 * 1024 * 1024)
        try:
            sent = publish(producer, topics.traces, [*pills, *VALID_EVENTS])
        finally:
            producer.close(timeout=30)
        dlq = read_all(broker.bootstrap, topics.dlq, expect=2, timeout=60)
        assert len(dlq) == 2
        by_size = {int(dict(r.headers)["aem-size"]): r for r in dlq}
        assert set(by_size) == {len(p) for p in pills}
        whole, cut = by_size[len(pills[0])], by_size[len(pills[1])]
        assert whole.value == pills[0] and "number" in dict(whole.headers)["aem-error"].decode()
        cut_headers = dict(cut.headers)
        assert cut_headers["aem-truncated"] == b"1" and cut.value == pills[1][: 64 * 1024]
        assert cut_headers["aem-sha256"].decode() == hashlib.sha256(pills[1]).hexdigest()
        assert "above the limit" in cut_headers["aem-error"].decode()
        assert cut_headers["aem-source"].decode() == f"{topics.traces}/0/1"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and committed(broker.bootstrap, settings.group_id, topics.traces, 1) < sent:
            time.sleep(0.5)
        assert committed(broker.bootstrap, settings.group_id, topics.traces, 1) == sent
        assert monitor.value("aem_dlq_messages_total") == 2
        assert monitor.value("aem_dlq_reduced_total", form="truncated") == 1
        assert monitor.value("aem_events_total", outcome="invalid") == 2
        assert monitor.thread is not None and monitor.thread.is_alive()
    finally:
        monitor.stop()
