"""Turns a session keeps for later, in a compact form: payloads as their text or JSON bytes.

An open conversation keeps every turn it saw (the reference-free judge grounds on them) and the
members of an order-invariant group until the group ends. As pydantic models that costs ~260 bytes a
payload before its content (the object and its ``__dict__``), and a tool call's ``args``/``output``
dicts ~180 bytes each before their strings. A packed turn holds a reply's or user message's text
itself (its only field) and a tool call as the JSON of its set fields; `unpack` rebuilds an equal
`ObservedTurn` when the judge or the group's matching needs it.

A tool call is packed only when its JSON decodes back to an equal model with the same set fields: its
values are all JSON's own types (an ``inf``, a tuple or a non-JSON value in ``args`` stays a model), so
unpacking is exact. Packing costs a serialisation per tool call; unpacking, a validation per turn the
judge reads (a judged turn reads the whole history) and per order-invariant group member when its
group ends.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from monitor.models.dialog import Payload, Reply, ToolCall, ToolSpec, UserMessage
from monitor.models.vocabulary import TurnType
from monitor.scoring.types import CheckResult, ObservedTurn

_INT64 = 1 << 63

PackedPayload = Payload | str | bytes | None  # str: a Reply or UserMessage's text; bytes: a ToolCall's JSON


def pack_payload(turn: str, payload: Payload | None) -> PackedPayload:
    """`payload` in its compact form for a turn of type `turn` (the model itself when none is exact)."""
    if type(payload) is Reply and turn == "Agent":
        return payload.response
    if type(payload) is UserMessage and turn == "User":
        return payload.content
    if type(payload) is ToolCall and turn == "Tool":
        return _pack_call(payload)
    return payload  # a subclass, or a payload of another turn's type: kept as it is


def _pack_call(call: ToolCall) -> PackedPayload:
    try:
        if not (type(call.tool_id) is str and type(call.action) is str and _exact(call.args) and _exact(call.output)):
            return call
        # the set fields only: decoding sets the same ones (the rest take their defaults again)
        return ToolCall.__pydantic_serializer__.to_json(call, exclude_unset=True)
    except Exception:  # e.g. a lone surrogate in a string (not UTF-8 encodable), or nesting past the stack
        return call


def _exact(value: Any) -> bool:
    """`value` comes back from its JSON as an equal value of the same types: only dicts with string keys,
    lists, strings, ints, bools, None and finite floats (an ``inf`` would come back None, a tuple a list)."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return -_INT64 <= value < _INT64  # a longer one may not parse back (Python's int-digit limit)
    if kind is float:
        return math.isfinite(value)
    if kind is list:
        return all(_exact(item) for item in value)
    if kind is dict:
        return all(type(key) is str and _exact(item) for key, item in value.items())
    return False


def unpack_payload(turn: str, packed: PackedPayload) -> Payload | None:
    """The payload `pack_payload(turn, …)` packed, as an equal model."""
    if isinstance(packed, str):
        return Reply(response=packed) if turn == "Agent" else UserMessage(content=packed)
    if isinstance(packed, bytes):
        return ToolCall.model_validate_json(packed)
    return packed


@dataclass(frozen=True, slots=True)
class PackedTurn:
    """An `ObservedTurn` with its payloads packed (`pack_turn`); `unpack` gives the turn back."""

    turn_no: int
    turn: TurnType
    predict: PackedPayload
    gold: PackedPayload
    tags: tuple[str, ...]
    depends_on: tuple[int, ...]
    tools: tuple[ToolSpec, ...] | None
    too_large: str | None
    judged: CheckResult | None

    def unpack(self) -> ObservedTurn:
        return ObservedTurn(
            turn_no=self.turn_no,
            turn=self.turn,
            predict=unpack_payload(self.turn, self.predict),
            gold=unpack_payload(self.turn, self.gold),
            tags=self.tags,
            depends_on=self.depends_on,
            tools=self.tools,
            too_large=self.too_large,
            judged=self.judged,
        )


def pack_turn(turn: ObservedTurn, gold: bool = True) -> PackedTurn:
    """`turn` packed; `gold` False leaves its reference out (a scored turn's history entry)."""
    return PackedTurn(
        turn_no=turn.turn_no,
        turn=turn.turn,
        predict=pack_payload(turn.turn, turn.predict),
        gold=pack_payload(turn.turn, turn.gold) if gold else None,
        tags=turn.tags,
        depends_on=turn.depends_on,
        tools=turn.tools,
        too_large=turn.too_large,
        judged=turn.judged,
    )


def with_gold(packed: PackedTurn, gold: Payload | None) -> PackedTurn:
    """`packed` with its reference packed beside it (sharing the packed prediction)."""
    return replace(packed, gold=pack_payload(packed.turn, gold))


def unpack_turns(turns: Sequence[PackedTurn]) -> list[ObservedTurn]:
    return [t.unpack() for t in turns]
