"""What a dead-letter record keeps of a rejected event's payload (setting ``dlq_payload``): ``full`` (the
default), ``truncate:N`` (its first N bytes) or ``redact``: the event's structure without user data (message,
reply and tool output text and tool argument values become ``"<redacted N chars>"``; a payload that is not a
JSON object is dropped). The DLQ sink applies it before its own size limit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

# Keys whose values are conversation content (user data); everything else is structure.
_CONTENT_KEYS = frozenset({"content", "response", "output", "args", "text", "message"})
_MAX_REDACT_DEPTH = 64


class PayloadMode(StrEnum):
    FULL = "full"
    TRUNCATE = "truncate"
    REDACT = "redact"


@dataclass(frozen=True)
class DlqPayloadPolicy:
    mode: PayloadMode = PayloadMode.FULL
    limit: int = 0  # bytes kept by TRUNCATE

    def __str__(self) -> str:
        return f"truncate:{self.limit}" if self.mode is PayloadMode.TRUNCATE else self.mode.value


def parse_dlq_policy(text: str) -> DlqPayloadPolicy:
    """``full`` | ``truncate:N`` (N ≥ 0 bytes) | ``redact``; a ValueError names what is wrong."""
    name, _, arg = text.strip().partition(":")
    try:
        mode = PayloadMode(name.lower())
    except ValueError:
        raise ValueError(f"dlq_payload must be full, truncate:N or redact, not {text!r}") from None
    if mode is PayloadMode.TRUNCATE:
        if not arg.isdigit():
            raise ValueError(f"dlq_payload truncate needs a byte count, as in truncate:4096, not {text!r}")
        return DlqPayloadPolicy(mode, int(arg))
    if arg:
        raise ValueError(f"dlq_payload {mode.value} takes no argument: {text!r}")
    return DlqPayloadPolicy(mode)


def _redacted(value: Any) -> str:
    size = len(value) if isinstance(value, str) else len(json.dumps(value, ensure_ascii=False, default=str))
    return f"<redacted {size} chars>"


def _redact(value: Any, depth: int = 0) -> Any:
    if depth > _MAX_REDACT_DEPTH:
        return "<redacted: too deep>"
    if isinstance(value, dict):
        return {
            key: _redacted(item) if key in _CONTENT_KEYS and item is not None else _redact(item, depth + 1)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_redact(item, depth + 1) for item in value]
    return value


def dlq_payload(raw: bytes | None, policy: DlqPayloadPolicy) -> bytes:
    """The payload a DLQ record carries for ``raw`` under ``policy`` (pure; never raises)."""
    data = raw or b""
    if policy.mode is PayloadMode.FULL:
        return data
    if policy.mode is PayloadMode.TRUNCATE:
        return data[: policy.limit]
    try:
        event = json.loads(data)
    except (ValueError, RecursionError):  # not JSON, too deep or an over-long integer: keep nothing
        return b""
    if not isinstance(event, dict):
        return b""
    return json.dumps(_redact(event), ensure_ascii=False).encode("utf-8")
