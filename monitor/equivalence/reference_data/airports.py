"""Airports named by IATA code, by name or as "<city> airport", through the ``airportsdata`` package.

A value reads as an airport when it says "airport" ("Delhi airport", "Indira Gandhi International
Airport", "LAX airport"); a bare three-letter code reads as one only against such a value. The words
around the name ("international", "airport", "the"...) do not matter; a city names the airports of that
city or region, or whose name contains it ("Vancouver International" is in Richmond, BC; "Heathrow"
names "London Heathrow"). Two
readings are one airport when their sets of IATA codes meet. The data is loaded on first use.
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache

from monitor.equivalence.normalize import alias_set, fold, strip_wrapping

_AIRPORT_WORD = re.compile(r"\b(?:airport|airfield|aerodrome|aeropuerto|aeroport)s?\b")
_FILLER = frozenset({"airport", "airports", "international", "intl", "int'l", "the", "regional", "municipal",
                     "airfield", "aerodrome", "aeropuerto", "aeroport", "field", "of"})


@dataclass
class _Index:
    codes: set[str] = field(default_factory=set)
    by_name: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    by_place: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    by_word: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    names: dict[str, str] = field(default_factory=dict)  # code -> core name


_INDEX: _Index | None = None
_LOCK = threading.Lock()


def _core(text: str) -> str:
    """An airport name without its generic words: "Indira Gandhi International Airport" -> "indira gandhi"."""
    words = re.findall(r"[a-z0-9']+", fold(text).replace("-", " "))
    return " ".join(w for w in words if w not in _FILLER)


def _index() -> _Index:
    global _INDEX
    with _LOCK:
        if _INDEX is None:
            import airportsdata

            idx = _Index()
            for code, row in airportsdata.load("IATA").items():
                code = code.lower()
                idx.codes.add(code)
                core = _core(row["name"])
                if core:
                    idx.by_name[core].add(code)
                    idx.names[code] = core
                    for word in core.split():
                        idx.by_word[word].add(code)
                for place in (row["city"], row["subd"]):
                    if place:
                        idx.by_place[_core(place)].add(code)
            _INDEX = idx
        return _INDEX


@lru_cache(maxsize=16384)
def _named_airport(text: str) -> frozenset[str] | None:
    """IATA codes a value that says "airport" can name; None when it does not say so or names none known."""
    folded = fold(strip_wrapping(text))
    if not _AIRPORT_WORD.search(folded):
        return None
    core = _core(folded)
    if not core:
        return None
    idx = _index()
    codes: set[str] = set()
    for reading in {core, *(_core(r) for r in alias_set(core))}:
        if reading in idx.codes and len(reading) == 3:
            codes.add(reading)
        codes |= idx.by_name.get(reading, set())
        codes |= idx.by_place.get(reading, set())
        codes |= _containing(idx, reading)
    return frozenset(codes) or None


def _containing(idx: _Index, reading: str) -> set[str]:
    """Airports whose name contains ``reading`` as whole words ("heathrow" in "london heathrow")."""
    words = reading.split()
    if not words or any(len(w) < 3 for w in words):
        return set()
    candidates = set.intersection(*(idx.by_word.get(w, set()) for w in words))
    return {c for c in candidates if f" {reading} " in f" {idx.names[c]} "}


def _unmarked_relation(a: str, b: str) -> bool | None:
    """Neither value says "airport": two codes written in capitals ("ORD" / "MDW": Chicago's two airports are
    not one), or such a code against the name of an airport that is no city ("LHR" / "Heathrow")."""
    ca, cb = _capital_code(a), _capital_code(b)
    if ca is not None and cb is not None:
        return ca == cb
    code, other = (ca, b) if ca is not None else (cb, a)
    if code is None:
        return None
    core = _core(fold(strip_wrapping(other)))
    idx = _index()
    if not core or core in idx.by_place or core in idx.codes:
        return None  # a city or another code-like word: the place and abbreviation stages judge it
    named = idx.by_name.get(core, set()) | _containing(idx, core)
    return bool(code & named) if named else None


def _capital_code(text: str) -> frozenset[str] | None:
    stripped = strip_wrapping(text).strip()
    return _code(stripped) if stripped.isupper() else None


def _code(text: str) -> frozenset[str] | None:
    t = fold(strip_wrapping(text))
    return frozenset({t}) if re.fullmatch(r"[a-z]{3}", t) and t in _index().codes else None


def airport_relation(a: str, b: str) -> bool | None:
    """True when two values name one airport, False when two different ones, None when either is no airport."""
    ra, rb = _named_airport(a), _named_airport(b)
    if ra is None and rb is None:
        return _unmarked_relation(a, b)
    ra = ra if ra is not None else _code(a)
    rb = rb if rb is not None else _code(b)
    if ra is None or rb is None:
        return None
    return bool(ra & rb)
