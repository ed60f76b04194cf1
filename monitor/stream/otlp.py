"""OTLP input for `aem run --input-format otlp_json|otlp_proto` (`aem replay --format` writes it: tools/replay.py).

The OTLP `Source` (sources.py): an OTLP trace batch → the trace events that became ready, each with the
position of the batch its span came in. Spans held for their trace keep their batch's offset from being
committed (`holding`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection

import structlog
from kafka import TopicPartition
from prometheus_client import CollectorRegistry, Counter
from pydantic import ValidationError

from monitor.models.trace_event import invalid_event, parse_event
from monitor.sources.otlp import (
    Assembled,
    AssemblyLimits,
    Encoding,
    OtlpMapping,
    ResumeLookup,
    Skip,
    SpanAssembler,
    read_batch,
)
from monitor.stream.events import PolledRecord, Position, SourceEvent, received

log = structlog.get_logger(__name__)

SPAN_OUTCOMES = ("mapped", "skipped", "duplicate", "late", "invalid")


class OtlpInput:
    """Decode, map and assemble OTLP batches (one per monitor): spans become turns when their trace is ready."""

    def __init__(
        self,
        encoding: Encoding | str,
        mapping: OtlpMapping | None = None,
        limits: AssemblyLimits | None = None,
        max_bytes: int = 1_000_000,
        registry: CollectorRegistry | None = None,
        clock: Callable[[], float] = time.monotonic,
        resume: ResumeLookup | None = None,
        clock_skew_s: float = 300.0,
    ) -> None:
        self.encoding = Encoding(encoding)
        self.mapping = mapping or OtlpMapping()
        self.max_bytes = max_bytes
        self.assembler = SpanAssembler(limits or AssemblyLimits(), resume)
        self.clock = clock
        self.clock_skew_s = clock_skew_s
        self.spans = Counter(
            "aem_otlp_spans", "OTLP spans by outcome (skipped: no turn in it)", ["outcome"], registry=registry
        )
        for outcome in SPAN_OUTCOMES:
            self.spans.labels(outcome)
        self.skipped = Counter(
            "aem_otlp_spans_skipped", "OTLP spans that gave no turn, by reason", ["reason"], registry=registry
        )
        for reason in Skip:
            self.skipped.labels(str(reason))

    def decode(self, record: PolledRecord, position: Position) -> list[SourceEvent]:
        """One record → what became ready; InvalidEvent (for the DLQ) when the batch cannot be read."""
        mapped = read_batch(record.value, self.encoding, self.max_bytes, self.mapping)
        for m in mapped:
            if m.skipped is not None:
                log.debug("otlp_span_skipped", reason=str(m.skipped), span=m.span.span_id, name=m.span.name)
        at = received(record.timestamp, self.clock_skew_s)
        return self._validated(self.assembler.add(mapped, position, self.clock()), at)

    def tick(self) -> list[SourceEvent]:
        """Release traces whose root never came (after the hold time)."""
        return self._validated(self.assembler.tick(self.clock()), time.time())

    def holding(self) -> dict[TopicPartition, int]:
        """Per partition, the oldest offset of a batch with spans still held (not to be committed yet)."""
        oldest: dict[TopicPartition, int] = {}
        for ref in self.assembler.outstanding:
            if isinstance(ref, tuple):  # a Position: the assembler's refs are opaque to it
                tp, offset = ref
                oldest[tp] = min(offset, oldest.get(tp, offset))
        return oldest

    def drop(self, partitions: Collection[TopicPartition]) -> None:
        """Partitions were revoked: forget the spans held from them (they are read again elsewhere)."""
        lost = set(partitions)
        self.assembler.drop(lambda ref: isinstance(ref, tuple) and ref[0] in lost)

    def _validated(self, assembled: Assembled, at: float) -> list[SourceEvent]:
        out: list[SourceEvent] = []
        for outcome, count in assembled.spans.items():
            self.spans.labels(outcome).inc(count)
        for reason, count in assembled.skipped.items():
            self.skipped.labels(reason).inc(count)
        for ready in assembled.events:
            try:
                event = parse_event(ready.event)
            except ValidationError as exc:
                self.spans.labels("invalid").inc()
                invalid, cid = invalid_event(exc), str(ready.event.get("conversation_id"))[:200]
                log.warning("otlp_turn_invalid", conversation=cid, field=invalid.field, error=invalid.reason)
                continue
            out.append(SourceEvent(event, ready.ref, at))  # type: ignore[arg-type]  # its refs are our positions
        return out
