"""ResendingProducer: a producer that fails or stalls is replaced and the batch resent (real broker)."""

from __future__ import annotations

import pytest
from kafka.errors import MessageSizeTooLargeError

from monitor.cluster import make_producer
from monitor.stream.kafka_io import ResendingProducer
from tests.support.kafka import TopicSet, read_all

pytestmark = pytest.mark.integration


def test_records_of_a_failed_batch_are_resent_through_a_fresh_producer(broker):
    topics = TopicSet.fresh(broker.bootstrap)
    made = []

    def factory():
        made.append(make_producer(broker.bootstrap))
        return made[-1]

    producer = ResendingProducer(factory, [topics.verdicts], flush_timeout_s=5)
    first = producer.producer
    for i in range(5):
        producer.send(topics.verdicts, key=b"c", value=f"v{i}".encode())
    producer.broken = True  # as after a send that raised: the batch must go out again
    producer.flush()
    assert producer.replaced == 1 and producer.producer is not first and producer.pending == []
    values = [r.value for r in read_all(broker.bootstrap, topics.verdicts, expect=10, timeout=5)]
    assert sorted(set(values)) == [b"v0", b"v1", b"v2", b"v3", b"v4"]
    assert 5 <= len(values) <= 10  # each record of the batch at most twice
    producer.close(timeout=5)


def test_healthy_flush_keeps_the_producer(broker):
    topics = TopicSet.fresh(broker.bootstrap)
    producer = ResendingProducer(lambda: make_producer(broker.bootstrap), [topics.verdicts])
    producer.send(topics.verdicts, key=b"c", value=b"one")
    producer.flush()
    assert producer.replaced == 0 and producer.pending == []
    assert [r.value for r in read_all(broker.bootstrap, topics.verdicts, expect=1)] == [b"one"]
    producer.close(timeout=5)


class _Future:
    def __init__(self, exception: Exception | None) -> None:
        self.exception = exception

    def failed(self) -> bool:
        return self.exception is not None


class _RefusingKafkaProducer:
    """Stands in for KafkaProducer: fails delivery of values above 10 bytes as the broker would."""

    def __init__(self) -> None:
        self.delivered: list[bytes] = []

    def partitions_for(self, topic: str) -> set[int]:
        return {0}

    def send(self, topic: str, **record: object) -> _Future:
        value = record["value"]
        assert isinstance(value, bytes)
        if len(value) > 10:
            return _Future(MessageSizeTooLargeError("refused by the broker"))
        self.delivered.append(value)
        return _Future(None)

    def flush(self, timeout: float | None = None) -> None:
        return None


def test_a_record_the_broker_refuses_as_too_large_is_replaced_by_its_fallback_or_dropped():
    inner = _RefusingKafkaProducer()
    producer = ResendingProducer(lambda: inner)  # type: ignore[arg-type, return-value]
    producer.send("dlq", value=b"a" * 100, fallback={"value": b"meta"})
    producer.send("verdicts", value=b"b" * 100)  # no fallback: dropped, the flush does not stall
    producer.send("verdicts", value=b"ok")
    producer.flush()
    assert inner.delivered == [b"ok", b"meta"] and producer.dropped == 1 and producer.pending == []
