"""A judge-only reply that says the agent did something is supported only by a tool turn that did it."""

from __future__ import annotations

from typing import Any

import pytest

from monitor.judge.actions import action_claims, name_kinds
from monitor.models.dialog import Dialog
from monitor.models.vocabulary import FailureReason

ASK = "Please get me a table for two at Luigi's at 7 pm, and update my address to Lisbon."


def dialog(reply: str, *calls: str) -> Dialog:
    turns: list[dict[str, Any]] = [{"turn_no": 1, "turn": "User", "predict_turn": {"content": ASK}}]
    for name in calls:
        tool, action = name.split(".")
        call = {"tool_id": tool, "action": action, "args": {}, "output": {"ok": True}}
        turns.append({"turn_no": len(turns) + 1, "turn": "Tool", "predict_turn": call})
    turns.append({"turn_no": len(turns) + 1, "turn": "Agent", "predict_turn": {"response": reply}})
    return Dialog.model_validate({"dialog_id": "claims", "turns": turns})


BOOKED = "I have booked a table for two at Luigi's at 7 pm."
UPDATED = "Your address has been updated to Lisbon."


@pytest.mark.parametrize(
    ("reply", "calls", "passes"),
    [
        (BOOKED, (), False),  # no tool turn at all
        (BOOKED, ("restaurants.search",), False),  # only a lookup before "I have booked"
        (BOOKED, ("restaurants.book_table",), True),
        (BOOKED, ("restaurants.CreateReservation",), True),
        (BOOKED, ("ops.run",), True),  # a name that says no kind of action: not held against the reply
        (UPDATED, ("account.GetAddress",), False),
        (UPDATED, ("account.UpdateAddress",), True),
        ("I found a table for two at Luigi's at 7 pm.", (), True),  # reading is not an action
    ],
)
def test_an_action_claim_needs_a_tool_turn_that_did_it(engine, reply: str, calls: tuple[str, ...], passes: bool):
    turn = engine.score_dialog(dialog(reply, *calls)).turns[-1]
    if passes:
        assert turn.success is True, turn.detail
    else:
        assert turn.success is False and turn.failure_reason == FailureReason.INCONSISTENT_RESPONSE
        assert "claims an action no tool turn did" in (turn.detail or "") and reply in (turn.detail or "")


def test_claims_and_names_are_read_as_kinds():
    assert [c.kind for c in action_claims("Done! I've just cancelled your 3 pm appointment. Anything else?")] == [
        "cancel"
    ]
    assert action_claims("Have you booked it already?") == []
    assert action_claims("I could not book the table, it is full. It hasn't been booked.") == []  # negated
    assert name_kinds("BookHotel") == {"book"} and name_kinds("search_flights") == {"read"}
    assert name_kinds("payments.refund") == {"pay"} and name_kinds("ops.run") == frozenset()
