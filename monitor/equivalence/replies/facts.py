"""Extraction of checkable facts from free text: amounts, quantities, numbers, dates, times, ids, entities."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import phonenumbers
from text_to_num import alpha2digit

from monitor.equivalence.normalize import STOPWORDS, fold
from monitor.equivalence.reference_data.abbreviations import ALIASES, CURRENCY_ALIASES, UNIT_ALIASES
from monitor.equivalence.reference_data.wordnet import verb_base
from monitor.equivalence.values.base import DateValue
from monitor.equivalence.values.money import RATE, major_and_minor, parse_money
from monitor.equivalence.values.places import place_relation
from monitor.equivalence.values.typed import (
    compound_amount,
    looks_like_identifier,
    parse_date,
    parse_number,
    parse_quantity,
    parse_time,
    slash_date,
)

NUMERIC_KINDS = frozenset({"money", "quantity", "percent", "number", "date", "time", "id", "phone", "address"})


@dataclass(frozen=True)
class Fact:
    """One checkable fact: ``kind`` ("money", "number", "date", "entity", ...), its surface ``text``,
    a normalised ``value`` and the character ``span`` in the (number-word normalised) text."""

    kind: str
    text: str
    value: object
    span: tuple[int, int]


_SCALE_WORDS = r"(?:hundred|thousand|million|billion|trillion|bn|mn|[kmb])\b"
_BARE = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_NUM = r"(?<![\w.])[-+]?" + _BARE
_CUR_SYM = r"[$€£¥₹₩₽]"
_CUR_WORDS = "|".join(
    sorted((re.escape(k) for k in CURRENCY_ALIASES if re.fullmatch(r"[a-z][a-z ]+", k)), key=len, reverse=True)
)
_UNIT_WORDS = "|".join(
    sorted((re.escape(k) for k in UNIT_ALIASES if len(k) >= 2 and k not in {"in", "us", "no", "am"}),
           key=len, reverse=True)
)
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")

_PHONE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)\s?|\d{2,4}[\s.-])\d{3,4}[\s.-]\d{4}(?!\w)"
)
_STREET = (r"(?:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|way|circle|court|ct|place|pl|parkway"
           r"|pkwy|highway|hwy|square|sq|plaza|terrace|broadway|alley|row|yard|walk|expressway|trail|crescent)")
_ADDRESS_WORD = r"(?!(?:am|pm|at|on|in|for|and|or|to|from|is|are|was|of|with|by|a|the)\b)[A-Za-z0-9.'&-]+"
# Spoken clock times: "6 in the evening", "half past 5", "quarter to 11 in the morning", "5 o'clock".
_DAY_PART = r"(?:in\s+the\s+(?:morning|afternoon|evening|night)|at\s+night|at\s+noon|tonight)"
_SPOKEN_TIME = (rf"(?:(?:half|quarter)\s+(?:past|to)\s+)\d{{1,2}}(?:\s*o'?clock)?(?:\s+{_DAY_PART})?"
                rf"|(?:morning|afternoon|evening|night)\s+\d{{1,2}}(?::\d{{2}})?(?!\s*(?:[ap]\.?m\b|:))"
                rf"|\d{{1,2}}(?::\d{{2}})?(?:\s*o'?clock)?\s+{_DAY_PART}|\d{{1,2}}\s*o'?clock")

# "on 3/14", "until 12/24": a month and day with a slash, after a word that introduces a day (not "3/4 of").
_AFTER_TIME_WORD = "|".join(rf"(?<=\b{w} )" for w in ("on", "from", "until", "till", "by", "before", "after"))

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("phone", _PHONE),
    ("time", re.compile(rf"\b(?:{_SPOKEN_TIME})\b", re.I)),
    ("address", re.compile(
        rf"\b\d+[A-Za-z]?(?:-\d+)?\s+(?:{_ADDRESS_WORD}\s+){{0,4}}{_STREET}\b(?:,?\s+(?:suite|ste|unit|apt)"
        rf"\s*#?\s*[A-Za-z0-9-]+)?", re.I)),
    ("date", re.compile(
        rf"(?:{_AFTER_TIME_WORD})\d{{1,2}}/\d{{1,2}}\b(?![/.]\d)"
        rf"|\b(?:\d{{4}}-\d{{1,2}}-\d{{1,2}}(?:[t ]\d{{1,2}}:\d{{2}})?|\d{{1,2}}[/.]\d{{1,2}}[/.]\d{{2,4}}"
        rf"|{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:\s*,?\s*\d{{4}})?"
        rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\.?(?:\s*,?\s*\d{{4}})?)\b", re.I)),
    ("time", re.compile(r"\b\d{1,2}(?::\d{2})?\s*(?:a\.?m\.?|p\.?m\.?)(?![a-z])|\b\d{1,2}:\d{2}\b", re.I)),
    ("money", re.compile(
        rf"(?:(?:[a-z]{{1,2}})?{_CUR_SYM}\s*{_BARE}(?:\s*{_SCALE_WORDS})?"
        rf"|\b(?:usd|eur|gbp|jpy|cny|inr|cad|aud|chf)\s*{_BARE}(?:\s*{_SCALE_WORDS})?"
        rf"|{_NUM}(?:\s*{_SCALE_WORDS})?\s*(?:{_CUR_WORDS}|usd|eur|gbp|jpy|cny|inr|cad|aud|chf)\b)(?:{RATE})?", re.I)),
    ("percent", re.compile(rf"{_NUM}\s*(?:%|percent\b|per cent\b|pct\b)", re.I)),
    ("quantity", re.compile(rf"{_NUM}(?:\s*(?:thousand|million|billion)\b)?\s*(?:{_UNIT_WORDS})(?![\w])", re.I)),
    ("id", re.compile(r"\b[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)+\b|\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{2,}\b")),
    ("number", re.compile(rf"{_NUM}(?:\s*(?:hundred|thousand|million|billion|trillion)\b|(?:st|nd|rd|th)\b)?")),
]

# An ordinal written before a capitalised name is part of it ("the 6th U.S. Circuit Court of Appeals", "the
# 16th China-EU Summit", "the 9th and 10th Amendments"): the name, not a count, is the fact.
_NAME_ORDINAL = r"\d+(?:st|nd|rd|th)\s+(?:(?:and|or|&)\s+\d+(?:st|nd|rd|th)\s+)?(?=[A-Z])"
_ENTITY = re.compile(
    rf"(?<![\w.])(?:{_NAME_ORDINAL})?\b(?:[A-Z][\w'&.-]*|[A-Z]{{2,}})(?:\s+(?:of\s+|the\s+|de\s+)?(?:[A-Z][\w'&.-]*))*")
_NAME_ORDINAL_RE = re.compile(r"(?:(?:and|or|&)\s+\d+(?:st|nd|rd|th)\s+)?(?=[A-Z])")
_SMALL = {"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
          "nine": "9", "ten": "10", "eleven": "11", "twelve": "12"}
_SMALL_RE = re.compile(r"\b(" + "|".join(_SMALL) + r")\b(?!-)", re.I)
# "one" is a count only before a unit of measure ("one day", "one hour"); elsewhere it is often a pronoun
# ("the one at 5 pm", "one of them"), which the number-word parser leaves alone for that reason.
_ONE_UNIT_RE = re.compile(
    r"\b(?<!the\s)(?<!this\s)(?<!that\s)one(?=\s+(?:" + "|".join(
        sorted((re.escape(k) for k in UNIT_ALIASES if k.isalpha() and len(k) >= 3), key=len, reverse=True))
    + r")\b)", re.I)
# "one" before a noun it counts ("one checked bag", "one adult") is the count 1, as "two checked bags" is 2. The
# text keeps the word (the verifier reads "one bus" better than "1 bus"); the fact is the number. Not after a
# determiner ("the one", "this one") or an adjective ("a nice one": only a function word or a verb may come
# before a count), not before a function word ("one of", "one that") or a word that makes it a pronoun or an
# idiom ("one another", "one more").
_ONE_COUNT_RE = re.compile(r"(?<![\w-])([Oo]ne)(?=\s+([a-z][a-z'-]*)\b)(?!-)")
_BEFORE_COUNT = re.compile(r"(?:^|[.!?:;,(]\s*|\b([A-Za-z']+)\s+)$")
_NOT_COUNTED = frozenset({"another", "other", "more", "less", "last", "way", "thing", "too", "also", "just", "only",
                          "ever", "never", "still", "now", "then", "here", "there", "so", "very", "can", "may",
                          "might", "must", "should", "would", "could", "will", "does", "did", "has", "had"})
_NOT_BEFORE_COUNT = frozenset({"the", "this", "that", "which", "any", "each", "every", "no", "some", "only", "a",
                               "an", "another", "what", "whichever"})


def _counted_ones(norm: str) -> list[tuple[int, int]]:
    """The spans of "one" used as a count in ``norm``."""
    out: list[tuple[int, int]] = []
    for m in _ONE_COUNT_RE.finditer(norm):
        follower = m.group(2)
        if follower in STOPWORDS or follower in _NOT_COUNTED or _in_name(norm, m):
            continue
        before = _BEFORE_COUNT.search(norm, 0, m.start())
        if before is None:
            continue
        word = (before.group(1) or "").lower()
        if word and (word in _NOT_BEFORE_COUNT or (word not in STOPWORDS and verb_base(word) is None)):
            continue
        out.append(m.span(1))
    return out


_PROTECT = re.compile(r"(\d)(\s+)(hundred|thousand|million|billion|trillion)\b", re.I)


def normalise_numbers(text: str) -> str:
    """Spell number words as digits ("twenty five" -> "25"), keeping "1.2 million" intact."""
    if not re.search(r"[A-Za-z]", text):
        return text
    protected = _PROTECT.sub(lambda m: f"{m.group(1)}{m.group(2)}QQ{m.group(3).upper()}QQ", text)
    protected = _NAME_NUMBER.sub(lambda m: f"QN{m.group(0)}QN" if _in_name(protected, m) else m.group(0), protected)
    try:
        out = alpha2digit(protected, "en")
    except (ValueError, IndexError):
        out = protected
    out = re.sub(r"QQ([A-Z]+)QQ", lambda m: m.group(1).lower(), out)
    out = re.sub(r"QN([A-Za-z]+)QN", r"\1", out)
    out = _ONE_UNIT_RE.sub("1", out)
    out = major_and_minor(out)
    out = _SMALL_RE.sub(lambda m: m.group(1) if _in_name(out, m) else _SMALL[m.group(1).lower()], out)
    return spoken_amounts(out)


# Amounts said in words: "an hour and a half" -> "1.5 hours", "half an hour" -> "0.5 hours", "2 and a half
# days" -> "2.5 days", "a dozen" -> "12", "half a dozen" -> "6", "3 dozen" -> "36".
_SPOKEN_UNIT = r"(minute|hour|day|week|month|year|mile|kilometer|km)s?"
_SPOKEN = [
    (re.compile(rf"\b(?:an?|1) {_SPOKEN_UNIT} and a half\b", re.I), lambda m: f"1.5 {m.group(1)}s"),
    (re.compile(rf"\b(\d+) and a half {_SPOKEN_UNIT}\b", re.I), lambda m: f"{m.group(1)}.5 {m.group(2)}s"),
    (re.compile(rf"\b(\d+) {_SPOKEN_UNIT} and a half\b", re.I), lambda m: f"{m.group(1)}.5 {m.group(2)}s"),
    (re.compile(rf"\bhalf an? {_SPOKEN_UNIT}\b", re.I), lambda m: f"0.5 {m.group(1)}s"),
    (re.compile(rf"\ba quarter of an? {_SPOKEN_UNIT}\b", re.I), lambda m: f"0.25 {m.group(1)}s"),
    (re.compile(rf"\b3 quarters of an? {_SPOKEN_UNIT}\b", re.I), lambda m: f"0.75 {m.group(1)}s"),
    (re.compile(r"\bhalf a dozen\b", re.I), lambda m: "6"),
    (re.compile(r"\b(?:a|1) dozen\b", re.I), lambda m: "12"),
    (re.compile(r"\b(\d+) dozen\b", re.I), lambda m: str(12 * int(m.group(1)))),
]


def spoken_amounts(text: str) -> str:
    """Amounts said with fractions or dozens as digits (see ``_SPOKEN``), amounts in two units in the smaller one
    (``typed.compound_amount``); number words are digits by now."""
    text = compound_amount(text)
    if "half" not in text and "quarter" not in text and "dozen" not in text:
        return text
    for pattern, digits in _SPOKEN:
        text = pattern.sub(digits, text)
    return text


_NUMBER_WORDS = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
                 "|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred"
                 "|thousand")
_NAME_NUMBER = re.compile(rf"\b(?:{_NUMBER_WORDS})\b", re.I)
_SENTENCE_OPENING = re.compile(r"(?:^|[.!?:]\s+|\n)[\"'(]*$")


def _in_name(text: str, m: re.Match[str]) -> bool:
    """A capitalised number word inside a sentence is part of a name ("the Big Four", "Try Two Sisters"),
    not a count; at a sentence's start it is capitalised anyway."""
    return m.group(0)[0].isupper() and not _SENTENCE_OPENING.search(text, 0, m.start())


