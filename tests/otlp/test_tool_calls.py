"""Tool calls as agents report them: inside model spans, as execute_tool spans, or both (each counted once)."""

from __future__ import annotations

import json

from tests.otlp.builders import Pipeline, batch, chat, span, tool

TRACE, ROOT = "c" * 32, "c0" * 8
ASK = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Flights SFO-JFK and NYC weather?"}]}])
TWO_CALLS = json.dumps(
    [
        {
            "role": "assistant",
            "parts": [
                {"type": "tool_call", "id": "call_1", "name": "search_flights", "arguments": {"origin": "SFO"}},
                {"type": "tool_call", "id": "call_2", "name": "get_weather", "arguments": {"city": "NYC"}},
            ],
        }
    ]
)
RESULTS = json.dumps(
    [
        {"role": "user", "parts": [{"type": "text", "content": "Flights SFO-JFK and NYC weather?"}]},
        json.loads(TWO_CALLS)[0],
        {
            "role": "tool",
            "parts": [
                {"type": "tool_call_response", "id": "call_1", "response": '{"flights": ["UA-100"]}'},
                {"type": "tool_call_response", "id": "call_2", "result": "sunny"},
            ],
        },
    ]
)


def asking(span_id: str = "c1" * 8):
    attributes = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": ASK, "gen_ai.output.messages": TWO_CALLS}
    return span(TRACE, span_id, ROOT, 1, **attributes)


def answering():
    return chat(TRACE, "c4" * 8, ROOT, 4, "UA-100, and it is sunny.", **{"gen_ai.input.messages": RESULTS})


def root():
    return span(TRACE, ROOT, "", 0, 5, **{"gen_ai.operation.name": "invoke_agent"})


def tool_turns(pipeline: Pipeline) -> list[tuple[str, dict, object]]:
    return [
        (e.predict_turn.action, e.predict_turn.args, e.predict_turn.output) for e in pipeline.events if e.turn == "Tool"
    ]


def test_two_calls_in_a_chat_span_and_as_execute_tool_spans_give_two_tool_turns_not_four(engine):
    pipeline = Pipeline(engine)
    executed = (
        tool(TRACE, "c2" * 8, ROOT, 2, "search_flights", {"origin": "SFO"}, {"flights": ["UA-100"]},
             **{"gen_ai.tool.call.id": "call_1"}),
        tool(TRACE, "c3" * 8, ROOT, 3, "get_weather", {"city": "NYC"}, "sunny", **{"gen_ai.tool.call.id": "call_2"}),
    )  # fmt: skip
    pipeline.feed(batch(asking(), *executed, answering(), root()))
    assert [e.turn for e in pipeline.events] == ["User", "Tool", "Tool", "Agent"]
    assert tool_turns(pipeline) == [
        ("search_flights", {"origin": "SFO"}, {"flights": ["UA-100"]}),
        ("get_weather", {"city": "NYC"}, "sunny"),
    ]
    assert len([t for t in pipeline.turns() if t["turn"] == "Tool"]) == 2


def test_tool_spans_without_call_ids_still_replace_the_requested_calls(engine):
    """OpenInference TOOL spans (the OpenAI Agents SDK's) carry the tool name but no call id."""
    pipeline = Pipeline(engine)
    executed = (
        span(TRACE, "c2" * 8, ROOT, 2, **{"openinference.span.kind": "TOOL", "tool.name": "search_flights",
                                         "input.value": '{"origin": "SFO"}', "output.value": '{"flights": []}'}),
        span(TRACE, "c3" * 8, ROOT, 3, **{"openinference.span.kind": "TOOL", "tool.name": "get_weather",
                                         "input.value": '{"city": "NYC"}', "output.value": "rain"}),
    )  # fmt: skip
    pipeline.feed(batch(asking(), *executed, answering(), root()))
    assert tool_turns(pipeline) == [
        ("search_flights", {"origin": "SFO"}, {"flights": []}),
        ("get_weather", {"city": "NYC"}, "rain"),
    ]


def test_calls_only_in_chat_spans_are_tool_turns_with_results_from_the_next_model_input(engine):
    pipeline = Pipeline(engine)
    pipeline.feed(batch(asking(), answering(), root()))
    assert [(e.turn_no, e.turn) for e in pipeline.events] == [(1, "User"), (2, "Tool"), (3, "Tool"), (4, "Agent")]
    assert tool_turns(pipeline) == [
        ("search_flights", {"origin": "SFO"}, {"flights": ["UA-100"]}),
        ("get_weather", {"city": "NYC"}, "sunny"),
    ]
    assert (pipeline.spans("mapped"), pipeline.spans("skipped")) == (2, 1)  # the root has no output


