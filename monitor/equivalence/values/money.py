"""Money amounts with their currency, read with babel's CLDR currency data (loaded lazily, once).

A currency is named by its ISO code ("CAD"), a CLDR symbol that only one currency uses across the common
English locales ("CA$", "A$", "R$", "US$", "€"), its English name in the singular or plural ("Canadian
dollars"), or an entry of the curated overlay ``data/currencies.json`` for words and symbols CLDR leaves
ambiguous ("$" and "dollars" read as US dollars, "C$" as Canadian dollars). An unknown prefix glued to a
currency sign ("Z$") is a currency of its own: it never equals a known one.
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from dataclasses import replace
from functools import lru_cache

from babel.numbers import parse_decimal

from monitor.equivalence.reference_data import data_table
from monitor.equivalence.values.base import SCALES, Money, canon, words_to_digits

_ENGLISH_LOCALES = ("en", "en_US", "en_CA", "en_AU", "en_GB", "en_IN", "en_NZ", "en_SG", "en_HK", "en_ZA",
                    "en_IE", "pt_BR", "es_MX", "fr_CA", "ja", "zh")
_SIGNS = "$€£¥₹₩₽₪₫₱₺₴₦฿"
# A decimal comma ("5,50", "1.299,00") is read only with one or two digits after it: "1,500" groups thousands.
_DECIMAL_COMMA = r"\d{1,3}(?:\.\d{3})*,\d{1,2}(?!\d)"
_NUM = rf"[-+]?(?:{_DECIMAL_COMMA}|(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?)|[-+]?\.\d+"
_SCALE = "|".join(sorted((re.escape(k) for k in SCALES), key=len, reverse=True))
_SHAPE = re.compile(
    rf"^(?P<pre>[^\d+\-.]*?)\s*(?P<num>{_NUM})\s*(?:(?P<scale>{_SCALE})\b)?\s*(?P<post>[^\d]*?)$"
)

# "45 dollars and 50 cents" is one amount, 45.50 dollars (a minor unit is a hundredth of these currencies).
_MAJOR_AND_MINOR = re.compile(
    r"\b(\d+) (dollars?|euros?|pounds?|bucks?)(?:,? and|,)? (\d{1,2}) (?:cents?|pence|p)\b", re.I
)
_MINOR_ONLY = re.compile(r"^(\d{1,2}) (cents?|pence|p)$")
# A rate after an amount ("$2,400 per month", "$90 a night", "$15/hour", "$2,400 monthly"): the period it is for.
_PERIODS = {"hour": "hour", "hourly": "hour", "day": "day", "daily": "day", "night": "night", "nightly": "night",
            "week": "week", "weekly": "week", "month": "month", "monthly": "month", "year": "year",
            "yearly": "year", "annually": "year", "person": "person", "head": "person"}
RATE = (r"\s*(?:(?:per|a|an|each|every|/)\s*(?:hour|day|night|week|month|year|person|head)\b|"
        r"(?:hourly|daily|nightly|weekly|monthly|yearly|annually)\b)")
_RATE_AT_END = re.compile(RATE + "$", re.I)
_A_SCALE = re.compile(r"\ban? (hundred|thousand|million|billion)\b")  # "a thousand dollars"


def major_and_minor(text: str) -> str:
    """ "45 dollars and 50 cents" -> "45.50 dollars"."""
    return _MAJOR_AND_MINOR.sub(lambda m: f"{m.group(1)}.{int(m.group(3)):02d} {m.group(2)}", text)


_TABLE: dict[str, str] | None = None
_LOCK = threading.Lock()


def _build() -> dict[str, str]:
    from babel import Locale
    from babel.numbers import get_currency_name, list_currencies

    table: dict[str, str] = {}
    symbols: dict[str, set[str]] = defaultdict(set)
    for name in _ENGLISH_LOCALES:
        for code, symbol in Locale.parse(name).currency_symbols.items():
            symbols[symbol.lower()].add(code.lower())
    for symbol, codes in symbols.items():
        if len(codes) == 1:
            table[symbol] = next(iter(codes))
    for code in list_currencies():
        table[code.lower()] = code.lower()
        for count in (1, 2):
            table.setdefault(get_currency_name(code, count=count, locale="en").lower(), code.lower())
    overlay = data_table("currencies.json")
    table.update(overlay["defaults"])
    return table


def currency_table() -> dict[str, str]:
    """Currency word / symbol / code (lower case) -> ISO 4217 code (lower case)."""
    global _TABLE
    with _LOCK:
        if _TABLE is None:
            _TABLE = _build()
        return _TABLE


def currency_of(word: str) -> str | None:
    """The ISO code a currency word or symbol names; the word itself for an unknown prefix of a sign."""
    key = re.sub(r"\s+", " ", word.strip().lower())
    if not key:
        return None
    table = currency_table()
    if key in table:
        return table[key]
    if key.rstrip(".") in table:
        return table[key.rstrip(".")]
    if key[-1] in _SIGNS and re.fullmatch(rf"[a-z]{{1,3}}[{_SIGNS}]", key):
        return key  # "Z$": some dollar, not a known one
    return None


@lru_cache(maxsize=65536)
def parse_money(text: str) -> Money | None:
    """An amount with a currency ("C$ 5", "1,180 bucks", "EUR 1.2M", "five hundred dollars", "a thousand
    dollars", "25 dollars and 50 cents"), or None. An amount in cents alone ("75 cents") has no currency of its
    own (cents of any dollar or euro); in pence it is pounds. A rate after it ("$90 a night", "$15/hour") is
    the period the amount is for (``Money.per``)."""
    rate = _RATE_AT_END.search(text)
    money = _parse_amount(text[: rate.start()] if rate else text)
    if money is None or rate is None:
        return money
    return replace(money, per=_PERIODS[re.findall(r"[a-z]+", rate.group(0).lower())[-1]])


def _parse_amount(text: str) -> Money | None:
    t = major_and_minor(words_to_digits(_A_SCALE.sub(r"one \1", canon(text))))
    minor = _MINOR_ONLY.match(t)
    if minor:
        return Money(int(minor.group(1)) / 100, None if minor.group(2).startswith("cent") else "gbp")
    m = _SHAPE.match(t)
    if not m:
        return None
    pre, post = m.group("pre").strip(), m.group("post").strip()
    if not pre and not post:
        return None
    currencies = [currency_of(part) for part in (pre, post) if part]
    if any(c is None for c in currencies):
        return None
    known = {c for c in currencies if c is not None}
    if len(known) > 1:
        return None  # "$5 EUR"
    num = m.group("num")
    # babel reads the digits in a locale of their separators: a decimal comma as German writes it ("1.299,00")
    notation = "de" if re.fullmatch(_DECIMAL_COMMA, num.lstrip("+-")) else "en"
    amount = float(parse_decimal(num, locale=notation)) * SCALES.get(m.group("scale") or "", 1.0)
    return Money(amount, next(iter(known)))


def same_currency(a: str | None, b: str | None) -> bool:
    """Unspecified currencies agree with any; named ones must be the same."""
    return a is None or b is None or a == b


def same_period(a: str | None, b: str | None) -> bool:
    """A rate's period: an amount with none stated agrees with any; "$90 a night" is not "$90 a week"."""
    return a is None or b is None or a == b
