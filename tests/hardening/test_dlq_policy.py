"""The DLQ payload policy (full, truncate:N, redact) and the headers a dead letter carries."""

from __future__ import annotations

import hashlib
import json

import pytest

from monitor.stream.dlq import DlqPayloadPolicy, PayloadMode, dlq_headers, dlq_payload, parse_dlq_policy
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


def test_headers_keep_the_originals_and_describe_the_payload() -> None:
    original = [("traceparent", b"00-abc-def-01"), ("tenant", b"eu")]
    headers = dlq_headers(original, "bad turn_no", "aem.traces/2/41", RAW, parse_dlq_policy("redact"))
    assert headers[:2] == original
    extra = dict(headers[2:])
    assert extra["aem-error"] == b"bad turn_no" and extra["aem-source"] == b"aem.traces/2/41"
    assert extra["aem-payload-bytes"] == str(len(RAW)).encode()
    assert extra["aem-payload-sha256"] == hashlib.sha256(RAW).hexdigest().encode()
    assert extra["aem-payload-policy"] == b"redact"
    assert dlq_headers(None, "x" * 5000, "t/0/0", None, DlqPayloadPolicy())[0][1] == b"x" * 1000
