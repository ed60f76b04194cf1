"""Sources: a polled Kafka record → the trace events it holds, each with its source position.

The loop reads every input format through one `Source`: native JSON trace events (`NativeSource`, one
event per record) or OTLP trace batches (`OtlpSource`, many spans per record, a turn ready when its trace
is). A record that cannot be read raises `InvalidEvent` (it goes to the DLQ whole); positions that need no
verdict of their own come back in `done`. `aem score` reads dialog files instead (`monitor/sources/files.py`).
"""

from __future__ import annotations

import time
from collections.abc import Collection, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from kafka import TopicPartition
from prometheus_client import CollectorRegistry

from monitor.stream.events import EventLimits, InvalidEvent, TraceEvent, decode_event
from monitor.stream.otlp import otlp_input
from monitor.stream.processor import TurnProcessor
from monitor.stream.settings import MonitorSettings

Position = tuple[TopicPartition, int]


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


@dataclass
class Decoded:
    events: list[SourceEvent] = field(default_factory=list)
    done: list[Position] = field(default_factory=list)  # positions complete with no verdict of their own


class Source(Protocol):
    whole_records: bool  # each record is one event: a failed event goes to the DLQ as its record came

    def decode(self, record: PolledRecord, position: Position) -> Decoded:
        """The events one record made ready; raises InvalidEvent when it cannot be read."""

    def tick(self) -> Decoded:
        """Events that became ready with time (an OTLP trace whose root never came)."""

    def drop(self, partitions: Collection[Hashable]) -> None:
        """Partitions were revoked: forget what is held from them."""


@dataclass
class NativeSource:
    """AEM trace events (docs/trace-events.md), one JSON object per record, keyed by conversation."""

    limits: EventLimits
    whole_records: bool = True

    def decode(self, record: PolledRecord, position: Position) -> Decoded:
        event = decode_event(record.value, self.limits)
        _check_key(record.key, event)
        return Decoded([SourceEvent(event, position, broker_time(record), record.value)])

    def tick(self) -> Decoded:
        return Decoded()

    def drop(self, partitions: Collection[Hashable]) -> None:
        return None


@dataclass
class OtlpSource:
    """OTLP trace batches (docs/otlp.md): spans assembled into turns by `otlp.OtlpInput`."""

    otlp: Any  # otlp.OtlpInput
    whole_records: bool = False

    def decode(self, record: PolledRecord, position: Position) -> Decoded:
        got = self.otlp.decode(record.value, position)
        received = broker_time(record)
        return Decoded([SourceEvent(e, p, received) for e, p in _positions(got.events)], _refs(got.done))

    def tick(self) -> Decoded:
        held = self.otlp.tick()
        now = time.time()
        return Decoded([SourceEvent(e, p, now) for e, p in _positions(held.events)], _refs(held.done))

    def drop(self, partitions: Collection[Hashable]) -> None:
        self.otlp.drop(partitions)


def make_source(settings: MonitorSettings, registry: CollectorRegistry, processor: TurnProcessor) -> Source:
    """The source for `settings.input_format`: native events, or OTLP JSON/proto batches."""
    otlp = otlp_input(settings, registry, processor)
    if otlp is None:
        return NativeSource(EventLimits(max_bytes=settings.max_event_bytes, max_depth=settings.max_event_depth))
    return OtlpSource(otlp)


def broker_time(record: Any) -> float:
    """The record's broker timestamp in seconds (now, when the client reports none)."""
    stamp = getattr(record, "timestamp", None)
    return stamp / 1000 if isinstance(stamp, int | float) and stamp > 0 else time.time()


def _positions(items: Iterable[tuple[Any, Any]]) -> list[tuple[Any, Position]]:
    """Items whose position is a (TopicPartition, offset) pair, typed as such (the OTLP input's are Hashable)."""
    return [(item, ref) for item, ref in items if isinstance(ref, tuple) and isinstance(ref[0], TopicPartition)]


def _refs(refs: Iterable[Any]) -> list[Position]:
    return [ref for _, ref in _positions((None, r) for r in refs)]


def _check_key(key: bytes | None, event: TraceEvent) -> None:
    """The record key must be the conversation_id (docs/trace-events.md): with another key, turns of one
    conversation land on different partitions, and so on different monitors. A record without a key is read."""
    if key is not None and key != event.conversation_id.encode("utf-8"):
        shown = key[:80].decode("utf-8", errors="replace")
        raise InvalidEvent(f"record key {shown!r} differs from conversation_id {event.conversation_id[:80]!r}", "key")
