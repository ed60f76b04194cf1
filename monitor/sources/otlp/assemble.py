"""Spans → numbered turns of conversations: hold a trace until it is complete, then order it.

Spans reach Kafka when they end, in batches that mix traces, so a trace's turns can arrive in any
order and over several batches. A trace is held until its root span arrives (the root ends last),
or, failing that, until no span of it arrived for `hold_s`; it is then released: its turns sorted by
time (span start; an agent span's own reply at its end), numbered after the turns its conversation
already has, and handed on as trace-event dicts. Dedup is by span id; a span that arrives after its
trace was released is appended when it comes after everything released, else counted as late.

Batch bookkeeping: `outstanding` counts, per batch (one Kafka record), its spans still held here; the
caller commits no batch that has some.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from monitor.sources.otlp.calls import reconcile
from monitor.sources.otlp.genai import MappedSpan, SpanTurn, TurnKind

Ref = Hashable  # where a batch came from (opaque here: the runner's partition and offset)
OrderKey = tuple[int, int, str, int]


@dataclass(frozen=True)
class AssemblyLimits:
    hold_s: float = 10.0  # how long a trace without its root waits for more spans
    max_held_traces: int = 10_000  # beyond it the oldest held trace is released early
    memory: int = 200_000  # traces and conversations remembered for dedup and numbering


@dataclass(frozen=True)
class Resume:
    """Where a conversation this assembler does not know already is (restored after a restart or rebalance)."""

    next_turn: int
    last_ns: int | None  # time of its last turn: spans up to it were scored before (redeliveries)
    finished: bool = False


ResumeLookup = Callable[[str], Resume | None]


@dataclass(frozen=True)
class ReadyEvent:
    event: dict[str, Any]  # a trace event in the native wire shape (validated by the caller)
    ref: Ref  # the batch the turn's span came in


@dataclass
class Assembled:
    events: list[ReadyEvent] = field(default_factory=list)
    spans: Counter[str] = field(default_factory=Counter)  # span outcomes: mapped/skipped/duplicate/late
    skipped: Counter[str] = field(default_factory=Counter)  # skipped spans by reason (genai.Skip)

    def extend(self, other: Assembled) -> None:
        self.events += other.events
        self.spans.update(other.spans)
        self.skipped.update(other.skipped)


@dataclass
class _Trace:
    """A trace's spans not released yet, and what its spans said about the conversation."""

    trace_id: str
    last_seen: float
    held: dict[str, tuple[MappedSpan, Ref]] = field(default_factory=dict)
    root_seen: bool = False
    conversation_id: str | None = None
    agent: str | None = None
    agent_from_agent_span: bool = False
    service: str | None = None
    release: str | None = None
    reference_id: str | None = None
    final: bool = False

    def note(self, mapped: MappedSpan) -> None:
        span = mapped.span
        self.root_seen = self.root_seen or span.is_root
        self.conversation_id = self.conversation_id or mapped.conversation_id
        if mapped.agent and (self.agent is None or (mapped.from_agent_span and not self.agent_from_agent_span)):
            self.agent, self.agent_from_agent_span = mapped.agent, mapped.from_agent_span
        service = span.resource.get("service.name")
        self.service = self.service or (str(service) if service else None)
        self.release = self.release or mapped.release
        self.reference_id = self.reference_id or mapped.reference_id
        self.final = self.final or mapped.final


@dataclass
class _Conversation:
    agent: str
    release: str
    reference_id: str | None
    next_turn: int = 1
    last_order: OrderKey | None = None
    finished: bool = False
    source: Ref = None


@dataclass
class _Memory:
    """A released trace: its conversation, its span ids (dedup) and whether its root came."""

    conversation_id: str | None  # None: the trace is the conversation
    span_ids: set[str]
    root_seen: bool


def _iso(ns: int) -> str:
    return datetime.fromtimestamp(ns / 1e9, tz=UTC).isoformat()


