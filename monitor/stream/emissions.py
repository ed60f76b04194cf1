"""What the processor hands on: verdict-topic emissions, events that failed, and the outcome of one step."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import to_json

from monitor.models.verdict import DialogResult, TurnVerdict
from monitor.scoring.session import ChainClosure
from monitor.stream.events import TraceEvent
from monitor.stream.verdict_json import head_json

SourceRef = Hashable  # a source position (partition, offset) or whatever the input counts by
_VERDICT_JSON = TurnVerdict.__pydantic_serializer__
_DIALOG_JSON = DialogResult.__pydantic_serializer__
_NOT_IN_TURN_BODY = {"mode"}  # the head carries these (never mutated)
_NOT_IN_DIALOG_BODY = {"dialog_id", "agent", "release", "mode"}


@dataclass(slots=True)
class Emission:
    """One record for the verdict topic and its bookkeeping (docs/verdict-messages.md).

    `turn`: a turn verdict, sent as soon as the turn is scored (an action turn's `chain_length` is
    null here); `chain`: the chain bucket of action turns, once the chain reaches three or ends;
    `dialog`: the summary when the conversation ends.
    """

    kind: str  # "turn" | "chain" | "dialog"
    conversation_id: str
    agent: str
    release: str
    mode: str
    verdict: TurnVerdict | None = None
    result: DialogResult | None = None
    chain: ChainClosure | None = None
    event_time: float | None = None  # broker timestamp of the turn's event (seconds)
    refs: list[SourceRef] = field(default_factory=list)

    def head(self) -> dict[str, str]:
        """What every verdict record starts with: its kind, conversation, agent, release and mode."""
        return {
            "kind": self.kind,
            "conversation_id": self.conversation_id,
            "agent": self.agent,
            "release": self.release,
            "mode": self.mode,
        }

    def to_wire(self) -> dict[str, Any]:
        if self.verdict is not None:
            body = self.verdict.model_dump(mode="json", exclude={"mode"})
        elif self.chain is not None:
            body = {"turns": list(self.chain.turns), "chain_length": self.chain.bucket}
        else:
            assert self.result is not None
            body = self.result.model_dump(mode="json", exclude={"dialog_id", "agent", "release", "mode"})
        return {**self.head(), **body}

    def encode(self) -> bytes:
        """`to_wire` as JSON bytes: the head written directly (verdict_json.py), the body serialised by
        pydantic-core without a detour through str, joined."""
        head = head_json(self.kind, self.conversation_id, self.agent, self.release, self.mode)
        if head is None:
            head = to_json(self.head())[:-1]
        if self.verdict is not None:
            body = _VERDICT_JSON.to_json(self.verdict, exclude=_NOT_IN_TURN_BODY)[1:]
        elif self.chain is not None:
            body = to_json({"turns": list(self.chain.turns), "chain_length": self.chain.bucket})[1:]
        else:
            assert self.result is not None
            body = _DIALOG_JSON.to_json(self.result, exclude=_NOT_IN_DIALOG_BODY)[1:]
        return head + b"," + body


@dataclass(frozen=True)
class Failure:
    """An event whose processing raised: it goes to the DLQ with the reason, its position is done."""

    event: TraceEvent
    ref: SourceRef
    reason: str
    raw: bytes | None = None  # the bytes it was decoded from, when known (the DLQ keeps them as they came)


@dataclass(slots=True)
class Outcome:
    """What processing one event (or a timer tick) produced."""

    emissions: list[Emission] = field(default_factory=list)
    done: list[SourceRef] = field(default_factory=list)  # positions that need no verdict of their own
    event_outcome: str | None = None  # "duplicate" / "late" when the event itself was not scored
    evicted: int = 0
    failed: list[Failure] = field(default_factory=list)
    too_large: list[str] = field(default_factory=list)  # the limit each unscored-too-large turn passed

    def extend(self, other: Outcome) -> None:
        self.emissions += other.emissions
        self.done += other.done
        self.evicted += other.evicted
        self.failed += other.failed
        self.too_large += other.too_large

    def positions(self) -> list[SourceRef]:
        """Every source position this outcome completes."""
        return [r for e in self.emissions for r in e.refs] + self.done + [f.ref for f in self.failed]
