"""The dead-letter sink: whole, truncated and metadata-only records (a recording producer, no broker)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from kafka.errors import MessageSizeTooLargeError

from monitor.stream.dlq import DeadLetter, DeadLetterSink, Form


class Recorder:
    """Keeps what was sent; refuses records whose value is above `refuse_above` like kafka-python does."""

    def __init__(self, refuse_above: int | None = None) -> None:
        self.sent: list[dict[str, Any]] = []
        self.refuse_above = refuse_above

    def send(self, topic: str, fallback: dict[str, Any] | None = None, **record: Any) -> None:
        if self.refuse_above is not None and len(record["value"]) > self.refuse_above:
            raise MessageSizeTooLargeError("too large")
        self.sent.append({"topic": topic, "fallback": fallback, **record})


class Count:
    def __init__(self) -> None:
        self.forms: list[Form] = []

    def dead_lettered(self, form: Form) -> None:
        self.forms.append(form)


def letter(value: bytes) -> DeadLetter:
    return DeadLetter("bad thing", value, "t/0/7", key=b"k", headers=(("trace-id", b"abc"), ("aem-error", b"forged")))


def test_small_records_go_whole_with_original_headers():
    producer, count = Recorder(), Count()
    DeadLetterSink(producer, "dlq", count, max_bytes=100).send(letter(b"{oops"))
    [record] = producer.sent
    headers = dict(record["headers"])
    assert record["value"] == b"{oops" and record["key"] == b"k" and count.forms == [Form.WHOLE]
    assert headers["aem-error"] == b"bad thing" and headers["trace-id"] == b"abc" and headers["aem-source"] == b"t/0/7"
    assert headers["aem-size"] == b"5" and headers["aem-sha256"] == hashlib.sha256(b"{oops").hexdigest().encode()
    assert json.loads(record["fallback"]["value"])["sha256"] == hashlib.sha256(b"{oops").hexdigest()


def test_large_records_are_cut_and_say_so():
    producer, count = Recorder(), Count()
    value = b"x" * 1000
    DeadLetterSink(producer, "dlq", count, max_bytes=100).send(letter(value))
    [record] = producer.sent
    headers = dict(record["headers"])
    assert record["value"] == value[:100] and headers["aem-truncated"] == b"1" and headers["aem-size"] == b"1000"
    assert count.forms == [Form.TRUNCATED]


def test_a_refused_record_goes_as_metadata_only():
    producer, count = Recorder(refuse_above=400), Count()
    value = b"y" * 800
    DeadLetterSink(producer, "dlq", count, max_bytes=1000).send(letter(value))
    [record] = producer.sent
    doc = json.loads(record["value"])
    assert doc == {"reason": "bad thing", "size": 800, "sha256": hashlib.sha256(value).hexdigest(), "source": "t/0/7"}
    assert dict(record["headers"])["aem-truncated"] == b"metadata" and count.forms == [Form.METADATA]
