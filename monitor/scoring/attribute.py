"""Attribution (root cause vs `prior_action_failed` cascade) and action-chain buckets (docs/taxonomy.md)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from monitor.models.vocabulary import Attribution, ChainBucket, FailureReason
from monitor.scoring.types import CASCADING, ROOT_CAUSE, TRUTHFULNESS, CheckResult, ScoredTurn

_MIN_CONTAINED = 3  # shorter strings only match by equality: "EU" must not be "found" inside "EUR"
# Data flow is traced to the most recent failed turns only: each is compared value by value (the typed
# comparators among them), so tracing to every earlier failure made a conversation's cost grow with the square of
# its failed turns. An older root is still reached through the chain: a failed turn that cascades carries its
# root_turn. Declared dependencies (`depends_on`) are honoured however old.
LOOKBACK = 32

SameValue = Callable[[Any, Any], bool]  # equal by meaning under the typed comparators ("March 4" = "2025-03-04")


def leaves(value: Any) -> Iterator[str]:
    """Every scalar inside a JSON value, as normalised text."""
    if isinstance(value, Mapping):
        for item in value.values():
            yield from leaves(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from leaves(item)
    elif value is not None:
        text = _norm(value)
        if text:
            yield text


def _norm(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return " ".join(str(value).lower().split())


def _contains(haystack: str, needle: str) -> bool:
    if len(needle) < _MIN_CONTAINED:
        return False
    return re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", haystack) is not None


def scalars(value: Any) -> Iterator[Any]:
    """Every scalar inside a JSON value, as it is."""
    if isinstance(value, Mapping):
        for item in value.values():
            yield from scalars(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from scalars(item)
    elif value is not None:
        yield value


def flows_from(value: Any, earlier: ScoredTurn, same: SameValue | None = None) -> bool:
    """Does `value` come from `earlier`: equal to or inside its output, or repeating its mismatched value
    (as a string, or, with `same`, restated in another format: a date, amount, number or place)."""
    for text in leaves(value):
        for source in leaves(earlier.output):
            if text == source or _contains(source, text) or _contains(text, source):
                return True
        for bad in leaves(list(earlier.check.mismatched)):
            if text == bad or _contains(text, bad) or _contains(bad, text):
                return True
    if same is not None:
        wrong = list(scalars(list(earlier.check.mismatched)))
        return any(same(bad, item) for item in scalars(value) for bad in wrong)
    return False


def attribute(
    current: ScoredTurn, history: Sequence[ScoredTurn], same: SameValue | None = None
) -> tuple[Attribution | None, int | None]:
    """(attribution, caused_by) of a checked turn, given the turns before it (`same`: the typed value
    equality that also recognises a wrong value restated in another format).

    Structural and completeness failures are the turn's own. A truthfulness failure cascades when
    the turn depends on an earlier failed turn (declared in `depends_on`, or visible as data flow from one of
    the last `LOOKBACK` failed turns)
    and every mismatched value is explained by such a turn; a value that traces nowhere while data
    flow is visible makes the turn a root cause.
    """
    check = current.check
    if check.success is not False:
        return None, None
    if check.sub_metric != TRUTHFULNESS:
        return ROOT_CAUSE, None
    failed_before = [t for t in history if t.failed and t.turn_no is not None]
    if not failed_before:
        return ROOT_CAUSE, None
    declared = [t for t in failed_before if t.turn_no in current.depends_on]
    recent = failed_before[-LOOKBACK:]
    explaining: list[ScoredTurn] = list(declared)
    flow_visible = False
    for value in check.mismatched:
        sources = [t for t in recent if flows_from(value, t, same)]
        if sources:
            flow_visible = True
            explaining.extend(sources)
        elif not declared:
            # This value traces to no failed turn and no declared dependency covers it.
            return ROOT_CAUSE, None
    if not explaining or (not declared and not flow_visible):
        return ROOT_CAUSE, None
    roots = [t.root_turn for t in explaining if t.root_turn is not None]
    return CASCADING, min(roots) if roots else None


def restated(gold: str, pred: str, failed: Sequence[ScoredTurn]) -> list[tuple[str, ScoredTurn]]:
    """The wrong values of earlier failed action turns (``failed``, the session keeps the last ``LOOKBACK``: their
    mismatched arguments, "profit" for "revenue") that a reply states and its gold reply does not, each with the
    turn it comes from, newest first. Only worded values of three characters or more: numbers, amounts and dates
    are the typed comparators'."""
    if not failed:
        return []
    said, expected = _norm(pred), _norm(gold)
    out: list[tuple[str, ScoredTurn]] = []
    for earlier in reversed(failed):
        for bad in leaves(list(earlier.check.mismatched)):
            worded = len(bad) >= _MIN_CONTAINED and any(c.isalpha() for c in bad)
            if worded and _contains(said, bad) and not _contains(expected, bad):
                out.append((bad, earlier))
    return out


def restating(check: CheckResult, found: Sequence[tuple[str, ScoredTurn]]) -> CheckResult:
    """A passing reply's check, failed because it restates wrong values of earlier failed turns (``restated``):
    ``inconsistent_response`` naming each value and its turn, the values as mismatched (so ``attribute`` traces
    it to them). Its score stays below its cut (at most 0.9 of it, as for every check other than the cut)."""
    decision = dict(check.decision or {})
    cut = decision.get("threshold")
    decision["check"] = "restated"
    named = "; ".join(f"{bad!r}, the wrong {t.check.field or 'value'} of turn {t.turn_no}" for bad, t in found)
    score = round(min(check.score if check.score is not None else 1.0, 0.9 * cut), 4) if cut else 0.0
    return CheckResult(
        success=False,
        failure_reason=FailureReason.INCONSISTENT_RESPONSE,
        sub_metric=TRUTHFULNESS,
        score=score,
        mismatched=tuple(dict.fromkeys(bad for bad, _ in found)),
        detail=f"restates {named}, where gold does not say it",
        decision=decision,
    )


def chain_bucket(length: int) -> ChainBucket:
    """Bucket an action-chain length as the chain metric exports it."""
    return ChainBucket.THREE_PLUS if length >= 3 else ChainBucket(str(length))
