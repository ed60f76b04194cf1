"""The state changelog's records: one per received event (keyed by conversation and turn) and a head per
conversation (status, next turn, verdicts emitted); a tombstone (value None) forgets a key."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

STATE_VERSION = 2


@dataclass(frozen=True)
class StateRecord:
    """One changelog record: `value` None is a tombstone (the key is forgotten)."""

    conversation_id: str
    key: str
    value: bytes | None


def group_changelog(
    records: Mapping[str, bytes], skipped: Callable[[str, str], None] | None = None
) -> dict[str, tuple[dict[str, Any], list[bytes]]]:
    """The latest changelog records of a partition, per conversation: (head, event records).

    A record that is not a JSON object of either kind is left out, and `skipped(key, reason)` told.
    """
    heads: dict[str, dict[str, Any]] = {}
    events: dict[str, list[bytes]] = {}
    for key, value in records.items():
        try:
            doc = json.loads(value)
        except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, an integer past the digit limit
            _skip(skipped, key, f"not JSON ({type(exc).__name__})")
            continue
        if isinstance(doc, dict) and isinstance(doc.get("conversation_id"), str):  # an event
            events.setdefault(doc["conversation_id"], []).append(value)
        elif isinstance(doc, dict) and "status" in doc:
            cid = doc.get("cid", key)  # version 1 heads carry no "cid": their key is it
            if isinstance(cid, str):
                heads[cid] = doc
            else:
                _skip(skipped, key, "head without a conversation id")
        else:
            _skip(skipped, key, "neither an event nor a head")
    return {cid: (head, events.get(cid, [])) for cid, head in heads.items()}


def _skip(skipped: Callable[[str, str], None] | None, key: str, reason: str) -> None:
    if skipped is not None:
        skipped(key, reason)


def event_key(conversation_id: str, turn_no: int) -> str:
    return f"{conversation_id}\x00{turn_no}"


def dump_head(value: dict[str, Any]) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
