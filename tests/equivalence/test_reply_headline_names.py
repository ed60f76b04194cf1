"""Names in a headline: title case marks no names by capitals, but a word the lexicon does not have ("Zelensky")
or a country or its people ("Spain", "Palestinians") is still one."""

from __future__ import annotations

import pytest

from monitor.equivalence import wordnet
from monitor.equivalence.replies import INCOMPLETE, INCONSISTENT, reply_reason
from monitor.equivalence.reply_facts import diff_facts, reply_facts

pytestmark = pytest.mark.skipif(not wordnet.available(), reason="needs Debian's wordnet-base")


def _names(text: str) -> list[str]:
    return [f.text for f in reply_facts(text)[1] if f.kind == "entity"]


def test_headline_names_are_words_the_lexicon_lacks_and_countries():
    assert _names("Zelensky, Scholz Sign New Grain Deal") == ["Zelensky", "Scholz"]
    assert _names("Israel Police Clash With Palestinians in Jerusalem") == ["Israel", "Palestinians"]
    assert _names("Spain-Portugal Summit Opens") == ["Spain", "Portugal"]


def test_common_words_and_honorifics_of_a_headline_are_no_names():
    assert _names("Local Bakery Wins Top Prize At Tallest Tower") == []
    assert _names("Dr. Zelensky Opens New Clinic") == ["Zelensky"]  # the honorific is not part of the name


def test_a_possessive_ends_a_name():
    assert _names("Kowalczyk's Wojcik Wins Again") == ["Kowalczyk", "Wojcik"]


def test_a_name_left_out_of_a_headline_fails(replies):
    m = replies.compare("Zelensky, Scholz Sign New Grain Deal", "Scholz arrives for grain talks")
    assert reply_reason(m) == INCOMPLETE and "Zelensky" in (m.detail or ""), m


def test_another_name_in_a_headline_slot_is_a_change(replies):
    m = replies.compare("Zelensky Meets Scholz In Kyiv", "Zelensky meets Sanchez in Kyiv.")
    assert reply_reason(m) == INCONSISTENT and "'Sanchez' vs gold 'Scholz'" in (m.detail or ""), m


@pytest.mark.parametrize(("gold", "pred"), [
    ("Zelensky Meets Scholz In Kyiv", "Zelensky meets Scholz in Kyiv."),
    ("Zelensky Signs New Grain Deal", "Zelensky signs a new grain deal"),
    ("Local Bakery Wins Top Prize", "A local bakery won the top prize"),
    ("Israeli police clash with Palestinian protesters in Jerusalem",
     "Israel Police Clash With Palestinians in Jerusalem"),
])
def test_a_headline_saying_the_same_passes(replies, gold, pred):
    for g, p in ((gold, pred), (pred, gold)):
        m = replies.compare(g, p)
        assert m.equivalent, (g, p, m)



def _never(a: object, b: object) -> bool:
    return False


@pytest.mark.parametrize(("gold", "pred"), [
    ("Rain expected across Brazil this week", "Brazilian forecasters expect rain this week"),  # first word: no fact
    ("Talks on Norwegian fishing rights resume", "Norway fishing rights talks resume"),
    ("Israel Police Clash With Palestinians", "Israeli police clash with Palestinian protesters"),
])
def test_a_country_named_by_its_people_keeps_gold_s_name(gold, pred):
    d = diff_facts(gold, pred, _never)
    assert not d.dropped and not d.changed, d


def test_a_country_claimed_by_its_people_is_no_rival_for_another_name():
    # "Chile" keeps gold's "Chilean"; it does not then stand in gold's "UK" slot as another value
    d = diff_facts("UK warning on Chilean copper exports", "West raises worries over Chile copper sales", _never)
    assert not d.changed and [g.fact.text for g in d.dropped] == ["UK"], d
