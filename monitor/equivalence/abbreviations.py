"""Well-known abbreviations and aliases (general knowledge, not derived from any evaluation data).

Each table maps a lower-case alias to one or more canonical lower-case spellings.
"""

from __future__ import annotations

US_STATES: dict[str, str] = {
    "al": "alabama", "ak": "alaska", "az": "arizona", "ar": "arkansas", "ca": "california",
    "co": "colorado", "ct": "connecticut", "de": "delaware", "fl": "florida", "ga": "georgia",
    "hi": "hawaii", "id": "idaho", "il": "illinois", "in": "indiana", "ia": "iowa", "ks": "kansas",
    "ky": "kentucky", "la": "louisiana", "me": "maine", "md": "maryland", "ma": "massachusetts",
    "mi": "michigan", "mn": "minnesota", "ms": "mississippi", "mo": "missouri", "mt": "montana",
    "ne": "nebraska", "nv": "nevada", "nh": "new hampshire", "nj": "new jersey", "nm": "new mexico",
    "ny": "new york", "nc": "north carolina", "nd": "north dakota", "oh": "ohio", "ok": "oklahoma",
    "or": "oregon", "pa": "pennsylvania", "ri": "rhode island", "sc": "south carolina",
    "sd": "south dakota", "tn": "tennessee", "tx": "texas", "ut": "utah", "vt": "vermont",
    "va": "virginia", "wa": "washington", "wv": "west virginia", "wi": "wisconsin", "wy": "wyoming",
    "dc": "district of columbia",
}

COUNTRIES: dict[str, tuple[str, ...]] = {
    "united states": ("us", "usa", "u.s.", "u.s", "u.s.a.", "america", "united states of america"),
    "united kingdom": ("uk", "gb", "gbr", "u.k.", "great britain", "britain"),
    "european union": ("eu",),
    "united arab emirates": ("uae",),
    "japan": ("jp", "jpn"), "china": ("cn", "chn", "prc"), "germany": ("de", "deu"),
    "france": ("fr", "fra"), "italy": ("it", "ita"), "spain": ("es", "esp"), "canada": ("ca", "can"),
    "australia": ("au", "aus"), "india": ("in", "ind"), "brazil": ("br", "bra"), "mexico": ("mx", "mex"),
    "russia": ("ru", "rus", "russian federation"), "south korea": ("kr", "kor", "korea"),
    "netherlands": ("nl", "nld", "holland"), "switzerland": ("ch", "che"), "sweden": ("se", "swe"),
    "norway": ("no", "nor"), "denmark": ("dk", "dnk"), "ireland": ("ie", "irl"),
    "new zealand": ("nz", "nzl"), "south africa": ("za", "zaf"), "singapore": ("sg", "sgp"),
    "argentina": ("ar", "arg"), "portugal": ("pt", "prt"), "egypt": ("eg", "egy"),
    "turkey": ("tr", "tur"), "greece": ("gr", "grc"), "poland": ("pl", "pol"),
}

CITIES: dict[str, tuple[str, ...]] = {
    "new york city": ("nyc", "ny, ny", "new york, ny"),
    "los angeles": ("la",),
    "san francisco": ("sf",),
    "san diego": ("sd",),
    "las vegas": ("lv",),
    "washington": ("dc", "washington dc", "washington d.c."),
    "philadelphia": ("philly",),
    "hong kong": ("hk",),
}

CURRENCIES: dict[str, tuple[str, ...]] = {
    "usd": ("$", "us$", "dollar", "us dollar", "united states dollar", "buck"),
    "eur": ("€", "euro"),
    "gbp": ("£", "pound", "pound sterling", "british pound", "sterling"),
    "jpy": ("¥", "yen", "japanese yen"),
    "cny": ("rmb", "yuan", "renminbi", "chinese yuan"),
    "inr": ("₹", "rupee", "indian rupee"),
    "cad": ("c$", "canadian dollar"),
    "aud": ("a$", "australian dollar"),
    "chf": ("swiss franc", "franc"),
    "krw": ("₩", "won", "korean won", "south korean won"),
    "mxn": ("mexican peso", "peso"),
    "brl": ("r$", "real", "brazilian real"),
    "rub": ("₽", "ruble", "rouble", "russian ruble"),
}

