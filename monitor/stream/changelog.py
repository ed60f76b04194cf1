"""The state changelog's records: one per received event (keyed by conversation and turn) and a head per
conversation (status, next turn, verdicts emitted); a tombstone (value None) forgets a key.

An event record of a turn already scored carries the checks its scoring obtained
(`{"turn_no": n, "checks": [...], "event": {...}}`); a turn scored after its event was written gets a
checks record of its own (`{"cid": ..., "turn_no": n, "checks": [...]}`). A restore plays them back
instead of scoring again (monitor/scoring/tape.py). The topic is read as untrusted input: a record that is
not what this module writes is reported (`group_changelog`'s `skipped`) and its conversation closed."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

STATE_VERSION = 2
MAX_TURN_NO = 1_000_000  # as a trace event's turn_no

TurnNo = Annotated[StrictInt, Field(ge=0, le=MAX_TURN_NO)]
Count = Annotated[StrictInt, Field(ge=0, le=MAX_TURN_NO + 1)]


class _Head(BaseModel):
    model_config = ConfigDict(extra="forbid")

    v: Literal[1, 2] = 1
    cid: StrictStr | None = None  # none: the record's key is it
    at: float = 0.0


class OpenHead(_Head):
    """An open conversation's head: where it stands and how many verdicts it has sent (its events are records
    of their own)."""

    status: Literal["open"]
    agent: StrictStr | None = None
    release: StrictStr | None = None
    next_turn: TurnNo | None = None
    emitted: Count = 0
    chains_emitted: Count = 0


class FinishedHead(_Head):
    """A finished conversation's head: the turns it had (redeliveries of them are duplicates)."""

    status: Literal["finished"]
    seen: list[TurnNo] = Field(default_factory=list, max_length=MAX_TURN_NO + 1)


def parse_head(doc: Any) -> OpenHead | FinishedHead:
    """A head record, validated; ValueError naming the first problem otherwise."""
    status = doc.get("status") if isinstance(doc, dict) else None
    model: type[OpenHead] | type[FinishedHead] = FinishedHead if status == "finished" else OpenHead
    try:
        return model.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(x) for x in first["loc"]) or "head"
        raise ValueError(f"invalid head: {where}: {first['msg']}") from None


def conversation_of_key(key: str) -> str:
    """The conversation a state key belongs to (a head's key is the conversation id)."""
    return key.split("\x00", 1)[0]


def turn_of_key(key: str, conversation_id: str) -> int | None:
    """The turn number of an event or checks key of this conversation, else None."""
    parts = key.split("\x00")
    if len(parts) < 2 or parts[0] != conversation_id or not (parts[1].isascii() and parts[1].isdigit()):
        return None
    if len(parts) > 3 or (len(parts) == 3 and parts[2] != "checks"):
        return None
    n = int(parts[1])
    return n if n <= MAX_TURN_NO else None


def never() -> bool:
    """A `stopping` that never says yes."""
    return False


class RestoreInterrupted(Exception):
    """The monitor began to stop while a restore read its state: abandoned, nothing of it returned."""


@dataclass(frozen=True)
class StateRecord:
    """One changelog record: `value` None is a tombstone (the key is forgotten)."""

    conversation_id: str
    key: str
    value: bytes | None


def group_changelog(
    records: Mapping[str, bytes],
    skipped: Callable[[str, str], None] = lambda key, reason: None,
    stopping: Callable[[], bool] = never,
) -> dict[str, tuple[dict[str, Any], list[bytes]]]:
    """The latest changelog records of a partition, per conversation: (head, event records). A record that is
    neither kind, or whose key does not match what it holds, is left out and `skipped(key, reason)` told.
    `stopping` is asked before each record is parsed: RestoreInterrupted once it says yes."""
    heads: dict[str, dict[str, Any]] = {}
    events: dict[str, list[bytes]] = {}
    for key, value in records.items():
        if stopping():  # a partition's records take seconds to parse when it holds large ones
            raise RestoreInterrupted("the monitor is stopping")
        try:
            doc = json.loads(value)
        except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, an integer past the digit limit
            skipped(key, f"not JSON ({type(exc).__name__})")
            continue
        written = _written_under(doc)
        if written is not None:  # an event (with its checks or without) or a turn's checks
            cid, expected = written
            if key != expected:
                skipped(key, "key does not match the record")
                continue
            events.setdefault(cid, []).append(value)
        elif isinstance(doc, dict) and "status" in doc:
            cid = doc.get("cid", key)  # a head without "cid": its key is it
            if cid != key:
                skipped(key, "key does not match the record")
            else:
                heads[cid] = doc
        else:
            skipped(key, "neither an event nor a head")
    return {cid: (head, events.get(cid, [])) for cid, head in heads.items()}


def _written_under(doc: Any) -> tuple[str, str | None] | None:
    """The conversation of an event record (plain or carrying checks) or a checks record and the key it is
    written under (None when its turn number is not one); None for any other record."""
    if not isinstance(doc, dict):
        return None
    checks, cid = "checks" in doc, doc.get("conversation_id")
    if not isinstance(cid, str) and checks:
        inner = doc.get("event")
        cid = inner.get("conversation_id") if isinstance(inner, dict) else doc.get("cid")
    if not isinstance(cid, str):
        return None
    event = doc.get("event", doc) if checks else doc
    turn_no = event.get("turn_no") if isinstance(event, dict) and "conversation_id" in event else doc.get("turn_no")
    if type(turn_no) is not int or (checks and doc.get("turn_no") != turn_no):
        return cid, None
    return cid, checks_key(cid, turn_no) if checks and "event" not in doc else event_key(cid, turn_no)


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


def event_key(conversation_id: str, turn_no: int) -> str:
    return f"{conversation_id}\x00{turn_no}"


def dump_head(value: dict[str, Any]) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