def test_openinference_indexed_tool_calls_and_tool_messages(engine):
    pipeline = Pipeline(engine)
    call = "llm.output_messages.0.message.tool_calls.0.tool_call"
    asked = {
        "openinference.span.kind": "LLM",
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.content": "Book UA-100",
        "llm.output_messages.0.message.role": "assistant",
        f"{call}.id": "call_9",
        f"{call}.function.name": "book_flight",
        f"{call}.function.arguments": '{"flight_id": "UA-100"}',
        "session.id": "session-42",
    }
    answered = {
        "openinference.span.kind": "LLM",
        "llm.input_messages.0.message.role": "tool",
        "llm.input_messages.0.message.tool_call_id": "call_9",
        "llm.input_messages.0.message.content": '{"booking_id": "BK-1"}',
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": "Booked: BK-1.",
        "session.id": "session-42",
    }
    pipeline.feed(batch(span(TRACE, "c1" * 8, ROOT, 1, **asked), span(TRACE, "c2" * 8, ROOT, 2, **answered), root()))
    assert [e.turn for e in pipeline.events] == ["User", "Tool", "Agent"]
    assert tool_turns(pipeline) == [("book_flight", {"flight_id": "UA-100"}, {"booking_id": "BK-1"})]
    assert {e.conversation_id for e in pipeline.events} == {"session-42"}


def test_skipped_spans_are_counted_by_reason(engine):
    pipeline = Pipeline(engine)
    nameless = json.dumps([{"role": "assistant", "parts": [{"type": "tool_call", "id": "x", "arguments": {}}]}])
    pipeline.feed(
        batch(
            span(TRACE, "c1" * 8, ROOT, 1, **{"http.route": "/book"}),
            span(TRACE, "c2" * 8, ROOT, 2, **{"gen_ai.operation.name": "embeddings"}),
            span(TRACE, "c3" * 8, ROOT, 3, **{"gen_ai.operation.name": "chat", "gen_ai.output.messages": nameless}),
            answering(),
            root(),
        )
    )

    def skipped(reason: str) -> float:
        return pipeline.registry.get_sample_value("aem_otlp_spans_skipped_total", {"reason": reason}) or 0.0

    assert (skipped("not_genai"), skipped("unsupported_operation"), skipped("no_tool_name")) == (1, 1, 1)
    assert skipped("no_output") == 1  # the root invoke_agent span has no output of its own
    assert [e.turn for e in pipeline.events] == ["Agent"]


def test_release_precedence_and_conversation_attributes(engine):
    from monitor.sources.otlp import OtlpMapping

    env_only = json.loads(batch(answering(), root()))
    env_only["resourceSpans"][0]["resource"]["attributes"] = [
        {"key": "service.name", "value": {"stringValue": "booking"}},
        {"key": "deployment.environment.name", "value": {"stringValue": "staging"}},
    ]
    pipeline = Pipeline(engine)
    pipeline.feed(json.dumps(env_only).encode())
    assert {(e.release, e.conversation_id) for e in pipeline.events} == {("staging", TRACE)}

    configured = Pipeline(engine, mapping=OtlpMapping(conversation_attribute="app.thread", release_attribute="app.v"))
    extra = {"app.thread": "thread-1", "gen_ai.conversation.id": "ignored", "app.v": "2026.12"}
    configured.feed(batch(chat(TRACE, "c4" * 8, ROOT, 4, "hi", **extra), root(), version="v7"))
    assert {(e.release, e.conversation_id) for e in configured.events} == {("2026.12", "thread-1")}


def test_pre_1_37_indexed_completion_tool_calls_and_chat_completions_messages(engine):
    """OpenLLMetry's `gen_ai.completion.N.tool_calls.M.*`; results as chat-completions tool messages."""
    pipeline = Pipeline(engine)
    asked = {
        "gen_ai.operation.name": "chat",
        "gen_ai.prompt.0.role": "user",
        "gen_ai.prompt.0.content": "Weather in Oslo and Bergen?",
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.tool_calls.0.id": "w1",
        "gen_ai.completion.0.tool_calls.0.name": "weather",
        "gen_ai.completion.0.tool_calls.0.arguments": '{"city": "Oslo"}',
        "gen_ai.completion.0.tool_calls.1.id": "w2",
        "gen_ai.completion.0.tool_calls.1.name": "weather",
        "gen_ai.completion.0.tool_calls.1.arguments": '{"city": "Bergen"}',
    }
    results = [
        {"role": "tool", "tool_call_id": "w1", "content": '{"temp_c": 3}'},
        {"role": "tool", "tool_call_id": "w2", "content": '{"temp_c": 7}'},
    ]
    answered = chat(TRACE, "c2" * 8, ROOT, 2, "3 and 7 degrees.", **{"gen_ai.input.messages": json.dumps(results)})
    pipeline.feed(batch(span(TRACE, "c1" * 8, ROOT, 1, **asked), answered, root()))
    assert tool_turns(pipeline) == [
        ("weather", {"city": "Oslo"}, {"temp_c": 3}),
        ("weather", {"city": "Bergen"}, {"temp_c": 7}),
    ]
