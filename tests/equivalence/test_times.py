"""Clock times in words and digits (monitor/equivalence/values/times.py): one minute of the day, both directions."""

from __future__ import annotations

import pytest

from monitor.equivalence.values.times import parse_clock

SAME_MINUTE = [
    ("half past six in the evening", "18:30"),
    ("half past six in the evening", "6:30 pm"),
    ("18:30", "6:30 pm"),
    ("evening 6", "6 pm"),
    ("six in the evening", "18:00"),
    ("half past 5 in the evening", "17:30"),
    ("quarter to 11 in the morning", "10:45 am"),
    ("evening 6:30", "6:30 pm"),
    ("5 o'clock in the evening", "17:00"),
    ('5 o"clock in the evening', "5 pm"),
    ("11 in the night", "23:00"),
    ("one pm", "13:00"),
    ("quarter past 1 in the afternoon", "1:15 pm"),
    ("afternoon 12:45", "12:45 pm"),
    ("morning 0:15", "0:15 am"),
    ("quarter to 12 in the morning", "11:45 am"),
    ("twenty to eight", "7:40"),
    ("seven thirty pm", "19:30"),
    ("seven oh five am", "7:05"),
    ("ten past 9 am", "09:10"),
    ("noon", "12 pm"),
    ("12 noon", "12:00"),
    ("midnight", "12 am"),
    ("19h30", "7:30 pm"),
    ("1930 hours", "19:30"),
    ("7p", "7 pm"),
    ("at 3pm", "15:00"),
    ("morning, 11", "11 am"),
    ("2 at night", "2 am"),
    ("Nine in the night", "9 pm"),
]


@pytest.mark.parametrize(("a", "b"), SAME_MINUTE)
def test_spoken_and_written_times_agree(a, b):
    assert parse_clock(a) is not None
    assert parse_clock(a) == parse_clock(b)


@pytest.mark.parametrize(("a", "b"), SAME_MINUTE)
def test_the_comparator_says_equal_both_ways(typed_values, a, b):
    assert typed_values.compare(a, b).equivalent
    assert typed_values.compare(b, a).equivalent
    assert typed_values.compare(a, b).method in ("time", "exact")


DIFFERENT_MINUTE = [
    ("quarter to 6 pm", "6:15 pm"),
    ("quarter past 6 pm", "5:45 pm"),
    ("half past six in the evening", "6:30 am"),
    ("six in the morning", "6 pm"),
    ("11 in the night", "11 am"),
    ("evening 6", "16:00"),
    ("one pm", "6 pm"),
    ("17:30", "5:30 am"),
    ("6:30", "6:30 pm"),  # an unmarked time is on the 24-hour clock
]


@pytest.mark.parametrize(("a", "b"), DIFFERENT_MINUTE)
def test_different_minutes_differ_both_ways(typed_values, a, b):
    assert parse_clock(a) is not None and parse_clock(b) is not None
    assert not typed_values.compare(a, b).equivalent
    assert not typed_values.compare(b, a).equivalent


@pytest.mark.parametrize("text", ["6", "2024", "15", "6.30", "morning", "the evening", "5 A", "8 pm in the morning",
                                  "quarter to", "half past", "25:00", "7:75 pm", "13 pm"])
def test_what_is_no_clock_time(text):
    assert parse_clock(text) is None


def test_a_time_against_a_number_is_not_read_as_a_time(typed_values):
    # "6" alone is a number: no day-part, meridiem or minutes make it a time
    assert typed_values.compare("6", "6").equivalent
    assert not typed_values.compare("6 pm", "6").equivalent
