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
    "austria": (), "bangladesh": (), "belgium": (), "chile": (), "colombia": (), "cuba": (),
    "czech republic": ("czechia",), "finland": (), "hungary": (), "indonesia": (), "iran": (), "iraq": (),
    "israel": (), "kenya": (), "malaysia": (), "nigeria": (), "pakistan": (), "peru": (), "philippines": (),
    "qatar": (), "saudi arabia": (), "taiwan": (), "thailand": (), "vietnam": (),
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
    "gbp": ("£", "pound", "pound sterling", "pounds sterling", "british pound", "sterling"),
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
    "meter": ("m", "metre", "mtr", "mtrs"), "kilometer": ("km", "kilometre", "kms"),
    "centimeter": ("cm", "centimetre"), "millimeter": ("mm", "millimetre"),
    "mile": ("mi",), "foot": ("ft", "feet"), "inch": ("in", "inches", "\""), "yard": ("yd",),
    "kilogram": ("kg", "kilo", "kgs"), "gram": ("g", "gm", "gr", "gramme"), "milligram": ("mg",),
    "pound": ("lb", "lbs"), "ounce": ("oz",), "ton": ("t", "tonne"),
    "liter": ("l", "litre", "ltr"), "milliliter": ("ml", "millilitre"), "gallon": ("gal",),
    "tablespoon": ("tbsp", "tbs"), "teaspoon": ("tsp",), "cup": ("cp",),
    "second": ("s", "sec", "secs"), "minute": ("min", "mins"), "hour": ("h", "hr", "hrs"),
    "day": ("d",), "week": ("wk", "wks"), "year": ("yr", "yrs", "y"),
    "celsius": ("c", "°c", "degree celsius", "centigrade"), "fahrenheit": ("f", "°f", "degree fahrenheit"),
    "kelvin": ("k",), "percent": ("%", "pct", "per cent"),
    "square meter": ("m^2", "m2", "sq m", "sqm", "m²"), "square foot": ("sq ft", "ft^2", "ft2", "ft²"),
    "square kilometer": ("km^2", "km2", "sq km", "km²"), "cubic meter": ("m^3", "m3", "m³"),
    "kilometer per hour": ("km/h", "kmh", "kph"), "mile per hour": ("mph", "mi/h"),
    "meter per second": ("m/s",), "kilogram per cubic meter": ("kg/m^3", "kg/m³", "kg/m3"),
    "gram per cubic centimeter": ("g/cm^3", "g/cm³", "g/cm3"), "square inch": ("in^2", "sq in", "in²"),
    "cubic centimeter": ("cm^3", "cm³", "cc"), "gram per mole": ("g/mol",), "kilowatt hour": ("kwh",),
    "kilowatt": ("kw",), "watt": ("w",), "megabyte": ("mb",), "gigabyte": ("gb",), "terabyte": ("tb",),
    "kilobyte": ("kb",), "hertz": ("hz",), "megahertz": ("mhz",), "gigahertz": ("ghz",), "volt": ("v",),
    "joule": ("j",), "newton": ("n",), "pascal": ("pa",), "calorie": ("cal",), "kilocalorie": ("kcal",),
    "month": (), "decade": (), "pint": (), "quart": ("qt",), "fluid ounce": ("fl oz", "fl. oz"),
}
# Second readings of unit symbols that mean something else in another trade ("c" is also a cooking cup).
UNIT_SECONDARY: dict[str, tuple[str, ...]] = {"c": ("cup",), "c.": ("cup",)}

MONTHS: dict[str, str] = {
    "may": "may", "jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june", "jul": "july",
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
    "apartment": ("apt",), "square": ("sq",), "united": ("utd",), "international": ("intl",),
    "university": ("univ",), "corporation": ("corp",), "incorporated": ("inc",),
    "building": ("bldg",), "number": ("no", "num", "#"),
    "science fiction": ("sci-fi", "scifi"), "romantic comedy": ("rom-com", "romcom"),
    "rhythm and blues": ("r&b",), "hip hop": ("hip-hop", "hiphop"),
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
    {"in", "me", "or", "ok", "oh", "hi", "id", "no", "it", "us", "la", "de", "co", "pa", "ma", "am",
     "pm", "m", "l", "s", "st", "dr", "mt", "app", "who", "un", "es", "ca", "med", "sm", "real", "won",
     "mar", "may", "sun", "sat", "wed", "en", "pt", "ja", "num", "ar", "se", "ne"}
)

