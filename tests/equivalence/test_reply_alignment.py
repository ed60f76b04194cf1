"""A prediction that says every content word of gold in its own words (the same word, a WordNet synonym, a word
for the same reported state) is judged by the lower cut ``semantic_aligned``; a reply that keeps only gold's names
is not judged by the cut for replies that keep every typed value (``semantic_facts``)."""

from __future__ import annotations

import pytest

from monitor.equivalence.alignment import content_aligned
from monitor.equivalence.calibration import ReplyThresholds
from monitor.equivalence.replies import INCONSISTENT, reply_reason

ALIGNED = ("Your booking is confirmed.", "All set, the reservation went through.")
NOT_ALIGNED = ("Your booking is confirmed.", "We look forward to seeing you at dinner.")


@pytest.mark.parametrize(("gold", "pred"), [
    ALIGNED,
    ("The payment was successful.", "Your payment went through."),
    ("Your table is reserved.", "The table has been booked for you."),
])
def test_every_gold_word_said_in_other_words_is_aligned(gold, pred):
    assert content_aligned(gold, pred)


@pytest.mark.parametrize(("gold", "pred"), [
    NOT_ALIGNED,
    ("There is a young girl.", "There is a young woman."),  # a girl is a kind of woman, not a synonym
    ("Your booking is confirmed.", "Your booking is ready."),  # "ready" reports no state of the list
    ("Hello!", "Hi."),  # no content word in gold
])
def test_a_gold_word_left_unsaid_or_said_by_a_broader_word_is_not_aligned(gold, pred):
    assert not content_aligned(gold, pred)


@pytest.fixture(scope="module")
def strict(scorer, values):
    """A comparator whose general cut is high and whose cut for aligned replies is low."""
    from monitor.equivalence import ReplyComparator

    return ReplyComparator(semantic=scorer, values=values,
                           thresholds=ReplyThresholds(semantic=0.6, semantic_aligned=0.3, semantic_facts=0.3))


def test_an_aligned_reply_is_judged_by_the_aligned_cut(strict, scorer):
    cos = scorer.similarity([ALIGNED])[0]
    assert 0.3 <= cos < 0.6
    m = strict.compare(*ALIGNED)
    assert m.equivalent and m.score >= 0.5, m


def test_a_reply_that_is_not_aligned_is_judged_by_the_general_cut(strict, scorer):
    cos = scorer.similarity([NOT_ALIGNED])[0]
    assert cos < 0.6
    m = strict.compare(*NOT_ALIGNED)
    assert not m.equivalent and "says something other than gold" in (m.detail or "")


def test_alignment_does_not_excuse_a_negation(strict):
    m = strict.compare("Your booking is confirmed.", "Your reservation is not confirmed.")
    assert reply_reason(m) == INCONSISTENT, m


def test_a_reply_keeping_only_a_name_is_judged_by_the_general_cut(strict, scorer):
    pair = ("Paris hosts the climate summit this year.", "Paris is famous for its cafes.")
    assert 0.3 <= scorer.similarity([pair])[0] < 0.6
    m = strict.compare(*pair)
    assert not m.equivalent and "says something other than gold" in (m.detail or ""), m


def test_a_reply_keeping_every_typed_value_is_judged_by_the_facts_cut(strict, scorer):
    pair = ("It will take 24 minutes to reach your destination.", "The ride lasts about 24 minutes.")
    assert 0.3 <= scorer.similarity([pair])[0] < 0.6
    assert strict.compare(*pair).equivalent
