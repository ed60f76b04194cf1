"""The state changelog's records: one per received event (keyed by conversation and turn) and a head per
conversation (status, next turn, verdicts emitted); a tombstone (value None) forgets a key.

An event record of a turn already scored when it is written carries the checks its scoring obtained
(`{"turn_no": n, "checks": [...], "event": {...}}`); a turn scored after its event was written gets a
checks record of its own (`{"cid": ..., "turn_no": n, "checks": [...]}`, key `checks_key`). A restore plays
them back instead of scoring again (monitor/scoring/tape.py)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
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
        cid = _conversation_of(doc)
        if cid is not None:  # an event (with its checks or without) or a turn's checks
            events.setdefault(cid, []).append(value)
        elif isinstance(doc, dict) and "status" in doc:
            cid = doc.get("cid", key)  # version 1 heads carry no "cid": their key is it
            if isinstance(cid, str):
                heads[cid] = doc
            else:
                _skip(skipped, key, "head without a conversation id")
        else:
            _skip(skipped, key, "neither an event nor a head")
    return {cid: (head, events.get(cid, [])) for cid, head in heads.items()}


def _conversation_of(doc: Any) -> str | None:
    """The conversation of an event record (plain or carrying checks) or a checks record, else None."""
    if not isinstance(doc, dict):
        return None
    if isinstance(doc.get("conversation_id"), str):
        return str(doc["conversation_id"])
    if "checks" in doc:
        event = doc.get("event")
        cid = event.get("conversation_id") if isinstance(event, dict) else doc.get("cid")
        return cid if isinstance(cid, str) else None
    return None


MAX_CHECKS_BYTES = 64 * 1024  # a turn's checks beyond this are not saved (the turn is scored again on restore)
MAX_RECORD_BYTES = 1_000_000  # below the producer's default max_request_size (1 MiB)


def dump_checks(checks: list[dict[str, Any]]) -> bytes | None:
    """A turn's checks as JSON, or None when they are too large to save beside its event."""
    text = json.dumps(checks, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")
    return text if len(text) <= MAX_CHECKS_BYTES else None


def event_with_checks(raw: bytes, turn_no: int, checks: bytes) -> bytes:
    """An event record that carries its turn's checks (`dump_checks`); the event's bytes are kept as they are.
    An event too large to carry them is returned as it is."""
    record = b'{"turn_no":%d,"checks":%s,"event":%s}' % (turn_no, checks, raw)
    return record if len(record) <= MAX_RECORD_BYTES else raw


def checks_record(conversation_id: str, turn_no: int, checks: bytes) -> bytes:
    cid = json.dumps(conversation_id, ensure_ascii=False).encode("utf-8")
    return b'{"cid":%s,"turn_no":%d,"checks":%s}' % (cid, turn_no, checks)


def split_records(values: Sequence[bytes]) -> tuple[list[bytes], dict[int, Any], set[int]]:
    """A conversation's event and checks records as (event JSON bytes, recorded checks per turn number, the
    turns whose checks came in a record of their own)."""
    events: list[bytes] = []
    checks: dict[int, Any] = {}
    own: set[int] = set()
    for value in values:
        doc = json.loads(value)
        if "checks" not in doc:
            events.append(value)
            continue
        if "event" in doc:
            events.append(json.dumps(doc["event"], ensure_ascii=False).encode("utf-8"))
        turn_no = doc.get("turn_no")
        if isinstance(turn_no, int) and not isinstance(turn_no, bool):
            checks[turn_no] = doc["checks"]
            if "event" not in doc:
                own.add(turn_no)
    return events, checks, own


def checks_key(conversation_id: str, turn_no: int) -> str:
    return f"{conversation_id}\x00{turn_no}\x00checks"


def _skip(skipped: Callable[[str, str], None] | None, key: str, reason: str) -> None:
    if skipped is not None:
        skipped(key, reason)


def event_key(conversation_id: str, turn_no: int) -> str:
    return f"{conversation_id}\x00{turn_no}"


def dump_head(value: dict[str, Any]) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
