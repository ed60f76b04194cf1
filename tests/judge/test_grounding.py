"""Grounding of argument values and reply facts against the conversation so far (real comparators)."""

from __future__ import annotations

from typing import Any

import pytest

from monitor.judge.grounding import NO_CATALOG, GroundingChecker, leaves_of, sources_of
from monitor.models.dialog import Reply, ToolCall, ToolSpec, UserMessage
from monitor.scoring.bounds import WorkLimits
from monitor.scoring.sources import JudgeHistory
from monitor.scoring.types import ObservedTurn

SEARCH = ToolSpec(
    tool_id="flights",
    action="search",
    parameters={
        "type": "object",
        "properties": {
            "origin": {"type": "string"},
            "destination": {"type": "string"},
            "date": {"type": "string"},
            "cabin": {"type": "string", "enum": ["economy", "business"]},
            "passengers": {"type": "integer", "minimum": 1, "default": 1},
            "nonstop": {"type": "boolean"},
        },
        "required": ["origin", "destination", "date"],
    },
)
BOOK = ToolSpec(
    tool_id="flights",
    action="book",
    parameters={
        "type": "object",
        "properties": {"flight_id": {"type": "string"}, "passenger_name": {"type": "string"}},
        "required": ["flight_id", "passenger_name"],
    },
)
TOOLS = (SEARCH, BOOK)
USER = "Hi, I need a flight from San Francisco to New York. I fly on August 1st, 2024. I'm Maria Lopez."
SEARCH_OUTPUT = {
    "flights": [
        {"flight_id": "UA-100", "date": "2024-08-01", "departs": "08:15", "price_usd": 412},
        {"flight_id": "DL-220", "date": "2024-08-01", "departs": "13:05", "price_usd": 389},
    ]
}


def user(n: int, text: str) -> ObservedTurn:
    return ObservedTurn(turn_no=n, turn="User", predict=UserMessage(content=text))


def tool(n: int, action: str, output: Any = None, **args: Any) -> ObservedTurn:
    return ObservedTurn(
        turn_no=n, turn="Tool", predict=ToolCall(tool_id="flights", action=action, args=args, output=output)
    )


def agent(n: int, text: str) -> ObservedTurn:
    return ObservedTurn(turn_no=n, turn="Agent", predict=Reply(response=text))


SEARCHED = [
    user(1, USER),
    tool(2, "search", SEARCH_OUTPUT, origin="San Francisco", destination="New York", date="2024-08-01"),
]


@pytest.fixture
def checker(comparators: Any) -> GroundingChecker:
    return GroundingChecker(values=comparators.values, replies=comparators.replies)


def test_grounded_call_passes(checker: GroundingChecker) -> None:
    turn = tool(2, "search", origin="San Francisco", destination="New York", date="2024-08-01")
    result = checker.check(turn, [user(1, USER)], TOOLS)
    assert result.success is True
    assert result.score == pytest.approx(1.0)


def test_invented_id_fails_on_its_key(checker: GroundingChecker) -> None:
    turn = tool(3, "book", flight_id="UA-999", passenger_name="Maria Lopez")
    result = checker.check(turn, SEARCHED, TOOLS)
    assert (result.success, result.failure_reason, result.sub_metric, result.field) == (
        False,
        "inconsistent_parameter_values",
        "truthfulness",
        "flight_id",
    )
    assert result.mismatched == ("UA-999",)
    assert result.score is not None and result.score < 0.5


def test_id_from_tool_output_is_grounded(checker: GroundingChecker) -> None:
    result = checker.check(tool(3, "book", flight_id="DL-220", passenger_name="Maria Lopez"), SEARCHED, TOOLS)
    assert result.success is True


def test_invented_date_fails(checker: GroundingChecker) -> None:
    turn = tool(2, "search", origin="San Francisco", destination="New York", date="2024-08-02")
    result = checker.check(turn, [user(1, USER)], TOOLS)
    assert (result.success, result.field, result.mismatched) == (False, "date", ("2024-08-02",))


