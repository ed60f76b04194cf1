"""Judge-only replies after a hotel search: each claim the search output does not support fails and is named (a
place it does not give, a price said of the other hotel, a date whose day number appears only elsewhere), and
the same facts said right pass."""

from __future__ import annotations

from typing import Any

import pytest

from monitor.models.dialog import Dialog
from monitor.models.vocabulary import FailureReason

ASK = "Find me a hotel in Lisbon from May 1 to May 3, 2 nights."
OUTPUT = {
    "hotels": [
        {"name": "Casa Alfama", "city": "Lisbon", "price_eur": 120, "free_cancellation_until": "2025-04-30"},
        {"name": "Hotel Baixa", "city": "Lisbon", "price_eur": 95, "free_cancellation_until": "2025-04-28"},
    ]
}


def dialog(reply: str, output: dict[str, Any] = OUTPUT) -> Dialog:
    search = {"tool_id": "hotels", "action": "search", "args": {"city": "Lisbon", "nights": 2}, "output": output}
    turns = [
        {"turn_no": 1, "turn": "User", "predict_turn": {"content": ASK}},
        {"turn_no": 2, "turn": "Tool", "predict_turn": search},
        {"turn_no": 3, "turn": "Agent", "predict_turn": {"response": reply}},
    ]
    return Dialog.model_validate({"dialog_id": "hotels", "turns": turns})


@pytest.mark.parametrize(
    ("reply", "named"),
    [
        ("Casa Alfama in Porto is 120 EUR a night.", "Porto"),  # a place the output does not give
        ("Casa Alfama is 95 EUR a night, and Hotel Baixa is 120 EUR.", "said of 'Casa Alfama'"),  # prices swapped
        ("Casa Alfama has free cancellation until May 2.", "May 2"),  # "2 nights" and "May 3" state no May 2
    ],
)
def test_a_claim_the_output_does_not_support_fails_and_is_named(engine, reply: str, named: str) -> None:
    turn = engine.score_dialog(dialog(reply)).turns[-1]
    assert turn.success is False and turn.failure_reason == FailureReason.INCONSISTENT_RESPONSE
    assert named in (turn.detail or "")


@pytest.mark.parametrize(
    "reply",
    [
        "Casa Alfama in Lisbon is 120 EUR a night, and Hotel Baixa is 95 EUR.",
        "Hotel Baixa (95 EUR) and Casa Alfama (120 EUR) both have rooms for your 2 nights.",
        "Casa Alfama has free cancellation until April 30.",
        "I found 2 hotels in Lisbon for May 1 to May 3.",  # the user's own values, said of the search
    ],
)
def test_the_same_facts_said_right_pass(engine, reply: str) -> None:
    turn = engine.score_dialog(dialog(reply)).turns[-1]
    assert turn.success is True, turn.detail


def test_a_field_of_the_whole_output_speaks_of_every_record(engine) -> None:
    """A top-level field (the stay's dates) is said of any hotel in the list."""
    output = {"check_in": "2025-05-01", **OUTPUT}
    turn = engine.score_dialog(dialog("Hotel Baixa is 95 EUR a night from May 1.", output)).turns[-1]
    assert turn.success is True, turn.detail
