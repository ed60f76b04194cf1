"""OTLP input for `aem run --input-format otlp_json|otlp_proto` (`aem replay --format` writes it: tools/replay.py).

The runner's one decode hook: a Kafka record (an OTLP trace batch) → the validated trace events that
became ready, plus the positions that need nothing more; a batch that cannot be decoded raises
InvalidEvent and goes to the DLQ whole. Events are ordinary `TraceEvent`s from here on: the
processor's holding, dedup, idle timeout and checkpoints apply to them as to native events.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Hashable
from dataclasses import dataclass, field
from datetime import UTC

import structlog
from prometheus_client import CollectorRegistry, Counter
from pydantic import ValidationError

from monitor.models.dialog import error_path
from monitor.sources.otlp import (
    Assembled,
    AssemblyLimits,
    BatchError,
    Encoding,
    OtlpMapping,
    Resume,
    ResumeLookup,
    Skip,
    SpanAssembler,
    decode_batch,
    map_span,
)
from monitor.stream.events import InvalidEvent, TraceEvent, parse_event
from monitor.stream.processor import TurnProcessor
from monitor.stream.settings import MonitorSettings

log = structlog.get_logger(__name__)

Position = tuple[Hashable, int]  # (partition, offset), as the runner tracks them
NO_OFFSET = -1  # a turn whose batch still has spans held: its verdict commits nothing
SPAN_OUTCOMES = ("mapped", "skipped", "duplicate", "late", "invalid")


@dataclass
class Decoded:
    events: list[tuple[TraceEvent, Position]] = field(default_factory=list)
    done: list[Position] = field(default_factory=list)  # batches complete with no verdict of their own


class OtlpInput:
    """Decode, map and assemble OTLP batches for the runner (one per monitor)."""

    def __init__(
        self,
        encoding: Encoding | str,
        mapping: OtlpMapping | None = None,
        limits: AssemblyLimits | None = None,
        max_bytes: int = 1_000_000,
        registry: CollectorRegistry | None = None,
        clock: Callable[[], float] = time.monotonic,
        resume: ResumeLookup | None = None,
    ) -> None:
        self.encoding = Encoding(encoding)
        self.mapping = mapping or OtlpMapping()
        self.max_bytes = max_bytes
        self.assembler = SpanAssembler(limits or AssemblyLimits(), resume)
        self.clock = clock
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

    def decode(self, raw: bytes | None, position: Position) -> Decoded:
        """One record → what became ready; InvalidEvent (for the DLQ) when the batch cannot be read."""
        try:
            spans = decode_batch(raw, self.encoding, self.max_bytes)
            mapped = [map_span(span, self.mapping) for span in spans]
        except BatchError as exc:
            raise InvalidEvent(str(exc)) from None
        except Exception as exc:  # a hostile batch found a path not foreseen: still a DLQ reason, never a crash
            raise InvalidEvent(f"unreadable OTLP batch: {type(exc).__name__}: {str(exc)[:200]}") from None
        for m in mapped:
            if m.skipped is not None:
                log.debug("otlp_span_skipped", reason=str(m.skipped), span=m.span.span_id, name=m.span.name)
        return self._validated(self.assembler.add(mapped, position, self.clock()))

    def tick(self) -> Decoded:
        """Release traces whose root never came (after the hold time)."""
        return self._validated(self.assembler.tick(self.clock()))

    def drop(self, partitions: Collection[Hashable]) -> None:
        """Partitions were revoked: forget the spans held from them (they are read again elsewhere)."""
        lost = set(partitions)
        self.assembler.drop(lambda ref: isinstance(ref, tuple) and ref[0] in lost)

    def _validated(self, assembled: Assembled) -> Decoded:
        out = Decoded(done=list(assembled.done))  # type: ignore[arg-type]
        for outcome, count in assembled.spans.items():
            self.spans.labels(outcome).inc(count)
        for reason, count in assembled.skipped.items():
            self.skipped.labels(reason).inc(count)
        for ready in assembled.events:
            position: Position = ready.ref  # type: ignore[assignment]
            try:
                event = parse_event(ready.event)
            except ValidationError as exc:
                first = exc.errors(include_url=False)[0]
                self.spans.labels("invalid").inc()
                log.warning(
                    "otlp_turn_invalid",
                    conversation=str(ready.event.get("conversation_id"))[:200],
                    field=error_path(tuple(first["loc"])),
                    error=first["msg"],
                )
                if ready.completes:
                    out.done.append(position)
                continue
            out.events.append((event, position if ready.completes else (position[0], NO_OFFSET)))
        return out


def resume_from(processor: TurnProcessor) -> ResumeLookup:
    """Turn numbering of conversations the processor has (restored from checkpoints) and the assembler lost.

    Spans redelivered after a restart that started no later than the conversation's last scored turn
    count as late instead of being scored again; new spans are numbered after it.
    """

    def lookup(cid: str) -> Resume | None:
        seen = processor.finished.get(cid)
        if seen is not None:
            return Resume(max(seen, default=0) + 1, None, finished=True)
        conv = processor.open.get(cid)
        if conv is None or conv.next_turn is None or conv.last_timestamp is None:
            return None
        last = conv.last_timestamp
        last = last if last.tzinfo else last.replace(tzinfo=UTC)
        return Resume(conv.next_turn, int(last.timestamp() * 1_000_000) * 1000)

    return lookup


def otlp_input(settings: MonitorSettings, registry: CollectorRegistry, processor: TurnProcessor) -> OtlpInput | None:
    """The hook for `settings.input_format` otlp_json/otlp_proto (None for aem); traces wait `gap_timeout_s`."""
    if settings.input_format == "aem":
        return None
    return OtlpInput(
        Encoding(settings.input_format),
        settings.otlp,
        AssemblyLimits(hold_s=settings.gap_timeout_s),
        settings.max_event_bytes,
        registry,
        resume=resume_from(processor),
    )
