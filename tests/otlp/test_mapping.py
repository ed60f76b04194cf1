"""OTLP decoding (both encodings, the OTLP/JSON mapping) and span → turn mapping, without a broker."""

from __future__ import annotations

import json

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from monitor.sources.otlp import Encoding, OtlpMapping, Skip, decode_batch, map_span
from monitor.sources.otlp.wire import request_to_json
from tests.otlp.builders import T0, batch, span, tool

TRACE, SPAN, PARENT = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", "00f067aa0ba902b7"


def one(raw: bytes, encoding: Encoding = Encoding.JSON):
    [decoded] = decode_batch(raw, encoding)
    return decoded


def test_otlp_json_hex_ids_string_int64s_and_any_value_unions():
    raw = batch(
        span(
            TRACE,
            SPAN,
            PARENT,
            5,
            7,
            text="x",
            count=12345678901234,
            ratio=0.5,
            flag=True,
            items=["a", 2],
            nested={"k": "v", "n": 1},
        )
    )
    got = one(raw)
    assert (got.trace_id, got.span_id, got.parent_span_id) == (TRACE, SPAN, PARENT)
    assert (got.start_ns, got.end_ns) == (T0 + 5_000_000, T0 + 7_000_000)
    assert got.attributes == {
        "text": "x",
        "count": 12345678901234,
        "ratio": 0.5,
        "flag": True,
        "items": ["a", 2],
        "nested": {"k": "v", "n": 1},
    }
    assert got.resource == {"service.name": "sales-agent", "service.version": "v7"}
    assert not got.is_root


def test_both_encodings_of_one_request_decode_to_the_same_spans():
    raw_json = batch(tool(TRACE, SPAN, "", 1, "Lookup", {"q": "x"}, {"hits": 2}))
    request = ExportTraceServiceRequest()
    json_format.Parse(
        raw_json.decode().replace(TRACE, "CvdlGRbNQ92ESOshHIAxnA==").replace(SPAN, "t61rcWkgMzE="), request
    )
    from_proto = one(request.SerializeToString(), Encoding.PROTO)
    assert from_proto == one(raw_json) == one(request_to_json(request))
    assert from_proto.trace_id == TRACE and from_proto.is_root
    assert json.loads(request_to_json(request))["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["spanId"] == SPAN


def test_proto_field_names_special_doubles_and_bytes_are_read_too():
    raw = json.dumps(
        {
            "resource_spans": [
                {
                    "scope_spans": [
                        {
                            "spans": [
                                {
                                    "trace_id": TRACE,
                                    "span_id": SPAN,
                                    "start_time_unix_nano": 7,
                                    "attributes": [
                                        {"key": "inf", "value": {"doubleValue": "Infinity"}},
                                        {"key": "raw", "value": {"bytesValue": "AQI="}},
                                        {"key": "empty"},
                                    ],
                                }
                            ]
                        }
                    ]
                }
            ]
        }
    ).encode()
    got = one(raw)
    assert (got.trace_id, got.span_id, got.start_ns, got.parent_span_id) == (TRACE, SPAN, 7, "")
    assert got.attributes == {"inf": float("inf"), "raw": "0102", "empty": None}


def mapped(mapping: OtlpMapping | None = None, **attributes):
    return map_span(one(batch(span(TRACE, SPAN, PARENT, 1, **attributes))), mapping or OtlpMapping())


def test_execute_tool_fields_and_the_tool_id_fallbacks():
    base = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "FilterData",
        "gen_ai.tool.call.arguments": '{"metric": "revenue"}',
        "gen_ai.tool.call.result": '{"dataset_id": "ds-1"}',
        "mcp.server": "reports",
    }
    [turn] = mapped(**base).turns
    assert turn.payload == {
        "tool_id": "FilterData",
        "action": "FilterData",
        "args": {"metric": "revenue"},
        "output": {"dataset_id": "ds-1"},
    }
    assert mapped(OtlpMapping(tool_id_attribute="mcp.server"), **base).turns[0].payload["tool_id"] == "reports"
    explicit = mapped(OtlpMapping(tool_id_attribute="mcp.server"), **base, **{"aem.tool_id": "rpt"})
    assert explicit.turns[0].payload["tool_id"] == "rpt"
    plain = mapped(**{**base, "gen_ai.tool.call.arguments": "not json", "gen_ai.tool.call.result": "done"})
    assert plain.turns[0].payload["args"] == {"input": "not json"} and plain.turns[0].payload["output"] == "done"
    assert mapped(**{"gen_ai.operation.name": "execute_tool"}).skipped is Skip.NO_TOOL_NAME


