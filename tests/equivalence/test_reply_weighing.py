"""How much a fact finding weighs against the whole-reply embedding (ReplyThresholds.semantic_facts,
.overrule and .overrule_names in monitor/equivalence/calibration.py, applied by ReplyComparator.decide)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from monitor.equivalence.calibration import DEFAULT_REPLY_THRESHOLDS, ReplyThresholds
from monitor.equivalence.replies import INCOMPLETE, INCONSISTENT, reply_reason

KEPT = ("It will take 24 minutes to reach your destination.", "The ride lasts about 24 minutes.")
FACTLESS = ("Do you want to reserve it?", "Would you like to continue with the reservation?")
DETAIL = ("Former chief financial officer Franklyn M. Bergonzi pleaded guilty to one count of conspiracy on "
          "June 5 and agreed to cooperate with prosecutors.",
          "Last week, former chief financial officer Franklyn Bergonzi pleaded guilty to one count of conspiracy "
          "and agreed to cooperate with the government's investigation.")


@pytest.fixture(scope="module")
def strict_words(scorer, values):
    """A comparator whose cut for fact-less replies is high and for replies keeping every fact is low."""
    from monitor.equivalence import ReplyComparator

    return ReplyComparator(semantic=scorer, values=values,
                           thresholds=ReplyThresholds(semantic=0.6, semantic_facts=0.4))


@pytest.fixture(scope="module")
def prose(scorer, values):
    """A comparator for general prose: whole replies at cosine >= 0.8 outweigh fact findings."""
    from monitor.equivalence import ReplyComparator

    return ReplyComparator(semantic=scorer, values=values,
                           thresholds=ReplyThresholds(overrule=0.8, overrule_names=0.8))


def test_a_reply_keeping_every_fact_is_judged_by_the_lower_cut(strict_words, scorer):
    cos = scorer.similarity([KEPT])[0]
    assert 0.4 <= cos < 0.6
    assert strict_words.compare(*KEPT).equivalent


def test_a_fact_less_reply_at_the_same_cosine_is_judged_by_the_semantic_cut(strict_words, scorer):
    cos = scorer.similarity([FACTLESS])[0]
    assert 0.4 <= cos < 0.6
    m = strict_words.compare(*FACTLESS)
    assert not m.equivalent and "says something other than gold" in (m.detail or "")


def test_the_lower_cut_does_not_excuse_a_changed_fact(strict_words):
    m = strict_words.compare("It will take 24 minutes to reach your destination.", "The ride lasts about 42 minutes.")
    assert reply_reason(m) == INCONSISTENT and "'42 minutes' vs gold '24 minutes'" in (m.detail or "")


FLIGHT = ("Your flight to Paris leaves at 10:15 on June 5 from gate B12, and the seat is 14C by the window.",
          "Your flight to Paris leaves at 10:15 from gate B12, and the seat is 14C by the window.")
NAME = ("Tail wagging, the dog trotted on stage before a crowd of 10,000 at the annual conference at the Anaheim "
        "Convention Center.",
        "Tail wagging, the dog trotted on stage before a crowd of 10,000 at the annual conference.")
YUAN = ("China yuan strengthens to 6.168 against USD", "China yuan strengthens to 6.1696 against USD")


def test_the_defaults_weigh_a_left_out_name_more_lightly_than_a_left_out_value():
    th = DEFAULT_REPLY_THRESHOLDS
    assert th.overrule_names < th.overrule <= 1.0


def _no_clause_excuse(scorer, values, **cuts):
    """The defaults with ``cuts``, and without the excuse for a name whose clause is otherwise stated (entity)."""
    from monitor.equivalence import ReplyComparator

    return ReplyComparator(semantic=scorer, values=values,
                           thresholds=replace(DEFAULT_REPLY_THRESHOLDS, entity=1.01, **cuts))


def test_by_default_a_name_left_out_of_a_close_reply_is_wording(replies, scorer, values):
    assert scorer.similarity([NAME])[0] >= DEFAULT_REPLY_THRESHOLDS.overrule_names
    assert replies.compare(*NAME).equivalent
    assert _no_clause_excuse(scorer, values).compare(*NAME).equivalent


def test_a_name_left_out_of_a_reply_not_close_enough_fails(scorer, values):
    cos = scorer.similarity([NAME])[0]
    strict = _no_clause_excuse(scorer, values, overrule_names=cos + 0.01, overrule=1.01)
    m = strict.compare(*NAME)
    assert reply_reason(m) == INCOMPLETE and "Anaheim Convention Center" in (m.detail or "")


def test_a_value_left_out_is_weighed_by_its_own_cut(scorer, values):
    from monitor.equivalence import ReplyComparator

    cos = scorer.similarity([FLIGHT])[0]
    names_only = ReplyComparator(semantic=scorer, values=values,
                                 thresholds=ReplyThresholds(overrule_names=0.7, overrule=cos + 0.01))
    m = names_only.compare(*FLIGHT)
    assert reply_reason(m) == INCOMPLETE and "June 5" in (m.detail or "")
    both = ReplyComparator(semantic=scorer, values=values,
                           thresholds=ReplyThresholds(overrule_names=0.7, overrule=cos - 0.01))
    assert both.compare(*FLIGHT).equivalent


def test_by_default_a_value_left_out_of_a_reply_below_the_cut_fails(replies, scorer):
    pair = ("The store opens at 9 and closes at 6.", "The store opens at 9.")
    assert scorer.similarity([pair])[0] < DEFAULT_REPLY_THRESHOLDS.overrule
    m = replies.compare(*pair)
    assert reply_reason(m) == INCOMPLETE and "closes at 6" in (m.detail or "")


def test_a_changed_value_or_name_is_never_outweighed(prose, scorer):
    assert scorer.similarity([YUAN])[0] >= 0.8
    m = prose.compare(*YUAN)
    assert reply_reason(m) == INCONSISTENT and "'6.1696' vs gold '6.168'" in (m.detail or "")
    place = prose.compare("Revenue in the EU was $5M.", "Revenue in the US was $5M.")
    assert reply_reason(place) == INCONSISTENT and "'US' vs gold 'EU'" in (place.detail or "")


def test_a_close_enough_reply_outweighs_a_left_out_detail(prose, scorer):
    assert scorer.similarity([DETAIL])[0] >= 0.8
    assert prose.compare(*DETAIL).equivalent


def test_word_overlap_never_outweighs_a_detail():
    """Without an embedding model the 'cosine' is word containment: 1.0 for any omission."""
    from monitor.equivalence import ReplyComparator

    lexical = ReplyComparator(semantic=None, thresholds=ReplyThresholds(overrule=0.7, overrule_names=0.7))
    m = lexical.compare("The store opens at 9 and closes at 6.", "The store opens at 9.")
    assert reply_reason(m) == INCOMPLETE


def test_overruling_keeps_contradictions_and_distant_replies(prose):
    flip = prose.compare("The refund was approved.", "The refund was not approved.")
    assert reply_reason(flip) == INCONSISTENT and "negates" in (flip.detail or "")
    far = prose.compare("The store opens at 9 and closes at 6.", "It opens at 9.")
    assert not far.equivalent
