"""Kafka plumbing (kafka-python): consumer, producer, topic creation, lag."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import structlog
from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import KafkaAdminClient, NewPartitions, NewTopic
from kafka.errors import KafkaError, TopicAlreadyExistsError

log = structlog.get_logger(__name__)

# Against Tansu a default group join takes ~23 s; these bring it to ~3 s (and suit Kafka too).
GROUP_TIMEOUTS = {"session_timeout_ms": 6000, "heartbeat_interval_ms": 1000}


@dataclass(frozen=True)
class Topics:
    traces: str = "aem.traces"
    verdicts: str = "aem.verdicts"
    dlq: str = "aem.traces.dlq"


def ensure_topics(
    bootstrap: str,
    names: Iterable[str],
    partitions: int = 3,
    timeout: float = 30.0,
    configs: dict[str, str] | None = None,
) -> None:
    """Create the topics that do not exist yet (idempotent)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="aem-admin", request_timeout_ms=10000)
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
            log.info("topics created", topics=[t.name for t in new], partitions=partitions)
    finally:
        admin.close()


def partition_count(bootstrap: str, topic: str, timeout: float = 30.0) -> int:
    """How many partitions a topic has (waits for its metadata)."""
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, client_id="aem-metadata")
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            partitions = consumer.partitions_for_topic(topic)
            if partitions:
                return len(partitions)
            time.sleep(0.2)
        raise TimeoutError(f"no metadata for topic {topic}")
    finally:
        consumer.close()


def ensure_partitions(bootstrap: str, topic: str, partitions: int) -> None:
    """Grow a topic to at least `partitions` (the state topic must mirror the trace topic's partitions)."""
    have = partition_count(bootstrap, topic)
    if have >= partitions:
        return
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="aem-admin", request_timeout_ms=10000)
    try:
        admin.create_partitions({topic: NewPartitions(total_count=partitions)})
    except KafkaError as exc:
        raise RuntimeError(
            f"topic {topic} has {have} partitions but needs {partitions} (as many as the trace topic), "
            f"and adding them failed: {exc!r}"
        ) from exc
    finally:
        admin.close()
    log.info("partitions added", topic=topic, partitions=partitions)


def make_consumer(
    bootstrap: str, topics: Sequence[str], group_id: str | None, client_id: str = "aem-monitor", **overrides: object
) -> KafkaConsumer:
    options: dict[str, object] = {
        "bootstrap_servers": bootstrap,
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


def make_producer(bootstrap: str, client_id: str = "aem-monitor", **overrides: object) -> KafkaProducer:
    options: dict[str, object] = {
        "bootstrap_servers": bootstrap,
        "client_id": client_id,
        "acks": "all",
        "linger_ms": 5,
        "retries": 2**31 - 1,
        "delivery_timeout_ms": 24 * 3600 * 1000,  # never drop a verdict while the broker is away
        "max_in_flight_requests_per_connection": 1,  # keep verdict order across retries
    }
    options.update(overrides)
    return KafkaProducer(**options)
