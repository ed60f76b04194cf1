"""The typed comparison is an ordered chain of named stages (monitor/equivalence/values/stages.py)."""

from __future__ import annotations

from monitor.equivalence import Match, ValueComparator
from monitor.equivalence.values import stages
from monitor.equivalence.values.grounding import Grounding


def test_every_stage_is_a_named_function_deciding_or_passing():
    names = [s.__name__ for s in stages.STAGES]
    assert len(names) == len(set(names))
    assert names[0] == "same_text"
    pair = stages.Pair("half past six in the evening", "18:30")
    decisions = {s.__name__: s(pair) for s in stages.STAGES}
    assert decisions["clock_time"] == Match(True, 1.0, "time")
    assert decisions["money_amount"] is None and decisions["phone_number"] is None


def test_the_first_decision_wins():
    assert stages.run("3 pm", "15:00") == Match(True, 1.0, "time")
    assert stages.run("Louvre Museum", "the Louvre") is None  # left to the semantic stage


def test_a_new_stage_extends_the_comparator():
    def colour(pair: stages.Pair) -> Match | None:
        codes = {"red": "#ff0000", "#ff0000": "#ff0000", "blue": "#0000ff"}
        g, p = codes.get(pair.g.lower()), codes.get(pair.p.lower())
        return Match(g == p, 1.0 if g == p else 0.0, "colour") if g and p else None

    plain = ValueComparator(semantic=None)
    extended = ValueComparator(semantic=None, typed_stages=(colour, *stages.STAGES))
    assert not plain.compare("red", "#FF0000").equivalent
    assert extended.compare("red", "#FF0000") == Match(True, 1.0, "colour")
    assert not extended.compare("blue", "#FF0000").equivalent


def test_grounding_is_its_own_module_and_the_comparator_still_answers():
    values = ValueComparator(semantic=None)
    assert isinstance(values.grounding, Grounding)
    assert values.supported("18:30", ["see you at half past six in the evening"]).equivalent
    assert not values.supported("C$ 5", ["it costs US$ 5"]).equivalent
    assert values.supported("+1 415-555-0100", [{"phone": "(415) 555-0100"}]).equivalent


def test_integers_beyond_a_float_are_compared_exactly():
    values = ValueComparator(semantic=None)
    huge = int("9" * 400)
    assert values.compare(huge, huge).equivalent
    assert not values.compare(huge, huge + 1).equivalent
    assert not values.compare(10**17, 10**17 + 1).equivalent  # equal as floats, different as integers
    assert values.compare(huge, str(huge)).equivalent  # as text
    assert not values.compare(str(huge), str(huge - 1)).equivalent
    assert not values.compare(huge, 1.5).equivalent
