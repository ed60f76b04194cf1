"""A city's name in another language, a country's ISO name, contracted words, and money with a decimal comma."""

from __future__ import annotations

import pytest

from monitor.equivalence.values.money import parse_money
from monitor.equivalence.values.stages import contracted_words
from tests.equivalence.both_ways import assert_different_both_ways, assert_equal_both_ways

EQUAL = [
    ("Cologne", "Köln", "place"),  # GeoNames alternate names
    ("Florence", "Firenze", "place"),
    ("South Korea", "Republic of Korea", "place"),  # ISO 3166 "Korea, Republic of", read in order
    ("Iran", "Islamic Republic of Iran", "place"),
    ("Mt. Vernon", "Mount Vernon", "abbreviation"),
    ("Pt Reyes", "Point Reyes", "abbreviation"),
    ("€5,50", "5.50 euros", "money"),
    ("€1.299,00", "EUR 1299", "money"),
]
DIFFERENT = [
    ("South Korea", "North Korea", "place"),
    ("Cologne", "Munich", "place"),
    ("Jersey", "New Jersey", "place"),  # a crown dependency (ISO 3166 JE) and a US state
    ("€5,50", "$5.50", "money"),
    ("€5,50", "€550", "money"),
]


@pytest.mark.parametrize(("a", "b", "method"), EQUAL)
def test_other_names_of_one_thing_are_equal(typed_values, a, b, method):
    assert_equal_both_ways(typed_values, a, b, method=method)


@pytest.mark.parametrize(("a", "b", "method"), DIFFERENT)
def test_other_things_differ(typed_values, a, b, method):
    assert_different_both_ways(typed_values, a, b, method=method)


def test_a_contraction_keeps_first_and_last_letters_and_has_no_vowel():
    assert contracted_words("St Louis", "Saint Louis")
    assert not contracted_words("Mt. Hood", "Mountain Hood")  # "mt" does not end "mountain"
    assert not contracted_words("Dr. Lee", "Drive Lee")
    assert not contracted_words("Mt. Vernon", "Mount Venus")


def test_a_comma_is_decimal_only_before_one_or_two_digits():
    assert parse_money("$1,500") is not None and parse_money("$1,500").amount == 1500
    assert parse_money("1,50 euros") is not None and parse_money("1,50 euros").amount == 1.5
