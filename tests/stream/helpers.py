"""Builders for trace events in stream tests."""

from __future__ import annotations

from typing import Any

from monitor.models.dialog import Dialog
from monitor.stream.events import TraceEvent, parse_event
from monitor.stream.replay import dialog_events


def events_of(dialog: Dialog | dict[str, Any], conversation_id: str | None = None) -> list[TraceEvent]:
    d = dialog if isinstance(dialog, Dialog) else Dialog.model_validate(dialog)
    return [parse_event(e) for e in dialog_events(d, conversation_id=conversation_id)]


class FakeClock:
    """A monotonic clock the test moves by hand (timers without sleeping)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
