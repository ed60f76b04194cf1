"""Well-known abbreviations and aliases (general knowledge, not derived from any evaluation data).

The curated tables live in ``data/vocabulary.json`` (loaded once, at import); this module builds the
lookup tables the comparators use from them. Each table maps a lower-case alias to one or more canonical
lower-case spellings.
"""

from __future__ import annotations

import calendar

from monitor.equivalence.reference_data import data_table

_DATA = data_table("vocabulary.json")


def _table(name: str) -> dict[str, tuple[str, ...]]:
    return {key: tuple(values) for key, values in _DATA[name].items()}


US_STATES: dict[str, str] = dict(_DATA["us_states"])

COUNTRIES: dict[str, tuple[str, ...]] = _table("countries")

CITIES: dict[str, tuple[str, ...]] = _table("cities")

CURRENCIES: dict[str, tuple[str, ...]] = _table("currencies")

UNITS: dict[str, tuple[str, ...]] = _table("units")
# Second readings of unit symbols that mean something else in another trade ("c" is also a cooking cup).
UNIT_SECONDARY: dict[str, tuple[str, ...]] = _table("unit_secondary")

MONTHS: dict[str, str] = dict(_DATA["months"])

WEEKDAYS: dict[str, str] = dict(_DATA["weekdays"])

GENERAL: dict[str, tuple[str, ...]] = _table("general")


def _build() -> dict[str, set[str]]:
    table: dict[str, set[str]] = {}

    def add(alias: str, canonical: str) -> None:
        table.setdefault(alias.lower(), set()).add(canonical.lower())

    for code, name in US_STATES.items():
        add(code, name)
    for canon_map in (COUNTRIES, CITIES, CURRENCIES, GENERAL):
        for canon, aliases in canon_map.items():
            for a in aliases:
                add(a, canon)
    for short, full in {**MONTHS, **WEEKDAYS}.items():
        add(short, full)
    return table


ALIASES: dict[str, set[str]] = _build()

UNIT_ALIASES: dict[str, str] = {
    a.lower(): canon for canon, aliases in UNITS.items() for a in (*aliases, canon, canon + "s")
}
UNIT_ALIASES.update({"feet": "foot", "inches": "inch", "celsius": "celsius", "degrees celsius": "celsius",
                     "degrees fahrenheit": "fahrenheit", "metres": "meter", "litres": "liter"})

CURRENCY_ALIASES: dict[str, str] = {
    a.lower(): code for code, aliases in CURRENCIES.items() for a in (*aliases, code)
}
CURRENCY_ALIASES.update({a + "s": c for a, c in list(CURRENCY_ALIASES.items()) if a.isalpha() and len(a) > 3})
CURRENCY_ALIASES.update({"dollars": "usd", "euros": "eur", "pounds": "gbp", "bucks": "usd"})

# Short codes that are also ordinary words: only expanded when written in capitals or standing alone.
AMBIGUOUS_LOWER = frozenset(_DATA["ambiguous_lower"])

# IANA zone -> abbreviations, long names and the big city usually meant by it.
TIMEZONES: dict[str, tuple[str, ...]] = _table("timezones")

# Major airports (IATA) -> city.
AIRPORTS: dict[str, str] = dict(_DATA["airports"])

# The largest listed companies' tickers -> company name.
TICKERS: dict[str, str] = dict(_DATA["tickers"])

COMPANY_SUFFIXES = frozenset(_DATA["company_suffixes"])


MAJOR_CITIES: tuple[str, ...] = tuple(_DATA["major_cities"])

LANGUAGES: dict[str, tuple[str, ...]] = _table("languages")


