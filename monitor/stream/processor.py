"""Sessionize and score: trace events in, verdicts and dialog summaries out. No Kafka here.

Per conversation (`conversation.py`) it keeps the scoring session, the next expected `turn_no`, turns held
while a gap fills and the turns already seen (redeliveries are duplicates). It knows no source position:
every event it takes is on the changelog (`checkpoint`, records in `changelog.py`) before its offset is
committed, and `restore` replays a conversation's events through a fresh session that answers from the
recorded checks, so it continues from the verdicts that were sent without asking any model again.
"""

from __future__ import annotations

import heapq
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC
from typing import Any

import structlog

from monitor.models.dialog import Payload, Reply, ToolCall
from monitor.models.trace_event import TraceEvent, parse_event_json
from monitor.models.verdict import TurnVerdict
from monitor.scoring import ObservedTurn, ReferenceTurn, ScoringEngine
from monitor.scoring.bounds import Oversize, WorkLimits, work_oversize
from monitor.scoring.session import BoundedPool
from monitor.scoring.tape import CheckTape, dump_entries, load_entries
from monitor.scoring.types import CheckResult, PendingCheck
from monitor.sources.otlp import Resume
from monitor.stream.changelog import (
    STATE_VERSION,
    FinishedHead,
    OpenHead,
    StateRecord,
    checks_key,
    checks_record,
    dump_checks,
    dump_head,
    event_key,
    event_with_checks,
    parse_head,
    split_records,
)
from monitor.stream.conversation import Conversation, Judging, to_observed
from monitor.stream.emissions import Emission, Failure, Outcome, RestoreRefused, failure_reason
from monitor.stream.turn_set import TurnSet

log = structlog.get_logger(__name__)

GAP_LOG_INTERVAL_S = 10.0  # at most one `gap_given_up` line this often (it counts the gaps given up since)


