"""Fact extraction from free text."""

from __future__ import annotations

from monitor.equivalence import extract_facts
from monitor.equivalence.replies.facts import Fact
from monitor.equivalence.values.base import Money
from monitor.equivalence.values.stages import same_fact


def kinds(text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.text) for f in extract_facts(text)]


def test_money_with_scale_words():
    facts = extract_facts("Revenue was 1.2 million euros in Q3.")
    money = [f for f in facts if f.kind == "money"]
    assert [f.text for f in money] == ["1.2 million euros"]
    assert money[0].value == Money(1_200_000.0, "eur")
    assert ("id", "Q3") in kinds("Revenue was 1.2 million euros in Q3.")


def test_dates_times_ids_percent_quantities():
    found = kinds("I fly on August 1st, 2024 on UA-100 at 3 pm; it takes 20 minutes, 5% of the trip.")
    assert ("date", "August 1st, 2024") in found
    assert ("id", "UA-100") in found
    assert ("time", "3 pm") in found
    assert ("quantity", "20 minutes") in found
    assert ("percent", "5%") in found


def test_number_words_become_numbers():
    facts = extract_facts("Twenty five people came, and one hundred and twenty stayed.")
    numbers = sorted(f.value for f in facts if f.kind == "number")
    assert numbers == [25.0, 120.0]


def test_entities_skip_sentence_initial_words_but_keep_acronyms():
    found = kinds("Which region should the report cover?")
    assert found == []
    assert ("entity", "EU") in kinds("EU revenue grew.")
    assert ("entity", "US") in kinds("The report covers the US.")
    assert ("entity", "John Smith") in kinds("We met John Smith yesterday.")


def test_prose_hyphenation_and_ordinals_are_not_ids():
    assert kinds("the do-not-call registry") == []
    assert ("number", "16th") in kinds("the 16th summit")
    assert ("id", "ds-eu-revenue") in kinds("use dataset ds-eu-revenue")


def test_same_fact_across_spellings():
    a = extract_facts("It costs $108.")[0]
    b = extract_facts("It costs 108 dollars.")[0]
    c = extract_facts("It costs 180 dollars.")[0]
    assert same_fact(a, b)
    assert not same_fact(a, c)
    d1 = extract_facts("on June 20, 2024")[0]
    d2 = extract_facts("on 2024-06-20")[0]
    assert same_fact(d1, d2)


def test_fact_is_a_frozen_dataclass():
    f = extract_facts("UA-100")[0]
    assert isinstance(f, Fact)
    assert f.span == (0, 6)
