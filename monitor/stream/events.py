"""What the loop knows of each polled record — where it came from and when — in the stream's own vocabulary
(docs/architecture.md): a **position**, **event_time** (`TraceEvent.event_time`) and **received**, clamped
to now ± the allowed clock skew, so a year-9999 event can neither become the newest release nor put 6e10 s
into a latency histogram."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from kafka import TopicPartition

from monitor.models.trace_event import TraceEvent

Position = tuple[TopicPartition, int]  # where a polled record came from: its partition and offset


class PolledRecord(Protocol):
    """What the loop reads of a Kafka consumer record."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: Sequence[tuple[str, bytes]] | None
    timestamp: int


@dataclass(frozen=True, slots=True)
class SourceEvent:
    """One decoded trace event, its position and when it was received."""

    event: TraceEvent
    position: Position
    received: float
    record: PolledRecord | None = None  # the record, when it is this event: the DLQ and the changelog keep it

    @property
    def raw(self) -> bytes | None:
        return self.record.value if self.record is not None else None


def received(broker_ms: int | None, skew_s: float, now: float | None = None) -> float:
    """`received` from a record's broker timestamp (milliseconds; absent or not positive: none)."""
    now = time.time() if now is None else now
    stamp = broker_ms / 1000 if isinstance(broker_ms, int | float) and broker_ms > 0 else now
    return min(max(stamp, now - skew_s), now + skew_s)
