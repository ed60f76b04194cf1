"""A gold word replaced by its antonym in the same place contradicts gold (WordNet adjective antonyms)."""

from __future__ import annotations

import pytest

from monitor.equivalence import wordnet
from monitor.equivalence.replies import INCONSISTENT, reply_reason

pytestmark = pytest.mark.skipif(not wordnet.available(), reason="needs Debian's wordnet-base")

FLIPPED = [
    ("The museum is open on weekends.", "The museum is closed on weekends.", "'closed' in place of gold's 'open'"),
    ("The pool is open until 10 pm.", "The pool is shut until 10 pm.", "'shut' in place of gold's 'open'"),
    ("The tickets for this show are cheap.", "The tickets for this show are expensive.", "'expensive'"),
    ("It is an early flight.", "It is a late flight.", "'late' in place of gold's 'early'"),
]
KEPT = [
    ("The museum is open on weekends.", "The museum is not closed on weekends."),  # a negated antonym agrees
    ("The museum is open on weekends.", "On weekends you can visit the museum."),
    ("Leaving from Anaheim and arriving at Sacramento.", "It leaves from Anaheim and arrives in Sacramento."),
    ("A bird sitting on a concrete slab.", "A bird standing on concrete."),  # verbs are not read for antonyms
]


@pytest.mark.parametrize(("gold", "pred", "detail"), FLIPPED)
def test_an_antonym_in_place_is_inconsistent_and_named(replies, gold, pred, detail):
    m = replies.compare(gold, pred)
    assert reply_reason(m) == INCONSISTENT, m
    assert detail in (m.detail or ""), m


@pytest.mark.parametrize(("gold", "pred"), KEPT)
def test_no_antonym_in_place_is_no_contradiction(replies, gold, pred):
    m = replies.compare(gold, pred)
    assert "in place of gold's" not in (m.detail or ""), m


def test_antonyms_of_adjectives_and_verbs():
    assert "closed" in wordnet.antonyms("open", "a")
    assert "close" in wordnet.antonyms("opens", "v")
    assert wordnet.antonyms("opens", "a") == frozenset()
