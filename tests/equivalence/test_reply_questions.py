"""A question for another thing: "Which city are you departing from?" does not ask what gold's "What date do you
want to leave?" asks, however alike the sentences sound (cosine 0.51). Questions for one thing in other words
pass."""

from __future__ import annotations

import pytest

from monitor.equivalence import wordnet
from monitor.equivalence.questions import asked_for, question_clashes
from monitor.equivalence.replies import INCONSISTENT, reply_reason

pytestmark = pytest.mark.skipif(not wordnet.available(), reason="needs Debian's wordnet-base")


def test_what_a_question_asks_for():
    assert asked_for("Which city are you departing from?") == (("which city", frozenset({"place"})),)
    assert dict(asked_for("When do you want to leave?")) == {"when": frozenset({"time"})}
    assert dict(asked_for("How many tickets do you need?")) == {"how many": frozenset({"quantity"})}
    assert "time" in dict(asked_for("What date do you want to leave?"))["what date"]
    assert asked_for("Which restaurant do you want?") == ()  # WordNet classes no restaurant: no evidence
    assert asked_for("What date do you want to leave.") == ()  # no question
    assert asked_for("What do you think about it?") == ()


@pytest.mark.parametrize(("gold", "pred", "detail"), [
    ("What date do you want to leave?", "Which city are you departing from?",
     "'which city' in place of gold's 'what date'"),
    ("What time should I book the table for?", "How many people will be dining?",
     "'how many' in place of gold's 'what time'"),
    ("Where would you like to be picked up?", "When would you like to be picked up?",
     "'when' in place of gold's 'where'"),
])
def test_a_question_for_another_thing_is_inconsistent(replies, gold, pred, detail):
    m = replies.compare(gold, pred)
    assert reply_reason(m) == INCONSISTENT and detail in (m.detail or ""), m


@pytest.mark.parametrize(("gold", "pred"), [
    ("What date do you want to leave?", "When do you want to leave?"),
    ("Which city are you departing from?", "Where are you leaving from?"),
    ("What time should I book the table for?", "At what time would you like the table?"),
])
def test_a_question_for_the_same_thing_in_other_words_passes(replies, gold, pred):
    assert question_clashes(gold, pred) == () and question_clashes(pred, gold) == ()
    assert replies.compare(gold, pred).equivalent


def test_a_statement_is_not_judged_as_a_question():
    assert question_clashes("What date do you want to leave?", "You are leaving from Denver.") == ()


def test_how_many_and_how_much_ask_for_one_kind_of_thing():
    assert question_clashes("How much money do you want to send?", "How many dollars should I send?") == ()


def test_a_question_for_a_kind_of_anything_is_no_evidence():
    assert asked_for("What type would you like?") == ()
