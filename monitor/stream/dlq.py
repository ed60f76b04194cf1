"""The dead-letter sink: every event the monitor cannot score leaves a record on the DLQ topic.

A record carries the original bytes (as the payload policy keeps them, dlq_policy.py), key and headers, plus
`aem-error` (the reason) and `aem-source` (topic/partition/offset). A record that cannot be sent whole is
reduced, never lost: cut to `max_bytes` (`aem-truncated: 1`), or, refused still, a small JSON document of
reason, size, sha256 and source (`aem-truncated: metadata`). `aem-size` and `aem-sha256` always describe the
original value.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

import structlog
from kafka.errors import MessageSizeTooLargeError

from monitor.stream.dlq_policy import DlqPayloadPolicy, PayloadMode, dlq_payload
from monitor.stream.events import PolledRecord
from monitor.stream.sinks import RecordProducer

log = structlog.get_logger(__name__)

DEFAULT_MAX_BYTES = 512 * 1024  # well below the producer's default max_request_size (1 MiB)
REASON_BYTES = 1000  # the `aem-error` header is cut to this many bytes


class Form(StrEnum):
    WHOLE = "whole"
    TRUNCATED = "truncated"
    METADATA = "metadata"


class DeadLetterCounter(Protocol):
    def dead_lettered(self, form: Form) -> None: ...


@dataclass(frozen=True)
class DeadLetter:
    """An event that will not be scored, and why."""

    reason: str
    value: bytes | None
    source: str  # "topic/partition/offset"
    key: bytes | None = None
    headers: Sequence[tuple[str, bytes]] = field(default_factory=tuple)

    @classmethod
    def of_record(cls, record: PolledRecord, reason: str) -> DeadLetter:
        """A polled record as it came (bytes, key and headers), named by its topic/partition/offset."""
        source = f"{record.topic}/{record.partition}/{record.offset}"
        return cls(reason, record.value, source, key=record.key, headers=tuple(record.headers or ()))


@dataclass
class DeadLetterSink:
    producer: RecordProducer
    topic: str
    counter: DeadLetterCounter
    max_bytes: int = DEFAULT_MAX_BYTES
    policy: DlqPayloadPolicy = field(default_factory=DlqPayloadPolicy)

    def send(self, letter: DeadLetter) -> Form:
        """Send `letter` (reduced if needed) and count it; the caller may then complete its offset."""
        value = letter.value or b""
        digest = hashlib.sha256(value).hexdigest()
        ours = [
            ("aem-error", letter.reason.encode("utf-8", "replace")[:REASON_BYTES]),
            ("aem-source", letter.source.encode("utf-8", "replace")),
            ("aem-size", str(len(value)).encode()),
            ("aem-sha256", digest.encode()),
        ]
        if self.policy.mode is not PayloadMode.FULL:
            ours.append(("aem-payload-policy", str(self.policy).encode()))
        headers = [*ours, *((k, v) for k, v in letter.headers if not k.startswith("aem-"))]
        kept = dlq_payload(value, self.policy)
        form = Form.WHOLE if len(kept) <= self.max_bytes else Form.TRUNCATED
        truncated = [("aem-truncated", b"1")] if form is Form.TRUNCATED else []
        record: dict[str, Any] = {"key": letter.key, "value": kept[: self.max_bytes], "headers": [*headers, *truncated]}
        doc = {"reason": letter.reason[:REASON_BYTES], "size": len(value), "sha256": digest, "source": letter.source}
        metadata: dict[str, Any] = {
            "key": (letter.key or b"")[:512] or None,
            "value": json.dumps(doc, ensure_ascii=False).encode("utf-8"),
            "headers": [*ours, ("aem-truncated", b"metadata")],
        }
        try:
            self.producer.send(self.topic, fallback=metadata, **record)
        except MessageSizeTooLargeError:  # e.g. large original headers: the metadata form always fits
            form = Form.METADATA
            self.producer.send(self.topic, **metadata)
        self.counter.dead_lettered(form)
        log.warning("invalid_event", error=letter.reason[:300], source=letter.source, size=len(value), form=str(form))
        return form
