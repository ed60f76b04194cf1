"""Judge-only replies written in lower case (as voice assistants transcribe them) against a tool's records: a value
said of the record the sentence names, though no capital marks the name, is checked against that record."""

from __future__ import annotations

import pytest

from monitor.models.dialog import Dialog
from monitor.models.vocabulary import FailureReason

ASK = "where can i get chinese food"
PLACES = {
    "items": [
        {"traffic_info": "no traffic", "address": "657 ames ave", "distance": "5 miles", "poi": "the clement hotel"},
        {"traffic_info": "heavy traffic", "address": "830 almanor ln", "distance": "3 miles", "poi": "tai pan"},
        {"traffic_info": "heavy traffic", "address": "113 arbol dr", "distance": "4 miles", "poi": "jing jing"},
    ]
}


def dialog(reply: str, output: object = PLACES) -> Dialog:
    search = {"tool_id": "poi", "action": "find", "args": {"query": "chinese food"}, "output": output}
    turns = [
        {"turn_no": 1, "turn": "User", "predict_turn": {"content": ASK}},
        {"turn_no": 2, "turn": "Tool", "predict_turn": search},
        {"turn_no": 3, "turn": "Agent", "predict_turn": {"response": reply}},
    ]
    return Dialog.model_validate({"dialog_id": "poi", "turns": turns})


@pytest.mark.parametrize(
    ("reply", "named"),
    [
        ("tai pan is 4 miles away", "'4 miles' said of 'tai pan'"),
        ("the clement hotel is 3 miles away with no traffic", "'3 miles' said of 'the clement hotel'"),
        ("jing jing is 4 miles away and tai pan is 5 miles away", "'5 miles' said of 'tai pan'"),
    ],
)
def test_a_value_of_another_record_fails_and_names_the_record(engine, reply: str, named: str) -> None:
    turn = engine.score_dialog(dialog(reply)).turns[-1]
    assert turn.success is False and turn.failure_reason == FailureReason.INCONSISTENT_RESPONSE
    assert named in (turn.detail or "")


@pytest.mark.parametrize(
    "reply",
    [
        "tai pan is 3 miles away",
        "jing jing is 4 miles away and tai pan is 3 miles away",
        "the closest is 3 miles away: tai pan, with heavy traffic",
        "there is heavy traffic on the way to jing jing, 4 miles away",
    ],
)
def test_values_said_of_their_own_record_pass(engine, reply: str) -> None:
    turn = engine.score_dialog(dialog(reply)).turns[-1]
    assert turn.success is True, turn.detail


def test_an_output_that_is_a_bare_list_of_records_is_checked_record_by_record(engine) -> None:
    # no top-level values: the first record is a record like the others, not values said of all of them
    records = PLACES["items"]
    wrong = engine.score_dialog(dialog("the clement hotel is 3 miles away", records)).turns[-1]
    assert wrong.success is False and "'3 miles' said of 'the clement hotel'" in (wrong.detail or "")
    right = engine.score_dialog(dialog("the clement hotel is 5 miles away", records)).turns[-1]
    assert right.success is True, right.detail


def test_a_name_that_holds_a_semicolon_is_still_a_name(engine) -> None:
    # record values are read as values, not re-parsed from the rendered "key: value; key: value" line
    records = [dict(r, poi=r["poi"].replace("tai pan", "tai pan; noodle bar")) for r in PLACES["items"]]
    wrong = engine.score_dialog(dialog("tai pan; noodle bar is 4 miles away", {"items": records})).turns[-1]
    assert wrong.success is False and "said of 'tai pan; noodle bar'" in (wrong.detail or "")
