"""Prompt rendering: transcript of the conversation so far, one versioned prompt per sub-metric."""

from __future__ import annotations

import re

import pytest

from monitor.judge.prompts import PROMPT_VERSION, build_messages, render_transcript
from monitor.models.dialog import Reply, ToolCall, UserMessage
from monitor.scoring.types import ObservedTurn


def test_prompt_version_is_dated() -> None:
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}\.\d+", PROMPT_VERSION)


def test_transcript_holds_user_tool_and_agent_turns_in_order() -> None:
    history = [
        ObservedTurn(turn_no=1, turn="User", predict=UserMessage(content="Find flights to Paris")),
        ObservedTurn(
            turn_no=2,
            turn="Tool",
            predict=ToolCall(tool_id="flights", action="search", args={"to": "Paris"}, output={"ids": ["AF-1"]}),
        ),
        ObservedTurn(turn_no=3, turn="Agent", predict=Reply(response="AF-1 is available.")),
    ]
    text = render_transcript(history)
    lines = text.splitlines()
    assert lines[0] == "[1] USER: Find flights to Paris"
    assert lines[1] == '[2] TOOL CALL flights.search({"to": "Paris"})'
    assert lines[2] == '[2] TOOL OUTPUT: {"ids": ["AF-1"]}'
    assert lines[3] == "[3] AGENT: AF-1 is available."
    assert render_transcript([]) == "(no earlier turns)"


def test_each_sub_metric_has_its_own_prompt() -> None:
    completeness = build_messages("completeness", "[1] USER: hi", "Hello")
    truthfulness = build_messages("truthfulness", "[1] USER: hi", "Hello")
    assert completeness[1]["content"] != truthfulness[1]["content"]
    for messages in (completeness, truthfulness):
        assert messages[0]["role"] == "system" and '"verdict"' in messages[0]["content"]
        assert "[1] USER: hi" in messages[1]["content"] and "Hello" in messages[1]["content"]
    with pytest.raises(ValueError, match="structural"):
        build_messages("structural", "", "")
