"""Values with a shape of their own: ranges, ratings, price signs, ordinals and sequels.

- A range ("March 5-8", "9am - 5pm", "Mon to Fri") is two ends; the second end takes the month the first
  names and the first takes the one the second names ("5-8 March"). Two ranges are equal when both ends are.
- A rating "4.2 out of 5" is 4.2 on a scale of 5: equal to a bare 4.2, not to "4.2 out of 10".
- Price signs ("$$") count: "$$" is not "$$$$".
- An ordinal in digits or words ("1st", "first") is its number.
- A title with a sequel number ("Frozen II", "Rocky Part 3") is not the title without it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from monitor.equivalence.normalize import fold
from monitor.equivalence.values.relative_dates import WEEKDAYS
from monitor.equivalence.values.typed import parse_number

_RANGE_JOIN = re.compile(r"\s*(?:–|—|\s(?:to|through|thru|until|till)\s)\s*", re.I)
# A hyphen joins a range after a part with a digit ("9am-5pm", "March 5-8") or between weekdays ("Mon-Fri");
# elsewhere it joins the parts of one word or an id ("Hartsfield-Jackson", "one-way", "UA-100").
_HYPHEN_JOIN = re.compile(r"(?<=\d)\s*-\s*|\s*-\s*(?=\d)|(?<=[a-z])\s*-\s*(?=[a-z])", re.I)
_MONTH_WORD = re.compile(r"[a-z]{3,}\.?", re.I)


def _split(text: str) -> list[str]:
    parts = _RANGE_JOIN.split(text)
    if len(parts) == 1:
        parts = _HYPHEN_JOIN.split(text)
        days = len(parts) == 2 and all(fold(x).strip(".") in WEEKDAYS for x in parts)
        if len(parts) == 2 and not days and not re.search(r"\d", parts[0]):
            return [text]  # a hyphenated word or an id ("Hartsfield-Jackson", "UA-100"), not a range
    return parts


@lru_cache(maxsize=65536)
def range_ends(text: str) -> tuple[str, str] | None:
    """The two ends of a range, each completed with the month the other names; None when ``text`` is no range
    of two ends (an ISO date "2024-03-05" has three parts, an id "UA-100" is left to its own stage)."""
    if not re.search(r"[a-z]", text, re.I):
        return None  # digits and signs only: a phone number, an id, "10-20"; no ends to read
    parts = _split(text.strip())
    if len(parts) != 2 or not all(p.strip() for p in parts):
        return None
    first, second = (p.strip() for p in parts)
    if first.isdigit() and second.isdigit():
        return None  # "5-8": a score or a count range with no unit; nothing to read
    words_first, words_second = first.split(), second.split()
    if len(words_first) == 2 and second.isdigit() and _MONTH_WORD.fullmatch(words_first[0]):
        second = f"{words_first[0]} {second}"  # "March 5-8"
    elif len(words_second) == 2 and first.isdigit() and _MONTH_WORD.fullmatch(words_second[1]):
        first = f"{first} {words_second[1]}"  # "5-8 March"
    return first, second


def same_range(gold: str, pred: str, compare: Callable[[str, str], bool | None]) -> bool | None:
    """Both sides ranges: equal when ``compare`` finds both ends equal; None when either is no range or an end
    is undecided."""
    g, p = range_ends(gold), range_ends(pred)
    if g is None or p is None:
        return None
    ends = [compare(a, b) for a, b in zip(g, p, strict=True)]
    if any(e is None for e in ends):
        return None
    return all(ends)


_RATING = re.compile(r"^(?P<n>\d+(?:\.\d+)?)\s*(?:stars?\s+)?out\s+of\s+(?P<of>\d+)(?:\s+stars?)?$")


def rating(text: str) -> tuple[float, float | None] | None:
    """(value, scale) of "4.2 out of 5" (scale 5) or of a bare number (scale None); None otherwise."""
    t = fold(text).strip()
    m = _RATING.match(t)
    if m:
        return float(m.group("n")), float(m.group("of"))
    n = parse_number(t)
    return (n, None) if n is not None else None


def price_signs(text: str) -> int | None:
    """How many currency signs a price level is written with ("$$" -> 2), or None."""
    t = text.strip()
    return len(t) if 1 <= len(t) <= 5 and len(set(t)) == 1 and t[0] in "$€£¥" else None


_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
_ORDINAL_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                  "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12}


def ordinal(text: str) -> int | None:
    """The number of an ordinal ("1st", "first", "twelfth"), or None."""
    t = fold(text).strip()
    m = _ORDINAL.match(t)
    if m:
        return int(m.group(1))
    return _ORDINAL_WORDS.get(t)


_ROMAN = {"ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10}


def sequel_of(shorter: str, longer: str) -> bool:
    """Whether ``longer`` is ``shorter`` with a sequel number after it: a Roman numeral ("Frozen II") or a
    number after "Part" / "Chapter" / "Volume" ("Rocky Part 3"). A bare trailing number is not read: a cinema
    is named with its screens ("AMC Saratoga 14" is "AMC Saratoga"), so "Toy Story 2" is left to the other
    stages. The title itself must have a word of letters."""
    a = re.findall(r"[a-z0-9]+", fold(shorter))
    b = re.findall(r"[a-z0-9]+", fold(longer))
    if not a or not any(w.isalpha() for w in a) or b[: len(a)] != a:
        return False
    rest = b[len(a):]
    if len(rest) == 2 and rest[0] in ("part", "chapter", "vol", "volume"):
        return rest[1].isdigit() or rest[1] in _ROMAN
    return len(rest) == 1 and rest[0] in _ROMAN