_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th)$", re.I)


def _prose_identifier(surface: str) -> bool:
    """An id inside prose: "UA-100", "SKU_12", "ds-eu-revenue" — not "16th", "do-not-call", "late-term"."""
    if _ORDINAL.match(surface) or not looks_like_identifier(surface):
        return False
    if any(c.isdigit() for c in surface) or "_" in surface:
        return True
    parts = re.split(r"[-_]", surface.lower())
    return any(len(p) <= 2 and p not in STOPWORDS for p in parts)


# Street types that are also everyday nouns ("2 white dogs walk", "a 4.5 rated place") name a street only
# when written as part of a proper name ("Market Place", "Abbey Road").
_PLAIN_STREET = frozenset({"street", "st", "avenue", "ave", "road", "rd", "boulevard", "blvd", "ln", "pkwy",
                           "hwy", "parkway", "highway", "expressway", "broadway", "lane"})


def _street_address(norm: str, start: int, surface: str) -> bool:
    """A house number and street: not the decimal part of a number, not across a sentence end, and a street
    type that is capitalised unless it can only mean a street."""
    if re.search(r"\d[.,]$", norm[:start]) or re.search(r"[a-z]{2}[.!?]\s", surface):
        return False  # the decimal part of a number; words across a sentence end ("4 results. Dr. Lee")
    words = re.findall(r"[A-Za-z]+", re.sub(r"(?i),?\s+(?:suite|ste|unit|apt)\b.*$", "", surface))
    street = words[-1] if words else ""
    return street.lower() in _PLAIN_STREET or street[:1].isupper()


