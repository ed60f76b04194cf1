"""Spans to turns through the OTLP hook and the real processor: order, dedup, joins, skips, DLQ, commits."""

from __future__ import annotations

import pytest

from monitor.models.trace_event import InvalidEvent
from monitor.scoring import reference_of
from monitor.sources.otlp import Encoding
from monitor.sources.otlp.emit import DialogSpans
from monitor.stream.changelog import group_changelog
from tests.otlp.builders import Pipeline, batch, chat, reply, sales_dialog, span, tool

EXPECTED = [  # the sales report: turn 2 is the root cause, 3-5 cascade from it
    (1, True, None),
    (2, False, "root_cause"),
    (3, False, "cascading"),
    (4, False, "cascading"),
    (5, False, "cascading"),
]
TRACE_A, TRACE_B = "a" * 32, "b" * 32
ROOT_A, ROOT_B = "a0" * 8, "b0" * 8
ASK = '[{"role": "user", "parts": [{"type": "text", "content": "Weather in Oslo?"}]}]'
CALL = '[{"role": "assistant", "parts": [{"type": "tool_call", "name": "weather"}]}]'


def verdicts(pipeline: Pipeline, conversation: str | None = None):
    return [
        (t["turn_no"], t["success"], t["attribution"])
        for t in pipeline.turns()
        if conversation is None or t["conversation_id"] == conversation
    ]


def sales_pipeline(engine) -> Pipeline:
    dialog = sales_dialog()
    return Pipeline(engine, {"sales_report": reference_of(dialog)})


def one_span_batches(cid: str, encoding: Encoding = Encoding.JSON) -> list[bytes]:
    """The sales report as one batch per span, in the order the SDK exports them (root last)."""
    return [r.value for r in DialogSpans(encoding, spans_per_batch=1).records(sales_dialog(), cid, "v7")]


def test_spans_out_of_order_across_batches_are_scored_in_start_order(engine):
    pipeline = sales_pipeline(engine)
    first, second = one_span_batches("c1"), one_span_batches("c2")
    *children, root = first
    # c1's children arrive reversed and interleaved with c2's batches; each root comes after its children.
    for mine, other in zip(reversed(children), second[:-1], strict=True):
        pipeline.feed(mine)
        pipeline.feed(other)
    assert pipeline.turns() == []  # nothing released before a trace's root
    pipeline.feed(root)
    pipeline.feed(second[-1])
    assert verdicts(pipeline, "c1") == EXPECTED
    assert verdicts(pipeline, "c2") == EXPECTED
    assert [e.turn_no for e in pipeline.events if e.conversation_id == "c1"] == [1, 2, 3, 4, 5]
    assert len(pipeline.dialogs()) == 2


def test_a_duplicate_batch_is_not_counted_twice(engine):
    pipeline = sales_pipeline(engine)
    batches = one_span_batches("dup")
    pipeline.feed(batches[1])
    pipeline.feed(batches[1])  # redelivered while its trace is held
    for raw in batches[2:]:
        pipeline.feed(raw)
    pipeline.feed(batches[0])  # late first span: came after the trace was released
    pipeline.feed(batches[-1])  # the root again, after release
    whole = DialogSpans(Encoding.JSON).records(sales_dialog(), "dup2", "v7")[0].value
    pipeline.feed(whole)
    pipeline.feed(whole)  # the same batch delivered twice
    assert pipeline.spans("duplicate") == 2 + 9
    assert pipeline.spans("late") == 1  # its turn starts before turns already released
    assert [e.turn_no for e in pipeline.events if e.conversation_id == "dup"] == [1, 2, 3, 4]
    assert verdicts(pipeline, "dup2") == EXPECTED
    assert [d["conversation_id"] for d in pipeline.dialogs()] == ["dup", "dup2"]


def two_traces() -> tuple[bytes, bytes]:
    """The sales report over two traces (two user requests) joined by gen_ai.conversation.id."""
    conv = {"gen_ai.conversation.id": "sales-chat-7"}
    first = batch(
        chat(TRACE_A, "a1" * 8, ROOT_A, 1, "Sure, which region would you like the report for?", **conv),
        tool(
            TRACE_A,
            "a2" * 8,
            ROOT_A,
            2,
            "FilterData",
            {"metric": "profit", "region": "EU"},
            {"dataset_id": "ds-eu-profit"},
            **{"aem.tool_id": "reports"},
        ),
        span(
            TRACE_A,
            ROOT_A,
            "",
            0,
            3,
            **{
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": "sales",
                "aem.reference_id": "sales_report",
                **conv,
            },
        ),
    )
    second = batch(
        tool(
            TRACE_B,
            "b1" * 8,
            ROOT_B,
            101,
            "CreateReport",
            {"dataset_id": "ds-eu-profit", "title": "EU sales report"},
            {"report_id": "rpt-eu-profit", "q3_total": "0.3 million euros"},
            **{"aem.tool_id": "reports"},
        ),
        tool(
            TRACE_B,
            "b2" * 8,
            ROOT_B,
            102,
            "AddChart",
            {"report_id": "rpt-eu-profit", "chart_type": "bar"},
            {"status": "ok"},
            **{"aem.tool_id": "reports"},
        ),
        chat(
            TRACE_B,
            "b3" * 8,
            ROOT_B,
            103,
            "Your EU sales report is ready: profit was 0.3 million euros in Q3, shown as a bar chart.",
            **conv,
        ),
        span(TRACE_B, ROOT_B, "", 100, 104, **{"gen_ai.operation.name": "invoke_agent", "aem.final": True, **conv}),
    )
    return first, second


