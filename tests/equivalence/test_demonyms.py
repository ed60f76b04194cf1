"""Two different countries, named or by the word for their people, never agree ("Algerian" / "Tunisian");
one country in two forms does ("Egyptian" / "Egypt's") (``demonyms``)."""

from __future__ import annotations

import pytest

from monitor.equivalence.reference_data.demonyms import countries_of, other_countries
from monitor.models.vocabulary import FailureReason

INCONSISTENT = FailureReason.INCONSISTENT_RESPONSE
INCOMPLETE = FailureReason.INCOMPLETE_RESPONSE


@pytest.mark.parametrize(("word", "country"), [
    ("Algerian", "algeria"),
    ("Tunisia's", "tunisia"),
    ("Italian", "italy"),
    ("Egyptian", "egypt"),
    ("Mexican", "mexico"),
    ("Iraqi", "iraq"),
    ("Lebanese", "lebanon"),
    ("Japanese", "japan"),
    ("French", "france"),
    ("the U.S.", "united states"),
    ("American", "united states"),
    ("South African", "south africa"),
])
def test_the_word_for_a_people_names_its_country(word, country):
    assert country in countries_of(word)


@pytest.mark.parametrize("word", ["It", "In", "Paris", "Texas", "Michael", "Reuters"])
def test_other_words_name_no_country(word):
    assert countries_of(word) == frozenset()


@pytest.mark.parametrize(("a", "b"), [
    ("Algerian", "Tunisian"),
    ("Austria", "Australian"),
    ("US", "EU"),
    ("Chinese", "Japan"),
])
def test_two_countries_differ_both_ways(a, b):
    assert other_countries(a, b) and other_countries(b, a)


@pytest.mark.parametrize(("a", "b"), [
    ("Egyptian", "Egypt's"),
    ("U.S.", "American"),
    ("Nigerian", "Nigeria"),  # Niger or Nigeria: one reading is shared
    ("Algerian", "Paris"),  # not two countries: left to the other rules
])
def test_one_country_or_no_two_countries_is_no_clash(a, b):
    assert not other_countries(a, b) and not other_countries(b, a)
