"""A place and the region or country after its comma are one place ("Albany, NY"): the qualifier names no place
of its own, so "NY" does not keep gold's "New York City"."""

from __future__ import annotations

import pytest

from monitor.equivalence.replies import INCONSISTENT, reply_reason
from monitor.equivalence.reply_facts import reply_facts


def _names(text: str) -> list[str]:
    return [f.text for f in reply_facts(text)[1] if f.kind == "entity"]


def test_a_place_and_its_region_are_one_fact():
    assert _names("The concert is in Albany, NY.") == ["Albany, NY"]
    assert _names("We land in Lyon, France at noon.") == ["Lyon, France"]
    assert _names("I found flights to London, Paris and Rome.") == ["London", "Paris", "Rome"]  # a list


@pytest.mark.parametrize(("gold", "pred", "detail"), [
    ("The concert is in New York City.", "The concert is in Albany, NY.", "'Albany, NY' vs gold 'New York City'"),
    ("Your bus goes to Los Angeles.", "Your bus goes to Fresno, CA.", "'Fresno, CA' vs gold 'Los Angeles'"),
])
def test_another_city_qualified_by_gold_s_region_is_a_change(replies, gold, pred, detail):
    m = replies.compare(gold, pred)
    assert reply_reason(m) == INCONSISTENT and detail in (m.detail or ""), m


@pytest.mark.parametrize(("gold", "pred"), [
    ("The concert is in New York City.", "The concert is in New York, NY."),
    ("The hotel is in Vancouver.", "The hotel is in Vancouver, BC."),
    ("I found flights to London, Paris and Rome.", "I found flights to Rome, Paris and London."),
])
def test_gold_s_place_with_its_region_passes(replies, gold, pred):
    for g, p in ((gold, pred), (pred, gold)):
        assert replies.compare(g, p).equivalent, (g, p)
