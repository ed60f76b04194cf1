"""One readable line per topic record, for `aem tail`: verdicts, dialog summaries, DLQ entries, trace events."""

from __future__ import annotations

import base64
import json
from typing import Any, Protocol

from pydantic import ValidationError

from monitor.models.verdict import TurnVerdict
from monitor.models.vocabulary import UNKNOWN_RELEASE
from monitor.report.table import explain, fmt, verdict_word

MAX_VALUE_CHARS = 160


class RecordLike(Protocol):
    """A topic record with its position, key, value and headers."""

    @property
    def topic(self) -> str: ...
    @property
    def partition(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def timestamp_ms(self) -> int: ...
    @property
    def key(self) -> bytes | None: ...
    @property
    def value(self) -> bytes | None: ...
    @property
    def headers(self) -> tuple[tuple[str, bytes], ...]: ...

    def header(self, name: str) -> str | None: ...


def _text(raw: bytes | None) -> str:
    if raw is None:
        return ""
    return raw.decode("utf-8", "replace")


def _short(text: str, limit: int = MAX_VALUE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def decode_json(raw: bytes | None) -> Any:
    try:
        return json.loads(raw) if raw else None
    except (ValueError, RecursionError):
        return None


def record_kind(record: RecordLike) -> str:
    """`dlq`, `turn`, `dialog`, `chain`, `trace` or `raw`."""
    if record.header("aem-error") is not None:
        return "dlq"
    data = decode_json(record.value)
    if isinstance(data, dict):
        if isinstance(data.get("kind"), str):
            return str(data["kind"])
        if "schema_version" in data:
            return "trace"
    return "raw"


def conversation_of(record: RecordLike) -> str | None:
    data = decode_json(record.value)
    if isinstance(data, dict) and isinstance(data.get("conversation_id"), str):
        return str(data["conversation_id"])
    return _text(record.key) or None


def _turn_line(data: dict[str, Any]) -> str:
    try:
        verdict = TurnVerdict.model_validate(data)
    except ValidationError:
        return _short(json.dumps(data, ensure_ascii=False))
    head = f"turn {fmt(verdict.turn_no)} {verdict.turn:<5} {verdict_word(verdict):<8}"
    if verdict.success is not False:
        return head.rstrip()
    if verdict.attribution == "cascading":
        inherited = f" [{verdict.field} inherited]" if verdict.field else ""
        return f"{head} {verdict.failure_reason} ↳ caused by turn {fmt(verdict.caused_by)}{inherited}"
    return f"{head} {verdict.failure_reason} ({verdict.sub_metric}): {explain(verdict)}"


def _dialog_line(data: dict[str, Any]) -> str:
    return (
        f"dialog done  success_rate {fmt(data.get('success_rate'))}  test_pass {fmt(data.get('test_pass'))}  "
        f"failures {data.get('total_failures', 0)} ({data.get('root_cause_count', 0)} root cause, "
        f"{data.get('cascading_count', 0)} cascading)  root_cause {fmt(data.get('root_cause'))}"
    )


def _chain_line(data: dict[str, Any]) -> str:
    turns = data.get("turns")
    listed = ", ".join(str(t) for t in turns) if isinstance(turns, list) else "-"
    word = "turn" if isinstance(turns, list) and len(turns) == 1 else "turns"
    return f"chain {fmt(data.get('chain_length'))}  action {word} {listed}"


def _trace_line(data: dict[str, Any]) -> str:
    predict = data.get("predict_turn")
    if isinstance(predict, dict) and "tool_id" in predict:
        args = json.dumps(predict.get("args", {}), ensure_ascii=False, separators=(",", ":"))
        what = f"{predict.get('tool_id')}.{predict.get('action')} {args}"
    elif isinstance(predict, dict):
        what = json.dumps(predict.get("response", predict.get("content", "")), ensure_ascii=False)
    else:
        what = "-"
    gold = " +gold" if data.get("gold_turn") is not None else ""
    ref = f" ref={data['reference_id']}" if data.get("reference_id") else ""
    final = " final" if data.get("final") else ""
    return _short(f"turn {fmt(data.get('turn_no'))} {data.get('turn', '?'):<5} {what}{gold}{ref}{final}")


def format_line(record: RecordLike) -> str:
    """`p1@17 <conversation> <what happened>`, one line."""
    where = f"p{record.partition}@{record.offset}"
    kind = record_kind(record)
    if kind == "dlq":
        source = record.header("aem-source") or "-"
        key = _text(record.key) or "-"
        return (
            f"{where}  key {key}  error: {record.header('aem-error')}  source {source}  "
            f"value {_short(_text(record.value), 80)!r}"
        )
    data = decode_json(record.value)
    if not isinstance(data, dict):
        return f"{where}  {_short(_text(record.value))}"
    conv = data.get("conversation_id", _text(record.key))
    release = f"  [{data.get('agent') or 'default'} {data.get('release') or UNKNOWN_RELEASE}]"
    if kind == "turn":
        return f"{where}  {conv}  {_turn_line(data)}{release}"
    if kind == "dialog":
        return f"{where}  {conv}  {_dialog_line(data)}{release}"
    if kind == "chain":
        return f"{where}  {conv}  {_chain_line(data)}{release}"
    if kind == "trace":
        return f"{where}  {conv}  {_trace_line(data)}{release}"
    return f"{where}  {conv}  {_short(json.dumps(data, ensure_ascii=False))}"


def as_json(record: RecordLike) -> dict[str, Any]:
    """The record for machines: position, key, headers and the value (parsed when it is JSON)."""
    value: Any = decode_json(record.value)
    if value is None and record.value:
        text = record.value.decode("utf-8", "replace")
        value = text if text.encode("utf-8") == record.value else base64.b64encode(record.value).decode()
    return {
        "topic": record.topic,
        "partition": record.partition,
        "offset": record.offset,
        "timestamp_ms": record.timestamp_ms,
        "key": _text(record.key) or None,
        "kind": record_kind(record),
        "headers": {k: _text(v) for k, v in record.headers},
        "value": value,
    }