class SpanAssembler:
    """Per consumer: held traces, remembered traces and per-conversation turn numbering."""

    def __init__(self, limits: AssemblyLimits = AssemblyLimits(), resume: ResumeLookup | None = None) -> None:
        self.limits = limits
        self.resume = resume
        self.held: OrderedDict[str, _Trace] = OrderedDict()  # least recently touched first
        self.memory: OrderedDict[str, _Memory] = OrderedDict()
        self.conversations: OrderedDict[str, _Conversation] = OrderedDict()
        self.outstanding: dict[Ref, int] = {}  # batch -> its spans still held

    # -- input ---------------------------------------------------------------------------------

    def add(self, spans: Iterable[MappedSpan], ref: Ref, now: float) -> Assembled:
        """Take one decoded batch; returns what became ready (this batch's and earlier ones')."""
        out = Assembled()
        touched: set[str] = set()
        for mapped in spans:
            span = mapped.span
            trace = self.held.get(span.trace_id)
            past = self.memory.get(span.trace_id)
            held_here = trace is not None and span.span_id in trace.held
            if held_here or (past is not None and span.span_id in past.span_ids):
                out.spans["duplicate"] += 1
                continue
            if trace is None:
                trace = self.held[span.trace_id] = _Trace(span.trace_id, now)
                if past is not None:
                    trace.conversation_id, trace.root_seen = past.conversation_id, past.root_seen
            self.held.move_to_end(span.trace_id)
            trace.last_seen = now
            trace.note(mapped)
            touched.add(span.trace_id)
            if mapped.turns:
                trace.held[span.span_id] = (mapped, ref)
                self.outstanding[ref] = self.outstanding.get(ref, 0) + 1
                out.spans["mapped"] += 1
            else:
                self._remember(trace, span.span_id)
                out.spans["skipped"] += 1
                out.skipped[str(mapped.skipped or "no_turn")] += 1
        for trace_id in touched:
            trace = self.held[trace_id]
            if trace.root_seen:
                out.extend(self._release(trace))
        while len(self.held) > self.limits.max_held_traces:
            out.extend(self._release(next(iter(self.held.values()))))
        return out

    def tick(self, now: float) -> Assembled:
        """Release traces that waited `hold_s` without their root."""
        out = Assembled()
        for trace in list(self.held.values()):
            if now - trace.last_seen >= self.limits.hold_s:
                out.extend(self._release(trace))
        return out

    def drop(self, lost: Callable[[Ref], bool]) -> None:
        """Forget what came from partitions this consumer lost (their new owner reads them again)."""
        for trace_id, trace in list(self.held.items()):
            if any(lost(ref) for _, ref in trace.held.values()):
                del self.held[trace_id]
        for cid, conv in list(self.conversations.items()):
            if conv.source is not None and lost(conv.source):
                del self.conversations[cid]
        self.outstanding = {ref: n for ref, n in self.outstanding.items() if not lost(ref)}

    # -- release -------------------------------------------------------------------------------

    def _remember(self, trace: _Trace, span_id: str) -> None:
        memory = self.memory.get(trace.trace_id)
        if memory is None:
            memory = self.memory[trace.trace_id] = _Memory(trace.conversation_id, set(), False)
        memory.conversation_id = memory.conversation_id or trace.conversation_id
        memory.span_ids.add(span_id)
        memory.root_seen = memory.root_seen or trace.root_seen
        self.memory.move_to_end(trace.trace_id)
        while len(self.memory) > self.limits.memory:
            self.memory.popitem(last=False)

    def _conversation(self, trace: _Trace, cid: str) -> _Conversation:
        conv = self.conversations.get(cid)
        if conv is None:
            conv = self.conversations[cid] = _Conversation(
                agent=trace.agent or trace.service or "default",
                release=trace.release or "unknown",
                reference_id=trace.reference_id,
            )
            known = self.resume(cid) if self.resume is not None else None
            if known is not None:
                conv.next_turn, conv.finished = known.next_turn, known.finished
                if known.last_ns is not None:  # event times keep microseconds: cover the whole microsecond
                    conv.last_order = (known.last_ns // 1000 * 1000 + 999, 2**63, "", 0)
            while len(self.conversations) > self.limits.memory:
                self.conversations.popitem(last=False)
        self.conversations.move_to_end(cid)
        return conv

    def _ordered(self, trace: _Trace) -> list[tuple[OrderKey, SpanTurn, MappedSpan, Ref]]:
        """The trace's turns in time order; an agent span's turn yields to an equal turn of another span,
        a requested tool call to the `execute_tool` span that ran it (calls.py)."""
        turns = [
            ((turn.order_ns, mapped.span.start_ns, mapped.span.span_id, i), turn, mapped, ref)
            for mapped, ref in trace.held.values()
            for i, turn in enumerate(mapped.turns)
        ]
        inner = {(t.kind, repr(t.payload)) for _, t, m, _ in turns if not m.from_agent_span}
        kept = [x for x in turns if not (x[2].from_agent_span and (x[1].kind, repr(x[1].payload)) in inner)]
        return reconcile(sorted(kept, key=lambda x: x[0]))

    def _release(self, trace: _Trace) -> Assembled:
        out = Assembled()
        del self.held[trace.trace_id]
        if not trace.held:  # only skipped spans (e.g. a non-GenAI trace): no conversation to track
            return out
        cid = trace.conversation_id or trace.trace_id
        conv = self._conversation(trace, cid)
        emitted: list[tuple[dict[str, Any], Ref]] = []
        late: set[str] = set()
        for key, turn, mapped, ref in self._ordered(trace):
            if conv.finished or (conv.last_order is not None and key < conv.last_order):
                late.add(mapped.span.span_id)
                continue
            emitted.append((self._event(conv, cid, turn, mapped), ref))
            conv.last_order, conv.source = key, ref
        out.spans["late"] += len(late)
        trace_scoped = trace.conversation_id is None
        if emitted and ((trace_scoped and trace.root_seen) or trace.final):
            emitted[-1][0]["final"] = True
            conv.finished = True
        self._settle(trace, emitted, out)
        return out

    def _settle(self, trace: _Trace, emitted: list[tuple[dict[str, Any], Ref]], out: Assembled) -> None:
        """The released spans are no longer held: their batches' counts go down (to none, then forgotten)."""
        for span_id, (_, ref) in trace.held.items():
            self._remember(trace, span_id)
            self.outstanding[ref] -= 1
            if self.outstanding[ref] == 0:
                del self.outstanding[ref]
        out.events += [ReadyEvent(event, ref) for event, ref in emitted]

    def _event(self, conv: _Conversation, cid: str, turn: SpanTurn, mapped: MappedSpan) -> dict[str, Any]:
        event: dict[str, Any] = {
            "schema_version": 1,
            "conversation_id": cid,
            "agent": conv.agent,
            "release": conv.release,
            "turn_no": conv.next_turn,
            "turn": str(turn.kind),
            "timestamp": _iso(turn.order_ns or mapped.span.start_ns),
            "predict_turn": turn.payload,
        }
        if conv.reference_id is not None:
            event["reference_id"] = conv.reference_id
        conv.next_turn += 1
        return event


__all__ = ["Assembled", "AssemblyLimits", "ReadyEvent", "Resume", "ResumeLookup", "SpanAssembler", "TurnKind"]
