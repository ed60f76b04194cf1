"""Typed readings of scalar values: booleans, numbers, money, quantities, dates, clock times, identifiers."""

from __future__ import annotations

import calendar
import datetime as dt
import math
import re
import sys
from functools import lru_cache, partial

from dateutil import parser as dateparser
from text_to_num import alpha2digit, text2num

from monitor.equivalence.normalize import lemma
from monitor.equivalence.reference_data.abbreviations import MONTHS, UNIT_ALIASES
from monitor.equivalence.values.base import SCALES, DateValue, Quantity, canon, fold, words_to_digits
from monitor.equivalence.values.times import parse_clock

TRUE_WORDS = frozenset({"true", "yes", "y", "t", "on", "enabled", "enable", "affirmative", "yeah", "yep", "yup", "sure",
                        "yes please", "of course", "absolutely", "certainly", "correct"})
FALSE_WORDS = frozenset({"false", "no", "n", "f", "off", "disabled", "disable", "none", "negative", "nope", "nah",
                         "no thanks", "no thank you", "not at all", "incorrect"})

_SCALE_RE = "|".join(sorted((re.escape(k) for k in SCALES), key=len, reverse=True))
_NUM = r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+]?\.\d+"
NUMBER_RE = re.compile(rf"^(?P<num>{_NUM})\s*(?P<scale>{_SCALE_RE})?$")

_UNIT_WORDS = "|".join(sorted((re.escape(k) for k in UNIT_ALIASES), key=len, reverse=True))
QUANTITY_RE = re.compile(
    rf"^(?P<num>{_NUM})\s*(?:(?P<scale>thousand|million|billion|trillion)\s+)?(?P<unit>{_UNIT_WORDS})$"
)

_MONTH_NAMES = "|".join([*MONTHS.values(), *MONTHS.keys()])
DATE_HINT = re.compile(
    rf"(\b\d{{4}}-\d{{1,2}}-\d{{1,2}}\b|\b\d{{1,2}}[/.-]\d{{1,2}}[/.-]\d{{2,4}}\b|\b\d{{4}}/\d{{1,2}}/\d{{1,2}}\b"
    rf"|\b(?:{_MONTH_NAMES})\b\.?\s*,?\s*\d|\d(?:st|nd|rd|th)?\s*(?:of\s+)?(?:{_MONTH_NAMES})\b)"
)
_MONTH_THE_DAY = re.compile(rf"\b(?:{_MONTH_NAMES})\.?\s+the\s+\d")  # "March the 5th"
_ID_CHARS = re.compile(r"^[a-z0-9][a-z0-9._\-/:#@+]*$")


def _decimals(num: str) -> int:
    """Digits after the decimal point as written ("22.2" -> 1, "1,500" -> 0)."""
    return len(num.partition(".")[2])


