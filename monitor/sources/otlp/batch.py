"""One Kafka record of OTLP traces → its spans, whatever the encoding (and mapped to turns: `read_batch`): taken or
rejected whole."""

from __future__ import annotations

from monitor.models.trace_event import InvalidEvent
from monitor.sources.otlp.genai import MappedSpan, OtlpMapping, map_span
from monitor.sources.otlp.json_wire import decode_json_batch
from monitor.sources.otlp.wire import BatchError, Encoding, Span, iter_spans, parse_request


def decode_batch(raw: bytes | None, encoding: Encoding, max_bytes: int = 1_000_000) -> list[Span]:
    """The spans of a batch, or BatchError with the reason the batch goes to the DLQ."""
    if raw is None:
        raise BatchError("empty message (tombstone)")
    if len(raw) > max_bytes:
        raise BatchError(f"batch is {len(raw)} bytes, above the limit of {max_bytes}")
    if encoding is Encoding.JSON:
        return decode_json_batch(raw)
    return list(iter_spans(parse_request(raw)))


def read_batch(raw: bytes | None, encoding: Encoding, max_bytes: int, mapping: OtlpMapping) -> list[MappedSpan]:
    """One record's spans mapped to turns, or InvalidEvent with the reason the whole batch goes to the DLQ."""
    try:
        return [map_span(span, mapping) for span in decode_batch(raw, encoding, max_bytes)]
    except BatchError as exc:
        raise InvalidEvent(str(exc)) from None
    except Exception as exc:  # a hostile batch found a path not foreseen: still a DLQ reason, never a crash
        raise InvalidEvent(f"unreadable OTLP batch: {type(exc).__name__}: {str(exc)[:200]}") from None