# IANA zone -> abbreviations, long names and the big city usually meant by it.
TIMEZONES: dict[str, tuple[str, ...]] = {
    "america/new_york": ("est", "edt", "et", "eastern time", "eastern standard time", "eastern daylight time",
                         "us/eastern", "new york", "new york city", "nyc", "ny"),
    "america/chicago": ("cst", "cdt", "ct", "central time", "central standard time", "us/central", "chicago"),
    "america/denver": ("mst", "mdt", "mt", "mountain time", "mountain standard time", "us/mountain", "denver"),
    "america/los_angeles": ("pst", "pdt", "pt", "pacific time", "pacific standard time",
                            "pacific daylight time", "us/pacific", "los angeles", "la", "san francisco", "sf"),
    "europe/london": ("gmt", "bst", "british summer time", "greenwich mean time", "uk time", "london"),
    "europe/paris": ("cet", "cest", "central european time", "paris"),
    "europe/berlin": ("berlin",), "asia/tokyo": ("jst", "japan standard time", "tokyo"),
    "asia/kolkata": ("ist", "india standard time", "kolkata", "mumbai", "new delhi"),
    "asia/shanghai": ("china standard time", "beijing", "shanghai"),
    "australia/sydney": ("aest", "aedt", "australian eastern time", "sydney"),
    "utc": ("coordinated universal time", "zulu", "z", "etc/utc"),
}

# Major airports (IATA) -> city.
AIRPORTS: dict[str, str] = {
    "jfk": "new york city", "lga": "new york city", "ewr": "newark", "lax": "los angeles",
    "sfo": "san francisco", "ord": "chicago", "mdw": "chicago", "atl": "atlanta", "dfw": "dallas",
    "den": "denver", "sea": "seattle", "bos": "boston", "mia": "miami", "pdx": "portland", "phx": "phoenix",
    "las": "las vegas", "iad": "washington", "dca": "washington", "san": "san diego", "msp": "minneapolis",
    "dtw": "detroit", "iah": "houston", "phl": "philadelphia", "lhr": "london", "cdg": "paris",
    "nrt": "tokyo", "hnd": "tokyo", "fra": "frankfurt", "ams": "amsterdam", "dxb": "dubai",
    "sin": "singapore", "hkg": "hong kong", "syd": "sydney", "yyz": "toronto", "mex": "mexico city",
}

# The largest listed companies' tickers -> company name.
TICKERS: dict[str, str] = {
    "aapl": "apple", "msft": "microsoft", "googl": "google", "goog": "google", "amzn": "amazon",
    "meta": "meta", "fb": "facebook", "tsla": "tesla", "nvda": "nvidia", "nflx": "netflix", "ibm": "ibm",
    "orcl": "oracle", "intc": "intel", "amd": "amd", "jpm": "jpmorgan", "wmt": "walmart", "ko": "coca-cola",
    "dis": "disney", "ba": "boeing", "csco": "cisco", "pypl": "paypal", "adbe": "adobe", "crm": "salesforce",
    "brk.a": "berkshire hathaway", "brk.b": "berkshire hathaway", "xom": "exxon mobil", "pfe": "pfizer",
}

COMPANY_SUFFIXES = frozenset(
    {"inc", "inc.", "incorporated", "corp", "corp.", "corporation", "co", "co.", "company", "ltd", "ltd.",
     "limited", "llc", "plc", "gmbh", "ag", "sa", "holdings", "group"}
)


