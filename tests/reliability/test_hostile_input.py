"""Property-based fuzzing of hostile input: trace events and dialog files (no broker needed)."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monitor.models.trace_event import EventLimits, InvalidEvent, TraceEvent, decode_event
from monitor.sources.files import InputError, read_dialogs
from monitor.stream.processor import TurnProcessor
from tests.reliability.hostile import (
    VALID_EVENTS,
    extreme_events,
    hostile_documents,
    invalid_events,
    mutated_events,
    nested,
)
from tests.support.kafka import AEM, REPO

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _decodes_cleanly(raw: bytes) -> TraceEvent | None:
    """decode_event either returns a valid event or raises InvalidEvent — never anything else."""
    try:
        event = decode_event(raw)
    except InvalidEvent as exc:
        assert str(exc), "an InvalidEvent must say why"
        return None
    assert isinstance(event, TraceEvent)
    assert event.schema_version == 1 and event.conversation_id and 0 <= event.turn_no <= 1_000_000
    assert event.turn in ("Agent", "Tool", "User")
    return event


@FUZZ
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_decode_or_raise_invalid_event(raw):
    _decodes_cleanly(raw)


@FUZZ
@given(mutated_events())
def test_mutated_events_decode_or_raise_invalid_event(raw):
    _decodes_cleanly(raw)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(invalid_events())
def test_invalid_by_construction_events_are_rejected(raw):
    with pytest.raises(InvalidEvent):
        decode_event(raw)


def test_valid_sample_events_decode():
    for event in VALID_EVENTS:
        assert decode_event(json.dumps(event).encode()).turn_no == event["turn_no"]


@pytest.mark.parametrize("depth", [33, 200, 5000, 100_000])
def test_deep_nesting_is_invalid_not_a_crash(depth):
    base = dict(VALID_EVENTS[2])
    base["pad"] = nested(depth)
    try:
        raw = json.dumps(base).encode()
    except RecursionError:  # json.dumps itself cannot write it: build the bytes by hand
        raw = json.dumps({**base, "pad": None}).encode()[:-1] + b', "pad2": ' + b"[" * depth + b"]" * depth + b"}"
    with pytest.raises(InvalidEvent, match="nesting"):
        decode_event(raw)


def test_size_limit_is_checked_before_parsing():
    raw = b'{"schema_version": 1, "pad": "' + b"x" * 2_000_000 + b'"}'
    with pytest.raises(InvalidEvent, match="bytes"):
        decode_event(raw, EventLimits())
    small = EventLimits(max_bytes=1000)
    with pytest.raises(InvalidEvent, match="above the limit"):
        decode_event(json.dumps(VALID_EVENTS[0] | {"pad": "y" * 2000}).encode(), small)


@pytest.mark.parametrize("turn_no", [-1, -(2**63), 1_000_001, 2**70, 1.5, "3", True])
def test_out_of_range_or_mistyped_turn_no(turn_no):
    event = dict(VALID_EVENTS[1]) | {"turn_no": turn_no}
    result = _decodes_cleanly(json.dumps(event).encode())
    if result is not None:  # pydantic's lax mode accepts "3" and True: the value must still be in range
        assert isinstance(result.turn_no, int)


# -- dialog files ----------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=hostile_documents(), suffix=st.sampled_from([".json", ".jsonl"]))
def test_read_dialogs_raises_only_input_error_naming_the_file(doc, suffix):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"bad{suffix}"
        try:
            text = json.dumps(doc)
        except (RecursionError, ValueError):
            return
        if suffix == ".jsonl" and isinstance(doc, list):
            text = "\n".join(json.dumps(d) for d in doc)
        path.write_text(text)
        try:
            read_dialogs(path)
        except InputError as exc:
            assert exc.file.startswith(str(path)), exc
            assert str(path) in str(exc)
            assert exc.message


@pytest.mark.parametrize("turn", [[], {"a": 1}])
def test_unhashable_turn_type_is_an_input_error(turn, tmp_path):
    path = tmp_path / "turn.json"
    path.write_text(json.dumps({"dialog_id": "d", "turns": [{"turn_no": 1, "turn": turn, "predict_turn": {}}]}))
    with pytest.raises(InputError, match="turn"):
        read_dialogs(path)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=500))
def test_read_dialogs_on_arbitrary_bytes(raw):
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("x.json", "x.jsonl"):
            path = Path(tmp) / name
            path.write_bytes(raw)
            try:
                read_dialogs(path)
            except InputError as exc:
                assert str(path) in str(exc)


BAD_FILES = {
    "truncated.json": '[{"turn_no": 1, "turn": "Tool", "gold_turn": {"tool_id": "a"',
    "invalid_utf8.json": b'[{"turn_no": 1, "turn": "\xff"}]',
    "wrong_type.json": json.dumps({"dialog_id": "d", "turns": [{"turn_no": "x", "turn": "Tool"}]}),
    "deep.json": "[" * 100_000 + "]" * 100_000,
    "bad_payload.jsonl": json.dumps(
        {"dialog_id": "d", "turns": [{"turn_no": 1, "turn": "Tool", "gold_turn": {"tool_id": 5, "action": "a"}}]}
    ),
    "unhashable_turn.json": json.dumps({"dialog_id": "d", "turns": [{"turn_no": 1, "turn": []}]}),
    "negative_turn.json": json.dumps(
        [{"turn_no": -1, "turn": "Agent", "gold_turn": {"response": "a"}, "predict_turn": {"response": "a"}}]
    ),
}


@pytest.mark.integration
@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_aem_score_on_bad_files_exits_2_with_one_line(name, tmp_path):
    path = tmp_path / name
    content = BAD_FILES[name]
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    proc = subprocess.run([AEM, "score", str(path)], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr and str(path) in lines[0]
    assert proc.stdout == ""


# -- poison pills: values Python's own json module refuses -------------------------------------------


def _with_raw(event: dict, key: str, raw_value: bytes) -> bytes:
    slot = "__slot__"
    return json.dumps(event | {key: slot}).encode().replace(b'"__slot__"', raw_value, 1)


@pytest.mark.parametrize("key", ["turn_no", "pad", "schema_version"])
def test_a_5000_digit_integer_is_invalid_not_a_crash(key):
    raw = _with_raw(VALID_EVENTS[1], key, b"9" * 5_000)
    try:
        decode_event(raw)
    except InvalidEvent as exc:
        assert str(exc)
    else:
        assert key == "pad", "only an ignored field may hold it"


def test_a_huge_integer_behind_the_nesting_check_is_invalid_not_a_crash():
    """More brackets than the depth limit sends the event through the depth pre-check's json.loads."""
    raw = _with_raw(VALID_EVENTS[1], "turn_no", b"9" * 5_000)[:-1] + b', "pad": ' + b"[" * 40 + b"]" * 40 + b"}"
    with pytest.raises(InvalidEvent, match="nesting"):
        decode_event(raw)
    raw = _with_raw(VALID_EVENTS[1], "turn_no", b"9" * 5_000)[:-1] + b', "pad": [' + b"[[]]," * 40 + b"1]}"
    with pytest.raises(InvalidEvent, match="number"):
        decode_event(raw)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(extreme_events())