def test_replies_from_current_older_and_openinference_attributes():
    current = mapped(
        **{
            "gen_ai.operation.name": "chat",
            "gen_ai.output.messages": json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": "A"}, {"type": "text", "content": "B"}]}]
            ),
        }
    )
    assert [(t.kind, t.payload) for t in current.turns] == [("Agent", {"response": "A\nB"})]
    older = mapped(
        **{
            "gen_ai.operation.name": "chat",
            "gen_ai.prompt.0.role": "user",
            "gen_ai.prompt.0.content": "hi",
            "gen_ai.completion.0.role": "assistant",
            "gen_ai.completion.0.content": "hello",
        }
    )
    assert [(t.kind, t.payload) for t in older.turns] == [("User", {"content": "hi"}), ("Agent", {"response": "hello"})]
    openinference = mapped(
        **{
            "openinference.span.kind": "LLM",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.content": "from OI",
        }
    )
    assert openinference.turns[0].payload == {"response": "from OI"}
    agent = mapped(**{"openinference.span.kind": "AGENT", "output.value": "final answer"})
    assert agent.turns[0].payload == {"response": "final answer"} and agent.from_agent_span
    assert agent.turns[0].order_ns == T0 + 2_000_000  # an agent's answer counts at the span's end


def test_spans_that_map_to_nothing_say_why():
    assert mapped(**{"http.route": "/"}).skipped is Skip.NOT_GENAI
    assert mapped(**{"gen_ai.operation.name": "embeddings"}).skipped is Skip.OPERATION
    assert mapped(**{"gen_ai.operation.name": "chat"}).skipped is Skip.NO_OUTPUT
    nameless = json.dumps([{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "arguments": {}}]}])
    assert mapped(**{"gen_ai.operation.name": "chat", "gen_ai.output.messages": nameless}).skipped is Skip.NO_TOOL_NAME


def test_conversation_agent_release_and_reference_attributes():
    attrs = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.conversation.id": "conv-9",
        "gen_ai.agent.name": "planner",
        "app.build": "2026.11",
        "aem.reference_id": "ignored",
        "eval.case": "sales_report",
    }
    got = mapped(OtlpMapping(release_attribute="app.build", reference_attribute="eval.case"), **attrs)
    assert (got.conversation_id, got.agent, got.release, got.reference_id) == (
        "conv-9",
        "planner",
        "2026.11",
        "sales_report",
    )
    default = mapped(**attrs)
    assert (default.release, default.reference_id) == ("v7", "ignored")  # resource service.version


def test_attribute_names_are_those_of_the_semantic_conventions_package():
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as semconv

    from monitor.sources.otlp import genai

    assert genai.OPERATION == semconv.GEN_AI_OPERATION_NAME
    assert genai.CONVERSATION == semconv.GEN_AI_CONVERSATION_ID
    assert genai.AGENT_NAME == semconv.GEN_AI_AGENT_NAME
    assert genai.TOOL_NAME == semconv.GEN_AI_TOOL_NAME
    assert genai.TOOL_ARGUMENTS == semconv.GEN_AI_TOOL_CALL_ARGUMENTS
    assert genai.TOOL_RESULT == semconv.GEN_AI_TOOL_CALL_RESULT
    operations = semconv.GenAiOperationNameValues
    assert {"chat", "invoke_agent", "execute_tool", "text_completion", "generate_content"} <= {
        op.value for op in operations
    }
