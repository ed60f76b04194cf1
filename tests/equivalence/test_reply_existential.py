"""An existential negation ("there is no X") denies that X exists: it contradicts a clause that speaks of X, not
one that never asserts X. Other negations keep their plain polarity reading."""

from __future__ import annotations

import pytest

from monitor.equivalence import wordnet
from monitor.equivalence.existential import denied, denies_something_else
from monitor.equivalence.replies import INCONSISTENT, reply_reason

pytestmark = pytest.mark.skipif(not wordnet.available(), reason="needs Debian's wordnet-base")


def test_what_an_existential_negation_denies():
    assert denied("There is no dress code that says what guests must wear.") == {"dress", "code"}
    assert denied("There aren't any free tables at 7 pm.") == {"free", "tables"}
    assert denied("There's no entry fee.") == {"entry", "fee"}
    assert denied("The pool is not heated.") is None  # not existential
    assert denied("There is no reason it would not work.") is None  # a second cue: plain polarity
    assert denied("There is no.") is None  # nothing denied


@pytest.mark.parametrize(("a", "b"), [
    ("There is no dress code that says what guests must wear.", "Guests can wear jeans to the party."),
    ("There's no entry fee.", "It is free to get in."),
    ("There is no limit on how often you can call.", "You may call as often as you like."),
])
def test_denying_what_the_other_does_not_speak_of_is_no_flip(a, b):
    assert denies_something_else(a, b) and denies_something_else(b, a)


@pytest.mark.parametrize(("a", "b"), [
    ("We have a room for you tonight.", "There are no rooms left tonight."),  # room / rooms: one noun
    ("The hotel has a pool.", "There is no pool at the hotel."),
    ("I found a flight on March 3.", "There aren't any flights on March 3."),
    ("Sure.", "There is no parking."),  # an answer word states nothing: any negation answers it
    ("The salon has a good rating.", "It is not a unisex salon."),  # not existential: plain polarity
])
def test_a_negation_of_what_the_other_states_stays_a_flip(a, b):
    assert not denies_something_else(a, b) and not denies_something_else(b, a)


def test_replies_an_existential_negation_of_something_else_passes(replies):
    m = replies.compare("Yes, you can bring your own snacks to the screening.",
                        "There's no rule that says which snacks you may bring to the screening.")
    assert m.equivalent and "negates gold" not in (m.detail or ""), m


def test_replies_an_existential_negation_of_the_same_thing_fails(replies):
    m = replies.compare("We have a table for four at 7 pm.", "There are no tables for four at 7 pm.")
    assert reply_reason(m) == INCONSISTENT, m
    assert "negates gold" in (m.detail or ""), m
