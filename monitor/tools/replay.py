"""`aem replay`: publish dialog files (the `aem score` shapes) as trace events, keyed by conversation."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from monitor.models.dialog import Dialog
from monitor.models.trace_event import encode_event
from monitor.sources.otlp import Encoding
from monitor.sources.otlp.emit import dialog_records


def _payload(value: Any) -> Any:
    return value.model_dump(mode="json", exclude_none=True) if value is not None else None


def dialog_events(
    dialog: Dialog, conversation_id: str | None = None, release: str | None = None
) -> Iterator[dict[str, Any]]:
    """The trace events of one dialog, in turn order; the last one is `final`.

    Aligned dialogs carry their gold inline; unaligned ones point at the reference set by
    `reference_id` (= dialog_id); judge-only ones carry neither, plus the dialog's `tools`.
    """
    cid = conversation_id or dialog.dialog_id
    base: dict[str, Any] = {
        "schema_version": 1,
        "conversation_id": cid,
        "agent": dialog.agent,
        "release": release or dialog.release or "unknown",
    }
    if dialog.unaligned:
        turns: list[dict[str, Any]] = [
            {
                "turn_no": t.turn_no,
                "turn": t.turn,
                "predict_turn": _payload(t.predict_turn),
                "depends_on": t.depends_on,
                "tags": t.tags,
                "reference_id": dialog.dialog_id,
            }
            for t in sorted(dialog.predict_turns or [], key=lambda t: t.turn_no)
        ]
    else:
        turns = []
        for t in sorted(dialog.turns or [], key=lambda t: t.turn_no):
            predict = t.predict_turn if t.predict_turn is not None else t.gold_turn
            event: dict[str, Any] = {
                "turn_no": t.turn_no,
                "turn": t.turn,
                "predict_turn": _payload(predict),
                "depends_on": t.depends_on,
                "tags": t.tags,
            }
            if t.turn != "User" and t.gold_turn is not None:
                event["gold_turn"] = _payload(t.gold_turn)
            turns.append(event)
    for i, turn in enumerate(turns):
        event = {**base, **turn, "timestamp": datetime.now(UTC).isoformat()}
        if i == 0 and dialog.tools:
            event["tools"] = [tool.model_dump(mode="json", exclude_none=True) for tool in dialog.tools]
        if i == len(turns) - 1:
            event["final"] = True
        yield {k: v for k, v in event.items() if v not in ([], None)}


class RateLimiter:
    """Paces a loop to `rate` iterations per second (None or 0: unpaced)."""

    def __init__(self, rate: float | None) -> None:
        self.interval = 1.0 / rate if rate else 0.0
        self.next = time.monotonic()

    def wait(self) -> None:
        if not self.interval:
            return
        self.next += self.interval
        delay = self.next - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        elif delay < -1.0:
            self.next = time.monotonic()  # fell behind: do not burst to catch up


def publish(
    producer: Any,
    topic: str,
    events: Iterable[dict[str, Any] | bytes],
    rate: float | None = None,
) -> int:
    """Send events (dicts, or raw bytes for hostile input) keyed by conversation id; returns the count."""
    limiter = RateLimiter(rate)
    sent = 0
    for event in events:
        limiter.wait()
        if isinstance(event, bytes):
            producer.send(topic, key=b"raw", value=event)
        else:
            key = str(event.get("conversation_id", "")).encode("utf-8")
            producer.send(topic, key=key, value=encode_event(event))
        sent += 1
    producer.flush(timeout=60)
    return sent


def publish_otlp(
    producer: Any,
    topic: str,
    dialogs: Iterable[tuple[Any, str]],
    encoding: str,
    release: str | None = None,
    rate: float | None = None,
) -> int:
    """`aem replay --format otlp_*`: each (dialog, conversation id) as one trace; returns the batches sent."""
    limiter = RateLimiter(rate)
    sent = 0
    for record in dialog_records(dialogs, Encoding(encoding), release):
        limiter.wait()
        producer.send(topic, key=record.key, value=record.value)
        sent += 1
    producer.flush(timeout=60)
    return sent
