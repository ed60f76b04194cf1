"""Street addresses in USPS standard form (monitor/equivalence/values/addresses.py, usaddress-scourgify)."""

from __future__ import annotations

import pytest

from monitor.equivalence.values.addresses import parse_address
from tests.equivalence.both_ways import assert_different_both_ways, assert_equal_both_ways

SAME_ADDRESS = [
    ("2100 Hyde St.", "2100 Hyde Street"),
    ("123 Main St", "123 Main Street"),
    ("350 5th Ave", "350 Fifth Avenue"),
    ("455 Market St Suite 200", "455 Market Street, Ste 200"),
    ("1 Infinite Loop", "1 Infinite Loop, Cupertino, CA 95014"),  # a city on one side only
]
OTHER_ADDRESS = [
    ("123 Main St", "124 Main St"),
    ("123 Main St", "123 Elm St"),
    ("455 Market St Suite 200", "455 Market St Suite 300"),
    ("1 Infinite Loop, Cupertino, CA", "1 Infinite Loop, Austin, TX"),
]


@pytest.mark.parametrize(("a", "b"), SAME_ADDRESS)
def test_one_address_in_two_spellings(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b, method="address")


@pytest.mark.parametrize(("a", "b"), OTHER_ADDRESS)
def test_two_addresses(typed_values, a, b):
    assert_different_both_ways(typed_values, a, b, method="address")


@pytest.mark.parametrize("text", ["2 people", "5 stars", "Golden Gate Park", "10 km", "3 pm"])
def test_what_is_no_address(text):
    assert parse_address(text) is None


def test_genre_abbreviations(typed_values):
    assert typed_values.compare("Sci-fi", "Science fiction").equivalent
    assert not typed_values.compare("Sci-fi", "Romantic comedy").equivalent
