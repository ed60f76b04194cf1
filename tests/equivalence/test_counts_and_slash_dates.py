"""A count against the bare number, and "3/14" against a date: read only when the other side gives the reading."""

from __future__ import annotations

import pytest

from monitor.equivalence.values.typed import counted_number, slash_date
from tests.equivalence.both_ways import assert_different_both_ways, assert_equal_both_ways

COUNTS_EQUAL = [
    ("2 people", "two"),
    ("2", "2 guests"),
    ("three tickets", "3"),
    ("1", "one person"),
]
COUNTS_DIFFERENT = [
    ("3", "2 people"),
    ("two", "4 guests"),
    ("2 pm", "2"),  # a clock time, not a count
]
DATES_EQUAL = [
    ("March 3rd", "3/3"),
    ("March 14th", "3/14"),
    ("March 14th", "14/3"),  # day first: only one order is a valid date
    ("April 3rd", "3/4"),  # either order may be meant
    ("March 4", "3/4"),
]
DATES_DIFFERENT = [
    ("March 14th", "3/15"),
    ("May 4", "3/4"),
]


@pytest.mark.parametrize(("a", "b"), COUNTS_EQUAL)
def test_a_count_is_its_number(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b, method="number")


@pytest.mark.parametrize(("a", "b"), COUNTS_DIFFERENT)
def test_other_counts_and_non_counts_differ(typed_values, a, b):
    assert_different_both_ways(typed_values, a, b, max_score=0.5)


@pytest.mark.parametrize(("a", "b"), DATES_EQUAL)
def test_slash_form_against_a_date(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b, method="date")


@pytest.mark.parametrize(("a", "b"), DATES_DIFFERENT)
def test_slash_form_of_another_day(typed_values, a, b):
    assert_different_both_ways(typed_values, a, b, max_score=0.5)


def test_readings_alone():
    assert counted_number("2 people") == 2
    assert counted_number("2.5 people") is None
    assert counted_number("people") is None
    assert counted_number("7 Eleven") is None  # a name: its second word is a number
    assert slash_date("13/13") is None
    assert slash_date("2/29") is not None  # a day in leap years
    assert slash_date("3/14/2024") is None  # with a year it is an ordinary date


@pytest.mark.parametrize("text", ["the 5th of March", "March the 5th", "5th of March"])
def test_a_date_with_the(typed_values, text):
    assert_equal_both_ways(typed_values, "March 5", text, method="date")
    assert_different_both_ways(typed_values, "March 6", text, max_score=0.5)