UNITS: dict[str, tuple[str, ...]] = {
    "meter": ("m", "metre", "mtr"), "kilometer": ("km", "kilometre", "kms"),
    "centimeter": ("cm", "centimetre"), "millimeter": ("mm", "millimetre"),
    "mile": ("mi",), "foot": ("ft", "feet"), "inch": ("in", "inches", "\""), "yard": ("yd",),
    "kilogram": ("kg", "kilo", "kgs"), "gram": ("g", "gm", "gr", "gramme"), "milligram": ("mg",),
    "pound": ("lb", "lbs"), "ounce": ("oz",), "ton": ("t", "tonne"),
    "liter": ("l", "litre", "ltr"), "milliliter": ("ml", "millilitre"), "gallon": ("gal",),
    "tablespoon": ("tbsp", "tbs"), "teaspoon": ("tsp",), "cup": ("c",),
    "second": ("s", "sec", "secs"), "minute": ("min", "mins"), "hour": ("h", "hr", "hrs"),
    "day": ("d",), "week": ("wk", "wks"), "year": ("yr", "yrs", "y"),
    "celsius": ("c", "°c", "degree celsius", "centigrade"), "fahrenheit": ("f", "°f", "degree fahrenheit"),
    "kelvin": ("k",), "percent": ("%", "pct", "per cent"),
    "square meter": ("m^2", "m2", "sq m", "sqm", "m²"), "square foot": ("sq ft", "ft^2", "ft2", "ft²"),
    "square kilometer": ("km^2", "km2", "sq km", "km²"), "cubic meter": ("m^3", "m3", "m³"),
    "kilometer per hour": ("km/h", "kmh", "kph"), "mile per hour": ("mph", "mi/h"),
    "meter per second": ("m/s",), "gram per mole": ("g/mol",), "kilowatt hour": ("kwh",),
    "kilowatt": ("kw",), "watt": ("w",), "megabyte": ("mb",), "gigabyte": ("gb",), "terabyte": ("tb",),
    "kilobyte": ("kb",), "hertz": ("hz",), "megahertz": ("mhz",), "gigahertz": ("ghz",), "volt": ("v",),
    "joule": ("j",), "newton": ("n",), "pascal": ("pa",), "calorie": ("cal",), "kilocalorie": ("kcal",),
}

MONTHS: dict[str, str] = {
    "jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june", "jul": "july",
    "aug": "august", "sep": "september", "sept": "september", "oct": "october", "nov": "november",
    "dec": "december",
}

WEEKDAYS: dict[str, str] = {
    "mon": "monday", "tue": "tuesday", "tues": "tuesday", "wed": "wednesday", "thu": "thursday",
    "thur": "thursday", "thurs": "thursday", "fri": "friday", "sat": "saturday", "sun": "sunday",
}

GENERAL: dict[str, tuple[str, ...]] = {
    "artificial intelligence": ("ai",), "machine learning": ("ml",), "natural language processing": ("nlp",),
    "large language model": ("llm",), "user interface": ("ui",), "user experience": ("ux",),
    "personal computer": ("pc",), "television": ("tv",), "identifier": ("id",),
    "chief executive officer": ("ceo",), "chief technology officer": ("cto",),
    "chief financial officer": ("cfo",), "human resources": ("hr",), "research and development": ("r&d",),
    "frequently asked questions": ("faq",), "as soon as possible": ("asap",),
    "extra large": ("xl",), "extra extra large": ("xxl",), "extra small": ("xs",), "large": ("l",),
    "medium": ("m", "med"), "small": ("s", "sm"),
    "national basketball association": ("nba",), "national football league": ("nfl",),
    "major league baseball": ("mlb",), "national hockey league": ("nhl",),
    "english premier league": ("epl", "premier league"),
    "world health organization": ("who",), "united nations": ("un",),
    "gross domestic product": ("gdp",), "year over year": ("yoy",), "quarter over quarter": ("qoq",),
    "first quarter": ("q1",), "second quarter": ("q2",), "third quarter": ("q3",), "fourth quarter": ("q4",),
    "english": ("en", "eng"), "spanish": ("es", "spa"), "french": ("fr", "fra"), "german": ("de", "deu"),
    "chinese": ("zh",), "japanese": ("ja",), "italian": ("it",), "portuguese": ("pt",),
    "doctor": ("dr",), "mister": ("mr",), "street": ("st",), "avenue": ("ave",), "road": ("rd",),
    "boulevard": ("blvd",), "mount": ("mt",), "saint": ("st",), "department": ("dept",),
    "apartment": ("apt",), "building": ("bldg",), "number": ("no", "num", "#"),
    "information": ("info",), "application": ("app",), "versus": ("vs",), "et cetera": ("etc",),
    "morning": ("am", "a.m."), "afternoon": ("pm", "p.m."),
}


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
AMBIGUOUS_LOWER = frozenset(
    {"in", "me", "or", "ok", "oh", "hi", "id", "no", "it", "us", "la", "de", "la", "co", "pa", "ma", "am",
     "pm", "m", "l", "s", "st", "dr", "mt", "app", "who", "un", "es", "ca", "med", "sm", "real", "won",
     "mar", "may", "sun", "sat", "wed", "en", "pt", "ja", "num", "ar", "se", "ne"}
)
