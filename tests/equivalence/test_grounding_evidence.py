"""Judge-only grounding: a value is supported only by the same value in the conversation — a date by a date
or its words, not by its digits elsewhere; a stop word never by the article; a typed value never by embedding
similarity to pieces of it."""

from __future__ import annotations

from typing import Any

import pytest

from monitor.equivalence.values.grounding import folded_source, is_typed_value, states_word_for_word


@pytest.mark.parametrize(
    ("value", "sources", "supported"),
    [
        ("12", ["Meet me at 12:30."], False),  # the hour of a time is not the number 12
        ("12", ["A table for 12 people."], True),
        ("12:30", ["Meet me at 12:30."], True),
        ("12", ["on 3/12"], False),  # nor the day of a date
        ("March 3", [{"seats": 3, "note": "march"}], False),  # a date is not its pieces in two fields
        ("March 3", ["See you on the 3rd of March."], True),
        ("2024-06-12", [{"id": 12, "month": 6, "year": 2024}], False),
        ("a", ["I want a window seat."], False),  # an argument is never grounded by a stop word
        ("A", ["a cat"], False),
        ("A", ["Row A, please."], True),  # a capital letter written as such is a value
        ("the", [{"x": "the"}], True),  # a source that is that word states it
    ],
)
def test_a_value_is_supported_by_the_same_value(values: Any, value: str, sources: list[Any], supported: bool):
    assert values.supported(value, sources, typed_only=is_typed_value(value)).equivalent is supported


def test_word_for_word_scan_agrees():
    assert not states_word_for_word(folded_source("meet at 12:30"), "12")
    assert states_word_for_word(folded_source({"n": "12 people"}), "12")
    assert not states_word_for_word(folded_source("a window seat"), "a")
    assert states_word_for_word(folded_source({"x": "a"}), "a")


def test_typed_values_are_recognised_whole():
    assert is_typed_value("March 3") and is_typed_value("3 pm") and is_typed_value("45 USD")
    assert not is_typed_value("New York") and not is_typed_value("a table for 3 at noon")
