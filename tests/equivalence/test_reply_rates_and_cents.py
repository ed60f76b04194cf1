"""Amounts in replies: a rate's period is part of the fact; dollars and cents in words are one amount."""

from __future__ import annotations

import pytest

from monitor.equivalence.facts import extract_facts
from monitor.equivalence.replies import INCONSISTENT, reply_reason

SAME = [
    ("The rent is $2,400 per month.", "It costs $2400 a month."),
    ("Rooms are $90 a night.", "A room is $90 per night."),
    ("The rent is $2,400 per month.", "It costs $2400 monthly."),
    ("The total comes to $45.50.", "That will be 45 dollars and 50 cents."),
    ("The fee is $3.07.", "The fee is three dollars and seven cents."),
]
CHANGED = [
    ("The rent is $2,400 per month.", "It costs $2400 a week.", "'$2400 a week' vs gold '$2,400 per month'"),
    ("Rooms are $90 a night.", "Rooms are $90 per person.", "'$90 per person' vs gold '$90 a night'"),
    ("The total comes to $45.50.", "That will be 45 dollars and 5 cents.", "vs gold '$45.50'"),
]


@pytest.mark.parametrize(("gold", "pred"), SAME)
def test_the_same_amount_and_rate_in_other_words_passes(replies, gold, pred):
    m = replies.compare(gold, pred)
    assert m.truthful, m


@pytest.mark.parametrize(("gold", "pred", "detail"), CHANGED)
def test_another_rate_or_amount_is_inconsistent_and_named(replies, gold, pred, detail):
    m = replies.compare(gold, pred)
    assert reply_reason(m) == INCONSISTENT, m
    assert detail in (m.detail or ""), m


def test_a_rate_stated_on_one_side_only_is_not_a_change(replies):
    assert replies.compare("The rent is $2,400 per month.", "The rent is $2,400.").truthful


def test_rate_and_cents_readings():
    (rate,) = extract_facts("Parking is $15/hour.")
    assert rate.kind == "money" and getattr(rate.value, "per", None) == "hour"
    (cents,) = extract_facts("It was twelve pounds and thirty pence.")
    assert getattr(cents.value, "amount", None) == 12.30
