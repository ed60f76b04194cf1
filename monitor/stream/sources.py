"""Sources: a polled Kafka record → the trace events it holds, each with its source position.

The loop reads every input format through one `Source`: native JSON trace events (`NativeSource`, one
event per record) or OTLP trace batches (`OtlpSource`, many spans per record, a turn ready when its trace
is). A record that cannot be read raises `InvalidEvent` (it goes to the DLQ whole). A source that holds
part of a record for later (spans waiting for their trace) says from which offset on (`holding`): the
checkpoint commits no further. `aem score` reads dialog files instead (`monitor/sources/files.py`).
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Protocol

from kafka import TopicPartition

from monitor.sources.otlp import Encoding, OtlpMapping
from monitor.stream.events import EventLimits, InvalidEvent, Position, TraceEvent, decode_event
from monitor.stream.otlp import OtlpInput, read_batch


class PolledRecord(Protocol):
    """What the loop reads of a Kafka consumer record."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    timestamp: int


@dataclass(frozen=True, slots=True)
class SourceEvent:
    """One decoded trace event, where it came from and when the broker received it."""

    event: TraceEvent
    position: Position
    received: float  # broker timestamp (seconds)
    raw: bytes | None = None  # the record's bytes, when the record is this event (the changelog keeps them)


class Source(Protocol):
    whole_records: bool  # each record is one event: a failed event goes to the DLQ as its record came

    def decode(self, record: PolledRecord, position: Position) -> list[SourceEvent]:
        """The events one record made ready; raises InvalidEvent when it cannot be read."""

    def tick(self) -> list[SourceEvent]:
        """Events that became ready with time (an OTLP trace whose root never came)."""

    def holding(self) -> dict[TopicPartition, int]:
        """Per partition, the oldest offset of a record part of which is still held here."""

    def drop(self, partitions: Collection[TopicPartition]) -> None:
        """Partitions were revoked: forget what is held from them."""


@dataclass
class NativeSource:
    """AEM trace events (docs/trace-events.md), one JSON object per record, keyed by conversation."""

    limits: EventLimits
    whole_records: bool = True

    def decode(self, record: PolledRecord, position: Position) -> list[SourceEvent]:
        event = read_native(record.value, record.key, self.limits)
        return [SourceEvent(event, position, broker_time(record), record.value)]

    def tick(self) -> list[SourceEvent]:
        return []

    def holding(self) -> dict[TopicPartition, int]:
        return {}

    def drop(self, partitions: Collection[TopicPartition]) -> None:
        return None


@dataclass
class OtlpSource:
    """OTLP trace batches (docs/otlp.md): spans assembled into turns by `otlp.OtlpInput`."""

    otlp: OtlpInput
    whole_records: bool = False

    def decode(self, record: PolledRecord, position: Position) -> list[SourceEvent]:
        received = broker_time(record)
        return [SourceEvent(e, p, received) for e, p in self.otlp.decode(record.value, position)]

    def tick(self) -> list[SourceEvent]:
        now = time.time()
        return [SourceEvent(e, p, now) for e, p in self.otlp.tick()]

    def holding(self) -> dict[TopicPartition, int]:
        return self.otlp.holding()

    def drop(self, partitions: Collection[TopicPartition]) -> None:
        self.otlp.drop(partitions)


def broker_time(record: Any) -> float:
    """The record's broker timestamp in seconds (now, when the client reports none)."""
    stamp = getattr(record, "timestamp", None)
    return stamp / 1000 if isinstance(stamp, int | float) and stamp > 0 else time.time()


def read_native(value: bytes | None, key: bytes | None, limits: EventLimits) -> TraceEvent:
    """A native record's event, or InvalidEvent naming what is wrong with its bytes or its key."""
    event = decode_event(value, limits)
    _check_key(key, event)
    return event


def check_record(
    value: bytes | None, key: bytes | None, input_format: str, limits: EventLimits, mapping: OtlpMapping
) -> None:
    """Raise InvalidEvent with the reason a monitor reading `input_format` would dead-letter this record on
    arrival; return when it would read it (`aem redrive` re-sends only such records)."""
    if input_format == "aem":
        read_native(value, key, limits)
    else:
        read_batch(value, Encoding(input_format), limits.max_bytes, mapping)


def _check_key(key: bytes | None, event: TraceEvent) -> None:
    """The record key must be the conversation_id (docs/trace-events.md): with another key, turns of one
    conversation land on different partitions, and so on different monitors. A record without a key is read."""
    if key is not None and key != event.conversation_id.encode("utf-8"):
        shown = key[:80].decode("utf-8", errors="replace")
        raise InvalidEvent(f"record key {shown!r} differs from conversation_id {event.conversation_id[:80]!r}", "key")
