"""The OTLP path scores a dialog exactly as the native wire format does (no broker: processor level)."""

from __future__ import annotations

import json

import pytest

from monitor.scoring import reference_of
from monitor.sources.otlp import Encoding
from monitor.sources.otlp.emit import DialogSpans
from monitor.stream.processor import TurnProcessor
from monitor.stream.verdict_records import verdict_record
from tests.otlp.builders import Pipeline, sales_dialog, unaligned
from tests.stream.helpers import events_of


def native(engine, dialog, references=None):
    processor = TurnProcessor(engine, references or {})
    out = []
    for event in events_of(dialog, conversation_id="c"):
        out += processor.process(event).emissions
    return [{**json.loads(verdict_record(e)), "conversation_id": "c"} for e in out]


def otlp(engine, dialog, encoding):
    pipeline = Pipeline(engine, {dialog.dialog_id: reference_of(dialog)}, encoding=encoding)
    for record in DialogSpans(encoding).records(dialog, "otlp-1", "v7"):
        pipeline.feed(record.value)
    assert {e.conversation_id for e in pipeline.out.emissions} == {"otlp-1"}
    return pipeline, [{**json.loads(verdict_record(e)), "conversation_id": "c"} for e in pipeline.out.emissions]


@pytest.mark.parametrize("encoding", list(Encoding))
def test_sales_report_spans_score_like_native_events(engine, encoding):
    dialog = sales_dialog()
    pipeline, got = otlp(engine, dialog, encoding)
    # Native events pointing at the same reference set: identical, field for field.
    assert got == native(engine, unaligned(dialog), {dialog.dialog_id: reference_of(dialog)})
    # Native events with the gold inline: identical but for gold_index, which only alignment reports.
    inline = native(engine, dialog)
    assert [{k: v for k, v in e.items() if k != "gold_index"} for e in got if e["kind"] == "turn"] == [
        {k: v for k, v in e.items() if k != "gold_index"} for e in inline if e["kind"] == "turn"
    ]
    turns = pipeline.turns()
    assert [(t["turn_no"], t["success"], t["attribution"], t["caused_by"]) for t in turns] == [
        (1, True, None, None),
        (2, False, "root_cause", None),
        (3, False, "cascading", 2),
        (4, False, "cascading", 2),
        (5, False, "cascading", 2),
    ]
    assert len(pipeline.dialogs()) == 1  # the root span's aem.final ended the conversation
    # The root repeats the last reply (mapped, then yields to the chat span); the 3 chats that ask for tools
    # map to requested calls that yield to their execute_tool spans: every span is used, each turn once.
    assert pipeline.spans("mapped") == 9 and pipeline.spans("skipped") == 0