MAJOR_CITIES: tuple[str, ...] = (
    "new york city", "los angeles", "chicago", "houston", "phoenix", "philadelphia", "san antonio",
    "san diego", "dallas", "san jose", "austin", "jacksonville", "fort worth", "columbus", "charlotte",
    "san francisco", "indianapolis", "seattle", "denver", "washington", "boston", "el paso", "nashville",
    "detroit", "oklahoma city", "portland", "las vegas", "memphis", "louisville", "baltimore", "milwaukee",
    "albuquerque", "tucson", "fresno", "sacramento", "kansas city", "mesa", "atlanta", "omaha",
    "colorado springs", "raleigh", "miami", "long beach", "virginia beach", "oakland", "minneapolis",
    "tulsa", "tampa", "arlington", "new orleans", "cleveland", "honolulu", "anaheim", "orlando",
    "pittsburgh", "cincinnati", "st. louis", "salt lake city", "buffalo", "newark", "palo alto",
    "berkeley", "santa clara", "santa monica", "cambridge", "anchorage", "boise", "madison",
    "london", "paris", "berlin", "madrid", "rome", "milan", "barcelona", "lisbon", "amsterdam", "brussels",
    "vienna", "zurich", "geneva", "munich", "frankfurt", "hamburg", "prague", "warsaw", "budapest",
    "stockholm", "oslo", "copenhagen", "helsinki", "dublin", "edinburgh", "manchester", "athens",
    "istanbul", "moscow", "dubai", "cairo", "lagos", "nairobi", "cape town", "johannesburg", "tokyo",
    "osaka", "kyoto", "seoul", "beijing", "shanghai", "hong kong", "singapore", "bangkok", "jakarta",
    "manila", "kuala lumpur", "hanoi", "mumbai", "new delhi", "delhi", "bangalore", "sydney", "melbourne",
    "brisbane", "perth", "auckland", "toronto", "vancouver", "montreal", "mexico city", "sao paulo",
    "rio de janeiro", "buenos aires", "lima", "bogota", "santiago", "tel aviv", "riyadh", "doha",
)

LANGUAGES: dict[str, tuple[str, ...]] = {
    "english": ("en", "eng"), "spanish": ("es", "spa", "espanol"), "french": ("fr", "fra", "francais"),
    "german": ("de", "deu", "ger", "deutsch"), "chinese": ("zh", "zho", "mandarin"), "japanese": ("ja", "jpn"),
    "italian": ("it", "ita"), "portuguese": ("pt", "por"), "russian": ("ru", "rus"), "korean": ("ko", "kor"),
    "arabic": ("ar", "ara"), "hindi": ("hi", "hin"), "dutch": ("nl", "nld"), "swedish": ("sv", "swe"),
    "turkish": ("tr", "tur"), "polish": ("pl", "pol"), "greek": ("el", "ell"), "hebrew": ("he", "heb"),
    "vietnamese": ("vi", "vie"), "thai": ("th", "tha"), "indonesian": ("id", "ind"),
}


