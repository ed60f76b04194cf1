"""Result types of the value and reply comparators."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from monitor.asking import Asking
from monitor.models.vocabulary import FailureReason


@dataclass(frozen=True)
class Match:
    """Verdict of a value comparison.

    ``score`` is in [0, 1] and calibrated so that 0.5 is a sensible cut; 1.0 means an exact match.
    ``method`` names the stage that decided ("exact", "number", "money", "date", "semantic", ...).
    """

    equivalent: bool
    score: float
    method: str


@dataclass(frozen=True)
class Decision:
    """Which check decided a reply verdict, and on what: the verifier's probabilities (``same`` / ``changed`` /
    ``dropped``), the cut applied to ``same``, and the gold sentence concerned (long replies)."""

    # "exact", "repeated", "fused", "verifier", "verifier_refit", "typed_values", "unrelated", "transposed", "negated",
    # "embedding", "llm"
    check: str
    probabilities: dict[str, float] | None = None
    threshold: float | None = None
    sentence: str | None = None
    reverse: dict[str, float] | None = None  # the reverse reading (the reply as premise), where it was asked
    evidence: dict[str, float] | None = None  # what the fused decision read (docs/verifier.md)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"check": self.check}
        if self.probabilities is not None:
            out["probabilities"] = self.probabilities
        if self.reverse is not None:
            out["reverse"] = self.reverse
        if self.evidence is not None:
            out["evidence"] = self.evidence
        if self.threshold is not None:
            out["threshold"] = self.threshold
        if self.sentence is not None:
            out["sentence"] = self.sentence
        return out


@dataclass(frozen=True)
class ReplyMatch:
    """Verdict of a natural-language reply comparison."""

    truthful: bool
    complete: bool
    score: float
    mismatched: tuple[str, ...]
    missing: tuple[str, ...]
    method: str
    detail: str | None = None  # names the facts at fault ("'4:15 pm' vs gold '7:45 pm'; leaves out 'closes at 6'")
    decision: Decision | None = None  # which check decided, and on what
    unscored: str | None = None  # why no verdict could be given (the turn is unscored, never a pass)

    @property
    def equivalent(self) -> bool:
        return self.truthful and self.complete


def reply_reason(match: ReplyMatch) -> FailureReason | None:
    """The failure reason of a reply verdict: a contradiction wins over an omission; None when it passes."""
    if match.equivalent:
        return None
    if match.mismatched:
        return FailureReason.INCONSISTENT_RESPONSE
    if match.missing or match.truthful:
        return FailureReason.INCOMPLETE_RESPONSE
    return FailureReason.INCONSISTENT_RESPONSE


class ValueComparing(Protocol):
    """What the scoring stages need of a value comparator (`ValueComparator` is the implementation)."""

    def compare(self, gold: Any, pred: Any, field: str | None = None) -> Match: ...

    def compare_steps(self, gold: Any, pred: Any, field: str | None = None) -> Asking[Match]:
        """``compare`` as a decision that asks for its model answers (``monitor.asking``)."""
        ...

    def supported(self, value: Any, sources: Sequence[Any], typed_only: bool = False) -> Match: ...


class ReplyComparing(Protocol):
    """What the scoring stages need of a reply comparator (the verifier's, the embedding baseline's, an LLM's)."""

    @property
    def batched(self) -> bool:
        """Its model answers many pairs in one call: a poll's replies are decided together."""
        ...

    def compare(self, gold: str, pred: str) -> ReplyMatch: ...

    def compare_steps(self, gold: str, pred: str) -> Asking[ReplyMatch]:
        """``compare`` as a decision that asks for its model answers (``monitor.asking``)."""
        ...

    def unsupported_facts(
        self,
        reply: str,
        sources: Sequence[Any],
        stated: Callable[[str], bool] | None = None,
        sources_for: Callable[[str], Sequence[Any]] | None = None,
    ) -> tuple[str, ...]:
        """The reply's facts (and claims) that ``sources`` do not support; ``sources_for``: the sources each fact
        or sentence is compared with instead (its candidates in a long conversation), else all of ``sources``."""
        ...
