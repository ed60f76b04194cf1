"""One conversation, scored online: turns in, final verdicts out (never revised once emitted)."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, cast, runtime_checkable

from monitor.models.dialog import Payload, Reply, ToolCall, ToolSpec
from monitor.models.verdict import DialogResult, TurnVerdict
from monitor.models.vocabulary import Attribution, ChainBucket, FailureReason, Mode
from monitor.scoring.align import OnlineAligner, match_as_set, order_invariant_tag
from monitor.scoring.attribute import LOOKBACK, attribute, chain_bucket, restated, restating
from monitor.scoring.bounds import WorkLimits
from monitor.scoring.checks import TurnChecker, ValueEquality
from monitor.scoring.compose import compose
from monitor.scoring.config import ScoringConfig
from monitor.scoring.packed import PackedTurn, pack_turn, unpack_turns, with_gold
from monitor.scoring.sources import JudgeHistory, SourceIndex
from monitor.scoring.tape import CheckKind, CheckTape, TapeEntry
from monitor.scoring.trajectory import EXTRAS_ALLOWED, TrajectoryMode, match_trajectory
from monitor.scoring.types import (
    COMPLETENESS,
    STRUCTURAL,
    TOO_LARGE,
    UNKNOWN_REFERENCE,
    CheckResult,
    DialogMeta,
    ObservedTurn,
    PendingCheck,
    ReferenceTurn,
    ScoredTurn,
)
from monitor.scoring.verdicts import to_verdict


class ReferenceFreeChecker(Protocol):
    """Judge-only checks (no reference): catalog structure, grounding, optional LLM judge."""

    def check(self, turn: ObservedTurn, history: Sequence[ObservedTurn], tools: Sequence[ToolSpec]) -> CheckResult: ...


@runtime_checkable
class DeferringChecker(Protocol):
    """A reference-free checker that can start a slow check in the background instead of waiting for it."""

    def defers(self, turn: ObservedTurn) -> bool:
        """Whether `check` of this turn may be slow (an LLM judge call): the stream then uses `start`."""

    def start(
        self, turn: ObservedTurn, history: Sequence[ObservedTurn], tools: Sequence[ToolSpec]
    ) -> PendingCheck | None:
        """The check of `turn` started in the background, or None when `check` is quick for it."""


@runtime_checkable
class BoundedPool(Protocol):
    """A checker whose background calls run on a bounded worker pool: its back-pressure signal."""

    @property
    def saturated(self) -> bool:
        """Every worker is taken: a new call would be refused (callers hold the turn instead)."""

    @property
    def turn_budget_s(self) -> float | None:
        """How long a turn may wait for its call, waiting for a worker included (None: no pool)."""


@dataclass(frozen=True, slots=True)
class ChainClosure:
    """Action turns whose chain bucket became known: their turn numbers, outcomes and the bucket."""

    turns: tuple[int | None, ...]
    outcomes: tuple[bool | None, ...]
    bucket: ChainBucket


@dataclass
class DialogSession:
    """Scores one conversation turn by turn.

    Verdicts are released in turn order once final: turns of an order-invariant group with inline
    gold wait until the group ends, since they are matched as a set. An action turn's chain bucket
    needs the future (does the chain reach three turns?): in batch mode its verdict waits until the
    bucket is known; with `early=True` (the stream) it is released at once without the bucket, and
    the bucket follows as a `ChainClosure` (`take_chains`) once the chain reaches three or ends.
    """

    meta: DialogMeta
    checker: TurnChecker
    config: ScoringConfig
    judge: ReferenceFreeChecker | None = None
    reference: Sequence[ReferenceTurn] | None = None
    tools: Sequence[ToolSpec] = ()
    catalog: Sequence[ToolSpec] = ()  # the configured catalog (`--tools`): read_only of actions `tools` lacks
    # a reference_id the reference set does not hold: turns without inline gold are unscored, never judged
    unknown_reference: str | None = None
    history: list[PackedTurn] = field(default_factory=list)  # what the agent said and saw, packed (packed.py)
    scored: list[ScoredTurn] = field(default_factory=list)
    released: int = 0  # verdicts released: `scored[:released]` (released in the order they were scored)
    # the last failed action turns: a passing reply that restates one's wrong value fails (attribute.restated)
    _failed_actions: deque[ScoredTurn] = field(default_factory=lambda: deque(maxlen=LOOKBACK))
    _pending: list[ScoredTurn] = field(default_factory=list)
    _chain: list[ScoredTurn] = field(default_factory=list)
    _group: list[PackedTurn] = field(default_factory=list)
    _trajectory: list[PackedTurn] = field(default_factory=list)  # non-strict modes: matched when the dialog ends
    _aligner: OnlineAligner | None = None
    used_reference: bool = False
    used_judge: bool = False
    finished: bool = False
    early: bool = False
    _announced: int = 0  # members of the current chain whose bucket was announced
    _closures: list[ChainClosure] = field(default_factory=list)
    # the stream records the checks it obtains (a restore plays them back: tape.py); None: not recorded
    tape: CheckTape | None = None
    work: WorkLimits = field(default_factory=WorkLimits)  # bounds a judge-only turn's grounding (bounds.py)
    _sources: SourceIndex = field(default_factory=SourceIndex)  # what grounds a judge-only turn, read once

    def __post_init__(self) -> None:
        if self.reference is not None:
            self._aligner = OnlineAligner(
                self.reference, lookahead=self.config.alignment_lookahead, excused=self._side_effect_free
            )

    # -- input ---------------------------------------------------------------------------------

    def add(self, turn: ObservedTurn) -> list[TurnVerdict]:
        """Take the next turn; return the verdicts that became final."""
        if self.finished:
            raise RuntimeError(f"dialog {self.meta.dialog_id} is finished")
        if turn.tools:
            self.tools = turn.tools
        # a turn too large to score is not matched as part of a set either
        group_tag = order_invariant_tag(turn.tags) if turn.gold is not None and turn.too_large is None else None
        if self._group and group_tag != order_invariant_tag(self._group[0].tags):
            self._flush_group()
        # History is what the agent said and saw (reference-free checks ground on it); a scored turn's gold is
        # not needed again, and an open conversation should not hold it (a group member keeps it in _group).
        entry = pack_turn(turn, gold=False)
        if not turn.scored:
            self._close_chain()
        elif group_tag is not None:
            self._group.append(with_gold(entry, turn.gold))
        elif self._whole_trajectory(turn):
            self._trajectory.append(entry)
        else:
            self._score(turn)
        self.history.append(entry)
        return self._release()

    def observed_history(self) -> list[ObservedTurn]:
        """The turns so far as the judge reads them (unpacked for the call: the session keeps them packed)."""
        return unpack_turns(self.history)

    def judge_history(self) -> JudgeHistory:
        """The turns so far for the reference-free judge: unpacked when read, their sources indexed once."""
        return JudgeHistory(self.history, self._sources, self.work)

    def needs_judge(self, turn: ObservedTurn) -> bool:
        """`add(turn)` would go to a judge that can run its check in the background (`start_judge`)."""
        if turn.gold is not None or self._aligner is not None or turn.too_large is not None:
            return False
        if self.unknown_reference is not None:
            return False  # a reference decides it (the cheap tests first: this runs for every turn)
        judge = _deferring(self.judge)
        return judge is not None and turn.scored and turn.predict is not None and judge.defers(turn)

    def start_judge(self, turn: ObservedTurn) -> PendingCheck | None:
        """Start the reference-free check `add(turn)` would wait for, when the judge can run it in the
        background (None: it is quick, `add` runs it); `add` then takes the turn with `judged` set to
        the pending check's result."""
        if not self.needs_judge(turn) or not isinstance(self.judge, DeferringChecker):
            return None
        return self.judge.start(turn, self.judge_history(), turn.tools or self.tools)

    def finish(self) -> tuple[list[TurnVerdict], DialogResult]:
        """End the conversation: flush what waits, emit missing gold steps, compose the result."""
        if not self.finished:
            self._flush_group()
            self._match_trajectory()
            if self._aligner is not None:
                for gold in self._aligner.remaining():
                    self._record_missing(gold)
            self._close_chain()
            self.finished = True
        verdicts = self._release()
        mode = Mode.JUDGE if self.used_judge and not self.used_reference else Mode.REFERENCE
        return verdicts, compose(self.meta, mode, self.scored[: self.released], self.config.composition)

    def take_chains(self) -> list[ChainClosure]:
        """Chain buckets that became known since the last call (early mode only)."""
        out, self._closures = self._closures, []
        return out

    # -- scoring -------------------------------------------------------------------------------

    def _whole_trajectory(self, turn: ObservedTurn) -> bool:
        """The turn is matched with the whole trajectory when the dialog ends (a non-strict mode)."""
        return (
            self._aligner is not None
            and self.config.trajectory != TrajectoryMode.STRICT
            and turn.gold is None
            and turn.too_large is None
            and turn.predict is not None
        )

    def _match_trajectory(self) -> None:
        packed, self._trajectory = self._trajectory, []
        if not packed or self._aligner is None:
            return
        turns = unpack_turns(packed)
        steps = self._aligner.remaining()  # nothing was aligned online: every reference step
        preds = [t.predict for t in turns if t.predict is not None]
        found = match_trajectory(TrajectoryMode(self.config.trajectory), [s.gold for s in steps], preds, self._check)
        for turn, position in zip(turns, found.assignment, strict=True):
            self._score(turn, step=steps[position] if position is not None else None, placed=True)
        for position in found.missing:
            self._record_missing(steps[position])

    def _score(
        self, turn: ObservedTurn, gold: Payload | None = None, step: ReferenceTurn | None = None, placed: bool = False
    ) -> None:
        """Score a turn: against `gold`, or (`placed`) the reference `step` the trajectory matcher gave it
        (None: an extra step), or through the online aligner or the judge."""
        assert turn.predict is not None
        gold = gold if gold is not None else turn.gold
        gold_index: int | None = None
        mode = Mode.REFERENCE
        reference: Payload | None = None  # what the turn was checked against
        if turn.too_large is not None:  # bounded work: left unscored, never a stall
            check = CheckResult(success=None, failure_reason=TOO_LARGE, detail=turn.too_large)
        elif gold is not None:
            self.used_reference, reference = True, gold
            check = self._check(gold, turn.predict, turn.decided if gold is turn.gold else None)
        elif placed:
            self.used_reference = True
            if step is None:
                check = self._extra_step(turn.predict)
            else:
                gold_index, reference = step.index, step.gold
                check = self._check(step.gold, turn.predict)
        elif self._aligner is not None:
            self.used_reference = True
            decision = self._aligner.align(turn.predict, self._check)
            for missing in decision.skipped:
                self._record_missing(missing)
            if decision.gold is None:
                check = self._unexpected(turn.predict)
            else:
                gold_index, reference = decision.gold.index, decision.gold.gold
                check = self._check(decision.gold.gold, turn.predict)
        elif self.unknown_reference is not None:  # it names a reference: judging it instead would be a silent pass
            self.used_reference = True
            detail = f"reference_id {self.unknown_reference!r} is not in the loaded reference set (--reference)"
            check = CheckResult(success=None, failure_reason=UNKNOWN_REFERENCE, detail=detail)
        elif self.judge is not None:
            self.used_judge, mode = True, Mode.JUDGE
            check = self._judge(turn, self.judge)
        else:
            self.used_judge, mode = True, Mode.JUDGE
            check = CheckResult.unscored("no reference and no reference-free checker configured")
        if check.success and isinstance(reference, Reply) and isinstance(turn.predict, Reply):
            # a reply that passed against gold but states the wrong value of an earlier failed turn where gold
            # does not ("Profit was 1.2 million euros." after FilterData(metric="profit") for "revenue")
            found = restated(reference.response, turn.predict.response, self._failed_actions)
            check = restating(check, found) if found else check
        scored = ScoredTurn(
            turn_no=turn.turn_no,
            turn=turn.turn,
            check=check,
            # only a failed turn's output is read again (attribution); an open conversation need not hold the rest
            predict=turn.predict if check.success is False else None,
            tool_id=turn.predict.tool_id if isinstance(turn.predict, ToolCall) else None,
            action=turn.predict.action if isinstance(turn.predict, ToolCall) else None,
            depends_on=turn.depends_on,
            tags=turn.tags,
            gold_index=gold_index,
            mode=mode,
        )
        failed = check.success is False
        same = self.checker.same_value if failed and isinstance(self.checker, ValueEquality) else None
        scored.attribution, scored.caused_by = attribute(scored, self.scored, same)
        self.scored.append(scored)
        if failed and scored.action is not None and scored.turn_no is not None:
            self._failed_actions.append(scored)
        self._pending.append(scored)
        if turn.is_action:
            self._chain.append(scored)
            if len(self._chain) >= 3:  # the bucket is known: the members not yet told (a long chain costs no rescan)
                for member in self._chain[self._announced :] if len(self._chain) > 3 else self._chain:
                    member.chain_length = ChainBucket.THREE_PLUS
                self._announce()
        else:
            self._close_chain()

    def _check(self, gold: Payload, pred: Payload, decided: CheckResult | None = None) -> CheckResult:
        """The check of `pred` against `gold`: `decided` beforehand (a batch), or asked now."""

        def ask() -> CheckResult:
            return decided if decided is not None else self.checker.check(gold, pred)

        return ask() if self.tape is None else self.tape.obtain(CheckKind.CHECK, ask)

    def _judge(self, turn: ObservedTurn, judge: ReferenceFreeChecker) -> CheckResult:
        """The reference-free check: obtained beforehand (`turn.judged`, a background call), or asked now."""

        def ask() -> CheckResult:
            return turn.judged if turn.judged is not None else judge.check(turn, self.judge_history(), self.tools)

        return ask() if self.tape is None else self.tape.obtain(CheckKind.JUDGE, ask)

    def take_checks(self) -> list[TapeEntry]:
        """The checks obtained since the last call, in order (empty when the session does not record them)."""
        return self.tape.take() if self.tape is not None else []

    def _side_effect_free(self, call: ToolCall) -> bool:
        """Extra calls of it are no failure: listed in `side_effect_free` (the tool, or `tool.action`), or
        declared `read_only` in the tool catalog (the conversation's own entry over the configured one)."""
        if self.config.is_side_effect_free(call.tool_id, call.action):
            return True
        declared = {(s.tool_id, s.action): s.read_only for s in (*self.catalog, *self.tools)}
        return declared.get((call.tool_id, call.action), False)

    def _extra_step(self, pred: Payload) -> CheckResult:
        if self.config.trajectory in EXTRAS_ALLOWED:
            return CheckResult(
                success=True, score=1.0, detail=f"extra step, allowed by trajectory {self.config.trajectory}"
            )
        return self._unexpected(pred)

    def _unexpected(self, pred: Payload) -> CheckResult:
        if isinstance(pred, ToolCall) and self._side_effect_free(pred):
            return CheckResult(success=True, score=1.0, detail="extra call to a side-effect-free action")
        return CheckResult.failed(
            FailureReason.UNEXPECTED_TURN, STRUCTURAL, detail="no reference step matches this turn"
        )

    def _record_missing(self, gold: ReferenceTurn) -> None:
        scored = ScoredTurn(
            turn_no=None,
            turn=gold.turn,
            check=CheckResult.failed(FailureReason.MISSING_TURN, COMPLETENESS, detail="reference step not taken"),
            gold_index=gold.index,
            attribution=Attribution.ROOT_CAUSE,
            action=gold.gold.action if isinstance(gold.gold, ToolCall) else None,
        )
        self.scored.append(scored)
        self._pending.append(scored)

    def _flush_group(self) -> None:
        packed, self._group = self._group, []
        if not packed:
            return
        group = unpack_turns(packed)
        golds = [t.gold for t in group if t.gold is not None]
        preds = [t.predict for t in group if t.predict is not None]
        assignment = match_as_set(golds, preds, self._check)
        for turn, gold_pos in zip(group, assignment, strict=False):
            self._score(turn, gold=golds[gold_pos])

    def _close_chain(self) -> None:
        if self._chain:
            bucket = chain_bucket(len(self._chain))
            for member in self._chain:
                member.chain_length = bucket
            self._announce()
            self._chain = []
            self._announced = 0

    def _announce(self) -> None:
        """Early mode: the members of the current chain whose bucket is now known and not yet told."""
        fresh = self._chain[self._announced :]
        self._announced = len(self._chain)
        if self.early and fresh and fresh[0].chain_length is not None:
            self._closures.append(
                ChainClosure(
                    turns=tuple(m.turn_no for m in fresh),
                    outcomes=tuple(m.check.success for m in fresh),
                    bucket=fresh[0].chain_length,
                )
            )

    def _release(self) -> list[TurnVerdict]:
        out: list[TurnVerdict] = []
        while self._pending:
            head = self._pending[0]
            if head.turn == "Tool" and head.turn_no is not None and head.chain_length is None and not self.early:
                break
            self._pending.pop(0)
            self.released += 1
            out.append(to_verdict(head, chain=not self.early))  # early: a chain message tells the bucket
        return out


_DEFERRING: dict[type, bool] = {}  # judge class -> implements DeferringChecker


def _deferring(judge: object) -> DeferringChecker | None:
    """``judge`` if it is a :class:`DeferringChecker`, decided once per judge class (a runtime Protocol
    check walks the protocol's attributes on every call)."""
    if judge is None:
        return None
    kind = type(judge)
    known = _DEFERRING.get(kind)
    if known is None:
        known = _DEFERRING[kind] = isinstance(judge, DeferringChecker)
    return cast(DeferringChecker, judge) if known else None
