"""Per-turn checks against a reference, in contract order: structural → completeness → truthfulness."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol, runtime_checkable

import structlog

from monitor.asking import Asking, gather, gather_isolated, settle
from monitor.equivalence.types import Match, ReplyComparing, ReplyMatch, ValueComparing, reply_reason
from monitor.models.dialog import Payload, Reply, ToolCall
from monitor.models.vocabulary import FailureReason
from monitor.scoring.types import COMPLETENESS, STRUCTURAL, TRUTHFULNESS, CheckResult

log = structlog.get_logger(__name__)

DECIDE_BATCH = 512  # turns decided in lockstep: what one encoder batch holds at most, round by round


class TurnChecker(Protocol):
    """Checks a predicted payload against a gold payload."""

    def check(self, gold: Payload, pred: Payload) -> CheckResult: ...

    def decide(self, pairs: Sequence[tuple[Payload, Payload]]) -> list[CheckResult | None]: ...


@runtime_checkable
class ValueEquality(Protocol):
    """Tells two values equal by meaning without a model: attribution asks it whether a wrong value is one
    an earlier failed turn got wrong, restated in another format."""

    def same_value(self, a: Any, b: Any) -> bool: ...


@runtime_checkable
class _TypedValues(Protocol):
    def typed(self, gold: Any, pred: Any) -> Match | None: ...


class ReferenceChecker:
    """Reference-mode checks for action and response turns, through the value/reply comparators.

    A poll's (or a file's) turns are decided together (``decide``): every check runs as a decision that asks
    (``monitor.asking``), in lockstep, so the encoder and the verifier answer the whole batch in one call per
    round. The caller hands each turn its decision (``ObservedTurn.decided``); a turn without one is decided
    alone (``check``), by the same code."""

    def __init__(self, values: ValueComparing, replies: ReplyComparing) -> None:
        self.values = values
        self.replies = replies

    def same_value(self, a: Any, b: Any) -> bool:
        """Equal under the typed comparators (dates, money, numbers, places in any format); the semantic
        stage is not asked."""
        if not isinstance(self.values, _TypedValues):
            return False
        match = self.values.typed(a, b)
        return match is not None and match.equivalent

    def decide(self, pairs: Sequence[tuple[Payload, Payload]]) -> list[CheckResult | None]:
        """Decide many (gold, pred) turns in one batch: each pair's check, in order, or None for a pair left to
        its turn's own ``check``: a reply whose comparator sends one request per pair (an LLM; a turn that is
        never checked, a duplicate, then costs no request), or a decision that failed here (its ``check`` meets
        the failure in the caller's guard; a model that fails answering leaves its whole batch). Never raises."""
        batched = self.replies.batched
        wanted = [i for i, (g, _) in enumerate(pairs) if isinstance(g, ToolCall) or (isinstance(g, Reply) and batched)]
        out: list[CheckResult | None] = [None] * len(pairs)
        for start in range(0, len(wanted), DECIDE_BATCH):
            chunk = wanted[start : start + DECIDE_BATCH]
            try:
                results = settle(gather_isolated([self.check_steps(*pairs[i]) for i in chunk]))
            except Exception as exc:
                log.warning("batch_decision_failed", pairs=len(chunk), error=repr(exc)[:300])
                continue
            for i, result in zip(chunk, results, strict=True):
                out[i] = result if isinstance(result, CheckResult) else None
        return out

    def check(self, gold: Payload, pred: Payload) -> CheckResult:
        return settle(self.check_steps(gold, pred))

    def check_steps(self, gold: Payload, pred: Payload) -> Asking[CheckResult]:
        """The check of one turn as a decision that asks (``monitor.asking``)."""
        if isinstance(gold, ToolCall):
            return (yield from self.check_action(gold, pred))
        if isinstance(gold, Reply):
            return (yield from self.check_response(gold, pred))
        return CheckResult.passed()

    def check_action(self, gold: ToolCall, pred: Payload) -> Asking[CheckResult]:
        failed = structural_failure(gold, pred)
        if failed is not None:
            return failed
        assert isinstance(pred, ToolCall)
        args = pred.args
        matches = yield from gather(
            [self.values.compare_steps(value, args[key], key) for key, value in gold.args.items()]
        )
        worst = min([1.0, *(m.score for m in matches)])
        mismatched_fields = [key for key, m in zip(gold.args, matches, strict=True) if not m.equivalent]
        if mismatched_fields:
            return CheckResult.failed(
                FailureReason.INCONSISTENT_PARAMETER_VALUES,
                TRUTHFULNESS,
                mismatched_fields[0],
                score=worst,
                mismatched=tuple(pred.args[k] for k in mismatched_fields),
                detail=f"{mismatched_fields[0]}: {pred.args[mismatched_fields[0]]!r} "
                f"vs gold {gold.args[mismatched_fields[0]]!r}",
            )
        return CheckResult.passed(worst)

    def check_response(self, gold: Reply, pred: Payload) -> Asking[CheckResult]:
        if not isinstance(pred, Reply):
            return CheckResult.failed(FailureReason.INCOMPLETE_RESPONSE, COMPLETENESS, detail="expected a reply")
        match = yield from self.replies.compare_steps(gold.response, pred.response)
        if match.unscored is not None:
            return CheckResult.unscored(match.unscored)
        return replace(_reply_check(match), decision=match.decision.as_dict() if match.decision else None)


def structural_failure(gold: ToolCall, pred: Payload) -> CheckResult | None:
    """The structural and completeness checks of an action turn (tool, action, argument names), in contract
    order, or None when they pass and the argument values decide."""
    if not isinstance(pred, ToolCall):
        return CheckResult.failed(FailureReason.TOOL_MISMATCH, STRUCTURAL, "tool_id", detail="expected a tool call")
    if pred.tool_id != gold.tool_id:
        return CheckResult.failed(
            FailureReason.TOOL_MISMATCH,
            STRUCTURAL,
            "tool_id",
            detail=f"{pred.tool_id!r} instead of {gold.tool_id!r}",
        )
    if pred.action != gold.action:
        return CheckResult.failed(
            FailureReason.ACTION_MISMATCH,
            STRUCTURAL,
            "action",
            detail=f"{pred.action!r} instead of {gold.action!r}",
        )
    missing = [k for k in gold.args if k not in pred.args]
    if missing:
        present = 1 - len(missing) / len(gold.args)
        return CheckResult.failed(
            FailureReason.MISSING_PARAMETERS, COMPLETENESS, missing[0], score=present, detail=f"missing {missing}"
        )
    extra = [k for k in pred.args if k not in gold.args]
    if extra:
        share = len(gold.args) / len(pred.args)
        return CheckResult.failed(
            FailureReason.EXTRA_PARAMETERS, COMPLETENESS, extra[0], score=share, detail=f"unexpected {extra}"
        )
    return None


def _reply_check(match: ReplyMatch) -> CheckResult:
    """The check result of a reply verdict."""
    reason = reply_reason(match)
    if reason == FailureReason.INCOMPLETE_RESPONSE:
        return CheckResult.failed(
            FailureReason.INCOMPLETE_RESPONSE,
            COMPLETENESS,
            score=match.score,
            detail=match.detail or (f"leaves out {list(match.missing)}" if match.missing else None),
        )
    if reason == FailureReason.INCONSISTENT_RESPONSE:
        return CheckResult.failed(
            FailureReason.INCONSISTENT_RESPONSE,
            TRUTHFULNESS,
            score=match.score,
            mismatched=tuple(match.mismatched),
            detail=match.detail or (f"contradicts gold: {list(match.mismatched)}" if match.mismatched else None),
        )
    return CheckResult.passed(match.score)
