"""Recoverable conversation state: a key/value changelog on a compacted Kafka topic, restored per partition.

The records (changelog.py) go to the state topic's partition with the number of the conversation's trace
partition. The topic should be writable by the monitor alone (docs/operating.md); where that cannot be
ensured, `state_mac_key` authenticates every record (an HMAC-SHA256 of key and value in the `aem-mac` header)
and a record without a valid one is left out of the restore and reported (`rejected`).
"""

from __future__ import annotations

import hashlib
import hmac
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import structlog
from kafka import KafkaConsumer, TopicPartition
from kafka.errors import KafkaTimeoutError

from monitor.cluster import KafkaClient, client_kwargs
from monitor.stream.changelog import RestoreInterrupted, never

log = structlog.get_logger(__name__)

STATE_TOPIC_CONFIG = {"cleanup.policy": "compact", "min.compaction.lag.ms": "60000"}
MAC_HEADER = "aem-mac"


def record_mac(secret: bytes, key: str, value: bytes | None) -> bytes:
    """The `aem-mac` header of a state record: HMAC-SHA256 over its key and value (a tombstone's too)."""
    body = key.encode("utf-8") + (b"\x00v" + value if value is not None else b"\x00t")
    return hmac.new(secret, body, hashlib.sha256).hexdigest().encode("ascii")


class StateStore(ABC):
    """Where conversation checkpoints live."""

    @abstractmethod
    def save(self, partition: int, key: str, value: bytes | None, source: str) -> None:
        """Write one changelog record (`value` None: a tombstone)."""

    @abstractmethod
    def load_many(self, partitions: Sequence[int], stopping: Callable[[], bool] = never) -> dict[int, dict[str, bytes]]:
        """The latest value of every live key of each partition. A store that reads for a while asks `stopping`
        between reads and raises RestoreInterrupted once it says yes (a SIGTERM is not held up by a long read)."""

    def rejected(self, partition: int) -> list[str]:
        """Keys of the last `load_many` whose records were left out as not authenticated."""
        return []


class KafkaStateStore(StateStore):
    def __init__(
        self,
        bootstrap: str | KafkaClient,
        topic: str,
        producer: Any,
        read_timeout_s: float = 60.0,
        mac_key: bytes | None = None,
    ) -> None:
        self.bootstrap = bootstrap
        self.topic = topic
        self.producer = producer
        self.read_timeout_s = read_timeout_s
        self.mac_key = mac_key  # None: records are not authenticated (the topic's ACLs must keep others out)
        self._rejected: dict[int, list[str]] = {}

    def save(self, partition: int, key: str, value: bytes | None, source: str) -> None:
        headers = [("aem-source", source.encode("utf-8"))]
        if self.mac_key is not None:
            headers.append((MAC_HEADER, record_mac(self.mac_key, key, value)))
        self.producer.send(self.topic, key=key.encode("utf-8"), value=value, partition=partition, headers=headers)

    def rejected(self, partition: int) -> list[str]:
        return self._rejected.get(partition, [])

    def _authentic(self, key: str, value: bytes | None, headers: Any) -> bool:
        if self.mac_key is None:
            return True
        found = [v for k, v in headers or () if k == MAC_HEADER]
        return len(found) == 1 and hmac.compare_digest(found[0] or b"", record_mac(self.mac_key, key, value))

    def load_many(self, partitions: Sequence[int], stopping: Callable[[], bool] = never) -> dict[int, dict[str, bytes]]:
        out: dict[int, dict[str, bytes]] = {p: {} for p in partitions}
        self._rejected = {p: [] for p in partitions}
        if not partitions:
            return out
        consumer = KafkaConsumer(
            **client_kwargs(self.bootstrap), group_id=None, enable_auto_commit=False, client_id="aem-state-restore"
        )
        try:
            tps = [TopicPartition(self.topic, p) for p in partitions]
            consumer.assign(tps)
            consumer.seek_to_beginning(*tps)
            ends = consumer.end_offsets(tps)
            deadline = time.monotonic() + self.read_timeout_s
            remaining = {tp for tp in tps if ends.get(tp, 0) > 0}
            # Reaching the reported end is not enough: some brokers (Tansu) report the last batch's
            # base offset + 1, so read on until a poll comes back empty as well.
            drained = False
            while remaining or not drained:
                if stopping():  # at most one poll (0.5 s) and its records after the stop began
                    raise RestoreInterrupted(f"state topic {self.topic}: the monitor is stopping")
                if time.monotonic() > deadline:
                    # a KafkaError: the monitor's loop retries it (rewinding the polled batch)
                    raise KafkaTimeoutError(f"state topic {self.topic}: restore did not reach the end in time")
                polled = consumer.poll(timeout_ms=200 if not remaining else 500)
                drained = not remaining and not polled
                for tp, records in polled.items():
                    for rec in records:
                        if not rec.key:
                            continue
                        key = rec.key.decode("utf-8", errors="replace")
                        if not self._authentic(key, rec.value, rec.headers):  # the earlier value stands
                            self._rejected[tp.partition].append(key)
                            continue
                        if rec.value is None:
                            out[tp.partition].pop(key, None)
                        else:
                            out[tp.partition][key] = rec.value
                remaining = {tp for tp in remaining if consumer.position(tp) < ends[tp]}
        finally:
            consumer.close()
        rejected = {p: len(keys) for p, keys in self._rejected.items() if keys}
        log.info("state_read", topic=self.topic, records={p: len(v) for p, v in out.items()}, rejected=rejected)
        return out
