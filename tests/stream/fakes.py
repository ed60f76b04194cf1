"""In-memory stand-ins for the Kafka consumer and producer, for fast unit tests of the loop and checkpoint.

The real-broker tests (tests/stream/test_kafka_integration.py, tests/reliability) cover the same
paths end to end; these make failures at each step of a commit easy to inject.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kafka import TopicPartition
from kafka.errors import KafkaTimeoutError

from monitor.stream.state import StateStore, never


@dataclass
class Record:
    topic: str
    partition: int
    offset: int
    value: bytes | None
    key: bytes | None = None
    headers: list[tuple[str, bytes]] = field(default_factory=list)
    timestamp: int = 0


class FakeConsumer:
    """Serves the records it is given, one partition, in polls of at most `batch` records."""

    def __init__(self, topic: str = "traces", partitions: int = 1, batch: int = 500) -> None:
        self.tps = {TopicPartition(topic, p) for p in range(partitions)}
        self.queue: list[Record] = []
        self.batch = batch
        self.commits: list[dict[TopicPartition, int]] = []
        self.fail_commits = 0
        self.listener: Any = None
        self.fed: dict[int, int] = {}  # partition -> offsets handed out so far

    def feed(self, topic: str, values: list[bytes], partition: int = 0) -> None:
        start = self.fed.get(partition, 0)
        for i, value in enumerate(values):
            self.queue.append(Record(topic, partition, start + i, value, timestamp=1))
        self.fed[partition] = start + len(values)

    def subscribe(self, topics: list[str], listener: Any = None) -> None:
        self.listener = listener
        if listener is not None:
            listener.on_partitions_assigned(set(self.tps))

    def assignment(self) -> set[TopicPartition]:
        return set(self.tps)

    def poll(self, timeout_ms: int = 0) -> dict[TopicPartition, list[Record]]:
        taken, self.queue = self.queue[: self.batch], self.queue[self.batch :]
        out: dict[TopicPartition, list[Record]] = {}
        for rec in taken:
            out.setdefault(TopicPartition(rec.topic, rec.partition), []).append(rec)
        return out

    def commit(self, offsets: dict[TopicPartition, Any]) -> None:
        if self.fail_commits:
            self.fail_commits -= 1
            raise KafkaTimeoutError("commit failed (injected)")
        self.commits.append({tp: meta.offset for tp, meta in offsets.items()})

    def committed_offset(self, partition: int = 0) -> int | None:
        for commit in reversed(self.commits):
            for tp, offset in commit.items():
                if tp.partition == partition:
                    return offset
        return None

    def seek(self, tp: TopicPartition, offset: int) -> None:
        raise AssertionError("no rewind expected in these tests")

    def highwater(self, tp: TopicPartition) -> int | None:
        return None

    def end_offsets(self, tps: list[TopicPartition]) -> dict[TopicPartition, int]:
        return dict.fromkeys(tps, 0)

    def position(self, tp: TopicPartition, timeout_ms: int = 0) -> int:
        return 0

    def close(self, autocommit: bool = False) -> None:
        return None


class FakeProducer:
    """Records sends; `flush` delivers them, or raises while `fail_flushes` is above zero."""

    def __init__(self) -> None:
        self.pending: list[tuple[str, dict[str, Any]]] = []
        self.delivered: list[tuple[str, dict[str, Any]]] = []
        self.fail_flushes = 0

    def send(self, topic: str, fallback: dict[str, Any] | None = None, **record: Any) -> None:
        self.pending.append((topic, record))

    def flush(self, timeout: float | None = None) -> None:
        if self.fail_flushes:
            self.fail_flushes -= 1
            raise KafkaTimeoutError("flush failed (injected)")
        self.delivered += self.pending
        self.pending = []

    def values(self, topic: str) -> list[dict[str, Any]]:
        return [json.loads(r["value"]) for t, r in self.delivered if t == topic]

    def partitions_for(self, topic: str) -> set[int]:
        return {0}

    def close(self, timeout: float | None = None) -> None:
        return None


class ProducerStore(StateStore):
    """The changelog on a `FakeProducer`'s topic: records count once the producer delivered them (as on Kafka)."""

    def __init__(self, producer: FakeProducer, topic: str = "aem.state") -> None:
        self.producer = producer
        self.topic = topic

    def save(self, partition: int, key: str, value: bytes | None, source: str) -> None:
        self.producer.send(self.topic, key=key.encode(), value=value, partition=partition)

    def load_many(self, partitions: Sequence[int], stopping: Callable[[], bool] = never) -> dict[int, dict[str, bytes]]:
        out: dict[int, dict[str, bytes]] = {p: {} for p in partitions}
        for topic, record in self.producer.delivered:
            if topic == self.topic and record["partition"] in out:
                view = out[record["partition"]]
                if record["value"] is None:
                    view.pop(record["key"].decode(), None)
                else:
                    view[record["key"].decode()] = record["value"]
        return out