def _categories() -> dict[str, dict[str, str]]:
    """Closed classes of values: within one class, two different members are never equivalent."""
    cats: dict[str, dict[str, str]] = {"state": {}, "country": {}, "currency": {}, "unit": {}, "timezone": {},
                                       "city": {}, "language": {}, "month": {}}
    for i, name in enumerate((m.lower() for m in calendar.month_name[1:]), start=1):
        for a in (name, str(i), f"{i:02d}"):
            cats["month"][a] = name
    for short, name in MONTHS.items():
        cats["month"][short] = name
    for city in MAJOR_CITIES:
        cats["city"][city] = city
    for city, aliases in CITIES.items():
        for a in aliases:
            if a in ("la", "sf", "nyc", "sd", "lv", "philly", "hk") or "," in a:
                cats["city"][a] = city if city in MAJOR_CITIES else cats["city"].get(a, city)
    cats["city"]["new york"] = "new york city"
    cats["city"]["ny"] = "new york city"
    cats["city"]["saint louis"] = "st. louis"
    cats["city"]["st louis"] = "st. louis"
    for lang, aliases in LANGUAGES.items():
        for a in (lang, *aliases):
            cats["language"][a] = lang
    for code, name in US_STATES.items():
        cats["state"][code] = name
        cats["state"][name] = name
    for name, aliases in COUNTRIES.items():
        for a in (name, *aliases):
            cats["country"][a] = name
    for code, aliases in CURRENCIES.items():
        for a in (code, *aliases):
            cats["currency"][a] = code
    for canon, aliases in UNITS.items():
        for a in (canon, *aliases):
            cats["unit"][a] = canon
    for zone, aliases in TIMEZONES.items():
        cats["timezone"][zone] = zone
        for a in aliases:
            if a.endswith(" time") or "/" in a or (a.isalpha() and a.upper() == a.upper() and len(a) <= 4
                                                   and a not in ("la", "sf", "ny", "nyc")):
                cats["timezone"][a] = zone
            else:
                TZ_CITIES[a] = zone
    return cats


TZ_CITIES: dict[str, str] = {}
CATEGORIES: dict[str, dict[str, str]] = _categories()

# Business and product metrics that reports name: two different ones are different facts
# ("revenue" is not "profit"), whatever an embedding says. General knowledge, not fitted to data.
METRICS: dict[str, tuple[str, ...]] = _table("metrics")
for _metric, _aliases in METRICS.items():
    for _name in (_metric, *_aliases):
        CATEGORIES.setdefault("metric", {})[_name] = _metric


def _extend() -> None:
    for code, city in AIRPORTS.items():
        ALIASES.setdefault(code, set()).add(city)
    for ticker, name in TICKERS.items():
        ALIASES.setdefault(ticker, set()).add(name)
    for alias, canon in (("d.c.", "washington"), ("d.c", "washington"),
                         ("washington d.c", "washington"), ("l.a.", "los angeles"), ("n.y.c.", "new york city"),
                         ("s.f.", "san francisco"), ("u.k.", "united kingdom"), ("e.u.", "european union")):
        ALIASES.setdefault(alias, set()).add(canon)
    for name in COUNTRIES:
        if name in ("united states",):
            ALIASES.setdefault("american", set()).add(name)
    for code, aliases in CURRENCIES.items():
        for a in aliases:
            if a.isascii() and a[-1].isalpha() and len(a) > 3:
                plural = a + ("s" if not a.endswith("s") else "")
                CURRENCY_ALIASES.setdefault(plural, code)
                CATEGORIES["currency"].setdefault(plural, code)
    for canon, aliases in UNITS.items():
        for a in (canon, *aliases):
            if " " in a or len(a) > 3:
                plural = a + "es" if a.endswith(("ch", "sh")) else a + "s"
                if " per " in a:
                    head, _, rest = a.partition(" per ")
                    plural = head + "s per " + rest
                UNIT_ALIASES.setdefault(plural, canon)
                CATEGORIES["unit"].setdefault(plural, canon)
    UNIT_ALIASES.update({"square inches": "square inch", "square feet": "square foot"})
    for k, v in list(UNIT_ALIASES.items()):
        CATEGORIES["unit"].setdefault(k, v)
        if not k.endswith("s") and k.isalpha() and len(k) > 3:
            CATEGORIES["unit"].setdefault(k + "s", v)


_extend()


# --- gazetteer: where major cities are (general knowledge) ------------------------------------------
# city -> one or more "ST" (a US state code) or a country name from COUNTRIES / REGIONS.
CITY_LOCATIONS: dict[str, tuple[str, ...]] = _table("city_locations")

# First-level regions outside the US: region -> (country, aliases).
REGIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    name: (country, tuple(aliases)) for name, (country, aliases) in _DATA["regions"].items()
}
