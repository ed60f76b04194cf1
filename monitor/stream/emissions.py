"""What the processor hands on: verdict-topic emissions, events that failed, and the outcome of one step."""

from __future__ import annotations

from dataclasses import dataclass, field

from monitor.models.trace_event import TraceEvent
from monitor.models.verdict import DialogResult, TurnVerdict
from monitor.scoring.session import ChainClosure


@dataclass(slots=True)
class Emission:
    """One record for the verdict topic and its bookkeeping (docs/verdict-messages.md; verdict_records.py writes it):
    a turn verdict as soon as the turn is scored, a chain's bucket once it reaches three or ends, a dialog summary."""

    kind: str  # "turn" | "chain" | "dialog"
    conversation_id: str
    agent: str
    release: str
    mode: str
    verdict: TurnVerdict | None = None
    result: DialogResult | None = None
    chain: ChainClosure | None = None
    received: float | None = None  # when the turn's event was received (events.py)


@dataclass(frozen=True)
class Failure:
    """An event whose processing raised: it goes to the DLQ with the reason."""

    event: TraceEvent
    reason: str
    raw: bytes | None = None  # the bytes it was decoded from, when known (the DLQ keeps them as they came)


def failure_reason(stage: str, exc: BaseException) -> str:
    return f"{stage} failed: {type(exc).__name__}: {str(exc)[:300]}"


@dataclass(slots=True)
class Outcome:
    """What processing one event (or a timer tick) produced."""

    emissions: list[Emission] = field(default_factory=list)
    event_outcome: str | None = None  # the event's, when no verdict will count it: duplicate, late, a user turn
    evicted: int = 0
    failed: list[Failure] = field(default_factory=list)
    too_large: list[str] = field(default_factory=list)  # the limit each unscored-too-large turn passed

    def extend(self, other: Outcome) -> None:
        self.emissions += other.emissions
        self.evicted += other.evicted
        self.failed += other.failed
        self.too_large += other.too_large


class RestoreRefused(ValueError):
    """A conversation's changelog records that cannot be trusted, with what restoring it had already produced
    (the verdicts of the conversations finished to make room for it), which must still be sent."""

    def __init__(self, reason: str, outcome: Outcome) -> None:
        super().__init__(reason)
        self.outcome = outcome
