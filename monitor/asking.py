"""Ask, then resolve: a decision that needs a model's answer is written once, as a generator that *asks*.

A decision (is this value the same as gold? does this reply say what gold says?) is a generator: where it needs
encoder similarities or verifier readings it yields a round of asks (``Ask``), receives their answers, then goes
on deciding. ``settle`` drives one decision, answering each round as it comes; ``gather`` runs many decisions in
lockstep so that one round holds the asks of all of them, and ``settle`` then answers each model's questions of
the whole round in one batched call. Deciding one turn and deciding a poll of turns run the same code: nothing
predicts what a decision will ask.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

Answerer = Callable[[Sequence[Any]], list[Any]]  # answers many questions in one call, in order


@dataclass(frozen=True)
class Ask:
    """Questions for one answerer (``SemanticScorer.similarity``, ``PairScorer.probabilities``, …); the
    questions are hashable, so the same question asked by many decisions is asked once."""

    answerer: Answerer
    questions: tuple[Hashable, ...]


Round = list[Ask]
Asking = Generator[Round, list[list[Any]], T]  # yields rounds, receives one answer list per ask, returns T


def ask(answerer: Answerer, questions: Sequence[Hashable]) -> Asking[list[Any]]:
    """One ask: ``answers = yield from ask(scorer.similarity, pairs)``."""
    if not questions:
        return []
    answers = yield [Ask(answerer, tuple(questions))]
    return answers[0]


def settle(decision: Asking[T]) -> T:
    """Drive a decision to its end; each round's questions go to their answerers, one call per answerer."""
    try:
        round_ = next(decision)
        while True:
            round_ = decision.send(answer_round(round_))
    except StopIteration as done:
        return done.value


def settle_all(decisions: Sequence[Asking[T]]) -> list[T]:
    """Many decisions in lockstep, each round answered in one call per answerer."""
    return settle(gather(decisions))


def first_ask(decision: Asking[Any], answerer: Answerer) -> tuple[Hashable, ...]:
    """The questions a decision asks ``answerer`` first (empty when it never does): what a stage was asked,
    for benchmarks that fit a stage's calibration."""
    try:
        round_ = next(decision)
        while True:
            for each in round_:
                if _identity(each.answerer) == _identity(answerer):
                    return each.questions
            round_ = decision.send(answer_round(round_))
    except StopIteration:
        return ()


def answer_round(round_: Round) -> list[list[Any]]:
    """The answers of a round: the distinct questions of each answerer asked in one call."""
    asked: dict[Hashable, tuple[Answerer, dict[Hashable, None]]] = {}
    for each in round_:
        asked.setdefault(_identity(each.answerer), (each.answerer, {}))[1].update(dict.fromkeys(each.questions))
    known: dict[Hashable, dict[Hashable, Any]] = {}
    for key, (answerer, questions) in asked.items():
        order = list(questions)
        known[key] = dict(zip(order, answerer(order), strict=True))
    return [[known[_identity(each.answerer)][q] for q in each.questions] for each in round_]


def _identity(answerer: Answerer) -> Hashable:
    """The same method of the same object, however often it was looked up (the object need not be hashable)."""
    return id(getattr(answerer, "__self__", answerer)), getattr(answerer, "__func__", None)


def gather(decisions: Sequence[Asking[T]]) -> Asking[list[T]]:
    """Many decisions as one: each round holds what every unfinished decision asks next."""
    return _gather(decisions, isolate=False)


def gather_isolated(decisions: Sequence[Asking[T]]) -> Asking[list[T | Exception]]:
    """``gather``, but a decision that raises has its exception as its result; the others go on."""
    return _gather(decisions, isolate=True)


def _gather(decisions: Sequence[Asking[Any]], isolate: bool) -> Asking[list[Any]]:
    results: list[Any] = [None] * len(decisions)
    waiting: dict[int, Round] = {}
    for index, decision in enumerate(decisions):
        _advance(decision, index, None, results, waiting, isolate)
    while waiting:
        order = list(waiting.items())
        waiting.clear()
        answers = yield [each for _, round_ in order for each in round_]
        start = 0
        for index, round_ in order:
            _advance(decisions[index], index, answers[start : start + len(round_)], results, waiting, isolate)
            start += len(round_)
    return results


def _advance(
    decision: Asking[Any],
    index: int,
    answers: list[list[Any]] | None,
    results: list[Any],
    waiting: dict[int, Round],
    isolate: bool,
) -> None:
    """Take a decision to its next round (noted in ``waiting``) or to its result."""
    try:
        round_ = next(decision) if answers is None else decision.send(answers)
        while not round_:  # an empty round asks nothing: answer it at once
            round_ = decision.send([])
    except StopIteration as done:
        results[index] = done.value
        return
    except Exception as exc:
        if not isolate:
            raise
        results[index] = exc
        return
    waiting[index] = round_