def _value(kind: str, text: str) -> object:
    if kind == "money":
        return parse_money(text)
    if kind == "quantity":
        return parse_quantity(text)
    if kind == "percent":
        return parse_number(re.sub(r"(?i)\s*(%|percent|per cent|pct)$", "", text))
    if kind == "number":
        return parse_number(re.sub(r"(?i)(\d)(st|nd|rd|th)$", r"\1", text))
    if kind == "date":
        return parse_date(text) or slash_date(text)
    if kind == "time":
        return parse_time(text)
    if kind == "id":
        return re.sub(r"[\s_\-]+", "", fold(text))
    if kind == "phone":
        return re.sub(r"\D", "", text)
    if kind == "address":
        return _address_key(text)
    return fold(text)


_STREET_SHORT = {"st": "street", "ave": "avenue", "rd": "road", "blvd": "boulevard", "ln": "lane", "dr": "drive",
                 "ct": "court", "pl": "place", "pkwy": "parkway", "hwy": "highway", "sq": "square", "ste": "suite"}


def _address_key(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", fold(text))
    return " ".join(_STREET_SHORT.get(w, w) for w in words)


@lru_cache(maxsize=32768)
def _extract(text: str) -> tuple[Fact, ...]:
    norm = normalise_numbers(text)
    taken = [False] * len(norm)
    facts: list[Fact] = []
    for s, e in _international_phones(norm):
        for i in range(s, e):
            taken[i] = True
        facts.append(Fact("phone", norm[s:e], re.sub(r"\D", "", norm[s:e]), (s, e)))
    for s, e in _counted_ones(norm):
        for i in range(s, e):
            taken[i] = True
        facts.append(Fact("number", norm[s:e], 1.0, (s, e)))
    for kind, pat in _PATTERNS:
        for m in pat.finditer(norm):
            s, e = m.span()
            surface = m.group(0).strip()
            if not surface or any(taken[s:e]):
                continue
            if kind == "id" and not _prose_identifier(surface):
                continue
            if kind == "number" and _ORDINAL.match(surface) and _NAME_ORDINAL_RE.match(norm, e + 1):
                continue  # part of the name that follows (``_NAME_ORDINAL``)
            if kind == "address" and not _street_address(norm, s, surface):
                continue
            val = _value(kind, surface)
            if val is None and kind == "time":
                val = fold(surface)  # a spoken time the typed parser does not read: compared as a value
            if val is None:
                continue
            if kind == "date" and isinstance(val, DateValue) and not val.candidates:
                continue
            for i in range(s, e):
                taken[i] = True
            facts.append(Fact(kind, surface, val, (s, e)))
    for s, e, run in _entity_runs(norm):
        if any(taken[s:e]):
            continue
        words = run.split()
        sentence_start = s == 0 or bool(re.search(r"[.!?:]\s*[\"']?$", norm[:s]))
        if sentence_start:
            # The first word of a sentence is capitalised anyway: a function word or interjection there opens
            # the sentence, not the name ("The Lodge Room", "Great Hotel X"); another word starts the name
            # when more capitals follow ("Seattle-Tacoma International Airport", "Bill Callahan").
            if (words[0].isupper() and len(words[0]) >= 2 and fold(words[0]) not in STOPWORDS) or (
                    len(words) > 1 and fold(words[0]).strip(".,") not in STOPWORDS | _OPENERS):
                pass
            elif len(words) > 1:
                first = words[0]
                s = norm.index(words[1], s + len(first))
                words = words[1:]
            else:
                continue
        surface = " ".join(words).rstrip(".")
        key = fold(surface)
        if (key in STOPWORDS and not surface.isupper()) or len(key) < 2 or key in {"i", "i'm", "i'll", "i've", "i'd"}:
            continue
        facts.append(Fact("entity", surface, key, (s, s + len(surface))))
    facts.sort(key=lambda f: f.span)
    return tuple(facts)


def _international_phones(norm: str) -> list[tuple[int, int]]:
    """Spans of phone numbers written with a country code ("+61 2 9634 9634", "+33 1 44 54 13 13"), whose
    groupings differ by country: libphonenumber knows each country's lengths."""
    if "+" not in norm:
        return []
    matcher = phonenumbers.PhoneNumberMatcher(norm, None, leniency=phonenumbers.Leniency.POSSIBLE)
    return [(m.start, m.end) for m in matcher if m.raw_string.startswith("+")]


# Words that open a reply sentence without being part of a name that follows.
_OPENERS = frozenset({"great", "alright", "perfect", "sorry", "unfortunately", "yup", "yeah", "how", "when",
                      "where", "who", "why", "which", "here", "let", "kindly", "hello", "hi", "thanks", "thank",
                      "ok", "also", "then", "so", "well", "certainly", "done", "confirming", "confirm", "book",
                      "booked", "found", "try", "visit", "enjoy", "check"})


_SENTENCE_END = re.compile(r"(?<=[a-z]{2})[.!?]\s+")


def _entity_runs(norm: str) -> list[tuple[int, int, str]]:
    """Runs of capitalised words, cut where a sentence ends inside them ("Sebastopol. Reframe Hair")
    but not after an abbreviation ("Dr. Dan R. Lightfoot", "St. Louis")."""
    out = []
    for m in _ENTITY.finditer(norm):
        start = m.start()
        for piece in _SENTENCE_END.split(m.group(0)):
            begin = norm.index(piece, start)
            out.append((begin, begin + len(piece), piece))
            start = begin + len(piece)
    return out


def extract_facts(text: str) -> list[Fact]:
    """Facts in ``text``: money, quantities, percentages, numbers (incl. number words), dates,
    clock times, identifiers and capitalised named entities."""
    return list(_extract(text))


def entities_agree(a: str, b: str) -> bool:
    """Entity names agree when equal, aliases of each other, or one's words contain the other's."""
    if a == b:
        return True
    ra = {a, *ALIASES.get(a, ())}
    rb = {b, *ALIASES.get(b, ())}
    if ra & rb:
        return True
    ta = set(re.findall(r"[a-z0-9]+", a)) - STOPWORDS
    tb = set(re.findall(r"[a-z0-9]+", b)) - STOPWORDS
    if ta and tb and (ta <= tb or tb <= ta):
        return not other_places(a, b)  # "York" is not "New York", though its words are a part
    if _initialism(a, b):
        return True
    # One name abbreviates part of the other, the rest in common ("Kenya SC" / "Kenya Supreme Court").
    wa, wb = a.split(), b.split()
    shared = set(wa) & set(wb)
    return bool(shared - STOPWORDS) and _initialism(" ".join(w for w in wa if w not in shared),
                                                    " ".join(w for w in wb if w not in shared))


def other_places(a: str, b: str) -> bool:
    """Both names are places, and not the same one nor one within the other ("York" / "New York")."""
    return place_relation(a, b) == "different"


def _initialism(a: str, b: str) -> bool:
    """One name is the initials of the other's words ("ucla" / "university of california los angeles")."""
    initials_a = "".join(w[0] for w in a.split() if w not in STOPWORDS)
    initials_b = "".join(w[0] for w in b.split() if w not in STOPWORDS)
    compact_a, compact_b = re.sub(r"[^a-z0-9]", "", a), re.sub(r"[^a-z0-9]", "", b)
    return (len(compact_a) >= 2 and compact_a == initials_b) or (len(compact_b) >= 2 and compact_b == initials_a)
