"""How much a fact finding weighs against the whole-reply embedding (ReplyThresholds.semantic_facts and
.overrule in monitor/equivalence/calibration.py, applied by ReplyComparator.decide)."""

from __future__ import annotations

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

    return ReplyComparator(semantic=scorer, values=values, thresholds=ReplyThresholds(overrule=0.8))


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


def test_by_default_a_detail_left_out_fails_whatever_the_cosine(replies):
    assert DEFAULT_REPLY_THRESHOLDS.overrule > 1.0
    m = replies.compare(*DETAIL)
    assert reply_reason(m) == INCOMPLETE and "June 5" in (m.detail or "")
    changed = replies.compare("China yuan strengthens to 6.168 against USD",
                              "China yuan strengthens to 6.1696 against USD")
    assert reply_reason(changed) == INCONSISTENT


def test_a_close_enough_reply_outweighs_a_left_out_or_changed_detail(prose, scorer):
    assert scorer.similarity([DETAIL])[0] >= 0.8
    assert prose.compare(*DETAIL).equivalent
    assert prose.compare("China yuan strengthens to 6.168 against USD",
                         "China yuan strengthens to 6.1696 against USD").equivalent


def test_overruling_keeps_contradictions_and_distant_replies(prose):
    flip = prose.compare("The refund was approved.", "The refund was not approved.")
    assert reply_reason(flip) == INCONSISTENT and "negates" in (flip.detail or "")
    far = prose.compare("The store opens at 9 and closes at 6.", "It opens at 9.")
    assert not far.equivalent
