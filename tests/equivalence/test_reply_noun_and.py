""""and" cuts a clause only when a statement follows it ("the hotel has wifi and does not allow pets"); between
two nouns of one statement it joins nothing ("cut the tail and body of a shrimp") (``polarity.clauses``)."""

from __future__ import annotations

import pytest

from monitor.equivalence.polarity import clauses
from monitor.equivalence.replies import INCONSISTENT, reply_reason


@pytest.mark.parametrize("text", [
    "The lady cut the tail and body of a shrimp.",
    "They have wifi and parking.",
    "He plays both bowling and batting in a super over.",
])
def test_and_between_nouns_keeps_one_clause(text):
    assert len(clauses(text)) == 1


@pytest.mark.parametrize(("text", "second"), [
    ("It's barbecue and the price range is moderate.", "the price range is moderate"),
    ("The hotel has wifi and does not allow pets.", "does not allow pets"),
    ("It is free and it is child friendly.", "it is child friendly"),
    ("She opened the door and walked out.", "walked out"),
    ("Book the table and I'll confirm.", "I'll confirm"),
    ("The hotel has wifi and allows pets.", "allows pets"),  # a word in -s right after "and" may be a verb
])
def test_and_before_a_statement_cuts_the_clause(text, second):
    assert second in [c.text for c in clauses(text)]


def test_a_negated_clause_after_and_is_still_a_flip(replies):
    m = replies.compare("The hotel has wifi and does not allow pets.", "The hotel has wifi and allows pets.")
    assert reply_reason(m) == INCONSISTENT
    assert "negates" in (m.detail or "")


def test_a_noun_pair_is_one_statement_to_cover(replies):
    m = replies.compare("The chef sliced the head and tail off the fish.", "The chef is cleaning the fish.")
    assert "leaves out 'The chef sliced the head'" not in (m.detail or "")
