"""Sessionize and score: trace events in, verdicts and dialog summaries out. No Kafka here.

Per conversation it keeps the scoring session, the next expected `turn_no`, turns held while a gap
fills, the turn numbers already seen (redeliveries are duplicates) and which source positions still
wait for a verdict — so the runner commits an offset only once everything before it is recorded.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from monitor.models.verdict import DialogResult, TurnVerdict
from monitor.models.vocabulary import TurnType
from monitor.scoring import ObservedTurn, ReferenceTurn, ScoringEngine
from monitor.scoring.session import DialogSession
from monitor.stream.events import TraceEvent, parse_event_json

log = structlog.get_logger(__name__)

SourceRef = Hashable
STATE_VERSION = 1


def snapshot(conv: Conversation) -> dict[str, Any]:
    """What a fresh process needs to carry on with a conversation: its events and what was emitted."""
    return {
        "v": STATE_VERSION,
        "status": "open",
        "agent": conv.agent,
        "release": conv.release,
        "log": list(conv.log),
        "held": [event.model_dump_json(exclude_none=True) for event, _ in conv.held.values()],
        "emitted": conv.emitted,
    }


@dataclass(frozen=True)
class ProcessorLimits:
    max_open: int = 100_000  # open conversations held in memory; beyond it the oldest idle finish early
    idle_timeout_s: float = 300.0  # a conversation with no event for this long is finished
    gap_timeout_s: float = 10.0  # how long out-of-order turns wait for the gap to fill
    max_held: int = 256  # out-of-order turns held per conversation
    finished_memory: int = 200_000  # finished conversations remembered to recognise redeliveries


@dataclass
class Emission:
    """One record for the verdict topic (a turn verdict or a dialog summary) and its bookkeeping."""

    kind: str  # "turn" | "dialog"
    conversation_id: str
    agent: str
    release: str
    mode: str
    verdict: TurnVerdict | None = None
    result: DialogResult | None = None
    event_time: float | None = None
    refs: list[SourceRef] = field(default_factory=list)

    def to_wire(self) -> dict[str, Any]:
        head = {
            "kind": self.kind,
            "conversation_id": self.conversation_id,
            "agent": self.agent,
            "release": self.release,
            "mode": self.mode,
        }
        if self.verdict is not None:
            body = self.verdict.model_dump(mode="json", exclude={"mode"})
        else:
            assert self.result is not None
            body = self.result.model_dump(mode="json", exclude={"dialog_id", "agent", "release", "mode"})
        return {**head, **body}


@dataclass(frozen=True)
class Failure:
    """An event whose processing raised: it goes to the DLQ with the reason, its position is done."""

    event: TraceEvent
    ref: SourceRef
    reason: str


@dataclass
class Outcome:
    """What processing one event (or a timer tick) produced."""

    emissions: list[Emission] = field(default_factory=list)
    done: list[SourceRef] = field(default_factory=list)  # positions that need no verdict of their own
    event_outcome: str | None = None  # "duplicate" / "late" when the event itself was not scored
    evicted: int = 0
    failed: list[Failure] = field(default_factory=list)

    def extend(self, other: Outcome) -> None:
        self.emissions += other.emissions
        self.done += other.done
        self.evicted += other.evicted
        self.failed += other.failed


def _reason(exc: BaseException) -> str:
    return f"processing failed: {type(exc).__name__}: {str(exc)[:300]}"


@dataclass
class Conversation:
    conversation_id: str
    agent: str
    release: str
    session: DialogSession
    next_turn: int | None = None
    held: dict[int, tuple[TraceEvent, SourceRef]] = field(default_factory=dict)
    gap_since: float | None = None
    seen: set[int] = field(default_factory=set)
    waiting: dict[int, tuple[SourceRef, float]] = field(default_factory=dict)  # turn_no -> (ref, event time)
    last_activity: float = 0.0
    final_seen: bool = False
    log: list[str] = field(default_factory=list)  # applied events as JSON, for checkpoints
    emitted: int = 0  # turn verdicts released so far


def to_observed(event: TraceEvent) -> ObservedTurn:
    return ObservedTurn(
        turn_no=event.turn_no,
        turn=TurnType(event.turn),
        predict=event.predict_turn,
        gold=event.gold_turn if event.turn != "User" else None,
        tags=tuple(event.tags),
        depends_on=tuple(event.depends_on),
        tools=tuple(event.tools) if event.tools else None,
    )


class TurnProcessor:
    """The sessionize → align → score → attribute → compose stages for a stream of events."""

    def __init__(
        self,
        engine: ScoringEngine,
        references: Mapping[str, Sequence[ReferenceTurn]] | None = None,
        limits: ProcessorLimits = ProcessorLimits(),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = engine
        self.references = dict(references or {})
        self.limits = limits
        self.clock = clock
        self.open: OrderedDict[str, Conversation] = OrderedDict()  # least recently active first
        self.finished: OrderedDict[str, set[int]] = OrderedDict()
        self.dirty: set[str] = set()  # conversations changed since the last checkpoint

    # -- events --------------------------------------------------------------------------------

    def process(self, event: TraceEvent, ref: SourceRef) -> Outcome:
        """Take one event; never raises: an event whose processing fails comes back in `failed`."""
        try:
            return self._process(event, ref)
        except Exception as exc:
            log.error("event processing failed", conversation=event.conversation_id, error=repr(exc)[:300])
            conv = self.open.get(event.conversation_id)
            if conv is not None:  # its position must not wait for a verdict that will never come
                conv.waiting.pop(event.turn_no, None)
                conv.held.pop(event.turn_no, None)
            return Outcome(failed=[Failure(event, ref, _reason(exc))])

    def _process(self, event: TraceEvent, ref: SourceRef) -> Outcome:
        now = self.clock()
        out = Outcome()
        cid = event.conversation_id
        if cid in self.finished:
            seen = self.finished[cid]
            out.event_outcome = "duplicate" if event.turn_no in seen else "late"
            out.done.append(ref)
            return out
        conv = self.open.get(cid)
        if conv is None:
            out.extend(self._make_room())
            conv = self._open(event, now)
        else:
            self.open.move_to_end(cid)
        conv.last_activity = now
        self.dirty.add(cid)
        if event.turn_no in conv.seen or event.turn_no in conv.held:
            out.event_outcome = "duplicate"
            out.done.append(ref)
            return out
        if conv.next_turn is not None and event.turn_no < conv.next_turn:
            out.event_outcome = "late"  # its gap was given up on; the conversation moved past it
            out.done.append(ref)
            return out
        if conv.next_turn is None and event.turn_no <= 1:
            conv.next_turn = event.turn_no
        if conv.next_turn is None or event.turn_no > conv.next_turn:
            conv.held[event.turn_no] = (event, ref)
            conv.gap_since = conv.gap_since or now
            if len(conv.held) > self.limits.max_held:
                out.extend(self._skip_gap(conv))
            return out
        out.extend(self._apply(conv, event, ref))
        out.extend(self._drain(conv))
        return out

    def tick(self) -> Outcome:
        """Timers: give up on old gaps, finish idle conversations."""
        now = self.clock()
        out = Outcome()
        for conv in list(self.open.values()):
            if conv.held and conv.gap_since is not None and now - conv.gap_since >= self.limits.gap_timeout_s:
                out.extend(self._skip_gap(conv))
        while self.open:
            oldest = next(iter(self.open.values()))
            if now - oldest.last_activity < self.limits.idle_timeout_s:
                break
            out.extend(self._finish(oldest, reason="idle"))
        return out

    def drop(self, conversation_ids: Sequence[str]) -> None:
        """Forget conversations whose partition moved to another consumer (it restores them)."""
        for cid in conversation_ids:
            self.open.pop(cid, None)
            self.finished.pop(cid, None)
            self.dirty.discard(cid)

    # -- checkpoints ---------------------------------------------------------------------------

    def checkpoint(self) -> list[tuple[str, dict[str, Any]]]:
        """State records of the conversations changed since the last call (then forgets them)."""
        out: list[tuple[str, dict[str, Any]]] = []
        for cid in sorted(self.dirty):
            conv = self.open.get(cid)
            if conv is not None:
                out.append((cid, snapshot(conv)))
            elif cid in self.finished:
                out.append((cid, {"v": STATE_VERSION, "status": "finished", "seen": sorted(self.finished[cid])}))
        self.dirty.clear()
        return out

    def restore(self, cid: str, record: dict[str, Any]) -> Outcome:
        """Rebuild a conversation from its checkpoint by replaying its events.

        Scoring is deterministic, so replay reproduces the verdicts already emitted (suppressed
        here) and the attribution state later turns need: a cascade stays a cascade.
        """
        out = Outcome()
        if cid in self.open:  # already live here: its in-memory state is newer than any checkpoint
            return out
        if record.get("status") == "finished":
            self.finished[cid] = set(record.get("seen", []))
            return out
        applied = [parse_event_json(e) for e in record.get("log", [])]
        held = [parse_event_json(e) for e in record.get("held", [])]
        if not applied and not held:
            return out
        conv = self._open((applied or held)[0], self.clock())
        replayed = Outcome()
        for event in applied:
            replayed.extend(self._apply(conv, event, None))
        already = int(record.get("emitted", 0))
        turns = [e for e in replayed.emissions if e.kind == "turn"]
        out.emissions += turns[already:]  # produced by replay but never emitted before the stop
        for event in held:
            conv.held[event.turn_no] = (event, None)
        conv.gap_since = self.clock() if conv.held else None
        conv.emitted = max(conv.emitted, already)
        out.extend(self._drain(conv))
        return out

    # -- internals -----------------------------------------------------------------------------

    def _open(self, event: TraceEvent, now: float) -> Conversation:
        reference = None
        if event.reference_id is not None:
            reference = self.references.get(event.reference_id)
            if reference is None:
                log.warning("unknown reference_id", reference_id=event.reference_id, conversation=event.conversation_id)
        session = self.engine.session(
            event.conversation_id, event.release, event.agent, reference=reference, tools=event.tools
        )
        conv = Conversation(event.conversation_id, event.agent, event.release, session, last_activity=now)
        self.open[event.conversation_id] = conv
        return conv

    def _make_room(self) -> Outcome:
        out = Outcome()
        while len(self.open) >= self.limits.max_open:
            oldest = next(iter(self.open.values()))
            out.extend(self._finish(oldest, reason="evicted"))
            out.evicted += 1
        return out

    def _apply(self, conv: Conversation, event: TraceEvent, ref: SourceRef) -> Outcome:
        conv.log.append(event.model_dump_json(exclude_none=True))
        conv.seen.add(event.turn_no)
        conv.next_turn = event.turn_no + 1
        if event.turn == "User":
            out = Outcome(done=[ref] if ref is not None else [])
        else:
            conv.waiting[event.turn_no] = (ref, event.epoch_seconds)
            out = Outcome()
        try:
            verdicts = conv.session.add(to_observed(event))
        except Exception as exc:  # the turn is skipped; the conversation carries on
            log.error(
                "turn scoring failed", conversation=conv.conversation_id, turn_no=event.turn_no, error=repr(exc)[:300]
            )
            conv.waiting.pop(event.turn_no, None)
            out.failed.append(Failure(event, ref, _reason(exc)))
            return out
        out.emissions += [self._turn_emission(conv, v) for v in verdicts]
        if event.final:
            conv.final_seen = True
        return out

    def _drain(self, conv: Conversation) -> Outcome:
        out = Outcome()
        while conv.next_turn in conv.held:
            event, ref = conv.held.pop(conv.next_turn)
            out.extend(self._apply(conv, event, ref))
        if not conv.held:
            conv.gap_since = None
        if conv.final_seen and not conv.held:
            out.extend(self._finish(conv, reason="final"))
        return out

    def _skip_gap(self, conv: Conversation) -> Outcome:
        """Stop waiting for missing turns: resume at the lowest held turn."""
        out = Outcome()
        if conv.held and conv.conversation_id in self.open:
            conv.next_turn = min(conv.held)
            log.info("gap given up", conversation=conv.conversation_id, resume_at=conv.next_turn)
            out.extend(self._drain(conv))
        conv.gap_since = self.clock() if conv.held else None
        return out

    def _finish(self, conv: Conversation, reason: str) -> Outcome:
        try:
            verdicts, result = conv.session.finish()
        except Exception as exc:  # release its positions all the same: a stuck offset stalls the partition
            log.error("conversation finish failed", conversation=conv.conversation_id, error=repr(exc)[:300])
            verdicts, result = [], None
        out = Outcome(emissions=[self._turn_emission(conv, v) for v in verdicts])
        out.done += [ref for ref, _ in conv.waiting.values() if ref is not None]
        out.done += [ref for _, ref in conv.held.values() if ref is not None]
        conv.waiting.clear()
        conv.held.clear()
        if result is not None:
            out.emissions.append(
                Emission("dialog", conv.conversation_id, conv.agent, conv.release, result.mode, result=result)
            )
        self.open.pop(conv.conversation_id, None)
        self.finished[conv.conversation_id] = conv.seen
        self.dirty.add(conv.conversation_id)
        while len(self.finished) > self.limits.finished_memory:
            self.finished.popitem(last=False)
        log.debug("conversation finished", conversation=conv.conversation_id, reason=reason)
        return out

    def _turn_emission(self, conv: Conversation, verdict: TurnVerdict) -> Emission:
        conv.emitted += 1
        ref_time = conv.waiting.pop(verdict.turn_no, None) if verdict.turn_no is not None else None
        return Emission(
            "turn",
            conv.conversation_id,
            conv.agent,
            conv.release,
            verdict.mode or "reference",
            verdict=verdict,
            event_time=ref_time[1] if ref_time else None,
            refs=[ref_time[0]] if ref_time and ref_time[0] is not None else [],
        )
