"""OTLP/JSON trace batches read straight into spans (protobuf's generic JSON parser is 4x slower).

The OTLP/JSON mapping of `ExportTraceServiceRequest`: lowerCamelCase keys (the proto field names
are accepted too), trace/span ids as hex, 64-bit integers as strings or numbers, enums as integers,
attribute values as `AnyValue` objects (`stringValue`, `boolValue`, `intValue`, `doubleValue`,
`arrayValue`, `kvlistValue`, `bytesValue` in base64). Unknown keys are ignored.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from typing import Any

from monitor.sources.otlp.wire import BatchError, Span

_SPECIAL_DOUBLES = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _get(obj: dict[str, Any], camel: str, snake: str) -> Any:
    return obj[camel] if camel in obj else obj.get(snake)


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BatchError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _list(obj: dict[str, Any], camel: str, snake: str, where: str) -> list[Any]:
    value = _get(obj, camel, snake)
    if value is None:
        return []
    if not isinstance(value, list):
        raise BatchError(f"{where}.{camel}: expected a list, got {type(value).__name__}")
    return value


def _int(value: Any, where: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise BatchError(f"{where}: expected an integer, got {type(value).__name__}")
    try:
        return int(value)
    except ValueError:
        raise BatchError(f"{where}: {str(value)[:40]!r} is not an integer") from None


def _hex(value: Any, where: str, size: int, required: bool = True) -> str:
    if value in (None, "") and not required:
        return ""
    if not isinstance(value, str):
        raise BatchError(f"{where}: expected a hex string, got {type(value).__name__}")
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise BatchError(f"{where}: {value[:40]!r} is not hex") from None
    if len(raw) != size:
        raise BatchError(f"{where}: expected {size} bytes ({2 * size} hex digits), got {len(raw)}")
    return raw.hex()


def any_value(value: Any, where: str) -> Any:
    """An OTLP/JSON `AnyValue` as a Python value (bytes as hex, kvlists as dicts)."""
    v = _object(value, where)
    if "stringValue" in v or "string_value" in v:
        return _get(v, "stringValue", "string_value")
    if "boolValue" in v or "bool_value" in v:
        return bool(_get(v, "boolValue", "bool_value"))
    if "intValue" in v or "int_value" in v:
        return _int(_get(v, "intValue", "int_value"), where)
    if "doubleValue" in v or "double_value" in v:
        d = _get(v, "doubleValue", "double_value")
        if isinstance(d, str) and d in _SPECIAL_DOUBLES:
            return _SPECIAL_DOUBLES[d]
        if isinstance(d, bool) or not isinstance(d, int | float):
            raise BatchError(f"{where}.doubleValue: expected a number")
        return float(d)
    if "arrayValue" in v or "array_value" in v:
        array = _object(_get(v, "arrayValue", "array_value"), f"{where}.arrayValue")
        return [
            any_value(x, f"{where}.arrayValue.values[{i}]")
            for i, x in enumerate(_list(array, "values", "values", where))
        ]
    if "kvlistValue" in v or "kvlist_value" in v:
        kvlist = _object(_get(v, "kvlistValue", "kvlist_value"), f"{where}.kvlistValue")
        return attributes(_list(kvlist, "values", "values", where), f"{where}.kvlistValue")
    if "bytesValue" in v or "bytes_value" in v:
        try:
            return base64.b64decode(str(_get(v, "bytesValue", "bytes_value")), validate=True).hex()
        except binascii.Error:
            raise BatchError(f"{where}.bytesValue: invalid base64") from None
    return None


def attributes(pairs: list[Any], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, pair in enumerate(pairs):
        kv = _object(pair, f"{where}.attributes[{i}]")
        key = kv.get("key")
        if not isinstance(key, str):
            raise BatchError(f"{where}.attributes[{i}].key: expected a string")
        out[key] = any_value(kv["value"], f"{where}.attributes[{i}].value") if kv.get("value") is not None else None
    return out


def _span(data: Any, resource: dict[str, Any], where: str) -> Span:
    s = _object(data, where)
    return Span(
        trace_id=_hex(_get(s, "traceId", "trace_id"), f"{where}.traceId", 16),
        span_id=_hex(_get(s, "spanId", "span_id"), f"{where}.spanId", 8),
        parent_span_id=_hex(_get(s, "parentSpanId", "parent_span_id"), f"{where}.parentSpanId", 8, required=False),
        name=str(s.get("name") or ""),
        start_ns=_int(_get(s, "startTimeUnixNano", "start_time_unix_nano"), f"{where}.startTimeUnixNano"),
        end_ns=_int(_get(s, "endTimeUnixNano", "end_time_unix_nano"), f"{where}.endTimeUnixNano"),
        attributes=attributes(_list(s, "attributes", "attributes", where), where),
        resource=resource,
    )


def decode_json_batch(raw: bytes) -> list[Span]:
    """An OTLP/JSON `ExportTraceServiceRequest` → spans, or BatchError naming the place."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise BatchError(f"not valid UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise BatchError(f"invalid JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise BatchError("JSON nested too deeply") from None
    except ValueError as exc:  # an integer past Python's int-digit limit
        raise BatchError(f"invalid JSON: {str(exc)[:200]}") from None
    request = _object(data, "batch")
    groups = _list(request, "resourceSpans", "resource_spans", "batch")
    if not groups:
        raise BatchError(f"no resourceSpans in a {len(raw)}-byte batch (not an otlp_json trace export?)")
    spans: list[Span] = []
    try:
        for r, group in enumerate(groups):
            where = f"resourceSpans[{r}]"
            g = _object(group, where)
            res = _object(g.get("resource") or {}, f"{where}.resource")
            resource = attributes(_list(res, "attributes", "attributes", f"{where}.resource"), f"{where}.resource")
            for s, scope in enumerate(_list(g, "scopeSpans", "scope_spans", where)):
                inner = f"{where}.scopeSpans[{s}]"
                for i, span in enumerate(_list(_object(scope, inner), "spans", "spans", inner)):
                    spans.append(_span(span, resource, f"{inner}.spans[{i}]"))
    except RecursionError:
        raise BatchError("attribute values nested too deeply") from None
    return spans
