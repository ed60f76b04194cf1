"""A reply that reports the opposite outcome ("declined" for "approved", "out of stock" for "in stock") or another
weather contradicts gold, wherever the state stands; the same outcome said otherwise, or a negated opposite, agrees."""

from __future__ import annotations

import pytest

from monitor.equivalence.categories import outcome_swaps
from monitor.equivalence.replies import INCONSISTENT, reply_reason

REVERSED = [
    ("Your payment went through.", "Your payment failed.", "'failed'"),
    ("The event is sold out.", "Tickets are still available for the event.", "'available'"),
    ("The store has the item in stock.", "The item is out of stock at the store.", "'out of stock'"),
    ("Your loan application was approved.", "Your loan application was declined.", "'declined'"),
    ("Your flight is on time.", "Your flight is delayed.", "'delayed'"),
    ("The weather in Paris tomorrow will be sunny.", "The weather in Paris tomorrow will be rainy.", "'rainy'"),
    ("The hotel has paid parking.", "The hotel has free parking.", "'free'"),
]
AGREE = [
    ("Your payment went through.", "The payment was successful."),
    ("Your loan application was approved.", "Your loan application was not declined."),
    ("The event is sold out.", "There are no tickets available for the event."),
]


@pytest.mark.parametrize(("gold", "pred", "named"), REVERSED)
def test_the_opposite_outcome_is_inconsistent_and_named(replies, gold, pred, named):
    m = replies.compare(gold, pred)
    assert reply_reason(m) == INCONSISTENT, m
    assert named in (m.detail or ""), m


@pytest.mark.parametrize(("gold", "pred"), AGREE)
def test_the_same_outcome_is_no_swap(gold, pred):
    assert outcome_swaps(gold, pred) == []
