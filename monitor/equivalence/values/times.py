"""Clock times as people write and say them: a small grammar, resolved to minutes after midnight.

    time     := [at] [hedge] [daypart] core [daypart] [sharp | exactly | on the dot | or so]
    core     := named | relative | clock
    named    := noon | midday | midnight                       ("12 noon" too)
    relative := (minutes | quarter | half) [minutes] (past | after | to | before | till) hour [o'clock] [meridiem]
              | (minutes | quarter | half) [minutes] (past | to | ...) named   ("quarter to noon" = 11:45)
              | half hour                                        (British "half six" = 6:30)
    clock    := hour [(":" | "." | "h" | " ") minutes [":" seconds]] [o'clock] [meridiem] [hours]
    daypart  := [in the | this | at] (morning | afternoon | evening | night) | tonight
    hedge    := around | about | approximately | roughly | exactly | precisely
    meridiem := am | pm | a.m. | p.m. | a | p            ("a" / "p" only right after a digit: "7p")

Hours and minutes are digits or English number words ("six", "twenty five", "oh five"). A bare hour
("6") is a number, not a time: it needs a minute, a meridiem, "o'clock" or a day-part. A time without
meridiem or day-part is read on the 24-hour clock ("6:30" is 06:30). The day-part resolves am/pm:
morning -> am; afternoon and evening -> pm; night -> pm from 6 to 11, am from 1 to 5, and 12 at night
is midnight. A meridiem binds the hour it follows ("quarter to 12 pm" is 11:45); a day-part describes
the resulting clock reading ("quarter to 12 in the morning" is 11:45 am). Conflicting marks ("8 pm in the
morning") are no time at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from monitor.equivalence.normalize import fold

_UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
          "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50}
_UNIT_VALUE = {w: i for i, w in enumerate(_UNITS)}


class DayPart(StrEnum):
    MORNING = "morning"
    AFTERNOON = "afternoon"
    EVENING = "evening"
    NIGHT = "night"


_DAYPART_WORDS = {"morning": DayPart.MORNING, "afternoon": DayPart.AFTERNOON, "evening": DayPart.EVENING,
                  "night": DayPart.NIGHT, "tonight": DayPart.NIGHT, "eve": DayPart.EVENING}
_DAYPART_FILLER = frozenset({"in", "the", "this", "at", "of", "during"})
_MERIDIEM = {"am": "am", "pm": "pm"}
_PAST = frozenset({"past", "after"})
_TO = frozenset({"to", "before", "till", "til", "of"})


@dataclass(frozen=True)
class _Reading:
    hour: int
    minute: int
    meridiem: str | None  # "am" / "pm" bound to the named hour
    explicit: bool  # minutes, o'clock or a relative form: more than a bare number


def _normalise(text: str) -> str:
    t = fold(text)
    t = re.sub(r"o\s*['\"’`´]?\s*clock", " oclock ", t)
    t = re.sub(r"\b([ap])\.\s*m\b\.?", r"\1m", t)
    t = re.sub(r"(\d)([ap])\b", r"\1 \2m", t)  # "7p" -> "7 pm"
    t = re.sub(r"(\d)([ap]m|h|hrs?|hours)\b", r"\1 \2", t)
    t = re.sub(r"\b(\d{2})(\d{2}) (hours|hrs)\b", r"\1:\2", t)  # military "1930 hours"
    t = re.sub(r"(\d)h(\d{2})\b", r"\1:\2", t)  # 19h30
    t = re.sub(r"\b(" + "|".join(_TENS) + r")-(" + "|".join(_UNITS[1:10]) + r")\b", r"\1 \2", t)
    t = re.sub(r"[,;!?]", " ", t)
    return re.sub(r"\s+", " ", t).strip(" .")


def _number(words: list[str], i: int) -> tuple[int, int] | None:
    """A number 0-59 at ``words[i]``, as (value, words used)."""
    if i >= len(words):
        return None
    w = words[i]
    if w.isdigit() and len(w) <= 2:
        return int(w), 1
    if w in _UNIT_VALUE:
        return _UNIT_VALUE[w], 1
    if w in _TENS:
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if nxt in _UNIT_VALUE and 0 < _UNIT_VALUE[nxt] < 10:
            return _TENS[w] + _UNIT_VALUE[nxt], 2
        return _TENS[w], 1
    return None


def _minutes_word(words: list[str], i: int) -> tuple[int, int] | None:
    """Minutes after the hour in words: "thirty", "oh five", "twenty five", "05"."""
    if i < len(words) and words[i] in ("oh", "o"):
        n = _number(words, i + 1)
        return (n[0], n[1] + 1) if n is not None and n[0] < 10 else None
    if i < len(words) and words[i].isdigit():
        return (int(words[i]), 1) if len(words[i]) == 2 else None
    n = _number(words, i)
    return n if n is not None and n[0] >= 10 else None


def _meridiem(words: list[str], i: int) -> tuple[str | None, int]:
    if i < len(words) and words[i] in _MERIDIEM:
        return _MERIDIEM[words[i]], 1
    return None, 0


def _clock(words: list[str]) -> _Reading | None:
    """hour [":" minutes] [o'clock] [meridiem] [hours] — the whole word list."""
    if len(words) == 1 and re.fullmatch(r"\d{1,2}:\d{2}(?::\d{2})?", words[0]):
        parts = words[0].split(":")
        return _Reading(int(parts[0]), int(parts[1]), None, True)
    joined = " ".join(words)
    m = re.fullmatch(r"(\d{1,2})[:.](\d{2})(?::\d{2})? (.+)", joined)
    if m:
        hour, minute, rest = int(m.group(1)), int(m.group(2)), m.group(3).split()
        explicit = True
    else:
        n = _number(words, 0)
        if n is None:
            return None
        hour, used = n
        mins = _minutes_word(words, used)
        minute = mins[0] if mins else 0
        rest = words[used + (mins[1] if mins else 0):]
        explicit = mins is not None
    if rest[:1] == ["oclock"]:
        rest, explicit = rest[1:], True
    meridiem, used = _meridiem(rest, 0)
    rest = rest[used:]
    if rest in (["hours"], ["hrs"], ["hr"], ["h"]):
        rest, explicit = [], True
    if rest:
        return None
    return _Reading(hour, minute, meridiem, explicit)


def _relative(words: list[str]) -> _Reading | None:
    """"quarter past 5", "half past six", "20 to 7", "ten minutes to 11 pm", "half six"."""
    if not words:
        return None
    if words[0] == "half" and len(words) >= 2 and words[1] not in _PAST:
        hour_reading = _clock(words[1:])
        if hour_reading is None or hour_reading.minute:
            return None
        return _Reading(hour_reading.hour, 30, hour_reading.meridiem, True)
    if words[0] in ("quarter", "half"):
        offset, i = (15 if words[0] == "quarter" else 30), 1
    elif words[0] == "a" and words[1:2] == ["quarter"]:
        offset, i = 15, 2
    else:
        n = _number(words, 0)
        if n is None:
            return None
        offset, i = n
    if i < len(words) and words[i] in ("minutes", "minute", "mins", "min"):
        i += 1
    if i >= len(words) or words[i] not in _PAST | _TO:
        return None
    sign = 1 if words[i] in _PAST else -1
    named = _named(words[i + 1:])
    if named is not None and 0 < offset < 60:  # "quarter to noon", "half past midnight"
        return _Reading(*divmod((named + sign * offset) % (24 * 60), 60), "resolved", True)
    hour_reading = _clock(words[i + 1:])
    if hour_reading is None or hour_reading.minute or not 0 < offset < 60:
        return None
    hour = _apply_meridiem(hour_reading.hour, hour_reading.meridiem)
    if hour is None:
        return None
    total = (hour * 60 + sign * offset) % (24 * 60)
    h, mi = divmod(total, 60)
    if hour_reading.meridiem is None:
        return _Reading(h, mi, None, True)
    return _Reading(h, mi, "resolved", True)


def _apply_meridiem(hour: int, meridiem: str | None) -> int | None:
    if meridiem is None or meridiem == "resolved":
        return hour
    if hour == 0 and meridiem == "am":
        return 0
    if not 1 <= hour <= 12:
        return None
    if meridiem == "pm":
        return hour % 12 + 12
    return hour % 12


def _apply_daypart(hour: int, part: DayPart) -> int:
    if hour == 0 or hour > 12:
        return hour  # already on the 24-hour clock
    if part is DayPart.MORNING:
        return hour % 12
    if part is DayPart.AFTERNOON:
        return hour if hour == 12 else hour + 12
    if part is DayPart.EVENING:
        return (hour + 12) % 24
    # night: the evening hours, then midnight and the small hours
    if hour == 12:
        return 0
    return hour + 12 if hour >= 6 else hour


def _strip_daypart(words: list[str]) -> tuple[list[str], DayPart | None] | None:
    """Remove day-part phrases at either end; None when two different day-parts are named."""
    parts: set[DayPart] = set()
    found = True
    while found and words:
        found = False
        for end in (0, -1):
            idx = [i for i, w in enumerate(words) if w in _DAYPART_WORDS]
            if not idx:
                break
            k = idx[0] if end == 0 else idx[-1]
            lo, hi = k, k + 1
            while lo > 0 and words[lo - 1] in _DAYPART_FILLER:
                lo -= 1
            if (end == 0 and lo != 0) or (end == -1 and hi != len(words)):
                continue
            parts.add(_DAYPART_WORDS[words[k]])
            words = words[:lo] + words[hi:]
            found = True
    if len(parts) > 1:
        return None
    return words, next(iter(parts), None)


@lru_cache(maxsize=65536)
def parse_clock(text: str) -> int | None:
    """Minutes after midnight of a clock time in any common spelling, or None when ``text`` is not one."""
    t = _normalise(text)
    if len(t) > 60 or not t:
        return None
    words = _strip_hedges(t.split())
    if words[:1] == ["at"]:
        words = words[1:]
    stripped = _strip_daypart(words)
    if stripped is None:
        return None
    words, part = stripped
    if words[:1] == ["at"]:
        words = words[1:]
    named = _named(words)
    if named is not None:
        return named
    reading = _relative(words) or _clock(words)
    if reading is None or reading.minute > 59:
        return None
    if reading.meridiem is None and part is None and not reading.explicit:
        return None  # a bare number
    hour = _apply_meridiem(reading.hour, reading.meridiem)
    if hour is None or hour > 24 or (hour == 24 and reading.minute):
        return None
    if part is not None:
        if reading.meridiem in ("am", "pm") and _apply_daypart(reading.hour, part) % 12 != hour % 12:
            return None
        if reading.meridiem is not None and not _meridiem_fits(hour, part):
            return None
        if reading.meridiem is None:
            hour = _apply_daypart(hour, part)
    return (hour % 24) * 60 + reading.minute


def _meridiem_fits(hour: int, part: DayPart) -> bool:
    """"8 pm in the morning" is no time; "1 am at night" and "12 pm in the afternoon" are."""
    if part is DayPart.MORNING:
        return hour < 12
    if part is DayPart.AFTERNOON:
        return 12 <= hour < 19
    if part is DayPart.EVENING:
        return hour >= 15 or hour == 0
    return hour >= 18 or hour < 6


_HEDGE_BEFORE = frozenset({"around", "about", "approximately", "approx", "roughly", "exactly", "precisely"})
_HEDGE_AFTER = (["sharp"], ["exactly"], ["on", "the", "dot"], ["or", "so"])


def _strip_hedges(words: list[str]) -> list[str]:
    """"around 6 pm", "at about 6", "6 pm sharp", "6 on the dot": the time said, with or without its hedge."""
    start = 1 if words[:1] == ["at"] else 0
    if words[start : start + 1] and words[start] in _HEDGE_BEFORE:
        words = words[:start] + words[start + 1 :]
    for tail in _HEDGE_AFTER:
        if len(words) > len(tail) and words[-len(tail) :] == tail:
            words = words[: -len(tail)]
    return words


def _named(words: list[str]) -> int | None:
    if words and words[0] in ("12", "twelve"):
        words = words[1:]
    key = " ".join(words)
    if key in ("noon", "midday", "noontime"):
        return 12 * 60
    if key == "midnight":
        return 0
    return None


# The words a clock time is made of, as ``_normalise`` writes them (every form of the grammar, its hedges and
# day-parts); besides these, only numbers of at most four digits ("6", "0815", "6:30", "18.30:00").
_TIME_WORDS = frozenset(
    {*_UNITS, *_TENS, *_DAYPART_WORDS, *_DAYPART_FILLER, *_MERIDIEM, *_PAST, *_TO, *_HEDGE_BEFORE}
    | {w for tail in _HEDGE_AFTER for w in tail}
    | {"noon", "midday", "noontime", "midnight", "half", "quarter", "a", "p", "m", "o", "oh", "clock", "oclock"}
    | {"minutes", "minute", "mins", "min", "hours", "hrs", "hr", "h"}
)
_QUOTES = frozenset("'\"’`´")


def _time_part(token: str) -> bool:
    if token in _TIME_WORDS or (token and set(token) <= _QUOTES):
        return True
    parts = re.split(r"[:.]", token)
    return len(parts) <= 3 and all(p.isdigit() and len(p) <= 4 for p in parts)


@lru_cache(maxsize=65536)
def _in_times(word: str) -> bool:
    """Whether ``word`` can be part of a clock time: each piece of it, normalised, is a word of the grammar or a
    number of at most four digits (a run of words with another one in it is no time, and is not parsed)."""
    if word.isascii() and word.isalpha():  # the common word: no normalising to do but lower case
        return word.lower() in _TIME_WORDS
    if word.isascii() and word.isdigit():
        return len(word) <= 4
    return all(_time_part(t) for t in _normalise(word).split())


@lru_cache(maxsize=4096)
def clock_times_in(text: str, longest: int = 7) -> frozenset[int]:
    """Every clock time stated in free text ("see you at half past six in the evening" -> {1110})."""
    words = [w.strip(",.;!?()\"") for w in text.split()]
    found: set[int] = set()
    end = 0  # the runs of words from i that can be times end before words[end] (the first that cannot be in one)
    for i in range(len(words)):
        if end <= i:
            end = i
            while end < len(words) and _in_times(words[end]):
                end += 1
        for j in range(min(end, i + longest), i, -1):
            minute = parse_clock(" ".join(words[i:j]))
            if minute is not None:
                found.add(minute)
                break
    return frozenset(found)