def _categories() -> dict[str, dict[str, str]]:
    """Closed classes of values: within one class, two different members are never equivalent."""
    cats: dict[str, dict[str, str]] = {"state": {}, "country": {}, "currency": {}, "unit": {}, "timezone": {},
                                       "city": {}, "language": {}, "month": {}}
    full_months = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
                   "october", "november", "december"]
    for i, name in enumerate(full_months, start=1):
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
METRICS: dict[str, tuple[str, ...]] = {
    "revenue": ("revenues", "turnover", "top line", "sales revenue", "gross revenue"),
    "profit": ("profits", "net profit", "net income", "bottom line", "net earnings"),
    "gross margin": ("gross margins", "gross profit margin"),
    "operating margin": ("operating margins", "ebit margin"),
    "ebitda": (),
    "cost": ("costs", "expenses", "expense", "spend", "spending", "expenditure"),
    "units sold": ("unit sales", "units"),
    "churn": ("churn rate", "attrition"),
    "retention": ("retention rate",),
    "conversion rate": ("conversions", "conversion"),
    "active users": ("daily active users", "monthly active users", "dau", "mau"),
    "average order value": ("aov",),
    "cash flow": ("free cash flow", "operating cash flow"),
    "market share": (),
    "headcount": ("employees", "staff count"),
}
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
CITY_LOCATIONS: dict[str, tuple[str, ...]] = {
    # United States
    "new york city": ("ny",), "los angeles": ("ca",), "chicago": ("il",), "houston": ("tx",),
    "phoenix": ("az",), "philadelphia": ("pa",), "san antonio": ("tx",), "san diego": ("ca",),
    "dallas": ("tx",), "san jose": ("ca",), "austin": ("tx",), "jacksonville": ("fl",),
    "fort worth": ("tx",), "columbus": ("oh",), "charlotte": ("nc",), "san francisco": ("ca",),
    "indianapolis": ("in",), "seattle": ("wa",), "denver": ("co",), "washington": ("dc",),
    "boston": ("ma",), "el paso": ("tx",), "nashville": ("tn",), "detroit": ("mi",),
    "oklahoma city": ("ok",), "portland": ("or", "me"), "las vegas": ("nv",), "memphis": ("tn",),
    "louisville": ("ky",), "baltimore": ("md",), "milwaukee": ("wi",), "albuquerque": ("nm",),
    "tucson": ("az",), "fresno": ("ca",), "sacramento": ("ca",), "kansas city": ("mo", "ks"),
    "mesa": ("az",), "atlanta": ("ga",), "omaha": ("ne",), "colorado springs": ("co",), "raleigh": ("nc",),
    "miami": ("fl",), "long beach": ("ca",), "virginia beach": ("va",), "oakland": ("ca",),
    "minneapolis": ("mn",), "tulsa": ("ok",), "tampa": ("fl",), "arlington": ("tx", "va"),
    "new orleans": ("la",), "cleveland": ("oh",), "honolulu": ("hi",), "anaheim": ("ca",),
    "orlando": ("fl",), "pittsburgh": ("pa",), "cincinnati": ("oh",), "st. louis": ("mo",),
    "salt lake city": ("ut",), "buffalo": ("ny",), "newark": ("nj",), "palo alto": ("ca",),
    "berkeley": ("ca",), "santa clara": ("ca",), "santa monica": ("ca",), "cambridge": ("ma", "england"),
    "anchorage": ("ak",), "boise": ("id",), "madison": ("wi",), "st. paul": ("mn",), "saint paul": ("mn",),
    "mountain view": ("ca",), "cupertino": ("ca",), "sunnyvale": ("ca",), "menlo park": ("ca",),
    "redmond": ("wa",), "bellevue": ("wa",), "tacoma": ("wa",), "spokane": ("wa",), "irvine": ("ca",),
    "pasadena": ("ca",), "riverside": ("ca",), "bakersfield": ("ca",), "stockton": ("ca",),
    "san bernardino": ("ca",), "hartford": ("ct",), "providence": ("ri",), "richmond": ("va",),
    "norfolk": ("va",), "charleston": ("sc", "wv"), "savannah": ("ga",), "birmingham": ("al", "england"),
    "montgomery": ("al",), "little rock": ("ar",), "des moines": ("ia",), "wichita": ("ks",),
    "lincoln": ("ne",), "fargo": ("nd",), "sioux falls": ("sd",), "billings": ("mt",), "cheyenne": ("wy",),
    "reno": ("nv",), "henderson": ("nv",), "scottsdale": ("az",), "tempe": ("az",), "santa fe": ("nm",),
    "el cajon": ("ca",), "burlington": ("vt",), "manchester": ("nh", "england"), "portsmouth": ("nh",),
    "albany": ("ny",), "rochester": ("ny", "mn"), "syracuse": ("ny",), "jersey city": ("nj",),
    "trenton": ("nj",), "wilmington": ("de", "nc"), "dover": ("de",), "annapolis": ("md",),
    "durham": ("nc",), "greensboro": ("nc",), "knoxville": ("tn",), "chattanooga": ("tn",),
    "lexington": ("ky",), "baton rouge": ("la",), "shreveport": ("la",), "jackson": ("ms",),
    "mobile": ("al",), "tallahassee": ("fl",), "st. petersburg": ("fl", "russia"), "fort lauderdale": ("fl",),
    "key west": ("fl",), "naples": ("fl", "italy"), "gainesville": ("fl",), "ann arbor": ("mi",),
    "grand rapids": ("mi",), "lansing": ("mi",), "toledo": ("oh",), "akron": ("oh",), "dayton": ("oh",),
    "fort wayne": ("in",), "springfield": ("il", "mo", "ma"), "peoria": ("il",), "aurora": ("il", "co"),
    "boulder": ("co",), "aspen": ("co",), "provo": ("ut",), "eugene": ("or",), "salem": ("or", "ma"),
    "juneau": ("ak",), "fairbanks": ("ak",), "hilo": ("hi",), "san leandro": ("ca",), "morgan hill": ("ca",),
    "yonkers": ("ny",), "hollywood": ("ca",), "beverly hills": ("ca",), "malibu": ("ca",),
    "napa": ("ca",), "san mateo": ("ca",), "fremont": ("ca",), "modesto": ("ca",), "chula vista": ("ca",),
    "plano": ("tx",), "corpus christi": ("tx",), "lubbock": ("tx",), "laredo": ("tx",), "galveston": ("tx",),
    "miami beach": ("fl",), "st. augustine": ("fl",), "myrtle beach": ("sc",), "asheville": ("nc",),
    # elsewhere
    "london": ("england",), "edinburgh": ("scotland",), "glasgow": ("scotland",),
    "liverpool": ("england",), "oxford": ("england",), "bristol": ("england",),
    "leeds": ("england",), "belfast": ("northern ireland",), "cardiff": ("wales",),
    "paris": ("france",), "lyon": ("france",), "marseille": ("france",), "nice": ("france",),
    "berlin": ("germany",), "munich": ("bavaria",), "frankfurt": ("germany",), "hamburg": ("germany",),
    "cologne": ("germany",), "madrid": ("spain",), "barcelona": ("catalonia",), "seville": ("spain",),
    "valencia": ("spain",), "rome": ("italy",), "milan": ("italy",), "venice": ("italy",),
    "florence": ("tuscany",), "turin": ("italy",), "lisbon": ("portugal",), "porto": ("portugal",),
    "amsterdam": ("netherlands",), "rotterdam": ("netherlands",), "brussels": ("belgium",),
    "vienna": ("austria",), "zurich": ("switzerland",), "geneva": ("switzerland",), "bern": ("switzerland",),
    "prague": ("czech republic",), "warsaw": ("poland",), "krakow": ("poland",), "budapest": ("hungary",),
    "stockholm": ("sweden",), "oslo": ("norway",), "copenhagen": ("denmark",), "helsinki": ("finland",),
    "dublin": ("ireland",), "athens": ("greece",), "istanbul": ("turkey",), "ankara": ("turkey",),
    "moscow": ("russia",), "dubai": ("united arab emirates",), "abu dhabi": ("united arab emirates",),
    "cairo": ("egypt",), "lagos": ("nigeria",), "nairobi": ("kenya",), "cape town": ("south africa",),
    "johannesburg": ("south africa",), "tokyo": ("japan",), "osaka": ("japan",), "kyoto": ("japan",),
    "seoul": ("south korea",), "busan": ("south korea",), "beijing": ("china",), "shanghai": ("china",),
    "shenzhen": ("china",), "guangzhou": ("china",), "hong kong": ("china",), "taipei": ("taiwan",),
    "singapore": ("singapore",), "bangkok": ("thailand",), "jakarta": ("indonesia",), "bali": ("indonesia",),
    "manila": ("philippines",), "kuala lumpur": ("malaysia",), "hanoi": ("vietnam",),
    "ho chi minh city": ("vietnam",), "mumbai": ("india",), "new delhi": ("india",), "delhi": ("india",),
    "bangalore": ("india",), "chennai": ("india",), "kolkata": ("india",), "hyderabad": ("india",),
    "sydney": ("new south wales",), "melbourne": ("victoria",), "brisbane": ("queensland",),
    "perth": ("western australia",),
    "adelaide": ("south australia",), "auckland": ("new zealand",), "wellington": ("new zealand",),
    "toronto": ("ontario",), "vancouver": ("british columbia",), "montreal": ("quebec",), "ottawa": ("ontario",),
    "calgary": ("alberta",), "mexico city": ("mexico",), "cancun": ("mexico",), "guadalajara": ("mexico",),
    "sao paulo": ("brazil",), "rio de janeiro": ("brazil",), "buenos aires": ("argentina",),
    "lima": ("peru",), "bogota": ("colombia",), "santiago": ("chile",), "tel aviv": ("israel",),
    "jerusalem": ("israel",), "riyadh": ("saudi arabia",), "doha": ("qatar",), "karachi": ("pakistan",),
    "dhaka": ("bangladesh",), "tehran": ("iran",), "baghdad": ("iraq",), "havana": ("cuba",),
}

# First-level regions outside the US: region -> (country, aliases).
REGIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "england": ("united kingdom", ()), "scotland": ("united kingdom", ()), "wales": ("united kingdom", ()),
    "northern ireland": ("united kingdom", ()),
    "ontario": ("canada", ("on",)), "quebec": ("canada", ("qc",)), "british columbia": ("canada", ("bc",)),
    "alberta": ("canada", ("ab",)), "manitoba": ("canada", ("mb",)), "nova scotia": ("canada", ("ns",)),
    "new south wales": ("australia", ("nsw",)), "victoria": ("australia", ("vic",)),
    "queensland": ("australia", ("qld",)), "western australia": ("australia", ()),
    "south australia": ("australia", ()),
    "bavaria": ("germany", ()), "catalonia": ("spain", ()), "tuscany": ("italy", ()),
}