@dataclass(frozen=True)
class ProcessorLimits:
    max_open: int = 100_000  # open conversations held in memory; beyond it the oldest idle finish early
    idle_timeout_s: float = 300.0  # a conversation with no event for this long is finished
    gap_timeout_s: float = 10.0  # how long out-of-order turns wait for the gap to fill
    max_held: int = 256  # out-of-order turns held per conversation
    finished_memory: int = 200_000  # finished conversations remembered to recognise redeliveries
    max_open_bytes: int = 1 << 30  # event bytes held by open conversations; beyond it the oldest finish early
    # One conversation past either of these finishes as too_large (its later turns too) instead of crowding
    # out the others (max_open_bytes bounds it too).
    max_dialog_bytes: int = 32 << 20
    max_dialog_turns: int = 10_000
    work: WorkLimits = field(default_factory=WorkLimits)  # per-event bounds on scoring work (scoring/bounds.py)


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
        self.finished: OrderedDict[str, TurnSet] = OrderedDict()
        self.dirty: set[str] = set()  # conversations changed since the last checkpoint
        # finished since the last checkpoint: their saved turns, and those with a checks record of their own
        self.gone: dict[str, tuple[TurnSet, TurnSet]] = {}
        self._gaps: list[tuple[float, str]] = []  # heap of (gap deadline, conversation)
        self.changelog = True  # keep received events for `checkpoint` (off when there is no state store)
        self.open_bytes = 0  # sum of `Conversation.size` over open conversations
        self.judging: set[str] = set()  # conversations waiting for a judge call
        self._gap_logged_at = float("-inf")  # when `gap_given_up` was last logged (clock seconds)
        self._gaps_unlogged = 0  # gaps given up on since
        # finished early: past a per-conversation cap (the limit), or not restorable (None); while remembered,
        # their later events are unscored
        self.capped: dict[str, str | None] = {}
        # the poll's decisions by (conversation, turn_no), with the pair decided: used only for that very pair
        self.decided: dict[tuple[str, int], tuple[Payload, Payload, CheckResult]] = {}

    # -- events --------------------------------------------------------------------------------

    def process(self, event: TraceEvent, received: float | None = None, raw: bytes | None = None) -> Outcome:
        """Take one event; never raises: a failure comes back in `failed`. Latency counts from `received` (events.py;
        its `event_time` when not given); `raw`, the bytes it was decoded from, is what the changelog keeps."""
        try:
            out = self._process(event, event.event_time if received is None else received, raw)
        except Exception as exc:
            log.error("event_processing_failed", conversation=event.conversation_id, error=repr(exc)[:300])
            conv = self.open.get(event.conversation_id)
            if conv is not None:  # no verdict will come for it
                conv.received.pop(event.turn_no, None)
                conv.held.pop(event.turn_no, None)
            return Outcome(failed=[Failure(event, failure_reason("processing", exc), raw)])
        if out.event_outcome is None and event.turn == "User":
            out.event_outcome = "scored"  # no verdict will count it: a user turn has none
        return out

    def _process(self, event: TraceEvent, received: float, raw: bytes | None) -> Outcome:
        now = self.clock()
        out = Outcome()
        cid = event.conversation_id
        if cid in self.finished:
            seen = self.finished[cid]
            if event.turn_no in seen:
                out.event_outcome = "duplicate"
            elif cid in self.capped:  # a later turn of a conversation finished early
                out.event_outcome = "unscored"
                limit = self.capped[cid]
                out.too_large += [limit] if limit is not None else []
            else:
                out.event_outcome = "late"
            return out
        conv = self.open.get(cid)
        if conv is None:
            self._evict(out)
            conv = self._open(event, now)
        else:
            self.open.move_to_end(cid)
        conv.last_activity = now
        self.dirty.add(cid)
        if event.turn_no in conv.seen or event.turn_no in conv.held:
            out.event_outcome = "duplicate"
            return out
        if conv.next_turn is not None and event.turn_no < conv.next_turn:
            out.event_outcome = "late"  # its gap was given up on; the conversation moved past it
            return out
        size = len(raw) if raw is not None else len(event.model_dump_json(exclude_none=True))
        if self._capped(conv, event, size, out):
            return out
        if self.changelog:
            conv.unsaved.append((event, raw))
        conv.size += size
        conv.turns += 1
        self.open_bytes += size
        if self.open_bytes > self.limits.max_open_bytes:
            self._evict(out, keep=cid)
        if conv.next_turn is None and event.turn_no <= 1:
            conv.next_turn = event.turn_no
        if event.turn != "User":  # the latency of its verdict counts from here
            conv.received[event.turn_no] = received
        if conv.next_turn is None or event.turn_no > conv.next_turn or conv.blocked:
            conv.held[event.turn_no] = event
            if conv.gap_since is None and not conv.blocked:
                self._start_gap(conv, now)
            if len(conv.held) > self.limits.max_held:
                self._skip_gap(conv, out)
            return out
        self._apply(conv, event, out, size)
        self._drain(conv, out)
        return out

    def decide(self, events: Sequence[tuple[TraceEvent, bytes | None]]) -> None:
        """Decide a poll's inline (gold, predicted) pairs in one batch, before its events are processed (never
        one too large to score: `raw`, its bytes when known, spares the walk); each turn then carries its
        decision (`ObservedTurn.decided`); a turn held past the poll is decided alone. Never raises."""
        pairs: list[tuple[Payload, Payload]] = []
        decided: list[tuple[str, int]] = []
        work = self.limits.work
        for event, raw in events:
            gold, size = event.gold_turn, len(raw) if raw else None
            try:
                if isinstance(gold, ToolCall | Reply) and work_oversize(event.predict_turn, gold, work, size) is None:
                    pairs.append((gold, event.predict_turn))
                    decided.append((event.conversation_id, event.turn_no))
            except Exception as exc:  # its scoring meets the same problem, guarded
                log.warning("batch_pair_skipped", conversation=event.conversation_id, error=repr(exc)[:300])
        results = self.engine.decide(pairs)
        self.decided = {
            key: (*pair, check) for key, pair, check in zip(decided, pairs, results, strict=True) if check is not None
        }

    def tick(self) -> Outcome:
        """Timers: give up on gaps that are due, finish idle conversations. Touches only what is due."""
        now = self.clock()
        out = Outcome()
        for cid in list(self.judging):
            conv = self.open.get(cid)
            if conv is None or conv.judging is None:
                self.judging.discard(cid)
                continue
            judging, failed = conv.judging, False
            if judging.pending is None and not self.judge_saturated():
                judging.pending = self._start_judge(conv, judging.turn)
                failed = judging.pending is None  # it could not be started: scored here, waiting for the judge
            if failed or judging.due():  # then the turns held behind it; a real gap among them starts its timer
                self._judged(conv, out, now=failed)
                self._drain(conv, out)
                if conv.held and conv.gap_since is None and not conv.blocked and cid in self.open:
                    self._start_gap(conv, now)
        while self._gaps and self._gaps[0][0] <= now:
            deadline, cid = heapq.heappop(self._gaps)
            conv = self.open.get(cid)
            if conv is None or conv.gap_since is None or conv.gap_since + self.limits.gap_timeout_s != deadline:
                continue  # stale: the gap filled, or restarted with a later deadline of its own
            self._skip_gap(conv, out)
        while self.open:
            oldest = next(iter(self.open.values()))
            if now - oldest.last_activity < self.limits.idle_timeout_s:
                break
            self._finish(oldest, "idle", out)
        return out

    def drop(self, conversation_ids: Sequence[str]) -> None:
        """Forget conversations whose partition moved to another consumer (it restores them)."""
        for cid in conversation_ids:
            self._close(cid)
            self.finished.pop(cid, None)
            self.capped.pop(cid, None)
            self.dirty.discard(cid)
            self.gone.pop(cid, None)

    def resume_point(self, cid: str) -> Resume | None:
        """Where a conversation is, for an OTLP assembler that does not know it (restored after a restart):
        spans up to its last applied turn are redeliveries, new ones are numbered after it."""
        seen = self.finished.get(cid)
        if seen is not None:
            return Resume(max(seen, default=0) + 1, None, finished=True)
        conv = self.open.get(cid)
        if conv is None or conv.next_turn is None or conv.last_timestamp is None:
            return None
        last = conv.last_timestamp
        last = last if last.tzinfo else last.replace(tzinfo=UTC)
        return Resume(conv.next_turn, int(last.timestamp() * 1_000_000) * 1000)

    # -- checkpoints ---------------------------------------------------------------------------

    def checkpoint(self) -> list[StateRecord]:
        """Changelog records of the conversations changed since the last call: an open one's events received since
        (each once) and its head; a finished one's tombstones and `finished` head."""
        out: list[StateRecord] = []
        for cid in sorted(self.dirty):
            conv = self.open.get(cid)
            if conv is not None:
                out += self._save_turns(conv)
                out.append(StateRecord(cid, cid, dump_head(conv.head())))
            elif cid in self.finished:
                seen = sorted(self.finished[cid])
                head = {"v": STATE_VERSION, "cid": cid, "status": "finished", "seen": seen, "at": time.time()}
                events, checks = self.gone.pop(cid, ((), ()))
                out += [StateRecord(cid, event_key(cid, n), None) for n in sorted(events)]
                out += [StateRecord(cid, checks_key(cid, n), None) for n in sorted(checks)]
                out.append(StateRecord(cid, cid, dump_head(head)))
        self.dirty.clear()
        return out

    def _save_turns(self, conv: Conversation) -> list[StateRecord]:
        """The events received since the last checkpoint (with their checks, when already scored), then the
        checks of turns whose event was saved before they were scored."""
        cid, out = conv.conversation_id, []
        for event, raw in conv.unsaved:
            value = raw if raw is not None else event.model_dump_json(exclude_none=True).encode("utf-8")
            checks = conv.checks.pop(event.turn_no, None)
            dumped = dump_checks(dump_entries(checks)) if checks is not None else None
            if dumped is not None:
                value = event_with_checks(value, event.turn_no, dumped)
            out.append(StateRecord(cid, event_key(cid, event.turn_no), value))
            conv.saved.add(event.turn_no)
        conv.unsaved = []
        for turn_no, checks in sorted(conv.checks.items()):
            dumped = dump_checks(dump_entries(checks))
            if dumped is not None:
                out.append(StateRecord(cid, checks_key(cid, turn_no), checks_record(cid, turn_no, dumped)))
                conv.checks_saved.add(turn_no)
        conv.checks = {}
        return out

    def restore(self, cid: str, head: dict[str, Any], events: Sequence[bytes] = ()) -> Outcome:
        """Rebuild a conversation from its changelog by replaying its events, answered from each turn's recorded
        checks (tape.py; a turn without them is scored again): the verdicts already emitted are suppressed, and
        later turns find the attribution state they need (a cascade stays a cascade).

        Raises ValueError when the records are not what this monitor writes (a head out of bounds, an event
        that does not validate, more verdicts sent than its events give): the caller closes the conversation
        (`close_unrestored`) instead of continuing it with a hole.
        """
        out = Outcome()
        if cid in self.open:  # already live here: its in-memory state is newer than any checkpoint
            return out
        parsed_head = parse_head(head)
        if isinstance(parsed_head, FinishedHead):
            self.finished[cid] = TurnSet(parsed_head.seen)
            return out
        size = sum(len(e) for e in events)
        if size > self._dialog_bytes() or len(events) > self.limits.max_dialog_turns:
            raise ValueError(f"{len(events)} records of {size} bytes: past the per-conversation cap")
        event_records, recorded, own_records = split_records(events)
        parsed = sorted((parse_event_json(e) for e in event_records), key=lambda e: e.turn_no)
        if any(e.conversation_id != cid for e in parsed):
            raise ValueError("an event of another conversation")
        if not parsed:
            return out
        self._evict(out)
        try:
            return self._replay(cid, parsed_head, parsed, size, recorded, own_records, out)
        except Exception as exc:  # the neighbours finished to make room are already in `out`: not lost
            raise RestoreRefused(str(exc), out) from exc

    def _replay(
        self, cid: str, parsed_head: OpenHead, parsed: list[TraceEvent], size: int, recorded: dict[int, Any],
        own_records: set[int], out: Outcome,
    ) -> Outcome:
        """``restore`` once there is room: the conversation opened and its applied events replayed."""
        next_turn = parsed_head.next_turn
        applied = [e for e in parsed if next_turn is not None and e.turn_no < next_turn]
        held = [e for e in parsed if next_turn is None or e.turn_no >= next_turn]
        conv = self._open(parsed[0], self.clock())
        conv.saved = TurnSet(e.turn_no for e in parsed)
        conv.size = size
        conv.turns = len(parsed)
        self.open_bytes += conv.size
        conv.checks_saved = TurnSet(own_records)  # tombstoned with the events when the conversation ends
        replayed = Outcome()
        for event in applied:  # in order; a turn without recorded checks waits for its judge here
            n = event.turn_no
            if n in recorded and conv.session.tape is not None:
                try:
                    conv.session.tape.play(load_entries(recorded[n]))
                except (ValueError, TypeError) as exc:  # the turn is scored again
                    log.warning("restore_checks_unreadable", conversation=cid, turn_no=n, error=repr(exc)[:200])
            self._apply(conv, event, replayed, replay=True)
        conv.checks = {n: c for n, c in conv.checks.items() if n not in recorded}  # the rest are saved next
        already, chains_already = parsed_head.emitted, parsed_head.chains_emitted
        turns = [e for e in replayed.emissions if e.kind == "turn"]
        chains = [e for e in replayed.emissions if e.kind == "chain"]
        if already > len(turns) or chains_already > len(chains):
            self._close(cid)
            raise ValueError(
                f"the head says {already} verdicts and {chains_already} chains were sent, "
                f"its events give {len(turns)} and {len(chains)}"
            )
        out.emissions += turns[already:]  # produced by replay but never emitted before the stop
        out.emissions += chains[chains_already:]
        for event in held:
            conv.held[event.turn_no] = event
        if conv.held:
            self._start_gap(conv, self.clock())
        if conv.next_turn is None and held:
            conv.next_turn = parsed_head.next_turn
        conv.emitted = max(conv.emitted, already)
        conv.chains_emitted = max(conv.chains_emitted, chains_already)
        self._drain(conv, out)
        return out

    def close_unrestored(self, cid: str, turns: Sequence[int]) -> None:
        """A conversation whose changelog records could not be trusted: closed, remembered as finished with the turns
        its keys name (later events unscored), its records tombstoned at the next checkpoint."""
        self._close(cid)
        self.finished[cid] = TurnSet(turns)
        self.capped[cid] = None
        self.gone[cid] = (TurnSet(turns), TurnSet(turns))
        self.dirty.add(cid)

    def _dialog_bytes(self) -> int:
        """The most event bytes one conversation may hold."""
        return min(self.limits.max_dialog_bytes, self.limits.max_open_bytes)

    # -- internals -----------------------------------------------------------------------------

    def _open(self, event: TraceEvent, now: float) -> Conversation:
        reference, unknown = None, None
        if event.reference_id is not None:
            reference = self.references.get(event.reference_id)
            if reference is None:  # its turns are unscored (unknown_reference), never judged instead
                unknown = event.reference_id
                log.warning("unknown_reference_id", reference_id=unknown, conversation=event.conversation_id)
        agent, release = sys.intern(event.agent), sys.intern(event.release)  # one copy for all their conversations
        session = self.engine.session(
            event.conversation_id,
            release,
            agent,
            reference=reference,
            tools=event.tools,
            early=True,
            unknown_reference=unknown,
            work=self.limits.work,
        )
        if self.changelog:  # what scoring obtains is saved with the turn, so a restore need not ask again
            session.tape = CheckTape(conversation=event.conversation_id)
        conv = Conversation(event.conversation_id, agent, release, session, last_activity=now)
        self.open[event.conversation_id] = conv
        return conv

    def _close(self, cid: str) -> None:
        """No longer open here (finished, moved, or not restorable)."""
        conv = self.open.pop(cid, None)
        if conv is not None:
            self.open_bytes -= conv.size

    def _evict(self, out: Outcome, keep: str | None = None) -> None:
        """Finish the least recently active conversations: before one opens (`keep` None), while `max_open` are
        open; else, while open ones hold more than `max_open_bytes` (never `keep`, the one that grew)."""
        most, most_bytes = self.limits.max_open, self.limits.max_open_bytes
        while self.open and (len(self.open) >= most if keep is None else self.open_bytes > most_bytes):
            oldest = next(iter(self.open.values()))
            if oldest.conversation_id == keep:
                break
            self._finish(oldest, "evicted" if keep is None else "evicted_bytes", out)
            out.evicted += 1

    def _start_gap(self, conv: Conversation, now: float) -> None:
        conv.gap_since = now
        heapq.heappush(self._gaps, (now + self.limits.gap_timeout_s, conv.conversation_id))

    def _capped(self, conv: Conversation, event: TraceEvent, size: int, out: Outcome) -> bool:
        """Finish a conversation this event takes past a per-conversation cap (else False): the event is unscored
        `too_large` (a verdict of its own when it is the next turn), what it held is scored, its later events
        count as too_large; its neighbours keep their place."""
        most, most_turns, would_hold = self._dialog_bytes(), self.limits.max_dialog_turns, conv.size + size
        if would_hold > most:
            capped = Oversize("dialog_bytes", f"the conversation would hold {would_hold} event bytes, over {most}")
        elif conv.turns >= most_turns:
            capped = Oversize("dialog_turns", f"the conversation has more than {most_turns} turns")
        else:
            return False
        cid = conv.conversation_id
        log.warning("conversation_too_large", conversation=cid, turn_no=event.turn_no, limit=capped.limit)
        out.too_large.append(capped.limit)
        own_verdict = event.turn != "User" and event.turn_no == conv.next_turn and not conv.blocked
        if own_verdict:
            conv.seen.add(event.turn_no)
            conv.next_turn = event.turn_no + 1
            self._add(conv, event, to_observed(event, capped.detail), out)
        else:
            out.event_outcome = "unscored"
        self._finish(conv, "too_large", out, unscored=0 if own_verdict else 1)
        self.capped[cid] = capped.limit
        return True

    def _apply(
        self, conv: Conversation, event: TraceEvent, out: Outcome, size: int | None = None, replay: bool = False
    ) -> None:
        """Score one in-order event into `out`; `size` (its JSON bytes, when known) spares the work-limit walk;
        `replay` (a restore replaying its changelog in order): a judged turn waits for its judge here, and a
        failure is not dead-lettered again."""
        conv.last_timestamp = event.timestamp
        conv.seen.add(event.turn_no)
        conv.next_turn = event.turn_no + 1
        too_large = work_oversize(event.predict_turn, event.gold_turn, self.limits.work, size)
        if too_large is not None:
            out.too_large.append(too_large.limit)
            log.warning("turn_too_large_to_score", conversation=conv.conversation_id, turn_no=event.turn_no)
        entry = self.decided.pop((conv.conversation_id, event.turn_no), None)
        same = entry is not None and entry[0] == event.gold_turn and entry[1] == event.predict_turn
        turn = to_observed(event, too_large.detail if too_large else None, entry[2] if same and entry else None)
        if not replay and conv.session.needs_judge(turn):
            # `tick` completes it; later turns are held
            full = self.judge_saturated()
            pending = None if full else self._start_judge(conv, turn)
            if full or pending is not None:  # a turn without a worker of the judge's pool waits this long for one
                judge = self.engine.judge
                budget = judge.turn_budget_s if isinstance(judge, BoundedPool) else None
                wait = float(budget) if budget is not None else self.limits.gap_timeout_s
                conv.judging = Judging(event, turn, pending, time.monotonic() + wait)
                self.judging.add(conv.conversation_id)
                return
        self._add(conv, event, turn, out, replay)

    def judge_saturated(self) -> bool:
        """The judge's worker pool is full: judged turns wait for a slot (their conversations only)."""
        judge = self.engine.judge
        return isinstance(judge, BoundedPool) and judge.saturated

    def _start_judge(self, conv: Conversation, turn: ObservedTurn) -> PendingCheck | None:
        try:
            return conv.session.start_judge(turn)
        except Exception as exc:  # the turn is then scored synchronously, where a failure is handled
            log.error("judge_start_failed", conversation=conv.conversation_id, error=repr(exc)[:300])
            return None

    def _judged(self, conv: Conversation, out: Outcome, now: bool = False) -> None:
        """Complete the turn whose judge call is done or past its budget (then unscored); `now`: score it
        here, the judge called in the loop."""
        judging, conv.judging = conv.judging, None
        self.judging.discard(conv.conversation_id)
        assert judging is not None
        self.dirty.add(conv.conversation_id)
        turn = judging.turn
        if not now and judging.pending is not None:
            turn = replace(turn, judged=judging.pending.result())
        elif not now:  # never got a slot of the judge's pool
            busy = "LLM judge unavailable: judge busy (no free slot before the turn had to end)"
            turn = replace(turn, judged=CheckResult.unscored(busy))
        self._add(conv, judging.event, turn, out)

    def _add(
        self, conv: Conversation, event: TraceEvent, turn: ObservedTurn, out: Outcome, replay: bool = False
    ) -> None:
        """Add a turn to its session; the verdicts and chains it releases go into `out`."""
        try:
            verdicts = conv.session.add(turn)
            checks = conv.session.take_checks()
            if checks:
                conv.checks[event.turn_no] = checks
        except Exception as exc:  # the turn is skipped; the conversation carries on
            conv.session.take_checks()
            log.error(
                "turn_scoring_failed", conversation=conv.conversation_id, turn_no=event.turn_no, error=repr(exc)[:300]
            )
            conv.received.pop(event.turn_no, None)
            if not replay and event.turn != "User":
                out.failed.append(Failure(event, failure_reason("processing", exc)))
            return
        self._released(conv, verdicts, out)
        if event.final:
            conv.final_seen = True

    def _drain(self, conv: Conversation, out: Outcome) -> None:
        """Apply the held turns that are next in order, into `out`."""
        while conv.next_turn in conv.held and not conv.blocked:
            self._apply(conv, conv.held.pop(conv.next_turn), out)
        if not conv.held:
            conv.gap_since = None
        if conv.final_seen and not conv.held and not conv.blocked:
            self._finish(conv, "final", out)

    def _skip_gap(self, conv: Conversation, out: Outcome) -> None:
        """Stop waiting for missing turns: resume at the lowest held turn."""
        if conv.held and conv.conversation_id in self.open:
            conv.next_turn = min(conv.held)
            self.dirty.add(conv.conversation_id)
            self._gaps_unlogged += 1  # one line at most per GAP_LOG_INTERVAL_S: not one per event of a gappy stream
            now = self.clock()
            if now - self._gap_logged_at >= GAP_LOG_INTERVAL_S:
                cid, given_up = conv.conversation_id, self._gaps_unlogged
                log.info("gap_given_up", conversation=cid, resume_at=conv.next_turn, given_up=given_up)
                self._gap_logged_at, self._gaps_unlogged = now, 0
            self._drain(conv, out)
        if conv.held and conv.conversation_id in self.open:
            self._start_gap(conv, self.clock())

    def _finish(self, conv: Conversation, reason: str, out: Outcome, unscored: int = 0) -> None:
        """End a conversation: its verdicts and summary into `out`. Cut off past a cap (`reason` "too_large"), what
        came after was not checked, so the summary is no pass (`test_pass` null), `unscored` more turns counted."""
        if conv.judging is not None:
            self._judged(conv, out)  # unscored if still running
        try:
            verdicts, result = conv.session.finish()
        except Exception as exc:  # finished all the same: a conversation that cannot end would stay forever
            log.error("conversation_finish_failed", conversation=conv.conversation_id, error=repr(exc)[:300])
            verdicts, result = [], None
        if result is not None and reason == "too_large":
            result = result.model_copy(update={"test_pass": None, "unscored_count": result.unscored_count + unscored})
        self._released(conv, verdicts, out)
        conv.received.clear()
        conv.held.clear()
        if result is not None:
            out.emissions.append(
                Emission("dialog", conv.conversation_id, conv.agent, conv.release, result.mode, result=result)
            )
        self._close(conv.conversation_id)
        self.finished[conv.conversation_id] = conv.seen
        self.gone[conv.conversation_id] = (conv.saved, conv.checks_saved)
        self.dirty.add(conv.conversation_id)
        while len(self.finished) > self.limits.finished_memory:
            forgotten, _ = self.finished.popitem(last=False)
            self.capped.pop(forgotten, None)
        if reason.startswith("evicted"):  # not per finished conversation: a log call costs more than the rest
            log.debug("conversation_evicted", conversation=conv.conversation_id, reason=reason)

    def _released(self, conv: Conversation, verdicts: list[TurnVerdict], out: Outcome) -> None:
        """The turn verdicts a session released, then the chains they closed, into `out`."""
        cid, agent, release = conv.conversation_id, conv.agent, conv.release
        for verdict in verdicts:
            conv.emitted += 1
            conv.mode = verdict.mode or "reference"
            received = conv.received.pop(verdict.turn_no, None) if verdict.turn_no is not None else None
            out.emissions.append(Emission("turn", cid, agent, release, conv.mode, verdict, received=received))
        for closure in conv.session.take_chains():
            conv.chains_emitted += 1
            out.emissions.append(Emission("chain", cid, agent, release, conv.mode, chain=closure))
