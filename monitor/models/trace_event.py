"""Trace events on the wire (docs/trace-events.md): the edge model, and bytes → a validated event with size and
nesting limits (`decode_event`), whose failure names the reason an event goes to the DLQ."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, TypeAdapter, ValidationError

from monitor.models.dialog import (
    Extra,
    Reply,
    ToolCall,
    ToolSpec,
    UserMessage,
    error_message,
    error_path,
    first_error,
)


class TraceEvent(BaseModel):
    """One turn of a live conversation (validate with `parse_event`: the payload type follows `turn`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)  # a misspelt field is an error, not a silent default

    schema_version: Annotated[StrictInt, Field(ge=1, le=1)]  # the integer 1 (not true, 1.0 or "1")
    conversation_id: str = Field(min_length=1, max_length=512)
    agent: str = Field("default", min_length=1, max_length=200)
    release: str = Field(min_length=1, max_length=200)
    turn_no: int = Field(ge=0, le=1_000_000)
    turn: Literal["Agent", "Tool", "User"]  # the wire spelling of TurnType; subclasses narrow it
    timestamp: datetime
    predict_turn: ToolCall | Reply | UserMessage
    gold_turn: ToolCall | Reply | UserMessage | None = None
    reference_id: str | None = Field(None, max_length=512)
    depends_on: list[int] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    tools: list[ToolSpec] | None = None
    final: bool = False
    extra: Extra = None  # user metadata, never read by scoring

    @property
    def event_time(self) -> float:
        ts = self.timestamp if self.timestamp.tzinfo else self.timestamp.replace(tzinfo=UTC)
        return ts.timestamp()


class ToolEvent(TraceEvent):
    turn: Literal["Tool"]
    predict_turn: ToolCall
    gold_turn: ToolCall | None = None


class AgentEvent(TraceEvent):
    turn: Literal["Agent"]
    predict_turn: Reply
    gold_turn: Reply | None = None


class UserEvent(TraceEvent):
    turn: Literal["User"]
    predict_turn: UserMessage
    gold_turn: UserMessage | None = None


# A tagged union on `turn`: validation runs entirely in pydantic-core (JSON parsing included).
_EVENT = TypeAdapter(Annotated[ToolEvent | AgentEvent | UserEvent, Field(discriminator="turn")])


def parse_event(data: Any) -> TraceEvent:
    """Validate a decoded event (a dict)."""
    return _EVENT.validate_python(data)


def parse_event_json(data: str | bytes) -> TraceEvent:
    """Validate an event straight from JSON text."""
    return _EVENT.validate_json(data)


@dataclass(frozen=True)
class EventLimits:
    """Bounds on what the monitor will parse; anything beyond is invalid and goes to the DLQ."""

    max_bytes: int = 1_000_000
    max_depth: int = 32


class InvalidEvent(ValueError):
    """An event that cannot be scored: the reason travels to the DLQ as a header."""

    def __init__(self, reason: str, field: str | None = None) -> None:
        self.reason, self.field = reason, field
        super().__init__(f"{field}: {reason}" if field else reason)


def _depth(value: Any, limit: int) -> int:
    """Nesting depth of a JSON value, without recursion (hostile input must not blow the stack)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return depth
        deepest = max(deepest, depth)
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def _int_or_zero(digits: str) -> int:
    """`json.loads(parse_int=...)`: a number too long for `int()` (the int-digit limit) reads as 0."""
    return int(digits) if len(digits) <= 100 else 0


def _explain(text: str, error: ValidationError, limits: EventLimits) -> InvalidEvent:
    """The one-line reason an event failed (the slow path: only invalid events get here)."""
    try:
        data = json.loads(text, parse_int=_int_or_zero)
    except json.JSONDecodeError as exc:
        return InvalidEvent(f"invalid JSON: {exc.msg} at column {exc.colno}")
    except RecursionError:
        return InvalidEvent(f"nesting deeper than {limits.max_depth}")
    except ValueError:  # e.g. an integer beyond Python's int-digit limit: pydantic's own reason stands
        return invalid_event(error)
    if not isinstance(data, dict):
        return InvalidEvent(f"expected a JSON object, got {type(data).__name__}")
    version = data.get("schema_version")
    if type(version) is not int or version != 1:
        return InvalidEvent(f"unsupported schema_version {version!r} (this monitor reads 1)", "schema_version")
    return invalid_event(error)


def invalid_event(error: ValidationError) -> InvalidEvent:
    """The first problem pydantic found, as the reason an event is invalid."""
    first = first_error(error)
    if first["type"].startswith("union_tag"):
        return InvalidEvent("turn must be one of Agent, Tool, User", "turn")
    return InvalidEvent(error_message(first), error_path(tuple(first["loc"])) or None)


def decode_event(raw: bytes | None, limits: EventLimits = EventLimits()) -> TraceEvent:
    """Bytes from Kafka → a validated event, or InvalidEvent naming the problem — never another exception.

    Total by construction: whatever the bytes, the caller gets an event or a reason for the DLQ.
    """
    try:
        return _decode(raw, limits)
    except InvalidEvent:
        raise
    except Exception as exc:  # a hostile payload found a path we did not foresee: still a DLQ reason
        raise InvalidEvent(f"undecodable event ({type(exc).__name__}: {str(exc)[:200]})") from None


def _decode(raw: bytes | None, limits: EventLimits) -> TraceEvent:
    if raw is None:
        raise InvalidEvent("empty message (tombstone)")
    if len(raw) > limits.max_bytes:
        raise InvalidEvent(f"event is {len(raw)} bytes, above the limit of {limits.max_bytes}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidEvent(f"not valid UTF-8 (byte {exc.start})") from None
    if raw.count(b"{") + raw.count(b"[") > limits.max_depth:  # only then can it be nested too deeply
        try:
            nested = _depth(json.loads(text, parse_int=_int_or_zero), limits.max_depth)
        except (ValueError, RecursionError):  # bad JSON, or an integer past the int-digit limit
            nested = 0  # reported below
        if nested > limits.max_depth:
            raise InvalidEvent(f"nesting deeper than {limits.max_depth}")
    try:
        return parse_event_json(text)
    except ValidationError as exc:
        raise _explain(text, exc, limits) from None
    except RecursionError:
        raise InvalidEvent(f"nesting deeper than {limits.max_depth}") from None


def encode_event(event: TraceEvent | dict[str, Any]) -> bytes:
    if isinstance(event, TraceEvent):
        return event.model_dump_json(exclude_none=True).encode("utf-8")
    return json.dumps(event, ensure_ascii=False, default=str).encode("utf-8")


def read_native(value: bytes | None, key: bytes | None, limits: EventLimits) -> TraceEvent:
    """A native record's event, or InvalidEvent naming what is wrong with its bytes or its key."""
    event = decode_event(value, limits)
    _check_key(key, event)
    return event


def _check_key(key: bytes | None, event: TraceEvent) -> None:
    """The record key must be the conversation_id (docs/trace-events.md): with another key, turns of one
    conversation land on different partitions, and so on different monitors. A record without a key is read."""
    if key is not None and key != event.conversation_id.encode("utf-8"):
        shown = key[:80].decode("utf-8", errors="replace")
        raise InvalidEvent(f"record key {shown!r} differs from conversation_id {event.conversation_id[:80]!r}", "key")
