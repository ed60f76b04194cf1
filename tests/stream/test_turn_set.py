"""TurnSet: a set of turn numbers as ranges, checked against a built-in set on the same additions."""

from __future__ import annotations

import random
import sys
import time

from monitor.stream.turn_set import TurnSet


def test_behaves_like_a_set_under_random_additions() -> None:
    rng = random.Random(7)
    for _ in range(200):
        expected: set[int] = set()
        turns = TurnSet()
        for n in (rng.randint(0, 30) for _ in range(rng.randint(0, 40))):
            turns.add(n)
            expected.add(n)
        assert list(turns) == sorted(expected)
        assert len(turns) == len(expected)
        assert all((n in turns) == (n in expected) for n in range(-2, 34))
        assert turns == expected and turns == TurnSet(expected)


def test_in_order_turns_are_one_range() -> None:
    turns = TurnSet()
    for n in range(1, 51):
        turns.add(n)
    assert turns._bounds == (1, 51)
    assert sys.getsizeof(turns) + sys.getsizeof(turns._bounds) < sys.getsizeof({1, 2, 3})


def test_gap_then_fill_merges_ranges() -> None:
    turns = TurnSet([1, 2, 5, 6])
    assert turns._bounds == (1, 3, 5, 7) and 3 not in turns and 4 not in turns
    turns.add(4)
    assert turns._bounds == (1, 3, 4, 7)
    turns.add(3)
    assert turns._bounds == (1, 7)
    assert "3" not in turns and None not in turns


def test_like_runs_from_the_first_turn_share_one_tuple_and_stay_independent() -> None:
    seen, saved = TurnSet(), TurnSet()
    for n in (1, 2, 3):
        seen.add(n)
        saved.add(n)
    assert seen._bounds is saved._bounds  # an open conversation's two sets: one tuple between them
    seen.add(5)
    assert list(seen) == [1, 2, 3, 5] and list(saved) == [1, 2, 3]
    late = TurnSet([2, 3, 1])  # built out of order, it still lands on the shared run
    assert late._bounds is saved._bounds
    far = TurnSet([7, 8])
    assert far._bounds == (7, 9) and far._bounds is not TurnSet([7, 8])._bounds  # not from turn 0 or 1: its own


def test_many_gaps_behave_like_a_set() -> None:
    rng = random.Random(11)
    for _ in range(20):
        expected: set[int] = set()
        turns = TurnSet()
        for n in (rng.randint(0, 600) for _ in range(rng.randint(100, 500))):
            turns.add(n)
            expected.add(n)
        assert list(turns) == sorted(expected) and len(turns) == len(expected)
        assert all((n in turns) == (n in expected) for n in range(-2, 604))
        assert turns == expected and turns == TurnSet(expected)


def test_a_gap_before_every_turn_costs_log_n_per_insert() -> None:
    started = time.perf_counter()
    turns = TurnSet(range(1, 400_001, 2))  # what a restore rebuilds from a finished head with gaps
    for n in range(400_001, 600_001, 2):
        turns.add(n)
    elapsed = time.perf_counter() - started
    assert len(turns) == 300_000 and 599_999 in turns and 600_000 not in turns
    assert elapsed < 10  # rebuilding a tuple per insert: hours


def test_a_set_of_turns_is_built_in_one_pass() -> None:
    """What a restore does with each finished head: 200,000 turns with a gap before each, built at once, not one
    insert at a time (400 forged heads of 5,000 such turns held a restore, and everything waiting on it, for 10 s)."""
    given = list(range(1, 400_001, 2))
    started = time.perf_counter()
    turns = TurnSet(reversed(given))
    elapsed = time.perf_counter() - started
    assert list(turns) == given and 2 not in turns and 399_999 in turns
    assert elapsed < 1  # measured 0.11 s on a loaded 2-core machine; one insert at a time: 2.0 s
