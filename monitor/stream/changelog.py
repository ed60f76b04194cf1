"""The state changelog's records: one per received event (keyed by conversation and turn) and a head per
conversation (status, next turn, verdicts emitted); a tombstone (value None) forgets a key."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

STATE_VERSION = 2


@dataclass(frozen=True)
class StateRecord:
    """One changelog record: `value` None is a tombstone (the key is forgotten)."""

    conversation_id: str
    key: str
    value: bytes | None


def group_changelog(records: Mapping[str, bytes]) -> dict[str, tuple[dict[str, Any], list[bytes]]]:
    """The latest changelog records of a partition, per conversation: (head, event records)."""
    heads: dict[str, dict[str, Any]] = {}
    events: dict[str, list[bytes]] = {}
    for key, value in records.items():
        doc = json.loads(value)
        if "conversation_id" in doc:  # an event
            events.setdefault(doc["conversation_id"], []).append(value)
        elif "status" in doc:
            heads[doc.get("cid", key)] = doc  # version 1 heads carry no "cid": their key is it
    return {cid: (head, events.get(cid, [])) for cid, head in heads.items()}


def event_key(conversation_id: str, turn_no: int) -> str:
    return f"{conversation_id}\x00{turn_no}"


def dump_head(value: dict[str, Any]) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
