"""Sources: a polled Kafka record → the trace events it holds, each with its source position.

The loop reads every input format through one `Source`: native JSON trace events (`NativeSource`) or OTLP
trace batches (`otlp.OtlpInput`). A record that cannot be read raises `InvalidEvent` (it goes to the DLQ
whole).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Protocol

from kafka import TopicPartition

from monitor.models.trace_event import EventLimits, read_native
from monitor.stream.events import PolledRecord, Position, SourceEvent, received


class Source(Protocol):
    """A source that holds nothing back (one record, its events) needs only `decode`."""

    def decode(self, record: PolledRecord, position: Position) -> list[SourceEvent]:
        """The events one record made ready; raises InvalidEvent when it cannot be read."""

    def tick(self) -> list[SourceEvent]:
        """Events that became ready with time (an OTLP trace whose root never came)."""
        return []

    def holding(self) -> dict[TopicPartition, int]:
        """Per partition, the oldest offset of a record part of which is still held here."""
        return {}

    def drop(self, partitions: Collection[TopicPartition]) -> None:
        """Partitions were revoked: forget what is held from them."""
        return None


@dataclass
class NativeSource(Source):
    """AEM trace events (docs/trace-events.md), one JSON object per record, keyed by conversation."""

    limits: EventLimits
    clock_skew_s: float

    def decode(self, record: PolledRecord, position: Position) -> list[SourceEvent]:
        event = read_native(record.value, record.key, self.limits)
        return [SourceEvent(event, position, received(record.timestamp, self.clock_skew_s), record)]