def test_a_conversation_over_two_traces_is_joined_by_conversation_id(engine):
    pipeline = sales_pipeline(engine)
    first, second = two_traces()
    pipeline.feed(first)
    assert pipeline.dialogs() == []  # an identified conversation outlives its first trace
    pipeline.feed(second)
    assert {e.conversation_id for e in pipeline.events} == {"sales-chat-7"}
    assert {(e.agent, e.release, e.reference_id) for e in pipeline.events} == {("sales", "v7", "sales_report")}
    assert verdicts(pipeline) == EXPECTED
    assert [d["conversation_id"] for d in pipeline.dialogs()] == ["sales-chat-7"]


@pytest.mark.parametrize("redelivered", [True, False])
def test_after_a_restart_redelivered_spans_are_not_scored_again_and_later_traces_continue(engine, redelivered):
    first, second = two_traces()
    before = sales_pipeline(engine)
    before.feed(first)
    state: dict[str, bytes] = {}
    for record in before.processor.checkpoint():  # the changelog, as compaction keeps it
        if record.value is None:
            state.pop(record.key, None)
        else:
            state[record.key] = record.value
    after = sales_pipeline(engine)  # a new process: the assembler remembers nothing, the processor restores
    for cid, (head, events) in group_changelog(state).items():
        after.out.extend(after.processor.restore(cid, head, events))
    if redelivered:
        after.feed(first)  # its position was not committed before the stop
    after.feed(second)
    assert after.spans("late") == (2 if redelivered else 0)  # the first trace's turns were scored before
    assert [e.turn_no for e in after.events] == [3, 4, 5]
    assert sorted(verdicts(before) + verdicts(after)) == EXPECTED


def test_without_aem_final_an_identified_conversation_ends_on_the_idle_timeout(engine):
    pipeline = sales_pipeline(engine)
    first, second = two_traces()
    pipeline.feed(first)
    pipeline.feed(second.replace(b'{"key": "aem.final", "value": {"boolValue": true}}, ', b""))
    assert len(pipeline.turns()) == 5 and pipeline.dialogs() == []
    pipeline.tick(301)
    assert [d["conversation_id"] for d in pipeline.dialogs()] == ["sales-chat-7"]


def test_spans_without_genai_attributes_are_skipped_and_counted(engine):
    pipeline = Pipeline(engine)
    trace = "c" * 32
    got = pipeline.feed(
        batch(
            span(trace, "c1" * 8, "c0" * 8, 1, **{"http.request.method": "GET"}),
            chat(trace, "c2" * 8, "c0" * 8, 2, "Hello there"),
            span(trace, "c0" * 8, "", 0, 3, **{"http.route": "/chat"}),  # the trace's root: not GenAI either
        )
    )
    assert pipeline.spans("skipped") == 2 and pipeline.spans("mapped") == 1
    events = [item.event for item in got]
    assert [(e.turn_no, e.turn, e.conversation_id, e.final) for e in events] == [(1, "Agent", trace, True)]
    assert (pipeline.events[0].agent, pipeline.events[0].release) == ("sales-agent", "v7")  # from the resource
    only_skipped = pipeline.feed(batch(span("d" * 32, "d0" * 8, "", 0, **{"db.system": "redis"})))
    assert only_skipped == [] and pipeline.input.holding() == {}  # nothing to wait for: commit it
    assert "d" * 32 not in pipeline.input.assembler.conversations  # a trace with no turn opens no conversation