def test_extreme_values_decode_or_raise_invalid_event(raw):
    _decodes_cleanly(raw)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(extreme_events())
def test_extreme_values_that_decode_are_processed_without_raising(engine, raw):
    event = _decodes_cleanly(raw)
    if event is None:
        return
    processor = TurnProcessor(engine)
    out = processor.process(event)
    for conv in list(processor.open.values()):  # end it: nothing of it may stay behind
        processor._finish(conv, "test", out)
    accounted = [e for e in out.emissions if e.kind == "turn"] + out.failed
    assert len(accounted) <= 1 and all(f.event == event for f in out.failed)  # a verdict or a failure, once
    assert not processor.open and event.conversation_id in processor.finished


@pytest.mark.parametrize("version", ["true", "1.0", '"1"'])
def test_schema_version_is_the_integer_one(version):
    raw = json.dumps(VALID_EVENTS[0]).replace('"schema_version": 1', f'"schema_version": {version}').encode()
    with pytest.raises(InvalidEvent) as err:
        decode_event(raw)
    assert err.value.field == "schema_version" and "unsupported schema_version" in err.value.reason


def test_a_verdict_detail_is_bounded():
    from monitor.models.verdict import MAX_DETAIL_CHARS, TurnVerdict

    verdict = TurnVerdict.model_validate({"turn_no": 1, "turn": "Tool", "success": False, "detail": "x" * 20_000})
    assert verdict.detail is not None and len(verdict.detail) <= MAX_DETAIL_CHARS
    assert verdict.detail.endswith("…[truncated]")


def test_metrics_listen_on_loopback_unless_told_otherwise(monkeypatch):
    from monitor.stream.settings import MonitorSettings

    monkeypatch.delenv("AEM_METRICS_HOST", raising=False)
    assert MonitorSettings().metrics_host == "127.0.0.1"
