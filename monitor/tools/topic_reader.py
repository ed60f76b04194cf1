"""Reading a topic from the start for people and tools: `aem tail`, `aem inspect`, `aem redrive`.

Tansu reports a partition's end offset as its last batch's base offset + 1, so "the end" is reached
only when a poll comes back empty, not when positions pass the reported end offsets.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kafka import KafkaConsumer, TopicPartition

from monitor.cluster import KafkaClient, key_hash, make_consumer


@dataclass(frozen=True)
class Record:
    """One record as the topic tools see it."""

    topic: str
    partition: int
    offset: int
    timestamp_ms: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes], ...]

    def header(self, name: str) -> str | None:
        for key, value in self.headers:
            if key == name:
                return value.decode("utf-8", "replace") if value is not None else ""
        return None

    @classmethod
    def of(cls, rec: Any) -> Record:
        return cls(
            rec.topic,
            rec.partition,
            rec.offset,
            int(rec.timestamp or 0),
            rec.key,
            rec.value,
            tuple((k, v) for k, v in (rec.headers or [])),
        )


def partition_for_key(key: str, partitions: int) -> int:
    """The partition kafka-python's (and Java's) default partitioner gives a keyed record."""
    return key_hash(key.encode("utf-8")) % partitions


class TopicMissing(LookupError):
    def __init__(self, topic: str) -> None:
        self.topic = topic
        super().__init__(f"topic {topic} does not exist")


class TopicReader:
    """Reads chosen partitions of one topic from given offsets (no consumer group)."""

    def __init__(self, cluster: KafkaClient, topic: str, **client_options: Any) -> None:
        self.topic = topic
        self.consumer: KafkaConsumer = make_consumer(cluster, [], None, client_id="aem-reader", **client_options)

    def partitions(self) -> list[int]:
        found = self.consumer.partitions_for_topic(self.topic)
        if not found:
            raise TopicMissing(self.topic)
        return sorted(found)

    def assign(self, partitions: Sequence[int] | None = None, start: dict[int, int] | None = None) -> None:
        """Read `partitions` (all when None) from the beginning, or from `start[partition]`."""
        numbers = list(partitions) if partitions is not None else self.partitions()
        tps = [TopicPartition(self.topic, p) for p in numbers]
        self.consumer.assign(tps)
        self.consumer.seek_to_beginning(*tps)
        for number, offset in (start or {}).items():
            if number in numbers:
                self.consumer.seek(TopicPartition(self.topic, number), offset)

    def records(
        self,
        follow: bool = False,
        stop: threading.Event | None = None,
        deadline: float | None = None,
        poll_ms: int = 500,
        idle_polls: int = 2,
    ) -> Iterator[Record]:
        """Records in arrival order per partition; ends after `idle_polls` empty polls unless following,
        on `stop`, or once `time.monotonic()` passes `deadline`."""
        empty = 0
        while (stop is None or not stop.is_set()) and (deadline is None or time.monotonic() < deadline):
            batch = self.consumer.poll(timeout_ms=poll_ms)
            if not batch:
                empty += 1
                if not follow and empty >= idle_polls:
                    return
                continue
            empty = 0
            for records in batch.values():
                for rec in records:
                    yield Record.of(rec)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.consumer.close()

    def __enter__(self) -> TopicReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
