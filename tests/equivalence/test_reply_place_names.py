"""A gold city named in the prediction by another name that can refer to it ("NOLA" for New Orleans, a name a
small Italian town also bears) is kept, also inside a longer name; a name of another city, or one that reads as a
region ("NY"), is not."""

from __future__ import annotations

import pytest

from monitor.equivalence.places import other_names
from monitor.equivalence.replies import INCONSISTENT, reply_reason
from monitor.equivalence.reply_facts import diff_facts


def never_same(g, p):
    return False


def test_other_names_of_a_city_include_one_a_small_town_bears():
    names = other_names("New Orleans")
    assert "nola" in names and "big easy" in names
    assert "new orleans" not in names  # its own name is a plain mention


def test_other_names_never_hold_another_city_a_region_or_a_country():
    assert "york" not in other_names("New York City")  # York is a city of its own
    assert "ny" not in other_names("New York City")  # reads as the state
    assert "portland" not in other_names("Portland, Oregon")
    assert other_names("Springfield, Maine") == frozenset()  # an unknown namesake
    assert other_names("the blue door") == frozenset()


@pytest.mark.parametrize(("gold", "pred"), [
    ("The festival opens in New Orleans on Friday.", "The NOLA Jazz Festival opens on Friday."),
    ("Our office moved to New Orleans.", "Our office moved to the Big Easy."),
    ("Our office moved to New Orleans.", "Our office moved to NOLA, Louisiana."),
])
def test_a_city_by_another_of_its_names_is_kept(gold, pred):
    d = diff_facts(gold, pred, never_same)
    assert not d.changed and not d.dropped, d


@pytest.mark.parametrize(("gold", "pred"), [
    ("The festival opens in New Orleans on Friday.", "The Baton Rouge Jazz Festival opens on Friday."),
    ("Our office moved to New Orleans.", "Our office moved to Nola, Italy."),
    ("Our office moved to Portland, Oregon.", "Our office moved to Portland, Maine."),
])
def test_another_place_is_no_other_name(gold, pred):
    d = diff_facts(gold, pred, never_same)
    assert d.changed or d.dropped, d


def test_a_reply_naming_the_city_otherwise_passes_and_another_city_fails(replies):
    assert replies.compare("Twelve people were hurt in a New Orleans parade.",
                           "Twelve people were hurt in a NOLA parade.").equivalent
    m = replies.compare("Twelve people were hurt in a New Orleans parade.",
                        "Twelve people were hurt in a Memphis parade.")
    assert reply_reason(m) == INCONSISTENT


@pytest.mark.parametrize(("gold", "pred", "named"), [
    ("The concert is in New York.", "The concert is in York.", "'York' vs gold 'New York'"),
    ("We land in New Orleans at noon.", "We land in Orleans at noon.", "'Orleans' vs gold 'New Orleans'"),
])
def test_a_place_inside_gold_s_name_of_another_place_is_a_change(replies, gold, pred, named):
    m = replies.compare(gold, pred)
    assert reply_reason(m) == INCONSISTENT and named in (m.detail or ""), m


@pytest.mark.parametrize(("gold", "pred"), [
    ("The concert is in New York.", "The concert is in New York City."),
    ("The bus stops at Kansas City.", "The bus stops in Kansas City, Kansas."),
])
def test_the_same_place_in_more_words_is_kept(replies, gold, pred):
    assert replies.compare(gold, pred).truthful
