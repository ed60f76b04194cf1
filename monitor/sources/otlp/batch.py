"""One Kafka record of OTLP traces → its spans, whatever the encoding: taken or rejected whole."""

from __future__ import annotations

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
