"""Decisions that ask: one decision settled alone, many gathered so each round is one call per answerer."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from monitor.asking import Asking, ask, first_ask, gather, gather_isolated, settle


class Lengths:
    """An answerer that notes each call it gets."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def answer(self, questions: Sequence[str]) -> list[int]:
        self.calls.append(list(questions))
        return [len(q) for q in questions]


def longer(model: Lengths, a: str, b: str) -> Asking[str]:
    """Two rounds: the lengths of both texts, then (if they tie) of the texts doubled."""
    la, lb = yield from ask(model.answer, [a, b])
    if la == lb:
        la, lb = yield from ask(model.answer, [a + a, b + b + "!"])
    return a if la > lb else b


def test_a_decision_settled_alone_asks_round_by_round() -> None:
    model = Lengths()
    assert settle(longer(model, "abc", "xyz")) == "xyz"
    assert model.calls == [["abc", "xyz"], ["abcabc", "xyzxyz!"]]


def test_gathered_decisions_share_one_call_per_round_and_each_question_is_asked_once() -> None:
    model = Lengths()
    pairs = [("abc", "xyz"), ("a", "bb"), ("abc", "bb"), ("q", "r")]
    together = settle(gather([longer(model, a, b) for a, b in pairs]))
    assert together == [settle(longer(Lengths(), a, b)) for a, b in pairs]
    first, second = model.calls  # two rounds: every first ask, then the second asks of the ties
    assert first == ["abc", "xyz", "a", "bb", "q", "r"]
    assert second == ["abcabc", "xyzxyz!", "qq", "rr!"]


def test_a_decision_that_asks_nothing_is_settled_without_a_call() -> None:
    model = Lengths()

    def exact(a: str) -> Asking[str]:
        if a:
            return a
        return (yield from longer(model, "x", "y"))

    assert settle(gather([exact("same"), exact("also")])) == ["same", "also"]
    assert model.calls == []


def test_an_answerer_that_fails_fails_the_settling() -> None:
    def broken(questions: Sequence[str]) -> list[int]:
        raise RuntimeError("encoder down")

    def decision() -> Asking[int]:
        (n,) = yield from ask(broken, ["text"])
        return int(n)

    with pytest.raises(RuntimeError, match="encoder down"):
        settle(gather([decision()]))


def test_isolated_decisions_keep_their_own_failure() -> None:
    model = Lengths()

    def failing() -> Asking[str]:
        yield from ask(model.answer, ["x"])
        raise ValueError("bad value")

    got = settle(gather_isolated([longer(model, "a", "bb"), failing()]))
    assert got[0] == "bb" and isinstance(got[1], ValueError)
    with pytest.raises(ValueError, match="bad value"):
        settle(gather([failing()]))


def test_first_ask_names_what_a_decision_asks_one_answerer_first() -> None:
    model, other = Lengths(), Lengths()

    def two_models() -> Asking[int]:
        (n,) = yield from ask(other.answer, ["abc"])
        (m,) = yield from ask(model.answer, ["x" * n, "tail"])
        return int(m)

    assert first_ask(two_models(), model.answer) == ("xxx", "tail")
    assert first_ask(longer(other, "a", "b"), model.answer) == ()  # never asks it
