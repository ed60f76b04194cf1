"""A date the prediction places in a relative span ("last week" for "on June 5") is said less precisely, not
changed: it weighs like a left-out name (``overrule_names``), not like a left-out value (``overrule``). A
relative *day* ("tomorrow") and another date stay what they were."""

from __future__ import annotations

from dataclasses import replace

import pytest

from monitor.equivalence.calibration import DEFAULT_REPLY_THRESHOLDS
from monitor.equivalence.replies import INCOMPLETE, INCONSISTENT, reply_reason
from monitor.equivalence.reply_facts import diff_facts, relative_span

GOLD = "The mayor opened the new library on March 12 and thanked the volunteers who built it."
SPAN = "Last week the mayor opened the new library and thanked the volunteers who built it."
NONE = "The mayor opened the new library and thanked the volunteers who built it."


def _exact(g, p) -> bool:
    return g.text == p.text


@pytest.mark.parametrize("text", ["It happened last week.", "earlier this month", "Sales rose this year.",
                                  "He resigned recently.", "a few weeks ago", "3 years ago"])
def test_relative_spans_are_found(text):
    assert relative_span(text)


@pytest.mark.parametrize("text", ["It happens tomorrow.", "on Friday", "See you today", "The last train",
                                  "a year of growth", "this weekend", "on Friday of next week",
                                  "next week, on Tuesday"])
def test_days_and_other_words_are_no_relative_span(text):
    assert not relative_span(text)


def test_a_date_left_for_a_relative_span_is_vague():
    diff = diff_facts(GOLD, SPAN, _exact)
    assert [d.fact.text for d in diff.dropped] == ["March 12"] and diff.dropped[0].vague


def test_a_date_left_out_without_a_span_is_not_vague():
    diff = diff_facts(GOLD, NONE, _exact)
    assert [d.fact.text for d in diff.dropped] == ["March 12"] and not diff.dropped[0].vague


def _cuts(scorer, values, pair):
    """Names excused below the pair's cosine, values not."""
    from monitor.equivalence import ReplyComparator

    cos = scorer.similarity([pair])[0]
    th = replace(DEFAULT_REPLY_THRESHOLDS, overrule_names=cos - 0.01, overrule=1.01)
    return ReplyComparator(semantic=scorer, values=values, thresholds=th)


def test_a_relative_span_for_a_date_weighs_like_wording(scorer, values):
    assert _cuts(scorer, values, (GOLD, SPAN)).compare(GOLD, SPAN).equivalent


def test_a_plain_left_out_date_still_weighs_as_a_value(scorer, values):
    m = _cuts(scorer, values, (GOLD, NONE)).compare(GOLD, NONE)
    assert reply_reason(m) == INCOMPLETE and "March 12" in (m.detail or "")


def test_another_date_beside_a_relative_span_is_still_a_change(scorer, values):
    pred = "Last week, on March 21, the mayor opened the new library and thanked the volunteers who built it."
    m = _cuts(scorer, values, (GOLD, pred)).compare(GOLD, pred)
    assert reply_reason(m) == INCONSISTENT and "March 21" in (m.detail or "")


def test_tomorrow_for_a_date_is_not_excused(replies):
    m = replies.compare("Your table at Nopa is booked for March 3rd at 7 pm.",
                        "Your table at Nopa is booked for tomorrow at 7 pm.")
    assert not m.equivalent


def test_a_day_of_a_relative_week_for_a_date_is_not_excused(scorer, values):
    pair = ("Your dental appointment is set for March 8th at 1 pm.",
            "Your dental appointment is set for Friday of next week at 1 pm.")
    m = _cuts(scorer, values, pair).compare(*pair)
    assert not m.equivalent and "March 8th" in (m.detail or "")
