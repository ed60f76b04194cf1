"""A negation contradicts a clause only when it denies something that clause states: a word in its scope (from
the cue to the end of the clause or a subordinate clause) that the other clause states in some form. "There's no
rule that decides ..." denies a rule, which "A team can use the same player ..." never asserts."""

from __future__ import annotations

import pytest

from monitor.equivalence.polarity import _negated_words, off_topic_negation


@pytest.mark.parametrize(("a", "b"), [
    ("There is no dress code that says what guests must wear.", "Guests can wear jeans to the party."),
    ("Entry is free.", "There is no charge."),  # a paraphrase, not a flip
    ("Nobody objected.", "The plan was approved."),
])
def test_a_negation_of_something_the_other_does_not_state_is_no_flip(a, b):
    assert off_topic_negation(a, b) and off_topic_negation(b, a)


@pytest.mark.parametrize(("a", "b"), [
    ("The pool is heated.", "The pool is not heated."),
    ("They serve alcohol.", "They do not serve alcohol."),
    ("The hotel allows pets.", "You can't bring pets."),  # the scope holds 'pets'
    ("I found 3 restaurants.", "I couldn't find any restaurants."),  # 'found' is a form of 'find'
    ("Sure.", "The hotel does not allow pets."),  # an answer word states no content: any negation flips it
    ("It is free.", "No, it is not."),  # a negation of no word
])
def test_a_negation_of_what_the_other_states_is_a_flip(a, b):
    assert not off_topic_negation(a, b) and not off_topic_negation(b, a)


def test_a_capitalised_no_in_a_name_is_no_cue():
    assert _negated_words("Playing No Sleep, it is not loud") == [frozenset({"loud"})]
    assert _negated_words("No, it is not") is None  # a negation of no word


def test_a_shared_word_in_the_scope_keeps_the_flip():
    # the limit of reading scope by words: 'museum' is what both clauses are about, yet it keeps the flip
    assert not off_topic_negation("The museum has free entry.", "There is no charge for the museum.")


def test_replies_with_a_real_flip_still_fail_and_an_off_topic_negation_passes(replies):
    assert not replies.compare("The apartment has a balcony.", "The apartment does not have a balcony.").equivalent
    assert replies.compare("Yes, you can bring your own snacks to the screening.",
                           "There's no rule that says which snacks you can bring to the screening.").equivalent
