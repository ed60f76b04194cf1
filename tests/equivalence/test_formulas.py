"""Formulas compare as one canonical expression; unit spellings ("sq. meters", "grams/mole") are units."""

from __future__ import annotations

import pytest

from monitor.equivalence.values.typed import formula_key
from tests.equivalence.both_ways import assert_different_both_ways, assert_equal_both_ways

EQUIVALENT = [
    ("lambda x: 3x**2", "3*x**2"),
    ("x**2", "y = x^2"),
    ("f(x) = 2x**2 + 3x - 1", "2*x**2 + 3*x - 1"),
    ("lambda x: 2x**3 - 3x**2 + 4x - 5", "2*x**3 - 3*x**2 + 4*x - 5"),
    ("sq. meters", "square meters"),
    ("sq. meters", "m^2"),
    ("grams/mole", "g/mol"),
]
DIFFERENT = [
    ("x**2", "exp(-x**2)"),
    ("lambda x: x**2", "lambda x: exp(-x**2)"),
    ("2x**2 + 3x - 1", "3x**2 + 2x - 1"),
    ("meters", "sq. meters"),
    ("grams/mole", "grams"),
]


@pytest.mark.parametrize(("a", "b"), EQUIVALENT)
def test_equivalent_both_directions(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b)


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_different_both_directions(values, a, b):
    assert_different_both_ways(values, a, b, not_method="semantic")


@pytest.mark.parametrize("text", ["2 * 3", "the price * 2 units", "sin(x)", "UA-100", "sci-fi"])
def test_non_formulas(text):
    assert formula_key(text) is None
