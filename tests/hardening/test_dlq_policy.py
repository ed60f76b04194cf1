"""The DLQ payload policy (full, truncate:N, redact) and the headers a dead letter carries."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from monitor.stream.dlq import DeadLetter, DeadLetterSink, Form
from monitor.stream.dlq_policy import DlqPayloadPolicy, PayloadMode, dlq_payload, parse_dlq_policy
from monitor.stream.settings import load_settings

EVENT = {
    "conversation_id": "c-1",
    "turn_no": 2,
    "turn": "Tool",
    "agent": "bot",
    "release": "v1",
    "predict_turn": {
        "tool_id": "flights",
        "action": "book",
        "args": {"passenger_name": "Maria Lopez", "card": "4111 1111 1111 1111"},
        "output": {"booking_id": "BK-1"},
    },
    "history": [{"content": "my address is 1 Main St"}, {"response": "Booked."}],
}
RAW = json.dumps(EVENT).encode()


def test_policies_parse_and_bad_ones_are_named() -> None:
    assert parse_dlq_policy("full") == DlqPayloadPolicy()
    assert parse_dlq_policy("truncate:4096") == DlqPayloadPolicy(PayloadMode.TRUNCATE, 4096)
    assert parse_dlq_policy("REDACT") == DlqPayloadPolicy(PayloadMode.REDACT)
    for bad in ("truncate", "truncate:-1", "truncate:x", "redact:1", "drop"):
        with pytest.raises(ValueError, match="dlq_payload"):
            parse_dlq_policy(bad)
    with pytest.raises(ValueError, match="dlq_payload"):
        load_settings(environ={"AEM_DLQ_PAYLOAD": "everything"})
    assert load_settings(environ={"AEM_DLQ_PAYLOAD": "truncate:10"}).dlq_policy.limit == 10


def test_full_and_truncate() -> None:
    assert dlq_payload(RAW, parse_dlq_policy("full")) == RAW
    assert dlq_payload(RAW, parse_dlq_policy("truncate:16")) == RAW[:16]
    assert dlq_payload(None, parse_dlq_policy("full")) == b""


def test_redact_keeps_structure_and_drops_user_text() -> None:
    out = dlq_payload(RAW, parse_dlq_policy("redact"))
    text = out.decode()
    for secret in ("Maria", "4111", "Main St", "Booked", "BK-1"):
        assert secret not in text
    kept = json.loads(out)
    assert (kept["conversation_id"], kept["turn_no"], kept["turn"], kept["agent"]) == ("c-1", 2, "Tool", "bot")
    assert kept["predict_turn"]["tool_id"] == "flights" and kept["predict_turn"]["action"] == "book"
    assert kept["predict_turn"]["args"].startswith("<redacted")
    assert kept["history"][0]["content"].startswith("<redacted")


@pytest.mark.parametrize("raw", [b"not json", b"[1, 2]", b"1" * 5000, b"[" * 100_000, b""])
def test_redact_of_what_is_not_an_object_keeps_nothing(raw: bytes) -> None:
    assert dlq_payload(raw, parse_dlq_policy("redact")) == b""


class Recorder:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.forms: list[Form] = []

    def send(self, topic: str, fallback: dict[str, Any] | None = None, **record: Any) -> None:
        self.sent.append(record)

    def dead_lettered(self, form: Form) -> None:
        self.forms.append(form)


def test_the_sink_applies_the_policy_and_keeps_the_original_headers() -> None:
    recorder = Recorder()
    sink = DeadLetterSink(recorder, "dlq", recorder, max_bytes=100_000, policy=parse_dlq_policy("redact"))
    sink.send(DeadLetter("bad turn_no", RAW, "aem.traces/2/41", key=b"c-1", headers=(("traceparent", b"00-ab"),)))
    [record] = recorder.sent
    headers = dict(record["headers"])
    assert headers["traceparent"] == b"00-ab" and headers["aem-error"] == b"bad turn_no"
    assert headers["aem-payload-policy"] == b"redact"
    assert headers["aem-size"] == str(len(RAW)).encode()  # the original, not the redacted copy
    assert headers["aem-sha256"] == hashlib.sha256(RAW).hexdigest().encode()
    assert b"Maria" not in record["value"] and json.loads(record["value"])["conversation_id"] == "c-1"
    full = Recorder()
    DeadLetterSink(full, "dlq", full).send(DeadLetter("x", RAW, "t/0/0"))
    assert full.sent[0]["value"] == RAW and "aem-payload-policy" not in dict(full.sent[0]["headers"])
