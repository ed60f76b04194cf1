"""Internal dataclasses that flow between the scoring stages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from monitor.models.dialog import Payload, ToolCall, ToolSpec
from monitor.models.vocabulary import Attribution, ChainBucket, FailureReason, Mode, SubMetric, TurnType

# Short aliases of the vocabulary members the scoring stages use most.
STRUCTURAL = SubMetric.STRUCTURAL
COMPLETENESS = SubMetric.COMPLETENESS
TRUTHFULNESS = SubMetric.TRUTHFULNESS

ROOT_CAUSE = Attribution.ROOT_CAUSE
CASCADING = Attribution.CASCADING
UNSCORED = FailureReason.UNSCORED
TOO_LARGE = FailureReason.TOO_LARGE
UNKNOWN_REFERENCE = FailureReason.UNKNOWN_REFERENCE


@dataclass(slots=True)
class DialogMeta:
    """Who a conversation belongs to: its id, the agent and the agent's release."""

    dialog_id: str
    release: str | None = None
    agent: str = "default"


@dataclass(frozen=True, slots=True)
class ObservedTurn:
    """A turn as the agent took it (plus its inline reference, if any)."""

    turn_no: int
    turn: TurnType
    predict: Payload | None
    gold: Payload | None = None
    tags: tuple[str, ...] = ()
    depends_on: tuple[int, ...] = ()
    tools: tuple[ToolSpec, ...] | None = None
    too_large: str | None = None  # set when the turn is too large to score: why (it is then unscored)
    judged: CheckResult | None = None  # the reference-free check, when it was obtained beforehand (PendingCheck)
    decided: CheckResult | None = None  # the check against its inline gold, decided beforehand in a batch

    @property
    def is_action(self) -> bool:
        return self.turn == TurnType.TOOL

    @property
    def scored(self) -> bool:
        return self.turn != TurnType.USER


@dataclass(frozen=True)
class ReferenceTurn:
    """A gold turn of a reference dialog (shape 3, or a reference set entry)."""

    index: int  # 1-based position in the reference
    turn: TurnType
    gold: Payload
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CheckResult:
    """What the checks found on one turn, before attribution."""

    success: bool | None
    failure_reason: FailureReason | None = None
    sub_metric: SubMetric | None = None
    field: str | None = None
    score: float | None = None
    mismatched: tuple[Any, ...] = ()  # predicted values that disagree with the reference (for data flow)
    detail: str | None = None
    decision: dict[str, Any] | None = None  # reply turns: which check decided, and on what

    @classmethod
    def passed(cls, score: float = 1.0) -> CheckResult:
        return cls(success=True, score=score)

    @classmethod
    def failed(
        cls,
        reason: FailureReason,
        sub_metric: SubMetric,
        field: str | None = None,
        score: float = 0.0,
        mismatched: tuple[Any, ...] = (),
        detail: str | None = None,
    ) -> CheckResult:
        return cls(
            success=False,
            failure_reason=reason,
            sub_metric=sub_metric,
            field=field,
            score=score,
            mismatched=mismatched,
            detail=detail,
        )

    @classmethod
    def unscored(cls, detail: str) -> CheckResult:
        return cls(success=None, failure_reason=UNSCORED, detail=detail)


@dataclass(slots=True)
class ScoredTurn:
    """A turn after checks and attribution; the unit the session keeps as history."""

    turn_no: int | None
    turn: TurnType
    check: CheckResult
    predict: Payload | None = None  # kept for a failed turn (attribution reads its output), else None
    tool_id: str | None = None  # of an action turn (composition weights per tool)
    action: str | None = None  # of an action turn: the action called (the reference's for a missing step)
    depends_on: tuple[int, ...] = ()
    tags: tuple[str, ...] = ()
    attribution: Attribution | None = None
    caused_by: int | None = None
    chain_length: ChainBucket | None = None
    gold_index: int | None = None
    mode: Mode = Mode.REFERENCE  # which path scored it

    @property
    def failed(self) -> bool:
        return self.check.success is False

    @property
    def root_turn(self) -> int | None:
        """The root-cause turn this failure traces back to (itself when it is the root)."""
        if not self.failed:
            return None
        return self.caused_by if self.attribution == CASCADING else self.turn_no

    @property
    def output(self) -> Any:
        return self.predict.output if isinstance(self.predict, ToolCall) else None


class PendingCheck(Protocol):
    """A reference-free check running in the background (an LLM judge call on a worker pool).

    The stream starts it, keeps polling, and takes `result()` once `done()` or once `deadline`
    (a ``time.monotonic()`` value) passed: a check not done by then is ``unscored``.
    """

    @property
    def deadline(self) -> float: ...

    def done(self) -> bool: ...

    def result(self) -> CheckResult: ...
