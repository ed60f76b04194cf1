"""Result types of the value and reply comparators."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol


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
class ReplyMatch:
    """Verdict of a natural-language reply comparison."""

    truthful: bool
    complete: bool
    score: float
    mismatched: tuple[str, ...]
    missing: tuple[str, ...]
    method: str

    @property
    def equivalent(self) -> bool:
        return self.truthful and self.complete


class ValueComparing(Protocol):
    """What the scoring stages need of a value comparator (`ValueComparator` is the implementation)."""

    def compare(self, gold: Any, pred: Any, field: str | None = None) -> Match: ...

    def prefetch(self, pairs: Sequence[tuple[Any, Any]]) -> None: ...

    def supported(self, value: Any, sources: Sequence[Any]) -> Match: ...


class ReplyComparing(Protocol):
    """What the scoring stages need of a reply comparator (`ReplyComparator` is the implementation)."""

    def compare(self, gold: str, pred: str) -> ReplyMatch: ...

    def prefetch(self, pairs: Sequence[tuple[str, str]]) -> None: ...

    def unsupported_facts(self, reply: str, sources: Sequence[Any]) -> tuple[str, ...]: ...
