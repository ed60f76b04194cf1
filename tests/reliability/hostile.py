"""Hypothesis strategies for hostile input: trace events (bytes) and dialog documents."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import strategies as st

from monitor.demo.traffic import sample_dialogs
from monitor.models.dialog import Dialog
from monitor.tools.replay import dialog_events

_DIALOG = sample_dialogs(per_release=1, seed=3)[1]
VALID_EVENTS: list[dict[str, Any]] = list(dialog_events(Dialog.model_validate(_DIALOG), conversation_id="fuzz"))
REQUIRED = ("schema_version", "conversation_id", "release", "turn_no", "turn", "timestamp", "predict_turn")

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
wrong_types = st.sampled_from([None, True, 1.5, -3, "x", [], {}, [1, "a"], {"a": {"b": 1}}])


def nested(depth: int) -> Any:
    value: Any = "bottom"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


def _encode(event: dict[str, Any]) -> bytes:
    return json.dumps(event, ensure_ascii=False).encode("utf-8")


KINDS = (
    "missing",
    "wrong_type",
    "schema_version",
    "utf8",
    "huge",
    "deep",
    "negative_turn_no",
    "bad_turn",
    "not_object",
    "bad_json",
    "bad_payload",
)


@st.composite
def invalid_events(
    draw: st.DrawFn, conversation_id: str = "hostile", huge: int = 1_000_100, kind: str | None = None
) -> bytes:
    """One trace event that is invalid by construction (each kind breaks one rule of docs/trace-events.md)."""
    base = copy.deepcopy(draw(st.sampled_from(VALID_EVENTS)))
    base["conversation_id"] = conversation_id
    kind = kind or draw(st.sampled_from(KINDS))
    if kind == "missing":
        del base[draw(st.sampled_from(REQUIRED))]
    elif kind == "wrong_type":
        key = draw(st.sampled_from(["turn_no", "timestamp", "predict_turn", "conversation_id", "release"]))
        value = draw(wrong_types)
        if key == "turn_no" and isinstance(value, int) and value >= 0:  # lax mode reads true as 1
            value = "seven"
        if key == "timestamp" and isinstance(value, int | float):  # numbers are epoch seconds: valid
            value = "yesterday"
        if key in ("conversation_id", "release") and isinstance(value, str):
            value = None
        base[key] = value
    elif kind == "schema_version":
        base["schema_version"] = draw(st.sampled_from([0, 2, "1", 1.5, None, [], 99]))
    elif kind == "utf8":
        raw = _encode(base)
        cut = draw(st.integers(0, len(raw)))
        return (
            raw[:cut] + draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80"])) + raw[cut:]
        )
    elif kind == "huge":
        field = draw(st.sampled_from(["pad", "conversation_id_tail", "args"]))
        blob = "x" * huge
        if field == "args" and base["turn"] == "Tool":
            base["predict_turn"]["args"]["huge"] = blob
        else:
            base["pad"] = blob
    elif kind == "deep":
        where = draw(st.sampled_from(["pad", "args", "output"]))
        value = nested(draw(st.integers(33, 900)))  # json.dumps cannot go much deeper
        if base["turn"] == "Tool" and where != "pad":
            base["predict_turn"][where] = value
        else:
            base["pad"] = value
    elif kind == "negative_turn_no":
        base["turn_no"] = draw(st.integers(max_value=-1))
    elif kind == "bad_turn":
        base["turn"] = draw(st.sampled_from(["System", "agent", "", "TOOL"]))
    elif kind == "not_object":
        return _encode(draw(st.lists(json_values, max_size=3)) if draw(st.booleans()) else draw(json_scalars))
    elif kind == "bad_json":
        raw = _encode(base)
        return raw[: draw(st.integers(0, len(raw) - 1))]
    elif kind == "bad_payload":
        if base["turn"] == "Tool":
            base["predict_turn"] = {"response": "a reply where a tool call belongs"}
        else:
            base["predict_turn"] = {"tool_id": 5}
    return _encode(base)


def every_kind(huge: int = 1_000_100) -> st.SearchStrategy[list[bytes]]:
    """At least one invalid event of every kind, plus more of random kinds."""
    each = st.tuples(*(invalid_events(huge=huge, kind=k) for k in KINDS)).map(list)
    return st.tuples(each, st.lists(invalid_events(huge=huge), max_size=20)).map(lambda t: t[0] + t[1])


@st.composite
def mutated_events(draw: st.DrawFn) -> bytes:
    """A valid event with arbitrary keys replaced by arbitrary JSON (may or may not stay valid)."""
    event = copy.deepcopy(draw(st.sampled_from(VALID_EVENTS)))
    for key in draw(st.lists(st.sampled_from([*event, "extra", "tools", "gold_turn"]), max_size=3)):
        if draw(st.booleans()):
            event.pop(key, None)
        else:
            event[key] = draw(json_values)
    return _encode(event)


def _turn_list() -> list[dict[str, Any]]:
    return copy.deepcopy(_DIALOG["turns"])


@st.composite
def hostile_documents(draw: st.DrawFn) -> Any:
    """A dialog document (any accepted shape) with one or more fields broken in some way."""
    shape = draw(st.sampled_from(["bare", "object", "list", "unaligned"]))
    turns = _turn_list()
    for _ in range(draw(st.integers(1, 3))):
        target = draw(st.integers(0, len(turns) - 1))
        key = draw(st.sampled_from(["turn_no", "turn", "gold_turn", "predict_turn", "tags", "depends_on", "extra"]))
        action = draw(st.sampled_from(["delete", "replace", "nest"]))
        if action == "delete":
            turns[target].pop(key, None)
        elif action == "replace":
            turns[target][key] = draw(json_values | wrong_types)
        else:
            turns[target][key] = nested(draw(st.integers(1, 200)))
    if draw(st.booleans()):
        turns[draw(st.integers(0, len(turns) - 1))]["turn_no"] = draw(st.integers(-5, 3))  # negative/repeated
    if shape == "bare":
        return turns
    doc: dict[str, Any] = {"dialog_id": draw(st.text(max_size=10) | wrong_types), "release": "r", "turns": turns}
    if shape == "unaligned":
        doc = {
            "dialog_id": "u",
            "gold_turns": [{"turn": t.get("turn"), "gold_turn": t.get("gold_turn")} for t in turns],
            "predict_turns": [
                {"turn": t.get("turn"), "turn_no": t.get("turn_no"), "predict_turn": t.get("predict_turn")}
                for t in turns
            ],
        }
    if shape == "list":
        return [doc, draw(json_values)]
    return doc


# -- extreme but well-formed values: huge numbers, huge strings, deep and wide structures ------------

_SLOT = "__aem_extreme_slot__"
EXTREME_KINDS = ("huge_int", "huge_float", "huge_string", "deep", "wide")


@st.composite
def extreme_values(draw: st.DrawFn, kind: str | None = None) -> bytes:
    """The JSON text of one extreme value (bytes: json.dumps cannot write a 5,000-digit integer)."""
    kind = kind or draw(st.sampled_from(EXTREME_KINDS))
    if kind == "huge_int":
        digits = draw(st.integers(4_301, 20_000))  # past Python's int-digit limit (4,300)
        return (b"-" if draw(st.booleans()) else b"") + b"9" * digits
    if kind == "huge_float":
        return draw(st.sampled_from([b"1e999999", b"-1e400", b"1" * 5_000 + b".5", b"0." + b"0" * 5_000 + b"1"]))
    if kind == "huge_string":
        text = draw(st.sampled_from(["x", "é", "\x00", "\ud7ff", "1 "])) * draw(st.integers(10_000, 200_000))
        return json.dumps(text, ensure_ascii=False).encode("utf-8")
    if kind == "deep":
        return json.dumps(nested(draw(st.integers(2, 31)))).encode()
    return json.dumps({f"k{i}": i for i in range(draw(st.integers(1_000, 20_000)))}).encode()


@st.composite
def extreme_events(draw: st.DrawFn, conversation_id: str = "extreme") -> bytes:
    """A valid sample event with one extreme value in one place (it may stay valid or not)."""
    event = copy.deepcopy(draw(st.sampled_from(VALID_EVENTS)))
    event["conversation_id"] = conversation_id
    where = draw(st.sampled_from(["turn_no", "pad", "args", "response", "schema_version", "timestamp", "depends_on"]))
    pred = event["predict_turn"]
    if where == "args" and "args" in pred:
        pred["args"][draw(st.sampled_from([*pred["args"], "new"]))] = _SLOT
    elif where == "response" and "response" in pred:
        pred["response"] = _SLOT
    elif where == "depends_on":
        event["depends_on"] = [_SLOT]
    elif where in ("turn_no", "schema_version", "timestamp"):
        event[where] = _SLOT
    else:
        event["pad"] = _SLOT
    return _encode(event).replace(_encode(_SLOT), draw(extreme_values()), 1)
