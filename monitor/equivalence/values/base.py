"""The value types and the text key they are read from.

This module imports nothing else of the package: the readers (``typed``, ``money``, ``quantities``), the
comparison stages and the fact extraction all build on it, so none of them needs another to define a value.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from text_to_num import alpha2digit

SCALES: dict[str, float] = {
    "hundred": 1e2, "thousand": 1e3, "k": 1e3, "grand": 1e3, "million": 1e6, "mn": 1e6, "mio": 1e6, "m": 1e6,
    "mm": 1e6, "billion": 1e9, "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12,
}


@dataclass(frozen=True)
class Money:
    amount: float
    currency: str | None
    per: str | None = field(default=None, compare=False)  # the period of a rate ("$90 a night": "night")


@dataclass(frozen=True)
class Quantity:
    amount: float
    unit: str
    # digits written after the decimal point (None: not written as digits); how it was written, not what it is
    decimals: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class DateValue:
    """Calendar date candidates (several when day/month order is ambiguous); year None = unspecified."""

    candidates: frozenset[tuple[int | None, int, int | None]]  # day None = a whole month
    minutes: int | None = None  # clock time when the value carried one


_UNICODE_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
_WS = re.compile(r"\s+")


# Values and short phrases are folded and keyed again and again (a reply's values against every field of a tool
# output): up to this length a text's fold and canon are kept (two bounded caches, at most about 20 MB together,
# a few MB for values of ordinary length); longer texts are folded as they come.
_MEMO_CHARS = 200


def fold(text: str) -> str:
    """Lower-case, NFKC, strip accents, decode literal \\uXXXX escapes, collapse whitespace."""
    return _fold_short(text) if len(text) <= _MEMO_CHARS else _fold(text)


@lru_cache(maxsize=16384)
def _fold_short(text: str) -> str:
    return _fold(text)


def _fold(text: str) -> str:
    if "\\u" in text:
        text = _UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
    if text.isascii():  # NFKD, accent stripping and NFKC leave ASCII as it is; casefold is lower there
        return _WS.sub(" ", text.lower()).strip()
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = unicodedata.normalize("NFKC", text).casefold()
    return _WS.sub(" ", text).strip()


def strip_wrapping(text: str) -> str:
    """Remove surrounding quotes, brackets, trailing punctuation and stray backslashes."""
    t = text.strip()
    prev = None
    while prev != t:
        prev = t
        t = t.strip(" \t\n\"'`\\")
        t = t.rstrip(".;:!?,")
        if len(t) >= 2 and t[0] + t[-1] in ("()", "[]", "{}", "<>"):
            t = t[1:-1]
    return t


def canon(text: str) -> str:
    """The exact-match key of a string value: folded and unwrapped."""
    return _canon_short(text) if len(text) <= _MEMO_CHARS else strip_wrapping(_fold(text))


@lru_cache(maxsize=16384)
def _canon_short(text: str) -> str:
    return strip_wrapping(_fold_short(text))


def numbers_close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def words_to_digits(t: str, threshold: int = 3) -> str:
    """Number words as digits through text2num ("five hundred dollars" -> "500 dollars") in a text without
    digits; numbers below `threshold` stay words (text2num's default: "one" is often no number)."""
    if re.search(r"[a-z]", t) and not re.search(r"\d", t):
        try:
            return str(alpha2digit(t, "en", threshold=threshold))
        except (ValueError, IndexError):
            return t
    return t
