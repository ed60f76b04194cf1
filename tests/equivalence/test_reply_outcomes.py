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
    ("Your alarm has been set.", "Your alarm has been deleted.", "'deleted'"),
    ("The payment of $20 to Anna was sent.", "The payment of $20 to Anna failed.", "'failed'"),
    ("The event was added to your calendar.", "The event was removed from your calendar.", "'removed'"),
]
AGREE = [
    ("Your payment went through.", "The payment was successful."),
    ("Your loan application was approved.", "Your loan application was not declined."),
    ("The event is sold out.", "There are no tickets available for the event."),
    ("Your alarm has been set.", "The alarm is set for 7 am and the old one was not deleted."),
]


@pytest.mark.parametrize(("gold", "pred", "named"), REVERSED)
def test_the_opposite_outcome_is_inconsistent_and_named(replies, gold, pred, named):
    m = replies.compare(gold, pred)
    assert reply_reason(m) == INCONSISTENT, m
    assert named in (m.detail or ""), m


@pytest.mark.parametrize(("gold", "pred"), AGREE)
def test_the_same_outcome_is_no_swap(gold, pred):
    assert outcome_swaps(gold, pred) == []


FREE_AGREES = [
    ("There is no admission fee for the museum.", "The museum is free to visit."),
    ("Parking is free at the venue.", "There's no charge for parking at the venue."),
]
FREE_CONTRADICTS = [
    ("There is an entrance fee at the zoo.", "The zoo is free to enter.", "'free' in place of gold's 'fee'"),
    ("There is no fee to use the pool.", "There is a fee to use the pool.", "negates gold"),
    ("The concert is free.", "There is a $20 cover charge for the concert.", "'charge' in place of gold's 'free'"),
]


@pytest.mark.parametrize(("gold", "pred"), FREE_AGREES)
def test_a_cost_denied_is_free(replies, gold, pred):
    m = replies.compare(gold, pred)
    assert "negates" not in (m.detail or ""), m
    assert m.equivalent, m


@pytest.mark.parametrize(("gold", "pred", "named"), FREE_CONTRADICTS)
def test_a_fee_against_free_is_inconsistent(replies, gold, pred, named):
    m = replies.compare(gold, pred)
    assert reply_reason(m) == INCONSISTENT, m
    assert named in (m.detail or ""), m


def test_free_for_a_time_is_another_sense():
    from monitor.equivalence.polarity import no_cost_agrees

    assert no_cost_agrees("There is no entry fee", "It is free to enter")
    assert not no_cost_agrees("There is no entry fee", "You are free between 2 and 4")


def test_one_state_said_with_the_other_polarity_is_a_flip():
    from monitor.equivalence.categories import state_flips

    assert state_flips("They do not allow pets.", "Pets are welcome.") == [("are welcome", "allow")]
    assert state_flips("Pets are allowed but smoking is not allowed.", "Pets are welcome.") == []  # mixed
    assert state_flips("Pets are not allowed.", "No pets are permitted.") == []


def test_words_of_one_category_value_do_not_clash():
    from monitor.equivalence.categories import category_clashes

    assert category_clashes("We serve BBQ.", "We serve barbecue.") == ()
    assert category_clashes("It is a hip-hop song.", "It is a hip hop song.") == ()
    assert category_clashes("It is moderately priced.", "It is mid-range.") == ()
    assert category_clashes("It is moderately priced.", "It is inexpensive.") == (("inexpensive", "moderately priced"),)


def test_a_name_in_capitals_does_not_make_a_sentence_a_headline(replies):
    m = replies.compare("Now playing Bohemian Rhapsody by Queen.", "Playing Bohemian Rhapsody by ABBA now.")
    assert reply_reason(m) == INCONSISTENT, m
    assert "'ABBA' vs gold 'Queen'" in (m.detail or ""), m


STATE_KEPT = [
    ("Your booking is confirmed. The total is $80.", "The room has been reserved and it comes to $80."),
    ("The order is completed and costs $42.", "You're all set, the cost is $42."),
]


@pytest.mark.parametrize(("gold", "pred"), STATE_KEPT)
def test_a_clause_reporting_a_state_is_kept_by_another_word_for_it(replies, gold, pred):
    from monitor.equivalence.categories import state_kept

    assert state_kept(gold.split(".")[0], pred)
    m = replies.compare(gold, pred)
    assert m.equivalent, m


def test_the_state_said_negated_is_not_kept(replies):
    from monitor.equivalence.categories import state_kept

    gold, pred = "Your booking is confirmed. The total is $80.", "The room has not been reserved; it would come to $80."
    assert not state_kept("Your booking is confirmed", pred)
    assert not replies.compare(gold, pred).equivalent