def as_bool(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        t = canon(value)
        if t in TRUE_WORDS:
            return True
        if t in FALSE_WORDS:
            return False
    return None


def _num(text: str) -> float:
    return float(text.replace(",", ""))


_FLOAT_INT_MAX = int(sys.float_info.max)  # larger integers have no float: float() raises OverflowError


@lru_cache(maxsize=65536)
def parse_number(text: str) -> float | None:
    """A plain number, with scale words and number words ("1.2 million", "one hundred", "3k"); None for
    one too large for a float (digits past its range are compared as text)."""
    try:
        number = _parse_number(text)
    except OverflowError:
        return None
    return number if number is None or math.isfinite(number) else None


def _parse_number(text: str) -> float | None:
    t = canon(text).replace("\u2212", "-")
    if t.endswith("%"):
        t = t[:-1].strip()
    m = NUMBER_RE.match(t)
    if m:
        return _num(m.group("num")) * SCALES.get(m.group("scale") or "", 1.0)
    if not t or not re.fullmatch(r"[a-z\- ,.0-9]+", t):
        return None
    grouped = _grouped_count(t)
    if grouped is not None:
        return grouped
    try:
        return float(text2num(t.replace(",", ""), "en"))
    except (ValueError, IndexError):
        pass
    try:
        converted = alpha2digit(t, "en")
    except (ValueError, IndexError):
        return None
    if converted != t:
        m = NUMBER_RE.match(converted.strip())
        if m:
            return _num(m.group("num")) * SCALES.get(m.group("scale") or "", 1.0)
    return None


_DOZEN = re.compile(r"^(?:(?P<n>half|a|an|\d+|[a-z]+)\s+)?(?:a\s+)?dozen$")
_PAIR = re.compile(r"^(?:a\s+)?(?:couple|pair)$")


def _grouped_count(t: str) -> float | None:
    """Counting words for groups: "a dozen" 12, "half a dozen" 6, "two dozen" 24, "a couple" / "a pair" 2."""
    if _PAIR.match(t):
        return 2.0
    m = _DOZEN.match(t)
    if m is None:
        return None
    n = m.group("n") or "a"
    if n in ("a", "an", "half"):
        return 6.0 if n == "half" else 12.0
    try:
        return 12.0 * float(n if n.isdigit() else text2num(n, "en"))
    except ValueError:
        return None


def number_of(value: object) -> float | None:
    """A number as a float; None for a JSON integer too large for one (it is compared exactly, as an int)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return float(value) if abs(value) <= _FLOAT_INT_MAX else None
    if isinstance(value, float):
        return value
    if isinstance(value, str):
        return parse_number(value)
    return None


# Spoken fractions of one unit: "half an hour", "an hour and a half", "two and a half hours",
# "three quarters of an hour" (number words are digits by then; "a" / "an" is one).
_FRACTION = {"half": 0.5, "quarter": 0.25, "third": 1 / 3}
_SPOKEN_PART = re.compile(
    r"^(?:(?P<count>a|an|one|two|three|\d)\s+)?(?P<part>half|quarters?|thirds?)\s+(?:of\s+)?(?:a|an)\s+(?P<unit>[a-z]+)$"
)
_SPOKEN_AND = re.compile(
    rf"^(?:(?P<num>{_NUM})|a|an)\s+(?:(?P<unit1>[a-z]+)\s+)?"
    r"and\s+(?:a|one)\s+(?P<part>half|quarter|third)(?:\s+(?P<unit2>[a-z]+))?$"
)
_SMALL = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3}


# An amount in two units ("2 hours 10 minutes", "1 hr and 30 min", "5 feet 10 inches", 5'10"): the smaller unit.
_AND = r"\s*,?\s*(?:and\s+)?"
_COMPOUND = (
    (re.compile(rf"\b(\d+)\s*(?:hours?|hrs?|h){_AND}(\d+)\s*(?:minutes?|mins?|m)\b", re.I), 60, "minutes"),
    (re.compile(rf"\b(\d+)\s*(?:feet|foot|ft|'){_AND}(\d+)\s*(?:inches|inch|in\b|\"|'')", re.I), 12, "inches"),
)


def compound_amount(t: str) -> str:
    """"2 hours 10 minutes" -> "130 minutes", "5 feet 10 inches" -> "70 inches"; other text unchanged."""
    for pattern, per, unit in _COMPOUND:
        t = pattern.sub(partial(_in_smaller_unit, per=per, unit=unit), t)
    return t


def _in_smaller_unit(m: re.Match[str], per: int, unit: str) -> str:
    return f"{int(m.group(1)) * per + int(m.group(2))} {unit}"


def spoken_fraction(t: str) -> str:
    """"half an hour" -> "0.5 hour", "2 and a half hours" -> "2.5 hours"; other texts unchanged."""
    m = _SPOKEN_PART.match(t)
    if m:
        count = _SMALL.get(m.group("count") or "a") or int(m.group("count"))
        return f"{count * _FRACTION[m.group('part').rstrip('s')]:g} {m.group('unit')}"
    m = _SPOKEN_AND.match(t)
    if m and bool(m.group("unit1")) != bool(m.group("unit2")):
        whole = _num(m.group("num")) if m.group("num") else 1.0
        return f"{whole + _FRACTION[m.group('part')]:g} {m.group('unit1') or m.group('unit2')}"
    return t


@lru_cache(maxsize=65536)
def parse_quantity(text: str) -> Quantity | None:
    t = words_to_digits(canon(text.replace("_", " ")), threshold=0)  # "five_years", "two weeks" -> "2 weeks"
    t = compound_amount(spoken_fraction(re.sub(r"^(a|an) (?=[a-z]+$)", "1 ", t)))  # "a fortnight" -> "1 fortnight"
    m = QUANTITY_RE.match(t)
    if not m:
        return None
    scale = SCALES.get(m.group("scale") or "", 1.0)
    decimals = _decimals(m.group("num")) if scale == 1.0 else None
    return Quantity(_num(m.group("num")) * scale, UNIT_ALIASES[m.group("unit")], decimals)


def parse_time(text: str) -> int | None:
    """Minutes after midnight of a clock time ("3 pm", "15:00", "noon", "half past six in the evening")."""
    return parse_clock(text)


_D1 = dt.datetime(2001, 1, 1)
_D2 = dt.datetime(2002, 2, 2, 1, 1)


@lru_cache(maxsize=65536)
def parse_date(text: str) -> DateValue | None:
    """A calendar date in any common spelling; None unless the text clearly is a date."""
    t = canon(text).replace("\\", "/")
    t = re.sub(rf"\b({_MONTH_NAMES})\.?(\d)", r"\1 \2", t)
    month_only = _month_precision(t)
    if month_only is not None:
        return DateValue(frozenset({month_only}))
    if not (DATE_HINT.search(t) or _MONTH_THE_DAY.search(t)) or len(t) > 60:
        return None
    t = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", t)
    t = re.sub(r"\b(?:of|the)\b", " ", t)  # "the 5th of March", "March the 5th"
    t = re.sub(r"\s*,\s*", ", ", t)
    cands: set[tuple[int | None, int, int | None]] = set()
    minutes: int | None = None
    numeric_ambiguous = re.search(r"\b(\d{1,2})[/.-](\d{1,2})[/.-](\d{2,4})\b", t)
    for dayfirst in (False, True) if numeric_ambiguous else (False,):
        try:
            a = dateparser.parse(t, default=_D1, dayfirst=dayfirst)
            b = dateparser.parse(t, default=_D2, dayfirst=dayfirst)
        except (ValueError, OverflowError, TypeError):
            continue
        year = a.year if a.year == b.year else None
        if a.day != b.day or a.month != b.month:
            return None  # a month or a day alone is not a date
        cands.add((year, a.month, a.day))
        if a.hour == b.hour and a.minute == b.minute:
            minutes = a.hour * 60 + a.minute
    if not cands:
        return None
    return DateValue(frozenset(cands), minutes)


_NOT_COUNTED = frozenset({"am", "pm", "a.m.", "p.m.", "o'clock", "oclock", "percent", "pct"})


def counted_number(text: str) -> float | None:
    """The number of a count of one kind of thing ("2 people", "three tickets" -> 2, 3); None otherwise."""
    count = count_of(text)
    return count[0] if count is not None else None


def count_of(text: str) -> tuple[float, str] | None:
    """A count and the word for what is counted, singular ("three tickets" -> (3, "ticket")); None otherwise."""
    m = re.fullmatch(r"(\S+)\s+([a-z][a-z.']*)", canon(text))
    if m is None or m.group(2) in _NOT_COUNTED or parse_number(m.group(2)) is not None:
        return None  # "7 eleven" is a name, not a count
    count = parse_number(m.group(1))
    if count is None or count < 0 or not count.is_integer():
        return None
    return count, lemma(m.group(2))


def slash_date(text: str) -> DateValue | None:
    """"3/14" or "14/3" as a day of a month of no stated year (either order that is valid); None otherwise.

    Alone such a text may be a fraction or a score; read it so only against a side that is a date.
    """
    m = re.fullmatch(r"(\d{1,2})/(\d{1,2})", canon(text))
    if m is None:
        return None
    x, y = int(m.group(1)), int(m.group(2))
    cands = {(None, mo, d) for mo, d in ((x, y), (y, x)) if _valid_day(mo, d)}
    return DateValue(frozenset(cands)) if cands else None


def _valid_day(month: int, day: int) -> bool:
    try:
        dt.date(2000, month, day)  # a leap year: "2/29" is a day
    except ValueError:
        return False
    return True


_MONTH_NUM = {calendar.month_name[i].lower(): i for i in range(1, 13)}


def month_name(month: int) -> str:
    return calendar.month_name[month].lower()


def _month_precision(t: str) -> tuple[int | None, int, int | None] | None:
    """"June 2023", "2023-06", "06/2023", "04-2022" -> (year, month, None)."""
    m = re.fullmatch(rf"({_MONTH_NAMES})\.?\s*,?\s*(\d{{4}})", t)
    if m:
        name = MONTHS.get(m.group(1), m.group(1))
        return int(m.group(2)), _MONTH_NUM[name], None
    m = re.fullmatch(r"(\d{4})[-/.](\d{1,2})|(\d{1,2})[-/.](\d{4})", t)
    if m:
        year, month = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        if 1 <= int(month) <= 12:
            return int(year), int(month), None
    return None


def dates_equal(a: DateValue, b: DateValue) -> bool:
    for ya, ma, da in a.candidates:
        for yb, mb, db in b.candidates:
            # a whole month ("June 2023") stands for its first day
            same_day = (da or 1) == (db or 1)
            if ma == mb and same_day and (ya is None or yb is None or ya == yb):
                break
        else:
            continue
        break
    else:
        return False
    return a.minutes is None or b.minutes is None or a.minutes == b.minutes


# Units a value may name alone, meaning one of it ("year" / "12 months").
_BARE_UNITS = frozenset({
    "second", "minute", "hour", "day", "week", "month", "year", "decade", "millimeter", "centimeter", "meter",
    "kilometer", "inch", "foot", "yard", "mile", "milligram", "gram", "kilogram", "pound", "ounce", "milliliter",
    "liter", "gallon", "quart", "pint", "cup", "fluid ounce", "tablespoon", "teaspoon", "kilobyte", "megabyte",
    "gigabyte", "terabyte",
})


def bare_unit(text: str) -> str | None:
    """The unit a value names by itself in the singular ("year", "a month"): one of that unit."""
    t = canon(text.replace("_", " "))
    t = re.sub(r"^(?:a|an|one|per)\s+", "", t)
    return t if t in _BARE_UNITS else None


_YEAR_RANGE = re.compile(r"^(?P<a>\d{4}|\d{2})\s*(?:-|/|–|to)\s*(?P<b>\d{4}|\d{2})$")


@lru_cache(maxsize=65536)
def parse_year_range(text: str) -> tuple[int, int, bool] | None:
    """A season or span of consecutive years: "2019-2020", "2019/20", "19-20" -> (2019, 2020, full).

    ``full`` is False when the century is not written ("19-20"); such values compare modulo 100.
    """
    m = _YEAR_RANGE.match(canon(text))
    if not m:
        return None
    a, b = m.group("a"), m.group("b")
    if len(a) == 2 and len(b) == 4:
        return None
    start = int(a)
    end = int(b) if len(b) == 4 else (start // 100 * 100 + int(b) if len(a) == 4 else int(b))
    if len(a) == 4 and not 1800 <= start <= 2200:
        return None
    if (end - start) % (100 if len(a) == 2 else 10**6) != 1:
        return None  # a season spans two consecutive years; anything else is a numeric range
    return start, end, len(a) == 4


def year_ranges_equal(a: tuple[int, int, bool], b: tuple[int, int, bool]) -> bool:
    if a[2] and b[2]:
        return a[:2] == b[:2]
    return (a[0] % 100, a[1] % 100) == (b[0] % 100, b[1] % 100)


_EMAIL = re.compile(r"^(?:mailto:)?[a-z0-9._%+\-]+@[a-z0-9\-]+(?:\.[a-z0-9\-]+)+$")
_URL = re.compile(r"^(?:[a-z][a-z0-9+.\-]*://\S+|www\.\S+|[a-z0-9_.\-]+@[a-z0-9.\-]+:\S+)$")


def email_key(value: str) -> str | None:
    """An e-mail address, lower-cased ("mailto:" dropped), or None."""
    t = canon(value)
    if not _EMAIL.match(t):
        return None
    return t.removeprefix("mailto:")


def url_key(value: str) -> str | None:
    """A URL or git remote reduced to host + path: scheme, "www.", user, default ports, a trailing "/" or
    ".git" do not matter; "git@github.com:org/repo.git" and "https://github.com/org/repo" are one repo."""
    t = value.strip()
    if not _URL.match(t.lower()):
        return None
    m = re.match(r"^[a-z0-9_.\-]+@([a-z0-9.\-]+):(?!\d+/)(.*)$", t, re.I)  # scp-like git remote
    if m:
        host, path = m.group(1), m.group(2)
    else:
        rest = re.sub(r"^[a-z][a-z0-9+.\-]*://", "", t, flags=re.I)
        host, _, path = rest.partition("/")
        host = host.rsplit("@", 1)[-1]
        host = re.sub(r":(?:80|443|22)$", "", host)
    host = host.lower().removeprefix("www.")
    path = path.split("#", 1)[0].rstrip("/")
    path = path.removesuffix(".git")
    return f"{host}/{path}" if path else host


_FORMULA_PREFIX = re.compile(r"^(?:lambda\s*[a-z_,\s]*:|[a-z]\s*(?:\(\s*[a-z_,\s]*\))?\s*=(?!=))\s*")


@lru_cache(maxsize=65536)
def formula_key(value: str) -> str | None:
    """A mathematical expression in a canonical spelling, or None: "lambda x: 3x^2" and "y = 3*x**2" both
    read "3*x**2". Only values with a power or an explicit product count as formulas."""
    t = fold(value).strip()
    if not re.search(r"\*\*|\^|\d\s*\*\s*[a-z(]|[a-z)]\s*\*\s*[a-z0-9(]", t):
        return None
    if re.search(r"[a-z]{2,}\s+[a-z]{2,}", _FORMULA_PREFIX.sub("", t)):
        return None  # prose around the maths
    t = _FORMULA_PREFIX.sub("", t)
    t = re.sub(r"\s+", "", t).replace("^", "**")
    t = re.sub(r"(?<![a-z_])(\d+(?:\.\d+)?)(?=[a-z(])", r"\1*", t)  # implicit product: 3x -> 3*x
    return t


@lru_cache(maxsize=65536)
def looks_like_identifier(value: str) -> bool:
    """Ids, codes, SKUs, flight numbers, slugs: one token mixing letters and digits or joined by -/_."""
    t = canon(value)
    if not t or " " in t or not _ID_CHARS.match(t):
        return False
    has_alpha = any(c.isalpha() for c in t)
    has_digit = any(c.isdigit() for c in t)
    if has_alpha and has_digit:
        return True
    # letters only: a slug with three or more parts ("ds-eu-revenue"), not "sci-fi" or "five_years"
    return has_alpha and len(re.findall(r"[a-z0-9][_\-](?=[a-z0-9])", t)) >= 2 and not re.search(r"[./]", t)


def identifier_key(value: str) -> str:
    return re.sub(r"[\s_\-]+", "", canon(value))
