"""A session keeps its turns packed (monitor/scoring/packed.py): unpacking gives back equal turns, values
JSON cannot carry stay models, and what the judge reads is what it read before packing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from monitor.models.dialog import Reply, ToolCall, ToolSpec, UserMessage
from monitor.models.vocabulary import TurnType
from monitor.scoring import ObservedTurn
from monitor.scoring.packed import pack_payload, pack_turn, unpack_payload
from monitor.scoring.types import CheckResult
from monitor.wiring import build_engine


def same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (1 == 1.0 == True would hide a changed type)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and a == 0.0:
        return str(a) == str(b)  # -0.0 stays -0.0
    return bool(a == b)


JSON_CALLS = [
    ToolCall(tool_id="t", action="A"),
    ToolCall(tool_id="t", action="A", args={}),
    ToolCall(tool_id="t", action="A", output=None),
    ToolCall(tool_id="reports", action="Filter", args={"metric": "units sold", "region": "APAC"}, output={"id": "x"}),
    ToolCall(
        tool_id="t",
        action="A",
        args={"i": 1, "big": (1 << 63) - 1, "neg": -(1 << 63), "f": 0.1, "g": 1e300, "z": -0.0, "one": 1.0},
        output=[True, False, None, "", "é ✓ \u0000 \n", {"nested": [[], {}]}],
    ),
    ToolCall.model_validate_json(b'{"tool_id":"t","action":"A","args":{"k":[1,2.5,"x"]},"output":"done"}'),
]


@pytest.mark.parametrize("call", JSON_CALLS)
def test_a_tool_call_of_json_values_packs_to_bytes_and_unpacks_equal(call: ToolCall) -> None:
    packed = pack_payload("Tool", call)
    assert isinstance(packed, bytes)
    back = unpack_payload("Tool", packed)
    assert isinstance(back, ToolCall) and back == call
    assert back.model_fields_set == call.model_fields_set
    assert same(back.args, call.args) and same(back.output, call.output)


@pytest.mark.parametrize(
    "args",
    [
        {"x": float("inf")},
        {"x": float("nan")},
        {"x": (1, 2)},
        {"x": 1 << 63},
        {"x": "\udc80"},  # a lone surrogate: not UTF-8 encodable
        {"x": datetime(2026, 1, 1, tzinfo=UTC)},
        {"x": {1: "int key"}},
        {"x": TurnType.TOOL},  # a str subclass
    ],
)
def test_a_value_json_would_change_keeps_the_model_itself(args: dict[str, Any]) -> None:
    call = ToolCall(tool_id="t", action="A", args=args)
    assert pack_payload("Tool", call) is call
    assert unpack_payload("Tool", call) is call


def test_texts_pack_to_the_text_itself() -> None:
    reply, ask = Reply(response="Booked."), UserMessage(content="Book it \udc80")
    assert pack_payload("Agent", reply) == "Booked." and unpack_payload("Agent", "Booked.") == reply
    assert pack_payload("User", ask) is ask.content and unpack_payload("User", ask.content) == ask
    unpacked = unpack_payload("Agent", "x")
    assert isinstance(unpacked, Reply) and unpacked.model_fields_set == Reply(response="x").model_fields_set
    assert pack_payload("Tool", reply) is reply  # a payload of another turn's type stays as it is
    assert pack_payload("Agent", None) is None


def test_a_packed_turn_unpacks_to_the_turn() -> None:
    tools = (ToolSpec(tool_id="t", action="A"),)
    turn = ObservedTurn(
        turn_no=4,
        turn=TurnType.TOOL,
        predict=ToolCall(tool_id="t", action="A", args={"q": "x"}),
        gold=ToolCall(tool_id="t", action="A", args={"q": "y"}),
        tags=("OrderInvariant_a",),
        depends_on=(2,),
        tools=tools,
        too_large="too many leaves",
        judged=CheckResult.passed(),
    )
    assert pack_turn(turn).unpack() == turn
    assert pack_turn(turn, gold=False).unpack() == replace(turn, gold=None)


class RecordingJudge:
    """A reference-free checker that notes the history it was given."""

    def __init__(self) -> None:
        self.seen: list[list[ObservedTurn]] = []

    def check(self, turn: ObservedTurn, history: Sequence[ObservedTurn], tools: Sequence[ToolSpec]) -> CheckResult:
        self.seen.append(list(history))
        return CheckResult.passed()


def test_the_judge_reads_the_turns_as_they_came_without_their_gold() -> None:
    judge = RecordingJudge()
    engine = replace(build_engine(embed=False), judge=judge)
    session = engine.session("c1")
    turns = [
        ObservedTurn(turn_no=1, turn=TurnType.USER, predict=UserMessage(content="Find flights to Paris")),
        ObservedTurn(
            turn_no=2,
            turn=TurnType.TOOL,
            predict=ToolCall(tool_id="f", action="Search", args={"to": "CDG"}, output={"flights": ["AF-1"]}),
            gold=ToolCall(tool_id="f", action="Search", args={"to": "CDG"}),
        ),
        ObservedTurn(turn_no=3, turn=TurnType.AGENT, predict=Reply(response="AF-1 is available.")),
        ObservedTurn(turn_no=4, turn=TurnType.AGENT, predict=Reply(response="Shall I book it?")),
    ]
    for turn in turns:
        session.add(turn)
    expected = [turns[0], ObservedTurn(turn_no=2, turn=TurnType.TOOL, predict=turns[1].predict), turns[2]]
    assert judge.seen == [expected[:2], expected[:3]]  # turns 3 and 4 went to the judge
    assert session.observed_history() == [*expected, turns[3]]


def test_after_scoring_only_a_failed_turn_keeps_its_payload() -> None:
    session = build_engine(embed=False).session("c1")
    ok = ToolCall(tool_id="f", action="Search", args={"to": "CDG"}, output={"flights": ["AF-1"]})
    wrong = ToolCall(tool_id="f", action="Search", args={"to": "ORY"})
    session.add(ObservedTurn(turn_no=1, turn=TurnType.TOOL, predict=ok, gold=ok))
    session.add(ObservedTurn(turn_no=2, turn=TurnType.TOOL, predict=wrong, gold=ok))
    passed, failed = session.scored
    assert passed.check.success is True and passed.predict is None and passed.tool_id == "f"
    assert failed.check.success is False and failed.predict == wrong  # attribution reads a failed turn's output
    assert all(isinstance(t.predict, bytes) for t in session.history)
