"""Typed readings of scalar values."""

from __future__ import annotations

import pytest

from monitor.equivalence.values.base import Money, Quantity
from monitor.equivalence.values.money import parse_money
from monitor.equivalence.values.typed import (
    as_bool,
    count_of,
    dates_equal,
    looks_like_identifier,
    parse_date,
    parse_number,
    parse_quantity,
    parse_time,
)


@pytest.mark.parametrize(
    ("text", "value"),
    [("100", 100.0), ("1,000", 1000.0), ("one hundred", 100.0), ("twenty-five", 25.0), ("1.2 million", 1.2e6),
     ("3k", 3000.0), ("-4.5", -4.5)],
)
def test_parse_number(text, value):
    assert parse_number(text) == pytest.approx(value)


def test_parse_number_rejects_words():
    assert parse_number("New York") is None
    assert parse_number("") is None


@pytest.mark.parametrize(
    ("text", "money"),
    [
        ("$108", Money(108.0, "usd")),
        ("108 dollars", Money(108.0, "usd")),
        ("USD 108", Money(108.0, "usd")),
        ("€1,200,000", Money(1.2e6, "eur")),
        ("1.2 million euros", Money(1.2e6, "eur")),
        ("EUR 1.2M", Money(1.2e6, "eur")),
    ],
)
def test_parse_money(text, money):
    assert parse_money(text) == money


def test_parse_money_needs_a_currency():
    assert parse_money("108") is None


def test_parse_quantity():
    assert parse_quantity("10 km") == Quantity(10.0, "kilometer")
    assert parse_quantity("10 kilometers") == Quantity(10.0, "kilometer")
    assert parse_quantity("3 meters") == Quantity(3.0, "meter")
    assert parse_quantity("22.2 °C").decimals == 1  # as written: the rounding a conversion may use


@pytest.mark.parametrize(("text", "minutes"), [("3 pm", 900), ("15:00", 900), ("3:30 PM", 930), ("12 am", 0),
                                                ("noon", 720), ("6 pm", 1080)])
def test_parse_time(text, minutes):
    assert parse_time(text) == minutes


def test_parse_time_rejects_bare_numbers():
    assert parse_time("2024") is None
    assert parse_time("15") is None


@pytest.mark.parametrize("spelling", ["2024-06-20", "June 20, 2024", "20 June 2024", "Jun.20,2024", "06/20/2024",
                                      "20th of June 2024", "June20th, 2024"])
def test_date_spellings(spelling):
    d = parse_date(spelling)
    assert d is not None
    assert dates_equal(d, parse_date("2024-06-20"))
    assert not dates_equal(d, parse_date("2024-06-21"))


def test_ambiguous_numeric_date_keeps_both_readings():
    d = parse_date("10/12/2022")
    assert dates_equal(d, parse_date("2022-10-12"))
    assert dates_equal(d, parse_date("2022-12-10"))


def test_partial_dates():
    assert dates_equal(parse_date("20th June"), parse_date("2023-06-20"))
    assert dates_equal(parse_date("June 2023"), parse_date("2023-06-01"))
    assert not dates_equal(parse_date("June 2023"), parse_date("2023-06-20"))
    assert parse_date("June") is None


def test_booleans():
    assert as_bool("Yes") is True and as_bool(True) is True
    assert as_bool("false") is False and as_bool("off") is False
    assert as_bool("maybe") is None


@pytest.mark.parametrize("value", ["UA-100", "ds-eu-revenue", "SKU_1234", "ab12cd", "order#123"])
def test_identifiers(value):
    assert looks_like_identifier(value)


@pytest.mark.parametrize("value", ["New York", "sci-fi", "five_years", "2024-06-20", "hello", "g/mol"])
def test_not_identifiers(value):
    assert not looks_like_identifier(value)


@pytest.mark.parametrize(("text", "count"), [
    ("three tickets", (3, "ticket")), ("3 cities", (3, "city")), ("2 boxes", (2, "box")), ("2 glasses", (2, "glass")),
    ("1 bedroom", (1, "bedroom")),
])
def test_a_count_names_what_it_counts_in_the_singular_of_the_one_lemmatiser(text, count):
    assert count_of(text) == count
