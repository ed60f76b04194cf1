"""Kafka plumbing (kafka-python): consumer, producer, topic creation, lag."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import structlog
from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import KafkaAdminClient, NewPartitions, NewTopic
from kafka.errors import (
    KafkaError,
    KafkaTimeoutError,
    MessageSizeTooLargeError,
    RecordListTooLargeError,
    TopicAlreadyExistsError,
)

from monitor.cluster import KafkaClient, client_kwargs
from monitor.stream.partitioner import CachedKeyPartitioner

log = structlog.get_logger(__name__)

# Against Tansu a default group join takes ~23 s; these bring it to ~3 s (and suit Kafka too).
TOO_LARGE = (MessageSizeTooLargeError, RecordListTooLargeError)  # no resend can cure these
GROUP_TIMEOUTS = {"session_timeout_ms": 6000, "heartbeat_interval_ms": 1000}


@dataclass(frozen=True)
class Topics:
    traces: str = "aem.traces"
    verdicts: str = "aem.verdicts"
    dlq: str = "aem.traces.dlq"


def ensure_topics(
    bootstrap: str | KafkaClient,
    names: Iterable[str],
    partitions: int = 3,
    timeout: float = 30.0,
    configs: dict[str, str] | None = None,
) -> None:
    """Create the topics that do not exist yet (idempotent)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            admin = KafkaAdminClient(**client_kwargs(bootstrap), client_id="aem-admin", request_timeout_ms=10000)
            break
        except KafkaError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    try:
        existing = set(admin.list_topics())
        new = [
            NewTopic(n, num_partitions=partitions, replication_factor=1, topic_configs=configs or {})
            for n in names
            if n not in existing
        ]
        if new:
            with contextlib.suppress(TopicAlreadyExistsError):
                admin.create_topics(new)
            log.info("topics_created", topics=[t.name for t in new], partitions=partitions)
    finally:
        admin.close()


def ensure_partitions(bootstrap: str | KafkaClient, topic: str, partitions: int, have: int) -> None:
    """Grow a topic from `have` to at least `partitions` (the state topic mirrors the trace topic's partitions).

    `have` comes from the caller's own client metadata (e.g. `producer.partitions_for`): no client
    is opened just to learn it.
    """
    if have >= partitions:
        return
    admin = KafkaAdminClient(**client_kwargs(bootstrap), client_id="aem-admin", request_timeout_ms=10000)
    try:
        admin.create_partitions({topic: NewPartitions(total_count=partitions)})
    except KafkaError as exc:
        raise RuntimeError(
            f"topic {topic} has {have} partitions but needs {partitions} (as many as the trace topic), "
            f"and adding them failed: {exc!r}; give this monitor a state topic of its own: another --group-id "
            f"(the state topic is aem.state.<group_id>) or AEM_STATE_TOPIC"
        ) from exc
    finally:
        admin.close()
    log.info("partitions_added", topic=topic, partitions=partitions)


def make_consumer(
    bootstrap: str | KafkaClient,
    topics: Sequence[str],
    group_id: str | None,
    client_id: str = "aem-monitor",
    **overrides: object,
) -> KafkaConsumer:
    options: dict[str, object] = {
        **client_kwargs(bootstrap),
        "group_id": group_id,
        "client_id": client_id,
        "enable_auto_commit": False,
        "auto_offset_reset": "earliest",
        "max_poll_records": 500,
        "max_poll_interval_ms": 300000,
        **(GROUP_TIMEOUTS if group_id else {}),
    }
    options.update(overrides)
    consumer = KafkaConsumer(**options)
    if topics:
        consumer.subscribe(list(topics))
    return consumer


@dataclass(slots=True)
class _Pending:
    """A record sent since the last successful flush, with its smaller form and delivery future."""

    topic: str
    record: dict[str, Any]
    fallback: dict[str, Any] | None
    future: Any = None


