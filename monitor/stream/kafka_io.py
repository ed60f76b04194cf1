"""The stream's own Kafka plumbing: the state topic's partitions and the producer of the commit path (the
clients every command builds are `monitor/cluster.py`'s)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import structlog
from kafka import KafkaProducer
from kafka.admin import KafkaAdminClient, NewPartitions
from kafka.errors import KafkaError, KafkaTimeoutError, MessageSizeTooLargeError, RecordListTooLargeError

from monitor.cluster import KafkaClient, client_kwargs

log = structlog.get_logger(__name__)

TOO_LARGE = (MessageSizeTooLargeError, RecordListTooLargeError)  # no resend can cure these


def ensure_partitions(bootstrap: str | KafkaClient, topic: str, partitions: int, have: int) -> None:
    """Grow a topic from `have` (the caller's metadata) to at least `partitions` (the state topic mirrors the
    trace topic's partitions)."""
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


@dataclass(slots=True)
class _Pending:
    """A record sent since the last successful flush, with its smaller form and delivery future."""

    topic: str
    record: dict[str, Any]
    fallback: dict[str, Any] | None
    future: Any = None


class ResendingProducer:
    """A producer that does not let a record of the current batch go missing.

    `flush` returns only when every record sent since the last one is acknowledged: failed deliveries
    (kafka-python completes a failed batch without raising from `flush`) are resent, through a fresh producer
    when a send raised or a flush stalled (seen against Tansu and after a broker freeze); a record may then
    appear twice. A record the broker refuses as too large is replaced by its `fallback` (e.g. the DLQ's
    metadata-only record) or dropped with an error log: resending it would stall every commit.
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
                self.refresh()
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
            for item in failed:  # resent; one refused as too large becomes its fallback, or is dropped
                if item.future is not None and isinstance(item.future.exception, TOO_LARGE):
                    if item.fallback is None:
                        self.dropped += 1
                        log.error("record_too_large_dropped", topic=item.topic, error=repr(item.future.exception))
                        continue
                    log.warning("record_too_large_sending_reduced", topic=item.topic)
                    item = _Pending(item.topic, item.fallback, None)
                self._send(item)
        raise KafkaTimeoutError(f"{len(self.pending)} records still not delivered after {self.attempts} attempts")

    def refresh(self) -> None:
        """Start over with a fresh client (after a stall, or topics changed under the old one's metadata)."""
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
