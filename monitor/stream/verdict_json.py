"""The JSON of `turn` and `chain` verdict records, written directly (the verdict sink's hot path).

pydantic-core's `to_json` of a `TurnVerdict` plus a head dict costs a serialiser walk over every
field, a type inference per head value (the mode is an enum) and a join. These records have a fixed
shape (docs/verdict-messages.md), so they are spelled out here from the values' exact types, with
the C string escaper of the standard library. The bytes are the same as pydantic-core's: strings
escaped the same way (`"`, `\\`, control characters; non-ASCII kept as UTF-8), integers in decimal,
booleans and null as themselves, floats in the shortest round-trip form, which Python's `repr` and
pydantic-core's writer spell alike between 1e-4 and 1e15 (and for zero). Any value outside those
cases (a float past that range, a lone surrogate, an unexpected type) makes `None` come back: the
caller then serialises with pydantic as before. tests/stream/test_verdict_json.py compares both.
"""

from __future__ import annotations

from json.encoder import encode_basestring  # the C escaper when available
from typing import Any

from monitor.models.verdict import TurnVerdict

# TurnVerdict's fields in the model's order, without `mode` (the head carries it)
_BODY_FIELDS = tuple(name for name in TurnVerdict.model_fields if name != "mode")


def _value(value: Any) -> str | None:
    """A JSON scalar as pydantic-core writes it, or None when this writer does not vouch for it."""
    kind = type(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if kind is float:
        return repr(value) if value == 0.0 or 1e-4 <= abs(value) < 1e15 else None
    if isinstance(value, str):  # str and the vocabulary's StrEnums (written as their value)
        return encode_basestring(value)
    return None


def _head(kind: str, conversation_id: str, agent: str, release: str, mode: str) -> list[str] | None:
    parts = ['{"kind":', encode_basestring(kind), ',"conversation_id":', encode_basestring(conversation_id)]
    parts += [',"agent":', encode_basestring(agent), ',"release":', encode_basestring(release)]
    if not isinstance(mode, str):
        return None
    parts += [',"mode":', encode_basestring(mode)]
    return parts


def _utf8(parts: list[str]) -> bytes | None:
    try:
        return "".join(parts).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: pydantic decides what happens, as before
        return None


def turn_record(conversation_id: str, agent: str, release: str, mode: str, verdict: TurnVerdict) -> bytes | None:
    """The `turn` record of `verdict`, or None when the values need pydantic's serialiser."""
    parts = _head("turn", conversation_id, agent, release, mode)
    if parts is None:
        return None
    values = verdict.__dict__
    for name in _BODY_FIELDS:
        text = _value(values[name])
        if text is None:
            return None
        parts += [',"', name, '":', text]
    parts.append("}")
    return _utf8(parts)


def chain_record(
    conversation_id: str, agent: str, release: str, mode: str, turns: tuple[int | None, ...], bucket: str
) -> bytes | None:
    """The `chain` record of a chain closure, or None when the values need pydantic's serialiser."""
    parts = _head("chain", conversation_id, agent, release, mode)
    numbers = [_value(n) if type(n) is int or n is None else None for n in turns]
    if parts is None or None in numbers or not isinstance(bucket, str):
        return None
    parts += [',"turns":[', ",".join(n for n in numbers if n is not None), '],"chain_length":']
    parts += [encode_basestring(bucket), "}"]
    return _utf8(parts)
