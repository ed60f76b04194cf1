"""The typed values of a text and their comparison: the one entry point for the facts of a reply sentence or
a tool output.

``typed_values(text)`` reads every value a text states (places, names, ids, numbers, amounts with a unit, money,
percentages, dates, clock times, phone numbers, street addresses), each with its kind, its span in ``text`` and
its normalised reading. ``ValueComparator.same_value(a, b)`` (or ``compare_values`` with any typed decision)
says whether two of them state one value, through the same typed stage chain that compares tool arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from enum import StrEnum
from functools import lru_cache

from monitor.equivalence.replies.facts import Fact, extract_facts, normalise_numbers
from monitor.equivalence.types import Match
from monitor.equivalence.values.places import parse_place
from monitor.equivalence.values.stages import Decide, fact_match, value_decision


class ValueKind(StrEnum):
    MONEY = "money"
    QUANTITY = "quantity"  # a number with a unit ("3 km", "2 hours")
    PERCENT = "percent"
    NUMBER = "number"
    DATE = "date"
    TIME = "time"
    ID = "id"
    PHONE = "phone"
    ADDRESS = "address"
    PLACE = "place"  # a capitalised name the gazetteer reads as a place ("Paris", "Albany, NY")
    NAME = "name"  # any other capitalised name (people, venues, organisations)


@dataclass(frozen=True)
class TypedValue:
    """One value of a text: its ``kind``, the ``text`` as written, its ``span`` in the text it was read from,
    and ``value``, the normalised reading (``Money``, ``Quantity``, ``DateValue``, a float, minutes after
    midnight, a folded key). ``fact`` is the underlying fact (its text and span in the number-normalised text,
    "25 dollars" for "twenty five dollars")."""

    kind: ValueKind
    text: str
    span: tuple[int, int]
    value: object
    fact: Fact


def _kind(fact: Fact) -> ValueKind:
    if fact.kind != "entity":
        return ValueKind(fact.kind)
    return ValueKind.PLACE if parse_place(fact.text) is not None else ValueKind.NAME


def _offsets(norm: str, text: str) -> Sequence[tuple[str, int, int, int, int]]:
    return SequenceMatcher(None, norm, text, autojunk=False).get_opcodes()


def _source_span(span: tuple[int, int], ops: Sequence[tuple[str, int, int, int, int]]) -> tuple[int, int]:
    """A span of the number-normalised text mapped back onto the text as written."""

    def at(i: int, end: bool) -> int:
        for tag, i1, i2, j1, j2 in ops:
            if i1 <= i < i2 or (end and i1 < i <= i2):
                return j1 + (i - i1) if tag == "equal" else (j2 if end else j1)
        return ops[-1][4] if ops else i

    return at(span[0], False), at(span[1], True)


@lru_cache(maxsize=16384)
def typed_values(text: str, names: bool = True) -> tuple[TypedValue, ...]:
    """The values ``text`` states, in order; ``names``: places and names too, not only typed values."""
    facts = [f for f in extract_facts(text) if names or f.kind != "entity"]
    norm = normalise_numbers(text)
    ops = _offsets(norm, text) if norm != text else ()
    out = []
    for f in facts:
        s, e = _source_span(f.span, ops) if ops else f.span
        out.append(TypedValue(_kind(f), text[s:e], (s, e), f.value, f))
    return tuple(out)


def compare_values(a: TypedValue, b: TypedValue, decide: Decide = value_decision) -> Match | None:
    """Whether two values are one (``Match.equivalent``), decided by the typed stage chain (``decide``: a
    ``ValueComparator``'s ``typed``, or the memoised chain); None when they cannot state one value (a date and a
    phone number). A bare number and an amount compare by amount ("3" / "$3"); names compare as names."""
    return fact_match(a.fact, b.fact, decide)
