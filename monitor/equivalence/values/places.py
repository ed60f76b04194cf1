"""Places named at any granularity: "Seattle" / "Seattle, WA" / "WA" / "USA" name one place, "Seattle" / "CA" not.

Where the curated tables are silent, cities come from GeoNames (``gazetteer``) and first-level regions
from ISO 3166-2 (pycountry): "Pune, Maharashtra" and "Pune" are one place.

A value reads as a place when each of its comma-separated parts is a known city, a first-level region (a US
state, a province...) or a country (general-knowledge tables in ``abbreviations``); the first part of a
value may be an unknown city when a later part places it ("Naples, FL"). Every reading is resolved to
(city, region, country) through the gazetteer. Two places are compatible when they agree at every level
both name, and the coarser side names nothing finer than what the finer side is known to sit in. A city
and its state or province are one place at two granularities; a country is too coarse to stand for a
city or a state ("Austin" / "USA" differ), as annotators mostly judge.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import lru_cache

from monitor.equivalence.normalize import fold, strip_wrapping, whole_key
from monitor.equivalence.reference_data import gazetteer
from monitor.equivalence.reference_data.abbreviations import CITIES, CITY_LOCATIONS, COUNTRIES, REGIONS, US_STATES

_US = "united states"

# Ordinary words that are also city names: never read as a place on their own.
_COMMON_WORD_CITIES = frozenset({"mobile", "nice", "jackson", "lincoln", "aurora", "victoria", "reading"})


def _build_tables() -> tuple[dict[str, str], dict[str, tuple[str, str]], dict[str, str]]:
    cities: dict[str, str] = {c: c for c in CITY_LOCATIONS}
    for canon, aliases in CITIES.items():
        for a in aliases:
            if "," not in a and canon in CITY_LOCATIONS:
                cities.setdefault(a, canon)
    for alias, canon in (("new york", "new york city"), ("ny", "new york city"), ("saint louis", "st. louis"),
                         ("st louis", "st. louis"), ("washington dc", "washington"), ("washington d.c", "washington"),
                         ("dc", "washington"),
                         ("st paul", "st. paul"), ("st petersburg", "st. petersburg"), ("montreal", "montreal"),
                         ("bengaluru", "bangalore"),
                         ("bombay", "mumbai"), ("peking", "beijing"), ("saigon", "ho chi minh city")):
        cities[alias] = canon
    for w in _COMMON_WORD_CITIES:
        cities.pop(w, None)
    regions: dict[str, tuple[str, str]] = {}  # key -> (region id, country)
    for code, name in US_STATES.items():
        regions[code] = (code, _US)
        regions[name] = (code, _US)
    for name, (country, aliases) in REGIONS.items():
        for a in (name, *aliases):
            regions.setdefault(a, (name, country))
    countries: dict[str, str] = {}
    for name, aliases in COUNTRIES.items():
        for a in (name, *aliases):
            countries[a] = name
    _add_iso_countries(countries)
    return cities, regions, countries


def _add_iso_countries(countries: dict[str, str]) -> None:
    """Every ISO 3166 country (pycountry) under its name, official name and common name, and the ISO name read
    in order ("Korea, Republic of" is "Republic of Korea"): to the curated name when the curated table knows
    the country by one of them or by its code, else to its common name. Codes are not added as names ("IN",
    "IT", "ME" are words)."""
    import pycountry

    for c in pycountry.countries:
        names = [fold(v) for v in (getattr(c, "common_name", None), c.name, getattr(c, "official_name", None)) if v]
        names += [f"{m.group(2)} {m.group(1)}" for n in names if (m := re.fullmatch(r"(.+), (.+ of)", n))]
        known = [countries[k] for k in (*names, c.alpha_2.lower(), c.alpha_3.lower()) if k in countries]
        canon = known[0] if known else names[0]
        for n in names:
            countries.setdefault(n, canon)


_CITY_KEYS, _REGION_KEYS, _COUNTRY_KEYS = _build_tables()


@dataclass(frozen=True)
class Place:
    city: str | None
    region: str | None
    country: str | None

    def levels(self) -> tuple[str | None, str | None, str | None]:
        return (self.city, self.region, self.country)


def _part_readings(part: str) -> list[tuple[str, str]]:
    """(level, name) readings of one comma part: ("city", "seattle"), ("region", "wa"), ("country", ...)."""
    keys = {fold(strip_wrapping(part)), whole_key(part)}
    out: list[tuple[str, str]] = []
    for key in keys:
        for k in (key, key.removeprefix("the ").strip()):
            if k in _CITY_KEYS:
                out.append(("city", _CITY_KEYS[k]))
            for suffix in (" area", " metro area", " metropolitan area", " city"):
                if k.endswith(suffix) and k[: -len(suffix)] in _CITY_KEYS:
                    out.append(("city", _CITY_KEYS[k[: -len(suffix)]]))
            for kk in (k, k.removesuffix(" state"), k.removesuffix(" province")):
                if kk in _REGION_KEYS:
                    out.append(("region", _REGION_KEYS[kk][0]))
            if k in _COUNTRY_KEYS:
                out.append(("country", _COUNTRY_KEYS[k]))
    if not any(level == "city" for level, _ in out):
        for k in keys:
            reading = _gazetteer_reading(k)
            if reading is not None:
                out.append(reading)
    if not out:
        out.extend(("region", k) for k in keys if k in _subdivisions())
    return list(dict.fromkeys(out))


@lru_cache(maxsize=1)
def _subdivisions() -> dict[str, str]:
    """First-level subdivisions the curated table does not name (pycountry, ISO 3166-2): name -> country."""
    import pycountry

    out: dict[str, str] = {}
    for sub in pycountry.subdivisions:
        if getattr(sub, "parent_code", None) is not None:
            continue
        name = fold(re.sub(r"\s*[\[(].*$", "", sub.name))
        if name in _REGION_KEYS or name in _CITY_KEYS or name in _COUNTRY_KEYS or len(name) < 4:
            continue
        code = sub.country_code
        out.setdefault(name, _COUNTRY_KEYS.get(code.lower()) or _COUNTRY_KEYS.get(gazetteer.country_name(code))
                       or gazetteer.country_name(code))
    return out


_GAZETTEER = "gn:"  # prefix of cities read from the gazetteer, not the curated table


def _gazetteer_reading(key: str) -> tuple[str, str] | None:
    """A city the curated table does not know by this name, from GeoNames ("Ciudad de Mexico", "CDMX")."""
    if key in _COMMON_WORD_CITIES or not re.fullmatch(r"[a-z][a-z .'\-]{2,40}", key) or key in _COUNTRY_KEYS:
        return None
    if key in _REGION_KEYS:
        return None
    city = gazetteer.lookup(key)
    if city is None or city.name in _COMMON_WORD_CITIES:
        return None
    if city.name in _CITY_KEYS:
        return ("city", _CITY_KEYS[city.name])
    return ("city", _GAZETTEER + f"{city.name}|{city.country}|{city.admin1}")


@lru_cache(maxsize=4096)
def _locations(city: str) -> tuple[str, ...]:
    """Where a city is: US state codes or region / country names, as in ``CITY_LOCATIONS``."""
    if not city.startswith(_GAZETTEER):
        return CITY_LOCATIONS[city]
    _, country, admin1 = city.removeprefix(_GAZETTEER).split("|")
    if country == "US":
        return (admin1.lower(),)
    name = _COUNTRY_KEYS.get(country.lower()) or _COUNTRY_KEYS.get(gazetteer.country_name(country))
    return (name or gazetteer.country_name(country),)


def _region_country(region: str) -> str:
    if region in US_STATES:
        return _US
    if region in REGIONS:
        return REGIONS[region][0]
    return _subdivisions()[region]


def _resolve(readings: tuple[tuple[str, str], ...]) -> list[Place]:
    """Consistent (city, region, country) places for one combination of part readings."""
    given: dict[str, str] = {}
    for level, name in readings:
        if given.get(level, name) != name:
            return []
        given[level] = name
    region, country = given.get("region"), given.get("country")
    if region is not None:
        rc = _region_country(region)
        if country is not None and country != rc:
            return []
        country = rc
    city = given.get("city")
    if city is None:
        return [Place(None, region, country)]
    if city.startswith("?"):
        return [Place(city, region, country)] if (region or country) else []
    out = []
    for loc in _locations(city):
        if loc in US_STATES:
            c_region, c_country = loc, _US
        elif loc in REGIONS:
            c_region, c_country = loc, REGIONS[loc][0]
        else:
            c_region, c_country = None, loc
        if region is not None and c_region != region:
            if c_region is not None or c_country != _region_country(region):
                continue
            c_region = region  # a city known only by its country, placed in one of its regions
        if country is not None and c_country != country:
            continue
        out.append(Place(city, c_region, c_country))
    return out


@lru_cache(maxsize=65536)
def parse_place(value: str) -> tuple[Place, ...] | None:
    """Every consistent reading of ``value`` as a place, or None when it does not read as one."""
    parts = [p.strip() for p in value.split(",") if p.strip()]
    if not parts or len(parts) > 3:
        return None
    per_part = [_part_readings(p) for p in parts]
    if len(parts) >= 2 and not per_part[0] and all(per_part[1:]):
        # an unknown city placed by the rest ("Naples, FL"); never a street address
        head = fold(strip_wrapping(parts[0]))
        if any(ch.isdigit() for ch in head) or len(head.split()) > 3:
            return None
        per_part[0] = [("city", "?" + head)]
    if not all(per_part):
        return None
    places: list[Place] = []
    for combo in itertools.product(*per_part):
        resolved = _resolve(combo)
        if not resolved and len(parts) >= 2 and combo[0][0] == "city" and not combo[0][1].startswith("?"):
            # a known city name placed elsewhere ("Miami, Ohio", "Paris, TX"): an unknown namesake
            head = fold(strip_wrapping(parts[0]))
            resolved = _resolve((("city", "?" + head), *combo[1:]))
        places.extend(resolved)
    places = list(dict.fromkeys(places))
    return tuple(places) if places else None


def _relation(a: Place, b: Place) -> str | None:
    """'same', 'a_finer', 'b_finer' when compatible, 'unknown' when an unknown city meets another city,
    else None."""
    la, lb = a.levels(), b.levels()
    for i, (x, y) in enumerate(zip(la, lb, strict=True)):
        if x is not None and y is not None:
            if x != y:
                if i == 0 and (x.startswith(("?", _GAZETTEER)) or y.startswith(("?", _GAZETTEER))) and la[1:] == lb[1:]:
                    return "unknown"  # a neighbourhood or suburb of the other city, or another city
                return None
        elif x is not None or y is not None:
            if i == 1 and la[0] is not None and la[0] == lb[0]:
                continue  # one city, its region known on one side only (a gazetteer city)
            lacking = la if x is None else lb
            if i == 1 and (lacking[0] or "").startswith(_GAZETTEER) and la[2] == lb[2]:
                return "unknown"  # a gazetteer city's region is not known: in this region or not
            # only one side names this level: the other must name nothing finer
            other = lb if x is not None else la
            if any(v is not None for v in other[:i]):
                return None
    finest_a = next(i for i, v in enumerate(la) if v is not None)
    finest_b = next(i for i, v in enumerate(lb) if v is not None)
    if finest_a == finest_b:
        return "same"
    if max(finest_a, finest_b) == 2:
        # a country is too coarse to stand for a city or a state in it ("Austin" / "USA", "CA" / "USA")
        return None
    return "a_finer" if finest_a < finest_b else "b_finer"


def place_relation(a: str, b: str) -> str | None:
    """How two place values relate: 'same', 'a_finer', 'b_finer', 'different'; None if either is no place."""
    pa, pb = parse_place(a), parse_place(b)
    if pa is None or pb is None:
        return None
    # a name that is both a city and a state ("New York", "Washington") is read as a city against a city
    cities_a, cities_b = [x for x in pa if x.city], [y for y in pb if y.city]
    if cities_a and cities_b:
        pa, pb = tuple(cities_a), tuple(cities_b)
    found = {_relation(x, y) for x in pa for y in pb} - {None}
    for rel in ("same", "a_finer", "b_finer"):
        if rel in found:
            return rel
    if fold(b) in other_names(a) or fold(a) in other_names(b):
        return "same"  # a city's name in another language or an old name ("Köln" / "Cologne", "Bombay")
    return None if "unknown" in found else "different"


def place_within(fine: str, coarse: str) -> bool:
    """Whether ``coarse`` names only a country that a reading of ``fine`` (a city or a region) lies in
    ("Tel Aviv" within "Israel", "Bavaria" within "Germany"): the coarser name says less, not otherwise."""
    pf, pc = parse_place(fine), parse_place(coarse)
    if pf is None or pc is None or any(c.city or c.region for c in pc):
        return False
    countries = {c.country for c in pc} - {None}
    return any((f.city or f.region) and f.country in countries for f in pf)


@lru_cache(maxsize=4096)
def other_names(value: str) -> frozenset[str]:
    """Other names (folded) of the one city ``value`` names: the curated aliases and the gazetteer's
    alternate names, also one a small town bears as its own ("NOLA" for New Orleans): a name that can refer
    to the city. Never a name that also reads as a region or a country ("NY", "LA"). Empty when ``value``
    names no city or several."""
    readings = parse_place(value)
    cities = {p.city for p in readings or () if p.city}
    if len(cities) != 1:
        return frozenset()
    city = cities.pop()
    if city.startswith("?"):
        return frozenset()
    if city.startswith(_GAZETTEER):
        name = city.removeprefix(_GAZETTEER).split("|")[0]
        curated: set[str] = set()
    else:
        name = city
        curated = {k for k, v in _CITY_KEYS.items() if v == city}
    found = gazetteer.lookup(name)
    names = curated | (set(gazetteer.alternate_names(found)) if found is not None else set())
    # a name that also reads as a region or a country ("NY", "LA") names no city on its own
    return frozenset(n for n in names - {fold(value), name} if n not in _REGION_KEYS and n not in _COUNTRY_KEYS)
