"""A count gold gives of a definite group ("the two dogs") and a prediction naming the group by its definite
plural ("the dogs") say the same thing less precisely: the left-out count weighs like a left-out name
(``overrule_names``). A count gold asserts ("I found 3 restaurants"), a bare plural ("Dogs are playing") and a
singular stay a left-out value."""

from __future__ import annotations

import pytest

from monitor.equivalence.replies import INCOMPLETE, reply_reason
from monitor.equivalence.reply_facts import diff_facts, plural_kept, reply_facts


def _exact(g, p) -> bool:
    return g.text == p.text


def _vague(gold: str, pred: str) -> list[bool]:
    return [d.vague for d in diff_facts(gold, pred, _exact).dropped]


@pytest.mark.parametrize(("gold", "pred"), [
    ("The two dogs are playing fetch in the snow.", "The dogs play in the snow."),
    ("The 3 restaurants I found are cheap.", "The restaurants I found are cheap."),
    ("Her two brothers came to visit.", "Her brothers came to visit."),
])
def test_a_definite_count_left_for_its_plural_is_vague(gold, pred):
    assert _vague(gold, pred) == [True]


@pytest.mark.parametrize(("gold", "pred"), [
    ("I found 3 restaurants you may like.", "I found restaurants you may like."),  # an asserted count
    ("I found 3 restaurants you may like.", "I found the restaurants you may like."),
    ("The two dogs are playing.", "Dogs are playing."),  # a bare plural
    ("The two NATO soldiers were killed.", "The NATO soldier was killed."),  # a singular
    ("The two dogs are playing.", "The cats are playing."),  # other things
])
def test_other_left_out_counts_stay_values(gold, pred):
    assert _vague(gold, pred) == [False]


def test_only_counts_of_more_than_one_qualify():
    norm, facts = reply_facts("The 1 dog is playing.")
    assert not any(plural_kept(f, norm, "The dogs are playing.") for f in facts)


def test_the_definite_plural_passes_a_close_reply(replies):
    m = replies.compare("The two dogs are playing fetch in the snow.", "The dogs play in the snow.")
    assert m.equivalent, m.detail


def test_an_asserted_count_left_out_is_still_incomplete(replies):
    m = replies.compare("I found 3 restaurants you may like.", "I found restaurants you may like.")
    assert reply_reason(m) == INCOMPLETE
    assert "3" in (m.detail or "")
