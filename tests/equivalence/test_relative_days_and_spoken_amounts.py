"""Weekdays and relative days, amounts said in words (fractions, dozens, counts), opposites by WordNet or prefix.

Every verdict here is the typed stages' (no embedding model): an embedding puts "Tuesday" next to "Thursday"
(0.86) and "refundable" next to "non-refundable" (0.99), and "half an hour" far from "30 minutes" (0.42).
"""

from __future__ import annotations

import pytest

from monitor.equivalence.reference_data import wordnet
from monitor.equivalence.values.relative_dates import DayRef, parse_day_ref
from tests.equivalence.both_ways import assert_different_both_ways, assert_equal_both_ways

DAYS_EQUAL = [
    ("Tue", "Tuesday"),
    ("next Tuesday", "Tuesday"),
    ("this Friday", "Fri"),
    ("on Monday", "Monday"),
    ("the weekend", "this weekend"),
    ("tonight", "today"),
]
DAYS_DIFFERENT = [
    ("Monday", "Sunday"),
    ("Tue", "Thu"),
    ("last Friday", "Friday"),
    ("today", "tomorrow"),
    ("tomorrow", "the day after tomorrow"),
    ("this weekend", "next weekend"),
    ("next week", "this week"),
    ("last month", "next month"),
    ("this week", "this month"),
    ("Wednesday", "the weekend"),
]
AMOUNTS_EQUAL = [
    ("half an hour", "30 minutes"),
    ("an hour and a half", "90 minutes"),
    ("one and a half hours", "90 min"),
    ("2 and a half hours", "150 minutes"),
    ("three quarters of an hour", "45 mins"),
    ("two weeks", "14 days"),
    ("a fortnight", "2 weeks"),
    ("a dozen", "12"),
    ("half a dozen", "6"),
    ("two dozen", "24"),
    ("a couple", "2"),
    ("1 bedroom", "one bedroom"),
    ("three tickets", "3 tickets"),
]
AMOUNTS_DIFFERENT = [
    ("half an hour", "15 minutes"),
    ("an hour and a half", "2 hours"),
    ("a fortnight", "10 days"),
    ("half a dozen", "12"),
    ("a couple", "5"),
    ("1 bedroom", "2 bedrooms"),
]
TIMES_EQUAL = [("quarter to noon", "11:45 am"), ("half past midnight", "00:30"), ("a quarter past noon", "12:15 pm")]
_WORDNET = pytest.mark.skipif(not wordnet.available(), reason="needs Debian's wordnet-base")
OPPOSITES = [
    pytest.param("upstairs", "downstairs", marks=_WORDNET),
    ("smoking", "non-smoking"),
    ("refundable", "non-refundable"),
]


@pytest.mark.parametrize(("a", "b"), DAYS_EQUAL)
def test_the_same_day_said_two_ways_is_equal(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b, method="date")


@pytest.mark.parametrize(("a", "b"), DAYS_DIFFERENT)
def test_other_days_and_spans_differ(typed_values, a, b):
    assert_different_both_ways(typed_values, a, b, method="date")


def test_a_day_against_a_weekday_is_left_to_later_stages():
    assert parse_day_ref("tomorrow") == DayRef("day", 1)
    assert parse_day_ref("Thursdays") == DayRef("weekday", 0, 3)
    assert parse_day_ref("next Tuesday morning") is None  # not the whole text: no reading
    assert parse_day_ref("Sunday roast") is None


@pytest.mark.parametrize(("a", "b"), AMOUNTS_EQUAL)
def test_amounts_in_words_equal_their_digits(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b, method=("number", "quantity"))


@pytest.mark.parametrize(("a", "b"), AMOUNTS_DIFFERENT)
def test_other_amounts_differ(typed_values, a, b):
    assert_different_both_ways(typed_values, a, b, method=("number", "quantity"))


@pytest.mark.parametrize(("a", "b"), TIMES_EQUAL)
def test_minutes_before_and_after_noon_and_midnight(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b, method="time")


def test_quarter_to_noon_is_not_quarter_past(typed_values):
    assert_different_both_ways(typed_values, "quarter to noon", "12:15 pm", method="time")


@pytest.mark.parametrize(("a", "b"), OPPOSITES)
def test_a_value_and_its_opposite_differ(typed_values, a, b):
    assert_different_both_ways(typed_values, a, b, method="antonym")


@_WORDNET
def test_an_antonym_elsewhere_in_the_phrase_is_still_read(typed_values):
    assert_different_both_ways(typed_values, "early check-in", "late check-in", method="antonym")
    assert_equal_both_ways(typed_values, "non-smoking room", "non-smoking room")


@pytest.mark.parametrize(("a", "b"), [("2 hours 10 minutes", "130 minutes"), ("1 hr and 30 min", "90 minutes"),
                                      ("5 feet 10 inches", "70 inches")])
def test_an_amount_in_two_units_is_one_amount(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b, method=("number", "quantity"))


def test_an_amount_in_two_units_differs_from_another(typed_values):
    assert_different_both_ways(typed_values, "2 hours 10 minutes", "2 hours", method=("number", "quantity"))


@pytest.mark.parametrize(("a", "b"), [("twelve noon", "12:00"), ("6pm sharp", "18:00"), ("around 6 pm", "6 pm"),
                                      ("at about 7 in the evening", "19:00")])
def test_a_hedged_time_is_the_time_said(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b, method="time")


def test_a_hedged_time_differs_from_another(typed_values):
    assert_different_both_ways(typed_values, "around 6 pm", "7 pm", method="time")
