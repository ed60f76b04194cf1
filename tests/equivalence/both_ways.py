"""One helper for the rule every value comparison keeps: the verdict does not depend on which side is gold."""

from __future__ import annotations

from monitor.equivalence.types import Match, ValueComparing

Methods = str | tuple[str, ...] | None


def _method_ok(m: Match, method: Methods, not_method: str | None) -> bool:
    wanted = method is None or m.method == method or (isinstance(method, tuple) and m.method in method)
    return wanted and (not_method is None or m.method != not_method)


def _both(comparator: ValueComparing, a: object, b: object) -> list[tuple[object, object, Match]]:
    return [(x, y, comparator.compare(x, y)) for x, y in ((a, b), (b, a))]


def assert_equal_both_ways(
    comparator: ValueComparing,
    a: object,
    b: object,
    method: Methods = None,
    min_score: float | None = None,
    not_method: str | None = None,
) -> None:
    for x, y, m in _both(comparator, a, b):
        assert m.equivalent, (x, y, m)
        assert _method_ok(m, method, not_method), (x, y, m)
        assert min_score is None or m.score >= min_score, (x, y, m)


def assert_different_both_ways(
    comparator: ValueComparing,
    a: object,
    b: object,
    method: Methods = None,
    max_score: float | None = None,
    not_method: str | None = None,
) -> None:
    """`method`: the stage that must decide (one name or a tuple of names); `not_method`: one that must not."""
    for x, y, m in _both(comparator, a, b):
        assert not m.equivalent, (x, y, m)
        assert _method_ok(m, method, not_method), (x, y, m)
        assert max_score is None or m.score < max_score, (x, y, m)
