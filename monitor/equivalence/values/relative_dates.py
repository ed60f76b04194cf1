"""Days named without a date: weekdays and days, weeks, weekends, months and years counted from today.

    ref      := [on | for | by] [the] (day | span)
    day      := today | tonight | tomorrow | yesterday | [the] day (after tomorrow | before yesterday)
    span     := [modifier] (weekday | week | weekend | month | year) | weekdays
    modifier := this | next | coming | following | last | previous | past
    weekday  := monday ... sunday, or a common short form (mon, tue, tues, thu, thurs, ...)

A reading is the kind of span and its offset from the present one: "tomorrow" is (day, +1), "next
week" (week, +1), "this weekend" and "weekend" (weekend, 0). A weekday keeps its day of the week and
looks back only with "last" / "previous" / "past": "next Tuesday", "this Tuesday" and "Tuesday" all
name the coming Tuesday (people use "next" both ways). Weekday names come from the standard library's
English calendar. Two readings of one kind are the same value only when they are equal; a day against a
weekday cannot be told without today's date, so that pair is left undecided.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from functools import lru_cache

from monitor.equivalence.normalize import fold
from monitor.equivalence.reference_data.abbreviations import WEEKDAYS as ABBREVIATED_WEEKDAYS

_DAYS = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1, "day after tomorrow": 2,
         "day before yesterday": -2}
_FORWARD = {"this": 0, "coming": 0, "next": 1, "following": 1}
_BACK = {"last": -1, "previous": -1, "past": -1}
_SPANS = ("week", "weekend", "month", "year")
_LEAD = re.compile(r"^(?:(?:on|for|by)\s+)?(?:the\s+)?")


def _weekday_names() -> dict[str, int]:
    names: dict[str, int] = {}
    for number, (full, short) in enumerate(zip(calendar.day_name, calendar.day_abbr, strict=True)):
        full, short = full.lower(), short.lower()
        names[full] = names[short] = names[full + "s"] = number  # "on Mondays" names the weekday too
    for short, full in {**ABBREVIATED_WEEKDAYS, "weds": "wednesday"}.items():  # "tues", "thurs", ...
        names.setdefault(short, names[full])
    return names


WEEKDAYS = _weekday_names()


@dataclass(frozen=True)
class DayRef:
    """A day or span counted from the present one: `kind` (day, weekday, week, weekend, month, year)."""

    kind: str
    offset: int  # 0 = the present (or coming) one; +1 the next; -1 the last
    weekday: int | None = None  # 0 = Monday, for kind "weekday"


@lru_cache(maxsize=65536)
def parse_day_ref(text: str) -> DayRef | None:
    """The reading of `text` when the whole of it is a relative day or span (see the module doc), else None."""
    t = _LEAD.sub("", re.sub(r"[.,!?]+$", "", fold(text).strip())).strip()
    t = re.sub(r"\s+", " ", t)
    if t in _DAYS:
        return DayRef("day", _DAYS[t])
    words = t.split(" ")
    offset, forward = 0, True
    if len(words) == 2 and words[0] in _FORWARD | _BACK:
        offset = _FORWARD.get(words[0], _BACK.get(words[0], 0))
        forward = words[0] in _FORWARD
        words = words[1:]
    if len(words) != 1:
        return None
    word = "weekend" if words[0] == "weekends" else words[0]
    if word in WEEKDAYS:
        return DayRef("weekday", 0 if forward else -1, WEEKDAYS[word])
    if word in _SPANS:
        return DayRef(word, offset)
    if word in ("weekday", "weekdays") and offset == 0:
        return DayRef("weekdays", 0)  # working days, not one span
    return None


def same_day_ref(gold: str, pred: str) -> bool | None:
    """True / False when both sides are relative days or spans that can be compared; None otherwise."""
    g, p = parse_day_ref(gold), parse_day_ref(pred)
    if g is None or p is None:
        return None
    if g.kind == p.kind:
        return g == p
    if {g.kind, p.kind} <= {*_SPANS, "weekdays"}:
        return False  # a week is not a weekend, a month not a year, weekdays are not the weekend
    if "weekday" in (g.kind, p.kind) and "weekend" in (g.kind, p.kind):
        weekday = g.weekday if g.kind == "weekday" else p.weekday
        return False if weekday is not None and weekday < 5 else None  # "Tuesday" is no weekend day
    return None