class ResendingProducer:
    """A producer that does not let a record of the current batch go missing.

    It keeps every record sent since the last successful `flush` with its future. `flush` returns
    only when every one is acknowledged: records whose delivery failed (kafka-python completes a
    failed batch without raising from `flush`) are resent, and when a send raises or a flush
    stalls (seen with kafka-python 3.0 against Tansu, and after a broker freeze) the producer is
    replaced by a fresh one first. Records the old producer did deliver may appear twice, within
    one batch. Errors resending cannot cure (a record above `max_request_size`) are raised by
    `send` and the record is not kept. A record the broker refuses as too large is replaced by its
    `fallback` (a smaller form the caller gave, e.g. the DLQ's metadata-only record) or, without
    one, dropped with an error log: resending it could never succeed and would stall every commit.
    """

    def __init__(
        self,
        factory: Callable[[], KafkaProducer],
        topics: Sequence[str] = (),
        flush_timeout_s: float = 10.0,
        attempts: int = 3,
    ):
        self.factory = factory
        self.topics = [t for t in topics if t]
        self.flush_timeout_s = flush_timeout_s
        self.attempts = attempts
        self.pending: list[_Pending] = []
        self.broken = False
        self.replaced = 0
        self.resent = 0
        self.dropped = 0
        self.producer = self._fresh()

    def _fresh(self) -> KafkaProducer:
        producer = self.factory()
        for topic in self.topics:  # learn every output topic up front, never first mid-stream
            producer.partitions_for(topic)
        return producer

    def partitions_for(self, topic: str) -> Any:
        if topic not in self.topics:
            self.topics.append(topic)
        return self.producer.partitions_for(topic)

    def send(self, topic: str, fallback: dict[str, Any] | None = None, **record: Any) -> None:
        self._send(_Pending(topic, record, fallback))

    def _send(self, item: _Pending) -> None:
        item.future = None
        try:
            item.future = self.producer.send(item.topic, **item.record)
        except (MessageSizeTooLargeError, TypeError, ValueError):
            raise
        except KafkaError as exc:
            log.warning("send_failed_resending", topic=item.topic, error=repr(exc))
            self.broken = True
        self.pending.append(item)

    def flush(self, timeout: float | None = None) -> None:
        """Return once every pending record is acknowledged; raise if that cannot be done now."""
        wait = self.flush_timeout_s if timeout is None else min(timeout, self.flush_timeout_s)
        for _ in range(self.attempts):
            if self.broken:
                self._replace()
            try:
                self.producer.flush(timeout=wait)
            except KafkaError as exc:
                log.warning("producer_stalled_resending", records=len(self.pending), error=repr(exc))
                self.broken = True
                continue
            failed = [p for p in self.pending if p.future is None or p.future.failed()]
            if not failed:
                self.pending.clear()
                return
            errors = {repr(p.future.exception) for p in failed if p.future is not None}
            log.warning("records_not_delivered_resending", records=len(failed), errors=sorted(errors)[:3])
            self.pending = []
            for item in self._curable(failed):
                self._send(item)
                self.resent += 1
        raise KafkaTimeoutError(f"{len(self.pending)} records still not delivered after {self.attempts} attempts")

    def _curable(self, failed: list[_Pending]) -> list[_Pending]:
        """Failed records worth resending: one refused as too large becomes its fallback, or is dropped."""
        out: list[_Pending] = []
        for item in failed:
            if item.future is None or not isinstance(item.future.exception, TOO_LARGE):
                out.append(item)
            elif item.fallback is not None:
                log.warning("record_too_large_sending_reduced", topic=item.topic)
                out.append(_Pending(item.topic, item.fallback, None))
            else:
                self.dropped += 1
                error = repr(item.future.exception)
                log.error("record_too_large_dropped", topic=item.topic, error=error)
        return out

    def refresh(self) -> None:
        """Start over with a fresh client (e.g. after topics changed under the old one's metadata)."""
        self._replace()

    def _replace(self) -> None:
        old, self.producer = self.producer, None
        with contextlib.suppress(Exception):
            old.close(timeout=0)
        self.producer = self._fresh()
        self.replaced += 1
        self.broken = False
        pending, self.pending = self.pending, []
        for item in pending:
            self._send(item)

    def close(self, timeout: float | None = None) -> None:
        with contextlib.suppress(KafkaError):
            self.producer.close(timeout=timeout)


def make_producer(bootstrap: str | KafkaClient, client_id: str = "aem-monitor", **overrides: object) -> KafkaProducer:
    options: dict[str, object] = {
        **client_kwargs(bootstrap),
        "client_id": client_id,
        "acks": "all",
        # A poll's verdicts go out in a few requests rather than one every 5 ms (~15-20% less CPU per record
        # in benchmarks/stream_throughput.py's runs); a commit flushes at once whatever the linger.
        "linger_ms": 20,
        "retries": 2**31 - 1,
        "delivery_timeout_ms": 24 * 3600 * 1000,  # never drop a verdict while the broker is away
        "batch_size": 262144,
        "max_in_flight_requests_per_connection": 1,  # keep verdict order across retries
        "partitioner": CachedKeyPartitioner(),  # Kafka's default choice, each key hashed once
    }
    options.update(overrides)
    return KafkaProducer(**options)
