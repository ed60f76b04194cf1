"""Broker record timestamps far off (1970, year 9999) are clamped before any latency is observed."""

from __future__ import annotations

import time

import pytest

from monitor.cluster import make_producer
from monitor.models.trace_event import encode_event
from tests.reliability.test_crash_loops import ordinary_events
from tests.support.kafka import MonitorThread, TopicSet, settings_for

pytestmark = pytest.mark.integration

FAR_OFF_MS = (1_000, 253_402_300_799_000)  # 1970-01-01T00:00:01Z and 9999-12-31T23:59:59Z


def test_far_off_broker_timestamps_are_clamped_to_the_skew(broker, engine):
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    settings = settings_for(broker.bootstrap, topics, clock_skew_s=300.0)
    events = [e for e in ordinary_events("clock", per_release=1) if e["turn"] != "User"]
    monitor = MonitorThread(settings, engine).start()
    try:
        producer = make_producer(broker.bootstrap, client_id="clock")
        try:
            for i, event in enumerate(events):
                stamp = FAR_OFF_MS[i % 2]
                producer.send(topics.traces, key=event["conversation_id"].encode(), value=encode_event(event),
                              timestamp_ms=stamp)  # fmt: skip
            producer.flush(timeout=30)
        finally:
            producer.close(timeout=30)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and monitor.value("aem_event_latency_seconds_count") < len(events):
            time.sleep(0.5)
        count = monitor.value("aem_event_latency_seconds_count")
        assert count == len(events)
        # each observation at most the skew (and the time to score it), never decades
        assert monitor.value("aem_event_latency_seconds_sum") <= count * (300.0 + 60.0)
        assert monitor.value("aem_event_latency_seconds_sum") >= count // 2 * 300.0  # the 1970 ones: ~300 s each
    finally:
        monitor.stop()
