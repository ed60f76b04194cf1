"""`aem tail`'s one line per record: chain messages and records without a release read plainly."""

from __future__ import annotations

import json
from dataclasses import dataclass

from monitor.report import format_line


@dataclass
class Record:
    value: bytes
    key: bytes | None = b"c-17"
    topic: str = "aem.verdicts"
    partition: int = 1
    offset: int = 7
    timestamp_ms: int = 0
    headers: tuple[tuple[str, bytes], ...] = ()

    def header(self, name: str) -> str | None:
        return None


def _line(message: dict) -> str:
    return format_line(Record(json.dumps(message).encode()))


def test_a_chain_message_reads_as_its_bucket_and_turns():
    chain = {"kind": "chain", "conversation_id": "c-17", "agent": "sales", "release": "2026.11.2",
             "mode": "reference", "turns": [2, 3, 4], "chain_length": "3+"}
    assert _line(chain) == "p1@7  c-17  chain 3+  action turns 2, 3, 4  [sales 2026.11.2]"
    assert "action turn 5 " in _line({**chain, "turns": [5]})


def test_a_message_without_a_release_says_unknown():
    dialog = {"kind": "dialog", "conversation_id": "c-17", "success_rate": 1.0, "test_pass": True}
    assert _line(dialog).endswith("[default unknown]")
