"""Trace events on the wire (DESIGN.md §4): decoding and validation, with size and nesting limits."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from monitor.models.dialog import Reply, ToolCall, ToolSpec, TurnType, UserMessage, parse_payload


class TraceEvent(BaseModel):
    """One turn of a live conversation."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    schema_version: Literal[1]
    conversation_id: str = Field(min_length=1, max_length=512)
    agent: str = Field("default", min_length=1, max_length=200)
    release: str = Field(min_length=1, max_length=200)
    turn_no: int = Field(ge=0, le=1_000_000)
    turn: TurnType
    timestamp: datetime
    predict_turn: ToolCall | Reply | UserMessage
    gold_turn: ToolCall | Reply | UserMessage | None = None
    reference_id: str | None = None
    depends_on: list[int] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    tools: list[ToolSpec] | None = None
    final: bool = False

    @model_validator(mode="before")
    @classmethod
    def _payloads_match_turn(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("turn") in ("Agent", "Tool", "User"):
            data = dict(data)
            for key in ("gold_turn", "predict_turn"):
                if data.get(key) is not None:
                    data[key] = parse_payload(data["turn"], data[key], key)
        return data

    @property
    def epoch_seconds(self) -> float:
        ts = self.timestamp if self.timestamp.tzinfo else self.timestamp.replace(tzinfo=UTC)
        return ts.timestamp()


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


def _loc(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("ToolCall", "Reply", "UserMessage") and "function-" not in str(p)]
    return ".".join(parts)


def decode_event(raw: bytes | None, limits: EventLimits = EventLimits()) -> TraceEvent:
    """Bytes from Kafka → a validated event, or InvalidEvent naming the problem."""
    if raw is None:
        raise InvalidEvent("empty message (tombstone)")
    if len(raw) > limits.max_bytes:
        raise InvalidEvent(f"event is {len(raw)} bytes, above the limit of {limits.max_bytes}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidEvent(f"not valid UTF-8 (byte {exc.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidEvent(f"invalid JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise InvalidEvent(f"nesting deeper than {limits.max_depth}") from None
    if not isinstance(data, dict):
        raise InvalidEvent(f"expected a JSON object, got {type(data).__name__}")
    if _depth(data, limits.max_depth) > limits.max_depth:
        raise InvalidEvent(f"nesting deeper than {limits.max_depth}")
    version = data.get("schema_version")
    if version != 1:
        raise InvalidEvent(f"unsupported schema_version {version!r} (this monitor reads 1)", "schema_version")
    try:
        return TraceEvent.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        loc, msg = _loc(tuple(first["loc"])), first["msg"]
        if first["type"] == "payload":
            ctx = first.get("ctx", {})
            loc, msg = ".".join(p for p in (loc, ctx.get("path")) if p), ctx.get("message", msg)
        raise InvalidEvent(msg, loc or None) from None
    except RecursionError:
        raise InvalidEvent(f"nesting deeper than {limits.max_depth}") from None


def encode_event(event: TraceEvent | dict[str, Any]) -> bytes:
    if isinstance(event, TraceEvent):
        return event.model_dump_json(exclude_none=True).encode("utf-8")
    return json.dumps(event, ensure_ascii=False, default=str).encode("utf-8")


def now_utc() -> datetime:
    return datetime.now(UTC)
