"""Money with its currency (monitor/equivalence/values/money.py, babel's CLDR data + a small overlay)."""

from __future__ import annotations

import pytest

from monitor.equivalence.values.base import Money
from monitor.equivalence.values.money import currency_of, parse_money
from tests.equivalence.both_ways import assert_different_both_ways, assert_equal_both_ways

EQUIVALENT = [
    ("C$ 5", "5 CAD"),
    ("CA$5", "5 Canadian dollars"),
    ("A$ 12.50", "AUD 12.5"),
    ("R$ 100", "100 Brazilian reals"),
    ("US$ 5", "$5"),
    ("US$ 5", "5 US dollars"),
    ("HK$ 80", "80 HKD"),
    ("£20", "20 pounds sterling"),
    ("€1,200,000", "1.2 million euros"),
    ("$1,180", "1,180 bucks"),
    ("$430", "four hundred and thirty bucks"),
    ("¥500", "500 yen"),
    ("₹1,500", "INR 1500"),
    ("100 CHF", "100 Swiss francs"),
    ("$25.50", "25 dollars and 50 cents"),
    ("$3.05", "three dollars and five cents"),
    ("$0.75", "75 cents"),
    ("£0.40", "40 pence"),
    ("$1,000", "a thousand dollars"),
    ("$100", "a hundred bucks"),
]
DIFFERENT = [
    ("C$ 5", "US$ 5"),
    ("A$ 5", "US$ 5"),
    ("R$ 5", "US$ 5"),
    ("C$ 5", "A$ 5"),
    ("$5", "5 CAD"),  # a bare dollar sign reads as US dollars
    ("Z$ 5", "$5"),  # an unknown dollar is none of the known ones
    ("€5", "£5"),
    ("$1,180", "$1,810"),
    ("$25.50", "25 dollars and 5 cents"),
    ("$0.75", "57 cents"),
    ("$1,000", "a hundred dollars"),
]


@pytest.mark.parametrize(("a", "b"), EQUIVALENT)
def test_same_amount_same_currency(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b, method="money")


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_other_currency_or_amount_differs(typed_values, a, b):
    assert_different_both_ways(typed_values, a, b, method="money")


def test_the_dollars_are_distinct_currencies():
    assert {currency_of(s) for s in ("C$", "A$", "R$", "US$", "NZ$", "HK$")} == {
        "cad", "aud", "brl", "usd", "nzd", "hkd"}


def test_a_number_without_a_currency_is_no_money():
    assert parse_money("108") is None
    assert parse_money("5 apples") is None
    assert parse_money("C$ 5") == Money(5.0, "cad")


def test_a_bare_amount_matches_money_in_any_currency(typed_values):
    assert typed_values.compare("C$ 5", "5").equivalent
    assert not typed_values.compare("C$ 5", "6").equivalent
