"""Payload models share their fields-set (memory per open conversation) without changing what they mean."""

from __future__ import annotations

import sys

from monitor.models.dialog import Reply, ToolCall
from monitor.models.trace_event import parse_event_json


def test_like_payloads_share_one_fields_set_and_unset_fields_stay_unset() -> None:
    a = ToolCall.model_validate({"tool_id": "t", "action": "A", "args": {"x": 1}})
    b = ToolCall.model_validate_json('{"tool_id": "u", "action": "B", "args": {}}')
    c = ToolCall(tool_id="v", action="C", output={"id": 1})
    assert a.model_fields_set is b.model_fields_set == {"tool_id", "action", "args"}
    assert c.model_fields_set == {"tool_id", "action", "output"} and c.model_fields_set is not a.model_fields_set
    assert a.model_dump(exclude_unset=True) == {"tool_id": "t", "action": "A", "args": {"x": 1}}


def test_model_copy_with_update_does_not_leak_into_the_shared_set() -> None:
    a = Reply(response="hi")
    b = Reply(response="there")
    copied = ToolCall(tool_id="t", action="A").model_copy(update={"output": 1})
    assert copied.model_fields_set == {"tool_id", "action", "output"}
    assert ToolCall(tool_id="t", action="A").model_fields_set == {"tool_id", "action"}
    assert a.model_fields_set is b.model_fields_set == {"response"}


def test_a_decoded_event_payload_holds_no_set_of_its_own() -> None:
    raw = b'{"schema_version":1,"conversation_id":"c","release":"r","turn_no":1,"turn":"Agent",' + (
        b'"timestamp":"2026-01-01T00:00:00Z","predict_turn":{"response":"ok"}}'
    )
    one, two = parse_event_json(raw), parse_event_json(raw)
    assert one.predict_turn.model_fields_set is two.predict_turn.model_fields_set
    assert sys.getsizeof(one.predict_turn.model_fields_set) > 0  # the shared set is a real set
