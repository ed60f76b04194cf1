"""One helper for the rule every value comparison keeps: the verdict does not depend on which side is gold."""

from __future__ import annotations

from monitor.equivalence.types import Match, ValueComparing


def _both(comparator: ValueComparing, a: object, b: object) -> list[tuple[object, object, Match]]:
    return [(x, y, comparator.compare(x, y)) for x, y in ((a, b), (b, a))]


def assert_equal_both_ways(
    comparator: ValueComparing, a: object, b: object, method: str | None = None, min_score: float | None = None
) -> None:
    for x, y, m in _both(comparator, a, b):
        assert m.equivalent, (x, y, m)
        assert method is None or m.method == method, (x, y, m)
        assert min_score is None or m.score >= min_score, (x, y, m)


def assert_different_both_ways(
    comparator: ValueComparing, a: object, b: object, method: str | None = None, max_score: float | None = None
) -> None:
    for x, y, m in _both(comparator, a, b):
        assert not m.equivalent, (x, y, m)
        assert method is None or m.method == method, (x, y, m)
        assert max_score is None or m.score < max_score, (x, y, m)
