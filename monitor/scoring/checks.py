"""Per-turn checks against a reference, in contract order: structural → completeness → truthfulness."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol, runtime_checkable

from monitor.equivalence.types import Match, ReplyComparing, ReplyMatch, ValueComparing, reply_reason
from monitor.models.dialog import Payload, Reply, ToolCall
from monitor.models.vocabulary import FailureReason
from monitor.scoring.types import COMPLETENESS, STRUCTURAL, TRUTHFULNESS, CheckResult


class TurnChecker(Protocol):
    """Checks a predicted payload against a gold payload."""

    def check(self, gold: Payload, pred: Payload) -> CheckResult: ...

    def prefetch(self, pairs: Sequence[tuple[Payload, Payload]]) -> None: ...


@runtime_checkable
class ValueEquality(Protocol):
    """Tells two values equal by meaning without a model: attribution asks it whether a wrong value is one
    an earlier failed turn got wrong, restated in another format."""

    def same_value(self, a: Any, b: Any) -> bool: ...


@runtime_checkable
class _TypedValues(Protocol):
    def typed(self, gold: Any, pred: Any) -> Match | None: ...


class ReferenceChecker:
    """Reference-mode checks for action and response turns, through the value/reply comparators."""

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

    def prefetch(self, pairs: Sequence[tuple[Payload, Payload]]) -> None:
        """Batch the semantic work of many turns before they are checked one by one.

        Only what `check` will compare: the arguments of calls that pass the structural and completeness
        checks (same tool, action and argument names) and the texts of reply pairs.
        """
        value_pairs: list[tuple[Any, Any]] = []
        reply_pairs: list[tuple[str, str]] = []
        for gold, pred in pairs:
            if isinstance(gold, ToolCall) and isinstance(pred, ToolCall):
                if structural_failure(gold, pred) is None:  # the same decision `check_action` takes first
                    value_pairs.extend((gold.args[k], pred.args[k]) for k in gold.args)
            elif isinstance(gold, Reply) and isinstance(pred, Reply):
                reply_pairs.append((gold.response, pred.response))
        if value_pairs:
            self.values.prefetch(value_pairs)
        if reply_pairs:
            self.replies.prefetch(reply_pairs)

    def check(self, gold: Payload, pred: Payload) -> CheckResult:
        if isinstance(gold, ToolCall):
            return self.check_action(gold, pred)
        if isinstance(gold, Reply):
            return self.check_response(gold, pred)
        return CheckResult.passed()

    def check_action(self, gold: ToolCall, pred: Payload) -> CheckResult:
        failed = structural_failure(gold, pred)
        if failed is not None:
            return failed
        assert isinstance(pred, ToolCall)
        worst = 1.0
        mismatched_fields: list[str] = []
        for key, gold_value in gold.args.items():
            match = self.values.compare(gold_value, pred.args[key], field=key)
            worst = min(worst, match.score)
            if not match.equivalent:
                mismatched_fields.append(key)
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

    def check_response(self, gold: Reply, pred: Payload) -> CheckResult:
        if not isinstance(pred, Reply):
            return CheckResult.failed(FailureReason.INCOMPLETE_RESPONSE, COMPLETENESS, detail="expected a reply")
        match = self.replies.compare(gold.response, pred.response)
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
