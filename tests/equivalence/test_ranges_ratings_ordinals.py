"""Ranges, ratings on a scale, price signs, ordinals, sequels and spoken yes / no as values."""

from __future__ import annotations

import pytest

from monitor.equivalence.values.spans import range_ends, sequel_of
from tests.equivalence.both_ways import assert_different_both_ways, assert_equal_both_ways

EQUAL = [
    ("March 5 to March 8", "March 5-8", "range"),
    ("5-8 March", "March 5 to 8", "range"),
    ("9am-5pm", "9 am to 5 pm", "range"),
    ("Mon-Fri", "Monday to Friday", "range"),
    ("4.2 out of 5", "4.2", "number"),
    ("$$", "$$", None),
    ("$$", "moderate", "category"),
    ("$", "inexpensive", "category"),
    ("1st", "first", "number"),
    ("yes please", "True", "bool"),
    ("sure", "yes", "bool"),
    ("nope", "False", "bool"),
]
DIFFERENT = [
    ("March 5 to March 8", "March 5 to March 9", "range"),
    ("9am-5pm", "9am-6pm", "range"),
    ("Mon-Fri", "Mon-Sat", "range"),
    ("4.2 out of 5", "4.2 out of 10", "number"),
    ("$$", "$$$$", "category"),
    ("$$", "expensive", "category"),
    ("1st", "2nd", "number"),
    ("Frozen", "Frozen II", "number"),
    ("Rocky", "Rocky Part 3", "number"),
    ("yes please", "no thanks", "bool"),
]


@pytest.mark.parametrize(("a", "b", "method"), EQUAL)
def test_the_same_value_in_another_shape_is_equal(typed_values, a, b, method):
    assert_equal_both_ways(typed_values, a, b, method=method)


@pytest.mark.parametrize(("a", "b", "method"), DIFFERENT)
def test_another_value_differs(typed_values, a, b, method):
    assert_different_both_ways(typed_values, a, b, method=method)


def test_a_hyphenated_word_or_an_iso_date_is_no_range():
    assert range_ends("Hartsfield-Jackson Airport") is None
    assert range_ends("one-way") is None
    assert range_ends("UA-100") is None
    assert range_ends("2024-03-05") is None
    assert range_ends("5-8") is None  # two bare numbers: a score or a count, nothing to read


def test_a_cinema_named_with_its_screens_is_no_sequel():
    assert not sequel_of("AMC Saratoga", "AMC Saratoga 14")
    assert sequel_of("Frozen", "Frozen II")


def test_digits_and_signs_alone_are_no_range():
    assert range_ends("(415) 555-0100") is None
    assert range_ends("10-20") is None