def test_structural_checks_run_before_grounding(checker: GroundingChecker) -> None:
    unknown = ObservedTurn(
        turn_no=3, turn="Tool", predict=ToolCall(tool_id="hotels", action="book", args={"hotel_id": "H-1"})
    )
    assert checker.check(unknown, SEARCHED, TOOLS).failure_reason == "tool_mismatch"
    missing = tool(3, "book", flight_id="UA-100")
    result = checker.check(missing, SEARCHED, TOOLS)
    assert (result.failure_reason, result.sub_metric, result.field) == (
        "missing_parameters",
        "completeness",
        "passenger_name",
    )
    extra = tool(3, "book", flight_id="UA-100", passenger_name="Maria Lopez", seat="12A")
    result = checker.check(extra, SEARCHED, TOOLS)
    assert (result.failure_reason, result.field) == ("extra_parameters", "seat")
    wrong_enum = tool(2, "search", origin="San Francisco", destination="New York", date="2024-08-01", cabin="first")
    result = checker.check(wrong_enum, [user(1, USER)], TOOLS)
    assert (result.failure_reason, result.sub_metric, result.field) == (
        "inconsistent_parameter_values",
        "truthfulness",
        "cabin",
    )


def test_schema_decided_values_are_exempt(checker: GroundingChecker) -> None:
    # cabin (enum), passengers equal to the schema default, and a boolean need no grounding.
    turn = tool(
        2,
        "search",
        origin="San Francisco",
        destination="New York",
        date="2024-08-01",
        cabin="business",
        passengers=1,
        nonstop=True,
    )
    assert checker.check(turn, [user(1, USER)], TOOLS).success is True


def test_non_default_count_must_be_grounded(checker: GroundingChecker) -> None:
    turn = tool(2, "search", origin="San Francisco", destination="New York", date="2024-08-01", passengers=3)
    result = checker.check(turn, [user(1, USER)], TOOLS)
    assert (result.success, result.field, result.mismatched) == (False, "passengers", (3,))
    grounded = checker.check(turn, [user(1, USER + " We are 3 travellers.")], TOOLS)
    assert grounded.success is True


def test_earlier_arguments_and_replies_are_not_sources(checker: GroundingChecker) -> None:
    history = [
        user(1, "Book me something to New York."),
        tool(2, "search", None, origin="Boston", destination="New York", date="2024-08-01"),
        agent(3, "Flight UA-777 looks good."),
    ]
    assert sources_of(history) == ["Book me something to New York."]
    turn = tool(4, "book", flight_id="UA-777", passenger_name="Maria Lopez")
    result = checker.check(turn, history, ())
    assert result.success is False
    assert set(result.mismatched) == {"UA-777", "Maria Lopez"}
    assert result.field == "flight_id"


def test_without_catalog_only_grounding_runs(checker: GroundingChecker) -> None:
    # an unknown tool and an undeclared key are not failures without a catalog; grounding still is
    grounded = ObservedTurn(
        turn_no=2, turn="Tool", predict=ToolCall(tool_id="anything", action="go", args={"city": "New York"})
    )
    result = checker.check(grounded, [user(1, USER)], ())
    assert result.success is True and result.detail == NO_CATALOG
    invented = ObservedTurn(
        turn_no=2, turn="Tool", predict=ToolCall(tool_id="anything", action="go", args={"city": "Chicago"})
    )
    result = checker.check(invented, [user(1, USER)], ())
    assert result.success is False and result.field == "city"
    assert NO_CATALOG in (result.detail or "")


def test_configured_catalog_is_used_and_event_tools_extend_it(comparators: Any) -> None:
    checker = GroundingChecker(values=comparators.values, replies=comparators.replies, catalog=[BOOK])
    assert checker.check(tool(3, "search", origin="x"), SEARCHED, ()).failure_reason == "action_mismatch"
    result = checker.check(tool(3, "search", origin="San Francisco"), SEARCHED, [SEARCH])
    assert (result.failure_reason, result.field) == ("missing_parameters", "destination")


