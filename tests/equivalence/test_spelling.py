"""British / American spelling variants are one value; different words stay different."""

from __future__ import annotations

import pytest

from monitor.equivalence.normalize import american
from tests.equivalence.both_ways import assert_equal_both_ways

EQUIVALENT = [
    ("Orthopedics", "Orthopaedic"),
    ("Paediatrics", "pediatrics"),
    ("colour", "color"),
    ("City Centre", "city center"),
    ("organise files", "organize files"),
    ("analyse data", "analyze data"),
    ("licence", "license"),
    ("catalogue", "catalog"),
]
DIFFERENT = [
    ("Orthopedics", "Cardiology"),
    ("colour", "flavour"),
    ("City Centre", "City Hall"),
    ("tour", "tower"),
]


@pytest.mark.parametrize(("a", "b"), EQUIVALENT)
def test_spelling_variants_are_equivalent(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b)


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_different_words_stay_different(values, a, b):
    for x, y in ((a, b), (b, a)):
        assert not values.compare(x, y).equivalent, (x, y)


@pytest.mark.parametrize("word", ["shoes", "hour", "michael", "israel", "aerial", "house", "fence", "wise"])
def test_ordinary_words_are_left_alone(word):
    assert american(word) == word