@pytest.mark.parametrize(
    ("raw", "encoding", "reason"),
    [
        (b"{not json", "otlp_json", "invalid JSON"),
        (b"\xff\xfe", "otlp_json", "UTF-8"),
        (b'{"resourceSpans": 3}', "otlp_json", "resourceSpans: expected a list"),
        (batch(span("zz" * 16, "01" * 8)), "otlp_json", "is not hex"),
        (batch(span("ab" * 8, "01" * 8)), "otlp_json", "expected 16 bytes"),
        (
            b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "'
            + b"ab" * 16
            + b'", "spanId": "'
            + b"01" * 8
            + b'", "startTimeUnixNano": "soon"}]}]}]}',
            "otlp_json",
            "startTimeUnixNano: .soon. is not an integer",
        ),
        (b"\x0a\xff\xff\xff", "otlp_proto", "protobuf"),
        (b"plain text, not protobuf", "otlp_proto", "not an"),
        (b"", "otlp_json", "invalid JSON"),
        (b'{"resourceSpans": []}', "otlp_json", "no resourceSpans"),
        (
            b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "'
            + b"ab" * 16
            + b'", "spanId": "'
            + b"01" * 8
            + b'", "attributes": [{"key": "k", "value": {"bytesValue": "%%%"}}]}]}]}]}',
            "otlp_json",
            "bytesValue: invalid base64",
        ),
    ],
)
def test_a_corrupt_batch_is_rejected_whole_with_its_reason(engine, raw, encoding, reason):
    pipeline = Pipeline(engine, encoding=encoding)
    with pytest.raises(InvalidEvent, match=reason):
        pipeline.feed(raw)
    assert pipeline.events == []


def test_a_batch_is_held_back_from_the_commit_while_one_of_its_spans_is_held(engine):
    pipeline = Pipeline(engine)
    mixed = batch(
        chat(TRACE_A, "a1" * 8, ROOT_A, 1, "first reply"),
        chat(TRACE_B, "b1" * 8, ROOT_B, 1, "other reply"),
        span(TRACE_A, ROOT_A, "", 0, 2, **{"gen_ai.operation.name": "invoke_agent"}),
    )
    got = pipeline.feed(mixed)  # trace A is complete, trace B still waits for its root
    assert [item.position for item in got] == [("p0", 0)] and pipeline.input.holding() == {"p0": 0}
    later = pipeline.feed(batch(span(TRACE_B, ROOT_B, "", 0, 2, **{"gen_ai.operation.name": "invoke_agent"})))
    assert [item.position for item in later] == [("p0", 0)]  # B's turn carries the mixed batch's position
    assert pipeline.input.holding() == {}


def test_a_trace_whose_root_never_comes_is_released_after_the_hold_time(engine):
    pipeline = Pipeline(engine)
    pipeline.feed(batch(chat(TRACE_A, "a1" * 8, ROOT_A, 2, "second"), chat(TRACE_A, "a2" * 8, ROOT_A, 1, "first")))
    pipeline.tick(5)
    assert pipeline.events == []
    pipeline.tick(6)  # past the 10 s hold
    assert [(e.turn_no, e.predict_turn.response) for e in pipeline.events] == [(1, "first"), (2, "second")]
    assert not any(e.final for e in pipeline.events)  # no root seen: the idle timeout ends it


def test_reply_text_without_tool_calls_and_agent_replies_count_once(engine):
    pipeline = Pipeline(engine)
    pipeline.feed(
        batch(
            span(
                TRACE_A,
                "a1" * 8,
                ROOT_A,
                1,
                **{
                    "gen_ai.operation.name": "chat",
                    "gen_ai.input.messages": ASK,
                    "gen_ai.output.messages": CALL,
                },
            ),
            tool(TRACE_A, "a2" * 8, ROOT_A, 2, "weather", {"city": "Oslo"}, {"temp_c": 3}),
            chat(TRACE_A, "a3" * 8, ROOT_A, 3, "It is 3 degrees in Oslo."),
            span(
                TRACE_A,
                ROOT_A,
                "",
                0,
                4,
                **{
                    "gen_ai.operation.name": "invoke_agent",
                    "gen_ai.output.messages": reply("It is 3 degrees in Oslo."),
                },
            ),
        )
    )
    assert [(e.turn_no, e.turn) for e in pipeline.events] == [(1, "User"), (2, "Tool"), (3, "Agent")]
    assert pipeline.events[1].predict_turn.tool_id == "weather"  # no aem.tool_id: the tool name


def test_integers_past_the_digit_limit_are_a_dlq_reason_or_plain_text_never_a_crash(engine):
    pipeline = Pipeline(engine)
    huge = "9" * 5000
    with pytest.raises(InvalidEvent, match="invalid JSON"):
        pipeline.feed(b'{"resourceSpans": [{"x": ' + huge.encode() + b"}]}")
    pipeline.feed(
        batch(
            tool(TRACE_A, "a1" * 8, ROOT_A, 1, "Lookup", {}, {}, **{"gen_ai.tool.call.arguments": "[" + huge + "]"}),
            span(TRACE_A, ROOT_A, "", 0, 2, **{"gen_ai.operation.name": "invoke_agent"}),
        )
    )
    assert pipeline.events[0].predict_turn.args == {"input": "[" + huge + "]"}
