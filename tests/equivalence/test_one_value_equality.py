"""One value equality: a value compared as a tool argument, inside a phrase and inside a reply gets one verdict,
the typed comparator's, whichever side is gold."""

from __future__ import annotations

import pytest

from monitor.equivalence.replies.facts import extract_facts
from monitor.equivalence.values.stages import fact_match
from tests.equivalence.both_ways import assert_different_both_ways, assert_equal_both_ways

# (gold value, predicted value, the same value?)
VALUES = [
    ("+44 20 7946 0958", "020 7946 0958", True),
    ("+44 20 7946 0958", "020 7946 0959", False),
    ("2100 Hyde St.", "2100 Hyde Street", True),
    ("2100 Hyde St.", "2101 Hyde Street", False),
    ("$1,200", "1200 dollars", True),
    ("$1,200", "1,300 dollars", False),
    ("June 20, 2024", "2024-06-20", True),
    ("June 20, 2024", "2024-06-21", False),
]


@pytest.mark.parametrize(("gold", "pred", "same"), VALUES)
def test_a_value_as_an_argument(values, gold, pred, same):
    check = assert_equal_both_ways if same else assert_different_both_ways
    check(values, gold, pred)


@pytest.mark.parametrize(("gold", "pred", "same"), VALUES)
def test_a_value_inside_a_phrase_gets_the_values_verdict(values, gold, pred, same):
    assert values.typed(gold, pred).equivalent is same
    check = assert_equal_both_ways if same else assert_different_both_ways
    check(values, f"front desk {gold}", f"front desk {pred}")
    check(values, f"front desk {gold} please", f"front desk {pred} please")


@pytest.mark.parametrize(("gold", "pred", "same"), VALUES)
def test_facts_of_a_text_compare_through_the_typed_comparator(values, gold, pred, same):
    (g,) = [f for f in extract_facts(f"It is {gold}.") if f.kind != "entity"]
    (p,) = [f for f in extract_facts(f"It is {pred}.") if f.kind != "entity"]
    for a, b in ((g, p), (p, g)):
        m = fact_match(a, b, values.typed)
        assert m is not None and m.equivalent is same, (a, b, m)


@pytest.mark.parametrize(("gold", "pred", "same"), VALUES)
def test_a_value_inside_a_reply(replies, gold, pred, same):
    """The reply that says gold's words with the value written otherwise passes; another value fails."""
    g, p = f"You can reach the front desk at {gold}.", f"You can reach the front desk at {pred}."
    for a, b in ((g, p), (p, g)):
        m = replies.compare(a, b)
        assert m.equivalent is same, (a, b, m)
        if same:
            assert m.decision is not None and m.decision.check == "typed_values"


def test_a_rate_is_part_of_the_amount(values):
    assert_equal_both_ways(values, "$90 a night", "90 dollars per night", method="money")
    assert_equal_both_ways(values, "$90 a night", "$90", method="money")
    assert_different_both_ways(values, "$90 a night", "$90 a week", method="money")


def test_typed_values_of_a_text_with_kinds_and_spans():
    from monitor.equivalence.typed_values import ValueKind, typed_values

    text = "Twenty five dollars a night at 2100 Hyde St. in Paris, call +1 415-555-0100 on June 20th, ref UA-100."
    found = [(v.kind, v.text) for v in typed_values(text)]
    assert found == [
        (ValueKind.MONEY, "Twenty five dollars a night"), (ValueKind.ADDRESS, "2100 Hyde St"),
        (ValueKind.PLACE, "Paris"), (ValueKind.PHONE, "+1 415-555-0100"), (ValueKind.DATE, "June 20th"),
        (ValueKind.ID, "UA-100"),
    ]
    assert all(text[v.span[0] : v.span[1]] == v.text for v in typed_values(text))
    assert [v.kind for v in typed_values(text, names=False)].count(ValueKind.PLACE) == 0


def test_same_value_of_two_texts_values(typed_values):
    from monitor.equivalence.typed_values import typed_values as values_of

    (a,) = values_of("Call +44 20 7946 0958.")
    (b,) = values_of("Call 020 7946 0958 now")
    (c,) = values_of("Call 020 7946 0959 now")
    (d,) = values_of("on June 20, 2024")
    assert typed_values.same_value(a, b).equivalent and typed_values.same_value(b, a).equivalent
    assert not typed_values.same_value(a, c).equivalent
    assert typed_values.same_value(a, d) is None  # a phone number and a date state no one value
