"""One open conversation's streaming state around its scoring session: turn order, held turns, when the
turns still without a verdict were received, what is on the changelog, and a turn off the loop while its
judge call runs."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from monitor.models.trace_event import TraceEvent
from monitor.models.vocabulary import TurnType
from monitor.scoring import ObservedTurn
from monitor.scoring.session import DialogSession
from monitor.scoring.tape import TapeEntry
from monitor.scoring.types import CheckResult, PendingCheck
from monitor.stream.changelog import STATE_VERSION
from monitor.stream.turn_set import TurnSet

_TURN_TYPES = {t.value: t for t in TurnType}  # a dict lookup, not an Enum call per event


@dataclass
class Judging:
    """A turn taken off the loop while its judge call runs (monitor/judge: `PendingCheck`)."""

    event: TraceEvent
    turn: ObservedTurn
    pending: PendingCheck | None  # None: not started yet, the judge's pool was full
    slot_deadline: float = float("inf")  # monotonic time by which a turn still without a worker gives up

    def due(self) -> bool:
        if self.pending is None:
            return time.monotonic() >= self.slot_deadline
        return self.pending.done() or time.monotonic() >= self.pending.deadline


@dataclass(slots=True)
class Conversation:
    conversation_id: str
    agent: str
    release: str
    session: DialogSession
    next_turn: int | None = None
    held: dict[int, TraceEvent] = field(default_factory=dict)  # out of order: waiting for the gap to fill
    gap_since: float | None = None
    seen: TurnSet = field(default_factory=TurnSet)
    received: dict[int, float] = field(default_factory=dict)  # turn_no -> received, until its verdict is out
    last_activity: float = 0.0
    final_seen: bool = False
    emitted: int = 0  # turn verdicts released so far
    chains_emitted: int = 0  # chain messages released so far
    mode: str = "reference"  # of the latest turn verdict
    unsaved: list[tuple[TraceEvent, bytes | None]] = field(default_factory=list)  # since the last checkpoint
    saved: TurnSet = field(default_factory=TurnSet)  # turn numbers on the state changelog
    checks: dict[int, list[TapeEntry]] = field(default_factory=dict)  # per turn scored since the last checkpoint
    checks_saved: TurnSet = field(default_factory=TurnSet)  # turns whose checks have a record of their own
    size: int = 0  # bytes of the events it holds (for `max_open_bytes`)
    turns: int = 0  # events it holds, applied or held (for `max_dialog_turns`)
    last_timestamp: datetime | None = None  # of the latest applied event (the OTLP input resumes after it)
    judging: Judging | None = None  # a turn whose judge call runs in the background; later turns wait

    @property
    def blocked(self) -> bool:
        """Later turns cannot be applied yet: the conversation waits for a judge call."""
        return self.judging is not None

    def head(self) -> dict[str, Any]:
        return {
            "v": STATE_VERSION,
            "cid": self.conversation_id,
            "status": "open",
            "agent": self.agent,
            "release": self.release,
            "next_turn": self.next_turn,
            "emitted": self.emitted,
            "chains_emitted": self.chains_emitted,
            "at": time.time(),
        }


def to_observed(event: TraceEvent, too_large: str | None = None, decided: CheckResult | None = None) -> ObservedTurn:
    return ObservedTurn(
        turn_no=event.turn_no,
        turn=_TURN_TYPES[event.turn],
        predict=event.predict_turn,
        gold=event.gold_turn if event.turn != "User" else None,
        tags=tuple(event.tags),
        depends_on=tuple(event.depends_on),
        tools=tuple(event.tools) if event.tools else None,
        too_large=too_large,
        decided=decided,
    )
