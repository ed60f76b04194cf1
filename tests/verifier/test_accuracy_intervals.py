"""The reply accuracy benchmark's comparison of the default with its baselines: a difference in balanced accuracy
with a paired bootstrap interval, and what it says (below, within noise, above)."""

from __future__ import annotations

import random

import pytest

from benchmarks.accuracy_replies import Difference, paired_difference, reading


def answers(n_pass: int, n_fail: int, right_pass: int, right_fail: int) -> tuple[list[bool], list[bool]]:
    """``expected`` (True: the pair should pass) and a scorer's answers, right on the first ``right_pass`` passing
    and the first ``right_fail`` failing pairs."""
    expected = [True] * n_pass + [False] * n_fail
    passed = [i < right_pass for i in range(n_pass)] + [i >= right_fail for i in range(n_fail)]
    return expected, passed


def test_the_same_answers_differ_by_nothing() -> None:
    expected, passed = answers(30, 30, 25, 20)
    d = paired_difference(expected, passed, passed)
    assert (d.value, d.low, d.high) == (0.0, 0.0, 0.0)
    assert reading([d]) == "at or above, within noise"


def test_a_clearly_better_scorer_is_above_and_the_worse_one_below() -> None:
    expected, good = answers(200, 200, 190, 190)
    _, poor = answers(200, 200, 120, 130)
    up, down = paired_difference(expected, good, poor), paired_difference(expected, poor, good)
    assert up.value == pytest.approx(0.325) and up.low > 0.25 and up.low <= up.value <= up.high
    assert down.value == pytest.approx(-0.325) and down.high < 0
    assert reading([up]) == "above" and reading([down]) == "below" and reading([up, down]) == "below"


def test_one_pair_of_a_small_set_is_within_noise() -> None:
    """Two pairs of 131 (the size of a sealed STS-B part) are not a measured difference."""
    expected, first = answers(50, 81, 48, 80)
    _, second = answers(50, 81, 50, 80)
    d = paired_difference(expected, first, second)
    assert d.value == pytest.approx(-0.02) and d.low < 0 <= d.high  # no resample has the second one worse
    assert reading([d]) == "below, within noise"


def test_the_interval_is_paired() -> None:
    """Two scorers that agree but on a few pairs have a narrow interval, however often both are wrong: the
    pairs both get wrong cancel out of every resample."""
    rng = random.Random(5)
    expected = [i % 2 == 0 for i in range(400)]
    first = [rng.random() < 0.7 for _ in expected]  # right or wrong at random, 70 % passed
    second = list(first)
    for i in (0, 2, 4, 6, 8, 10):  # second fails six passing pairs first passes
        first[i], second[i] = True, False
    d = paired_difference(expected, first, second)
    assert d.value == pytest.approx(0.015) and d.low > 0 and d.high - d.low < 0.03  # 6 of 200 passing pairs


def test_it_is_seeded_and_needs_both_kinds_of_pair() -> None:
    expected, first = answers(40, 40, 30, 35)
    _, second = answers(40, 40, 35, 30)
    assert paired_difference(expected, first, second) == paired_difference(expected, first, second)
    assert paired_difference(expected, first, second, seed=1) != paired_difference(expected, first, second, seed=2)
    with pytest.raises(ValueError, match="passing and failing"):
        paired_difference([True, True], [True, False], [False, False])
    assert str(Difference(-0.0143, -0.041, 0.0105)) == "-0.014 [-0.041, +0.011]"
