"""Phone numbers (monitor/equivalence/values/phones.py, libphonenumber): one number in any format."""

from __future__ import annotations

import pytest

from monitor.equivalence.values.phones import phone_key
from tests.equivalence.both_ways import assert_different_both_ways, assert_equal_both_ways

SAME_NUMBER = [
    ("+1 415-555-0100", "(415) 555-0100"),
    ("+1 415-555-0100", "415.555.0100"),
    ("(415) 555-0100", "4155550100"),
    ("+1 (650) 253-0000", "1-650-253-0000"),
    ("+44 20 7946 0958", "020 7946 0958"),  # national format read in the other number's country
]
OTHER_NUMBER = [
    ("+1 415-555-0100", "(415) 555-0101"),
    ("(415) 555-0100", "(416) 555-0100"),
    ("+44 20 7946 0958", "+1 207-946-0958"),
]


@pytest.mark.parametrize(("a", "b"), SAME_NUMBER)
def test_formats_of_one_number_are_equal(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b, method="phone")


@pytest.mark.parametrize(("a", "b"), OTHER_NUMBER)
def test_two_numbers_differ(typed_values, a, b):
    assert_different_both_ways(typed_values, a, b, method="phone")


@pytest.mark.parametrize("text", ["12345", "2024-06-20", "1,234,567", "$415.55", "415"])
def test_what_is_no_phone_number(text):
    assert phone_key(text) is None


def test_e164():
    assert phone_key("(415) 555-0100") == "+14155550100"
