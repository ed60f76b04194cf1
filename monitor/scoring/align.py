"""Alignment of predicted turns to reference turns: order-invariant groups and online step alignment."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from monitor.models.dialog import Payload, Reply, ToolCall
from monitor.scoring.types import CheckResult, ReferenceTurn

ORDER_INVARIANT_PREFIX = "OrderInvariant"
_EXHAUSTIVE_LIMIT = 6

Check = Callable[[Payload, Payload], CheckResult]


def order_invariant_tag(tags: Sequence[str]) -> str | None:
    """The turn's order-invariant group tag, if it has one."""
    return next((t for t in tags if t.startswith(ORDER_INVARIANT_PREFIX)), None)


def _rank(result: CheckResult) -> tuple[int, float]:
    return (1 if result.success else 0, result.score or 0.0)


def match_as_set(golds: Sequence[Payload], preds: Sequence[Payload], check: Check) -> list[int]:
    """Assign each prediction a distinct gold of its order-invariant group (best total agreement).

    Returns, for each prediction, the index of its gold. Groups are small; up to six members are
    searched exhaustively, larger ones greedily. Ties keep the given order.
    """
    n = min(len(golds), len(preds))
    results = [[check(g, p) for g in golds] for p in preds]
    if n <= _EXHAUSTIVE_LIMIT and len(golds) <= _EXHAUSTIVE_LIMIT:
        best: tuple[tuple[int, float], list[int]] | None = None
        for perm in itertools.permutations(range(len(golds)), len(preds)):
            total = (
                sum(_rank(results[i][g])[0] for i, g in enumerate(perm)),
                sum(_rank(results[i][g])[1] for i, g in enumerate(perm)),
            )
            if best is None or total > best[0]:
                best = (total, list(perm))
        return best[1] if best else []
    taken: set[int] = set()
    assignment: list[int] = []
    for i in range(len(preds)):
        options = [g for g in range(len(golds)) if g not in taken]
        choice = max(options, key=lambda g: _rank(results[i][g]))
        taken.add(choice)
        assignment.append(choice)
    return assignment


def _same_step(gold: Payload, pred: Payload) -> bool:
    if isinstance(gold, ToolCall) and isinstance(pred, ToolCall):
        return gold.tool_id == pred.tool_id and gold.action == pred.action
    return isinstance(gold, Reply) and isinstance(pred, Reply)


@dataclass
class StepDecision:
    """What the online aligner decided for one predicted turn."""

    gold: ReferenceTurn | None  # None: the prediction has no counterpart (an unexpected turn)
    skipped: list[ReferenceTurn] = field(default_factory=list)  # gold turns now known to be missing


@dataclass
class OnlineAligner:
    """Aligns predicted steps to a reference as they arrive; a decision is never revisited.

    A prediction takes the first unconsumed gold step of the same kind (same tool and action, or a
    reply) within `lookahead`; gold steps passed over are missing. Within an order-invariant group
    the prediction takes the best-matching unconsumed member. A call to the right tool with another
    action is aligned (an action mismatch) rather than declared unexpected — unless `excused` says the
    call is side-effect free (a read-only action): then it is an extra call, and the gold step stays
    open for the call that really takes it.
    """

    reference: Sequence[ReferenceTurn]
    lookahead: int = 8
    excused: Callable[[ToolCall], bool] = lambda call: False
    position: int = 0
    consumed: set[int] = field(default_factory=set)

    def _pending(self) -> list[ReferenceTurn]:
        return [g for g in self.reference[self.position :] if g.index not in self.consumed and g.turn != "User"]

    def _take(self, gold: ReferenceTurn, pending: list[ReferenceTurn]) -> StepDecision:
        skipped: list[ReferenceTurn] = []
        group = order_invariant_tag(gold.tags)
        for g in pending:
            if g is gold:
                break
            if group is not None and order_invariant_tag(g.tags) == group:
                continue  # a sibling in the same group is still expected, in any order
            skipped.append(g)
        self.consumed.add(gold.index)
        self.consumed.update(g.index for g in skipped)
        while self.position < len(self.reference) and (
            self.reference[self.position].index in self.consumed or self.reference[self.position].turn == "User"
        ):
            self.position += 1
        return StepDecision(gold=gold, skipped=skipped)

    def align(self, pred: Payload, check: Check) -> StepDecision:
        pending = self._pending()
        if not pending:
            return StepDecision(gold=None)
        head = pending[0]
        group = order_invariant_tag(head.tags)
        if group is not None:
            members = [g for g in pending if order_invariant_tag(g.tags) == group]
            siblings = [g for g in members if _same_step(g.gold, pred)]
            if siblings:
                best = max(siblings, key=lambda g: _rank(check(g.gold, pred)))
                return self._take(best, pending)
        for gold in pending[: self.lookahead]:
            if _same_step(gold.gold, pred):
                return self._take(gold, pending)
        if isinstance(pred, ToolCall) and isinstance(head.gold, ToolCall) and head.gold.tool_id == pred.tool_id:
            if self.excused(pred):
                return StepDecision(gold=None)
            return self._take(head, pending)
        return StepDecision(gold=None)

    def remaining(self) -> list[ReferenceTurn]:
        """Gold steps never matched: missing at the end of the dialog."""
        rest = self._pending()
        self.consumed.update(g.index for g in rest)
        self.position = len(self.reference)
        return rest
