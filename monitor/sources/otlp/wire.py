"""OTLP trace batches (`ExportTraceServiceRequest`) as bytes → flat spans, for both Kafka encodings.

`otlp_proto` is the protobuf message of `opentelemetry-proto`, read here; `otlp_json` (the OTLP/JSON
mapping) is read by `json_wire`. `request_to_json` writes that mapping for the sample producer.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue


class Encoding(StrEnum):
    """The two encodings of the OpenTelemetry Collector's Kafka exporter for traces."""

    PROTO = "otlp_proto"
    JSON = "otlp_json"


class BatchError(ValueError):
    """A batch that cannot be decoded: it goes to the DLQ whole, with this reason."""


@dataclass(frozen=True)
class Span:
    """One span, flattened: ids as lowercase hex, times in Unix nanoseconds, attributes as Python values."""

    trace_id: str
    span_id: str
    parent_span_id: str  # "" for a trace's root span
    name: str
    start_ns: int
    end_ns: int
    attributes: Mapping[str, Any]
    resource: Mapping[str, Any]

    @property
    def is_root(self) -> bool:
        return not self.parent_span_id


def any_value(value: AnyValue) -> Any:
    """An `AnyValue` union as a plain Python value (bytes as hex, kvlists as dicts)."""
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [any_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return attributes_of(value.kvlist_value.values)
    if kind == "bytes_value":
        return value.bytes_value.hex()
    return getattr(value, kind)


def attributes_of(pairs: Any) -> dict[str, Any]:
    """Repeated `KeyValue` → dict (a repeated key keeps its last value, as the SDKs do)."""
    out: dict[str, Any] = {}
    pair: KeyValue
    for pair in pairs:
        out[pair.key] = any_value(pair.value)
    return out


_ID_FIELDS = (("traceId", 16), ("spanId", 8), ("parentSpanId", 8))


def parse_request(raw: bytes) -> ExportTraceServiceRequest:
    """An `otlp_proto` record value → `ExportTraceServiceRequest`, or BatchError naming the problem."""
    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(raw)
    except (DecodeError, RecursionError) as exc:
        raise BatchError(f"not an OTLP protobuf ExportTraceServiceRequest: {exc}") from None
    if raw and not request.resource_spans:
        raise BatchError(f"no resourceSpans in a {len(raw)}-byte batch (not an otlp_proto trace export?)")
    return request


def iter_spans(request: ExportTraceServiceRequest) -> Iterator[Span]:
    """The spans of a request with their resource's attributes; malformed ids are a BatchError."""
    for r, resource_spans in enumerate(request.resource_spans):
        resource = attributes_of(resource_spans.resource.attributes)
        for s, scope_spans in enumerate(resource_spans.scope_spans):
            for i, span in enumerate(scope_spans.spans):
                where = f"resourceSpans[{r}].scopeSpans[{s}].spans[{i}]"
                if len(span.trace_id) != 16 or len(span.span_id) != 8:
                    raise BatchError(f"{where}: trace id must be 16 bytes and span id 8 bytes")
                if span.parent_span_id and len(span.parent_span_id) != 8:
                    raise BatchError(f"{where}.parentSpanId: must be 8 bytes")
                yield Span(
                    trace_id=span.trace_id.hex(),
                    span_id=span.span_id.hex(),
                    parent_span_id=span.parent_span_id.hex(),
                    name=span.name,
                    start_ns=span.start_time_unix_nano,
                    end_ns=span.end_time_unix_nano,
                    attributes=attributes_of(span.attributes),
                    resource=resource,
                )


def request_to_json(request: ExportTraceServiceRequest) -> bytes:
    """The OTLP/JSON form of a request (hex ids, integer enums, int64 as strings)."""
    data = json_format.MessageToDict(request, use_integers_for_enums=True)
    for resource_spans in data.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                _ids_to_hex(span)
                for link in span.get("links", []):
                    _ids_to_hex(link)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _ids_to_hex(obj: dict[str, Any]) -> None:
    for key, _ in _ID_FIELDS:
        if obj.get(key):
            try:
                obj[key] = base64.b64decode(obj[key]).hex()
            except binascii.Error:  # pragma: no cover - MessageToDict always writes valid base64
                raise BatchError(f"{key}: invalid base64") from None
