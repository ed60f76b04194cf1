"""Replies that change the day ("Thursday" for "Tuesday", "today" for "tomorrow"), an amount said in words
("an hour and a half", "a dozen") or the kind of trip: inconsistent, and named; the same said otherwise passes."""

from __future__ import annotations

import pytest

from monitor.equivalence.relative_dates import day_clashes
from monitor.equivalence.replies import INCONSISTENT, reply_reason

CHANGED = [
    ("Your appointment is on Tuesday at 3 pm.", "Your appointment is on Thursday at 3 pm.", "'thursday'"),
    ("The delivery will arrive tomorrow.", "The delivery will arrive today.", "'today'"),
    ("I booked it for next week.", "I booked it for this week.", "'this week'"),
    ("The store is open on weekends.", "The store is open on weekdays.", "'weekdays'"),
    ("The flight takes an hour and a half.", "The flight takes two hours.", "'2 hours'"),
    ("I found a dozen options.", "I found 20 options.", "'20'"),
    ("It is a one-way ticket.", "It is a round-trip ticket.", "'round-trip'"),
]
KEPT = [
    ("Your appointment is on Tuesday at 3 pm.", "You're booked for Tue at 3 pm."),
    ("You can pick it up on Monday.", "It'll be ready for pickup Monday."),
    ("The flight takes an hour and a half.", "The flight takes 90 minutes."),
    ("I found a dozen options.", "I found 12 options."),
    ("The meeting is on Friday, not Thursday.", "The meeting is on Friday."),
]


@pytest.mark.parametrize(("gold", "pred", "named"), CHANGED)
def test_a_changed_day_amount_or_trip_is_inconsistent_and_named(replies, gold, pred, named):
    m = replies.compare(gold, pred)
    assert reply_reason(m) == INCONSISTENT, m
    assert named in (m.detail or "").lower(), m


@pytest.mark.parametrize(("gold", "pred"), KEPT)
def test_the_same_day_or_amount_said_otherwise_passes(replies, gold, pred):
    m = replies.compare(gold, pred)
    assert m.equivalent, m


def test_day_clashes_need_a_day_of_the_same_kind_on_both_sides():
    assert day_clashes("see you tomorrow", "see you today") == [("today", "tomorrow")]
    assert day_clashes("see you tomorrow", "see you on Friday") == []  # depends on today's date
    assert day_clashes("open on Monday and Tuesday", "open on Tuesday") == []  # less said, nothing changed
    assert day_clashes("it costs $90 a week", "it costs $90 a month") == []  # a rate's period, not a span