def test_nested_values_are_grounded_leaf_by_leaf(checker: GroundingChecker) -> None:
    turn = ObservedTurn(
        turn_no=3,
        turn="Tool",
        predict=ToolCall(
            tool_id="crm",
            action="note",
            args={"passengers": [{"name": "Maria Lopez", "loyalty": "MP-55555"}], "tags": ["New York"]},
        ),
    )
    result = checker.check(turn, SEARCHED, ())
    assert (result.success, result.field, result.mismatched) == (False, "passengers", ("MP-55555",))
    assert "passengers[0].loyalty" in (result.detail or "")


def test_leaves_follow_sub_schemas() -> None:
    schema = {"type": "array", "items": {"type": "object", "properties": {"kind": {"enum": ["a", "b"]}}}}
    leaves = list(leaves_of("xs", [{"kind": "a", "name": "Zed"}], schema))
    assert [(leaf.path, leaf.value) for leaf in leaves] == [("xs[0].name", "Zed")]


def test_grounded_reply_passes(checker: GroundingChecker) -> None:
    reply = agent(3, "UA-100 leaves August 1 at 8:15 am for $412; DL-220 leaves at 1:05 pm for $389.")
    result = checker.check(reply, SEARCHED, TOOLS)
    assert result.success is True


def test_ungrounded_amount_in_reply_fails(checker: GroundingChecker) -> None:
    reply = agent(3, "UA-100 on August 1 costs $412, plus a $35 seat fee.")
    result = checker.check(reply, SEARCHED, TOOLS)
    assert (result.success, result.failure_reason, result.sub_metric) == (
        False,
        "inconsistent_response",
        "truthfulness",
    )
    assert result.mismatched[0] == "$35"  # the typed value first, then the sentence that carries it
    assert result.score is not None and 0.0 < result.score < 1.0


def test_blank_reply_to_a_question_is_incomplete(checker: GroundingChecker) -> None:
    history = [*SEARCHED, user(3, "Which one is cheaper?")]
    result = checker.check(agent(4, "   "), history, TOOLS)
    assert (result.success, result.failure_reason, result.sub_metric) == (False, "incomplete_response", "completeness")
    answered = [*history, agent(4, "DL-220 at $389.")]
    assert checker.check(agent(5, ""), answered, TOOLS).success is True


def test_user_turns_are_passed_through(checker: GroundingChecker) -> None:
    assert checker.check(user(1, "hello"), [], TOOLS).success is True


def test_bad_schema_in_event_tools_makes_calls_to_it_unscored(checker: GroundingChecker) -> None:
    broken = ToolSpec(tool_id="flights", action="book", parameters={"type": "object", "required": "flight_id"})
    turn = tool(3, "book", flight_id="UA-100", passenger_name="Maria Lopez")
    result = checker.check(turn, SEARCHED, (SEARCH, broken))
    assert result.success is None and result.failure_reason == "unscored"
    assert "invalid parameters schema" in (result.detail or "")
    # other entries of the same catalog still work
    ok = tool(2, "search", origin="San Francisco", destination="New York", date="2024-08-01")
    assert checker.check(ok, [user(1, USER)], (SEARCH, broken)).success is True


def test_compiled_catalog_is_reused_per_tool_list(checker: GroundingChecker) -> None:
    assert checker.catalog_for(TOOLS) is checker.catalog_for(tuple(TOOLS))
    assert checker.catalog_for(TOOLS) is not checker.catalog_for((SEARCH,))


def test_the_grounding_bound_counts_the_sentences_the_verifier_reads(checker: GroundingChecker) -> None:
    """Abbreviations and times end no sentence: the reply below is two sentences to the verifier, and to the bound."""
    history = JudgeHistory.of(SEARCHED, WorkLimits(max_grounding_pairs=0))
    result = checker.check(agent(3, "Dr. Lee sees you at 5 p.m. on Jan. 3. Bring the forms."), history, TOOLS)
    assert (result.success, result.failure_reason) == (None, "too_large")
    assert "+ 2 sentences x" in (result.detail or "")
