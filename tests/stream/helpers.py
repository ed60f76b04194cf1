"""Builders for trace events in stream tests."""

from __future__ import annotations

from typing import Any

from monitor.models.dialog import Dialog
from monitor.models.trace_event import TraceEvent, parse_event
from monitor.models.verdict import TurnVerdict
from monitor.stream.emissions import Emission
from monitor.tools.replay import dialog_events


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


def join_chains(emissions: list[Emission]) -> list[TurnVerdict]:
    """Turn verdicts with the chain bucket their chain message names (what `aem score` reports)."""
    buckets = {n: e.chain.bucket for e in emissions if e.chain is not None for n in e.chain.turns}
    return [
        e.verdict.model_copy(update={"chain_length": buckets.get(e.verdict.turn_no)})
        if e.verdict.turn == "Tool" and e.verdict.turn_no is not None
        else e.verdict
        for e in emissions
        if e.verdict is not None
    ]
