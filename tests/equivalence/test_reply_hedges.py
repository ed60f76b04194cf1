"""A hedge ("may", "might", "could", "reportedly", "likely") weakens a statement; it does not negate it. A
hedged negation ("may not", "is not really") is still a negation."""

from __future__ import annotations

import pytest

from monitor.equivalence.polarity import negated


@pytest.mark.parametrize("text", ["The museum may be closed on Monday.", "The train might arrive late.",
                                  "The shop could open at 9.", "The minister reportedly resigned.",
                                  "The flight is likely to be delayed."])
def test_a_hedge_is_no_negation(text):
    assert not negated(text)


@pytest.mark.parametrize("text", ["The museum may not be open on Monday.", "The train might not stop here.",
                                  "The price is not really that high."])
def test_a_hedged_negation_is_a_negation(text):
    assert negated(text)


def test_two_understatements_are_no_flip():
    from monitor.equivalence.polarity import understatements

    assert understatements("The committee is not really all that powerful.", "The committee is mostly ceremonial.")
    assert understatements("The committee is only advisory.", "The committee is not particularly powerful.")


@pytest.mark.parametrize(("a", "b"), [
    ("The hotel is not really expensive.", "The hotel is expensive."),  # a plain statement: a flip
    ("The hotel is not expensive.", "The hotel is only a bit expensive."),  # a plain negation: a flip
    ("The hotel is really expensive.", "The hotel is just expensive."),  # no negation at all
])
def test_other_pairs_are_no_understatements(a, b):
    from monitor.equivalence.polarity import understatements

    assert not understatements(a, b)


def test_a_softened_negation_against_a_plain_statement_is_still_inconsistent(replies):
    from monitor.equivalence.replies import INCONSISTENT, reply_reason

    m = replies.compare("The hotel pool is not really heated.", "The hotel pool is heated.")
    assert reply_reason(m) == INCONSISTENT and "negates gold" in (m.detail or "")
