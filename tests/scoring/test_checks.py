"""Each failure reason of docs/taxonomy.md, on the real comparators."""

from __future__ import annotations

from tests.scoring.helpers import by_turn, call, dialog, reply_turn, tool_turn


def _single(engine, turn):
    return engine.score_dialog(dialog(turn)).turns[0]


def test_passing_action_turn(engine):
    v = _single(
        engine, tool_turn(1, call("flights", "Search", city="NYC"), call("flights", "Search", city="New York City"))
    )
    assert v.success is True and v.failure_reason is None and v.score >= 0.5


def test_tool_mismatch(engine):
    v = _single(engine, tool_turn(1, call("flights", "Search", city="Paris"), call("hotels", "Search", city="Paris")))
    assert (v.success, v.failure_reason, v.sub_metric, v.field) == (False, "tool_mismatch", "structural", "tool_id")


def test_action_mismatch(engine):
    v = _single(engine, tool_turn(1, call("flights", "Search", city="Paris"), call("flights", "Book", city="Paris")))
    assert (v.failure_reason, v.sub_metric, v.field) == ("action_mismatch", "structural", "action")


def test_missing_parameters_names_the_key(engine):
    v = _single(
        engine, tool_turn(1, call("f", "Search", city="Paris", date="2024-06-20"), call("f", "Search", city="Paris"))
    )
    assert (v.failure_reason, v.sub_metric, v.field) == ("missing_parameters", "completeness", "date")
    assert v.score == 0.5


def test_extra_parameters_names_the_key(engine):
    v = _single(
        engine, tool_turn(1, call("f", "Search", city="Paris"), call("f", "Search", city="Paris", cabin="first"))
    )
    assert (v.failure_reason, v.sub_metric, v.field) == ("extra_parameters", "completeness", "cabin")


def test_missing_is_checked_before_extra_and_values(engine):
    v = _single(engine, tool_turn(1, call("f", "S", a="1", b="2"), call("f", "S", a="9", c="2")))
    assert v.failure_reason == "missing_parameters" and v.field == "b"


def test_inconsistent_parameter_values(engine):
    v = _single(engine, tool_turn(1, call("f", "Book", flight="UA-100"), call("f", "Book", flight="UA-200")))
    assert (v.failure_reason, v.sub_metric, v.field) == ("inconsistent_parameter_values", "truthfulness", "flight")
    assert v.score < 0.5


def test_typed_equivalences_pass(engine):
    v = _single(
        engine,
        tool_turn(
            1,
            call("f", "Book", date="2024-06-20", price=100, total="$108"),
            call("f", "Book", date="June 20, 2024", price="100", total="108 dollars"),
        ),
    )
    assert v.success is True


def test_clock_times_differ(engine):
    v = _single(engine, tool_turn(1, call("cal", "Add", at="3 pm"), call("cal", "Add", at="6 pm")))
    assert v.failure_reason == "inconsistent_parameter_values" and v.field == "at"


def test_paraphrased_reply_passes(engine):
    v = _single(
        engine,
        reply_turn(1, "Which region should the report cover?", "Sure, which region would you like the report for?"),
    )
    assert v.success is True


def test_changed_number_in_reply_is_inconsistent(engine):
    v = _single(
        engine,
        reply_turn(
            1, "Your flight UA-100 costs $450 and leaves at 3 pm.", "Your flight UA-100 costs $540 and leaves at 3 pm."
        ),
    )
    assert (v.failure_reason, v.sub_metric) == ("inconsistent_response", "truthfulness")


def test_reply_leaving_out_gold_content_is_incomplete(engine):
    v = _single(
        engine,
        reply_turn(
            1,
            "Your flight UA-100 is booked for June 20, 2024 and the hotel Ritz is confirmed for three nights.",
            "Your flight UA-100 is booked for June 20, 2024.",
        ),
    )
    assert (v.failure_reason, v.sub_metric) == ("incomplete_response", "completeness")


def test_tool_turn_answered_with_reply_is_structural(engine):
    d = dialog({"turn_no": 1, "turn": "Tool", "gold_turn": call("f", "S"), "predict_turn": call("g", "S")})
    assert by_turn(engine.score_dialog(d))[1].failure_reason == "tool_mismatch"
