"""A record whose key is not its conversation_id goes to the DLQ with the reason, on a real broker."""

from __future__ import annotations

import json
import time

import pytest

from monitor.cluster import make_producer
from monitor.models.trace_event import encode_event
from tests.reliability.test_crash_loops import ordinary_events, scored_turns
from tests.support.kafka import MonitorThread, TopicSet, read_all, settings_for

pytestmark = pytest.mark.integration


def test_a_key_other_than_the_conversation_id_is_dead_lettered(broker, engine):
    topics = TopicSet.fresh(broker.bootstrap, partitions=2)
    events = ordinary_events("keys", per_release=1)
    stray = dict(events[1])  # an ordinary turn, sent under another conversation's key
    stray["conversation_id"] = "stray"
    monitor = MonitorThread(settings_for(broker.bootstrap, topics), engine).start()
    try:
        producer = make_producer(broker.bootstrap, client_id="keys")
        try:
            for event in events:
                producer.send(topics.traces, key=event["conversation_id"].encode(), value=encode_event(event))
            producer.send(topics.traces, key=b"keys-0", value=encode_event(stray), headers=[("trace", b"t1")])
            producer.flush(timeout=30)
        finally:
            producer.close(timeout=30)
        [letter] = read_all(broker.bootstrap, topics.dlq, expect=1, timeout=60)
        headers = dict(letter.headers)
        assert "record key 'keys-0' differs from conversation_id 'stray'" in headers["aem-error"].decode()
        assert (letter.key, letter.value, headers["trace"]) == (b"keys-0", encode_event(stray), b"t1")
        deadline = time.monotonic() + 60
        want = scored_turns(events)
        got: set[tuple[str, int]] = set()
        while time.monotonic() < deadline and not want <= got:
            got = {(v["conversation_id"], v["turn_no"]) for v in map(json.loads, (r.value for r in
                   read_all(broker.bootstrap, topics.verdicts, timeout=5))) if v["kind"] == "turn"}  # fmt: skip
        assert want <= got and not any(cid == "stray" for cid, _ in got)
        assert monitor.value("aem_events_total", outcome="invalid") == 1
    finally:
        monitor.stop()
