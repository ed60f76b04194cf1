"""The typed comparison of two scalar values as an ordered chain of small stages.

Each stage looks at a ``Pair`` and returns a ``Match`` when the values have a type it decides (both are
dates, both are phone numbers, ...) or ``None`` to pass the pair on. The first decision wins; a pair no
stage decides goes to the semantic comparison. To teach the comparator a new kind of value, write one
function ``(Pair) -> Match | None`` and put it at the right place in ``STAGES`` (earlier = more specific).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

from monitor.equivalence.normalize import STOPWORDS, alias_set, american, categorize, fold, tokens
from monitor.equivalence.normalize import timezone_city as _timezone_city
from monitor.equivalence.reference_data.airports import airport_relation
from monitor.equivalence.replies.facts import Fact, entities_agree, extract_facts, normalise_numbers
from monitor.equivalence.types import Match
from monitor.equivalence.values import money, people, phones, quantities, typed
from monitor.equivalence.values.addresses import same_address
from monitor.equivalence.values.base import DateValue, Quantity, canon, numbers_close
from monitor.equivalence.values.calibration import value_text, value_tokens
from monitor.equivalence.values.categories import price_level_rank
from monitor.equivalence.values.opposites import antonym_clash, opposite_words
from monitor.equivalence.values.places import place_relation
from monitor.equivalence.values.relative_dates import same_day_ref
from monitor.equivalence.values.spans import ordinal, price_signs, rating, same_range, sequel_of

EXACT = Match(True, 1.0, "exact")


def _verdict(ok: bool, method: str, yes: float = 1.0, no: float = 0.0) -> Match:
    return Match(ok, yes if ok else no, method)


def _as_text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class Pair:
    """A gold and a predicted scalar, with their text forms and the readings stages share (computed once)."""

    gold: Any
    pred: Any

    @cached_property
    def g(self) -> str:
        return _as_text(self.gold)

    @cached_property
    def p(self) -> str:
        return _as_text(self.pred)

    @cached_property
    def dates(self) -> tuple[DateValue | None, DateValue | None]:
        return typed.parse_date(self.g), typed.parse_date(self.p)

    @cached_property
    def times(self) -> tuple[int | None, int | None]:
        return typed.parse_time(self.g), typed.parse_time(self.p)

    @cached_property
    def numbers(self) -> tuple[float | None, float | None]:
        return typed.number_of(self.gold), typed.number_of(self.pred)

    @cached_property
    def categories(self) -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
        return categorize(self.g), categorize(self.p)


Stage = Callable[[Pair], Match | None]


# ------------------------------------------------------------------------------------------ identity
def same_text(pair: Pair) -> Match | None:
    return EXACT if canon(pair.g) == canon(pair.p) else None


def email(pair: Pair) -> Match | None:
    """E-mail addresses are identifiers: equal after normalisation or different."""
    ge, pe = typed.email_key(pair.g), typed.email_key(pair.p)
    return _verdict(ge == pe, "email") if ge is not None and pe is not None else None


def url(pair: Pair) -> Match | None:
    gu, pu = typed.url_key(pair.g), typed.url_key(pair.p)
    return _verdict(gu == pu, "url") if gu is not None and pu is not None else None


def boolean(pair: Pair) -> Match | None:
    gb, pb = typed.as_bool(pair.gold), typed.as_bool(pair.pred)
    if not (isinstance(pair.gold, bool) or isinstance(pair.pred, bool) or (gb is not None and pb is not None)):
        return None
    if gb is None:
        gb = {1.0: True, 0.0: False}.get(typed.number_of(pair.gold) or -1.0)
    if pb is None:
        pb = {1.0: True, 0.0: False}.get(typed.number_of(pair.pred) or -1.0)
    return _verdict(gb is not None and gb == pb, "bool")


def _exact_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def json_numbers(pair: Pair) -> Match | None:
    """Two numbers that are not strings: numerically equal or not."""
    if isinstance(pair.gold, str) or isinstance(pair.pred, str):
        return None
    if _exact_int(pair.gold) and _exact_int(pair.pred):  # any size: never through a float
        return _verdict(pair.gold == pair.pred, "number")
    gn, pn = pair.numbers
    return _verdict(numbers_close(gn, pn), "number") if gn is not None and pn is not None else None


# ------------------------------------------------------------------------------------------ calendar
def year_range(pair: Pair) -> Match | None:
    """Seasons / spans of consecutive years: "2019-2020" / "2019/20" / "19-20"; a season and one of its years."""
    gr, pr = typed.parse_year_range(pair.g), typed.parse_year_range(pair.p)
    if gr is not None and pr is not None:
        return _verdict(typed.year_ranges_equal(gr, pr), "year-range")
    if (gr is None) == (pr is None):
        return None
    season, other = (gr, pair.p) if gr is not None else (pr, pair.g)
    year = re.fullmatch(r"\d{4}", canon(other))
    if year is None or season is None:
        return None
    y = int(year.group(0))
    ok = y in season[:2] if season[2] else y % 100 in (season[0] % 100, season[1] % 100)
    return _verdict(ok, "year-range", yes=0.8)


def month_of_date(pair: Pair) -> Match | None:
    """A month alone against a month of some year ("December" / "12/2022"): the year is unspecified."""
    gd, pd = pair.dates
    if (gd is None) == (pd is None):
        return None
    dated, other = (gd, pair.p) if gd is not None else (pd, pair.g)
    months = categorize(other).get("month")
    if dated is None or not months or any(day is not None for _, _, day in dated.candidates):
        return None
    names = {typed.month_name(m) for _, m, _ in dated.candidates}
    return _verdict(bool(names & months), "date", yes=0.8)


def price_level(pair: Pair) -> Match | None:
    """Price levels in signs or words: "$$" / "$$" equal, "$$" / "$$$$" not; one sign per
    level of ``data/price_levels.json``, cheapest first ("$$" / "moderate", "$" / "inexpensive")."""
    g, p = price_signs(pair.g), price_signs(pair.p)
    if g is None and p is None:
        return None
    g = g if g is not None else price_level_rank(pair.g)
    p = p if p is not None else price_level_rank(pair.p)
    return _verdict(g == p, "category") if g is not None and p is not None else None


def value_range(pair: Pair) -> Match | None:
    """Two ranges ("March 5-8" / "March 5 to March 8", "9am-5pm" / "9 am to 5 pm"): equal when both ends are."""
    def ends_equal(a: str, b: str) -> bool | None:
        decided = run(a, b)
        return None if decided is None else decided.equivalent

    same = same_range(pair.g, pair.p, ends_equal)
    return None if same is None else _verdict(same, "range")


def relative_day(pair: Pair) -> Match | None:
    """Weekdays and days or spans counted from today ("Tue" / "Tuesday", "tomorrow" / "today", "next week")."""
    same = same_day_ref(pair.g, pair.p)
    return None if same is None else _verdict(same, "date")


def date(pair: Pair) -> Match | None:
    """Two dates; "3/14" against a date is a month and day ("March 14th" / "3/14")."""
    gd, pd = pair.dates
    if (gd is None) != (pd is None):
        gd = gd or typed.slash_date(pair.g)
        pd = pd or typed.slash_date(pair.p)
    return _verdict(typed.dates_equal(gd, pd), "date") if gd is not None and pd is not None else None


def clock_time(pair: Pair) -> Match | None:
    """Clock times in any spelling ("half past six in the evening" / "18:30"): the same minute of the day."""
    gt, pt = pair.times
    return _verdict(gt == pt, "time") if gt is not None and pt is not None else None


def date_against_time(pair: Pair) -> Match | None:
    gd, pd = pair.dates
    gt, pt = pair.times
    if (gd is not None) != (pd is not None) and (gt is not None or pt is not None):
        return Match(False, 0.0, "date")
    return None


# ------------------------------------------------------------------------------------------ amounts
def phone_number(pair: Pair) -> Match | None:
    """Two phone numbers: the same number in any format ("+1 415-555-0100" / "(415) 555-0100")."""
    keys = phones.phone_keys(pair.g, pair.p)
    return _verdict(keys[0] == keys[1], "phone") if keys is not None else None


def money_amount(pair: Pair) -> Match | None:
    """Money: the same amount in the same currency; a bare number stands for an amount in any currency."""
    gm, pm = money.parse_money(pair.g), money.parse_money(pair.p)
    if gm is None and pm is None:
        return None
    gn, pn = pair.numbers
    ga = gm.amount if gm else gn
    pa = pm.amount if pm else pn
    if ga is None or pa is None:
        return None
    same_unit = gm is None or pm is None or (
        money.same_currency(gm.currency, pm.currency) and money.same_period(gm.per, pm.per))
    return _verdict(same_unit and numbers_close(ga, pa), "money")


def quantity(pair: Pair) -> Match | None:
    """Physical quantities, converted between units of one dimension ("212 °F" / "100 °C", "1 km" / "1000 m")."""
    gq, pq = typed.parse_quantity(pair.g), typed.parse_quantity(pair.p)
    if (gq is None) != (pq is None):
        # a unit named alone is one of it: "year" / "12 months", but "year" / "5 years" differ
        unit = typed.bare_unit(pair.g if gq is None else pair.p)
        if unit is not None:
            gq = gq or Quantity(1.0, unit)
            pq = pq or Quantity(1.0, unit)
    if gq is not None and pq is not None:
        return _verdict(quantities.equal(gq, pq), "quantity" if gq.unit != pq.unit else "number")
    if gq is None and pq is None:
        return None
    gn, pn = pair.numbers
    ga = gq.amount if gq else gn
    pa = pq.amount if pq else pn
    return _verdict(numbers_close(ga, pa), "number") if ga is not None and pa is not None else None


def rating_scale(pair: Pair) -> Match | None:
    """"4.2 out of 5" is 4.2 on a scale of 5: equal to "4.2", not to "4.2 out of 10"."""
    if "out of" not in pair.g and "out of" not in pair.p:
        return None
    g, p = rating(pair.g), rating(pair.p)
    if g is None or p is None:
        return None
    same_scale = g[1] is None or p[1] is None or g[1] == p[1]
    return _verdict(same_scale and numbers_close(g[0], p[0]), "number")


def ordinal_number(pair: Pair) -> Match | None:
    """Ordinals in digits or words ("1st" / "first")."""
    g, p = ordinal(pair.g), ordinal(pair.p)
    return _verdict(g == p, "number") if g is not None and p is not None else None


def sequel(pair: Pair) -> Match | None:
    """A title and its sequel ("Frozen" / "Frozen II", "Rocky" / "Rocky Part 3") are different works; a bare
    trailing number is not read (``spans.sequel_of``)."""
    return Match(False, 0.1, "number") if sequel_of(pair.g, pair.p) or sequel_of(pair.p, pair.g) else None


def number(pair: Pair) -> Match | None:
    gn, pn = pair.numbers
    if gn is not None and pn is not None:
        return _verdict(numbers_close(gn, pn), "number")
    if (gn is not None) != (pn is not None) and (
        isinstance(pair.gold, int | float) or isinstance(pair.pred, int | float)
    ):
        return Match(False, 0.0, "number")
    return None


def counted(pair: Pair) -> Match | None:
    """A count of something against the bare count ("2 people" / "two") or against a count of the same thing
    ("1 bedroom" / "one bedroom"): the same number counts the same."""
    gn, pn = pair.numbers
    if gn is None and pn is None:  # two counts of one thing: "1 bedroom" / "one bedroom"
        gc, pc = typed.count_of(pair.g), typed.count_of(pair.p)
        if gc is None or pc is None or gc[1] != pc[1]:
            return None
        return _verdict(numbers_close(gc[0], pc[0]), "number")
    if gn is not None and pn is not None:
        return None
    count = typed.counted_number(pair.p if gn is not None else pair.g)
    bare = gn if gn is not None else pn
    return _verdict(numbers_close(count, bare), "number") if count is not None and bare is not None else None


# ------------------------------------------------------------------------------------------ names
def street_address(pair: Pair) -> Match | None:
    """US street addresses in any spelling of the USPS standard ("2100 Hyde St." / "2100 Hyde Street")."""
    rel = same_address(pair.g, pair.p)
    return None if rel is None else _verdict(rel, "address", yes=0.95, no=0.05)


def airport(pair: Pair) -> Match | None:
    """Airports by code, name or "<city> airport" ("DEL" / "Indira Gandhi International Airport")."""
    rel = airport_relation(pair.g, pair.p)
    if rel is None:
        return None
    return _verdict(rel, "airport", yes=0.9, no=0.05)


def place(pair: Pair) -> Match | None:
    """Places at any granularity: "Seattle" / "Seattle, WA" / "WA" (but not "Seattle" / "CA")."""
    rel = place_relation(pair.g, pair.p)
    if rel is None:
        return None
    if rel == "different":
        return Match(False, 0.05, "place")
    return Match(True, 0.9 if rel == "same" else 0.8, "place" if rel == "same" else "place-granularity")


def opposites(pair: Pair) -> Match | None:
    """Embeddings put "cheap" next to "expensive"; one opposite for another is a different value: curated
    opposites, a WordNet antonym in the same place ("upstairs" / "downstairs") and a word negated by prefix
    ("refundable" / "non-refundable")."""
    clash = antonym_clash(pair.g, pair.p) or bool(opposite_words(pair.g, pair.p))
    return Match(False, 0.05, "antonym") if clash else None


def closed_class(pair: Pair) -> Match | None:
    """States, countries, currencies, units, time zones, months, languages, metrics: members of one class."""
    gc, pc = pair.categories
    shared = gc.keys() & pc.keys()
    if not shared:
        return None
    ok = any(gc[c] & pc[c] for c in shared)
    return Match(ok, 0.95 if ok else 0.05, sorted(shared)[0])


def timezone(pair: Pair) -> Match | None:
    """A time zone against the big city usually meant by it ("PST" / "Los Angeles")."""
    gc, pc = pair.categories
    if "timezone" not in gc and "timezone" not in pc:
        return None
    zone_g = next(iter(gc["timezone"])) if "timezone" in gc else _timezone_city(pair.g)
    zone_p = next(iter(pc["timezone"])) if "timezone" in pc else _timezone_city(pair.p)
    if zone_g is None or zone_p is None:
        return None
    return _verdict(zone_g == zone_p, "timezone", yes=0.9, no=0.05)


def acronym_of(short: str, long_: str) -> bool:
    """"PG&E" / "Pacific Gas and Electric", "EPL" / "English Premier League", "NBA" / "National Basketball ..."."""
    letters = re.sub(r"[^a-z0-9]", "", short)
    words = tokens(re.sub(r"(?<=[a-z])(?=[A-Z])", " ", long_))  # camelCase: "PlayStation" -> "Play Station"
    if len(letters) < 2 or len(words) < 2 or " " in short.strip():
        return False

    def initial(w: str) -> str:
        return w if w.isdigit() else w[0]

    with_stop = "".join(initial(w) for w in words)
    without = "".join(initial(w) for w in words if w not in STOPWORDS)
    return letters in (with_stop, without)


def abbreviation(pair: Pair) -> Match | None:
    """Aliases ("NYC" / "New York City"), acronyms and clipped words ("Dept." / "Department")."""
    if alias_set(pair.g) & alias_set(pair.p):
        return Match(True, 0.95, "abbreviation")
    short, long_ = (pair.g, pair.p) if len(pair.g) <= len(pair.p) else (pair.p, pair.g)
    if acronym_of(fold(short), long_.strip()):
        return Match(True, 0.9, "abbreviation")
    s_key, l_key = canon(short).rstrip("."), canon(long_)
    written_short = short.strip().isupper() or short.strip().endswith(".")
    if written_short and len(s_key) >= 3 and s_key.isalpha() and l_key.isalpha() and l_key.startswith(s_key):
        return Match(True, 0.8, "abbreviation")
    if contracted_words(pair.g, pair.p):
        return Match(True, 0.85, "abbreviation")
    return None


def _contraction(short: str, long_: str) -> bool:
    """"mt" / "mount", "pt" / "point", "st" / "saint": a vowelless word of 2-4 letters that keeps the first and
    last letters of the other and some between, in order (a contraction, not a word of its own)."""
    if not 2 <= len(short) <= 4 or not short.isalpha() or set(short) & set("aeiouy"):
        return False
    if len(long_) <= len(short) or short[0] != long_[0] or short[-1] != long_[-1]:
        return False
    rest = iter(long_)
    return all(ch in rest for ch in short)


def contracted_words(a: str, b: str) -> bool:
    """The same words, some written as contractions on one side ("Mt. Vernon" / "Mount Vernon")."""
    ta, tb = re.findall(r"[a-z0-9]+", fold(a)), re.findall(r"[a-z0-9]+", fold(b))
    if len(ta) != len(tb) or ta == tb:
        return False
    return all(x == y or _contraction(x, y) or _contraction(y, x) for x, y in zip(ta, tb, strict=True))


def formula(pair: Pair) -> Match | None:
    """One expression in a canonical spelling ("lambda x: 3x**2" / "3*x**2", not "exp(-x**2)")."""
    gf, pf = typed.formula_key(pair.g), typed.formula_key(pair.p)
    return _verdict(gf == pf, "formula") if gf is not None and pf is not None else None


def identifier(pair: Pair) -> Match | None:
    """Ids, codes, SKUs: exact up to case and separators; a phrase must name exactly this id."""
    g_id, p_id = typed.looks_like_identifier(pair.g), typed.looks_like_identifier(pair.p)
    if not (g_id or p_id):
        return None
    ok = typed.identifier_key(pair.g) == typed.identifier_key(pair.p)
    if not ok and not (g_id and p_id):
        the_id, phrase = (pair.g, pair.p) if g_id else (pair.p, pair.g)
        ids_in_phrase = [t for t in phrase.split() if typed.looks_like_identifier(t)]
        if [typed.identifier_key(t) for t in ids_in_phrase] == [typed.identifier_key(the_id)]:
            return Match(True, 0.8, "identifier")
    return _verdict(ok, "identifier")


def spelling(pair: Pair) -> Match | None:
    """The same words: token order, British / American spelling, plurals, spacing ("mc donalds" / "McDonald's")."""
    gt, pt = value_text(pair.g), value_text(pair.p)
    if gt == pt or value_tokens(gt) == value_tokens(pt):
        return Match(True, 0.95, "abbreviation")
    if tuple(american(t) for t in value_tokens(gt)) == tuple(american(t) for t in value_tokens(pt)):
        return Match(True, 0.9, "spelling")
    compact_g, compact_p = re.sub(r"[^a-z0-9]", "", gt), re.sub(r"[^a-z0-9]", "", pt)
    if compact_g and compact_g == compact_p:
        return Match(True, 0.95, "exact")
    return None


def person(pair: Pair) -> Match | None:
    """People named with titles, credentials, initials or surname first ("Dr. Edward Lee" / "Edward C Lee, MD")."""
    rel = people.same_person(pair.g, pair.p)
    if rel is None:
        return None
    return _verdict(rel, "person", yes=0.9, no=0.1)


def given_name(pair: Pair) -> Match | None:
    """A nickname or an initial for the given name ("Bob Jones" / "Robert Jones"); two different given names
    ("Robert" / "Roberta Smith") are two people (``people.given_name_relation``)."""
    rel = people.given_name_relation(pair.g, pair.p)
    if rel is None:
        return None
    return _verdict(rel, "given_name", yes=0.9, no=0.1)


def _values(text: str) -> list[Fact]:
    return [f for f in extract_facts(text) if f.kind != "entity"]


def _outside(text: str, facts: list[Fact]) -> str:
    """``text`` (number words as digits) with its typed values taken out: the words around them."""
    norm = normalise_numbers(text)
    for f in sorted(facts, key=lambda f: f.span, reverse=True):
        norm = norm[: f.span[0]] + " " + norm[f.span[1] :]
    return canon(norm)


def numbers_in_phrases(pair: Pair) -> Match | None:
    """Values inside phrases must agree ("Room 101" / "Room 102"), each pair compared as values (``same_fact``);
    the same words around values that all agree are the same phrase ("front desk +44 20 7946 0958" / "front
    desk 020 7946 0958")."""
    fg, fp = _values(pair.g), _values(pair.p)
    if not (fg and fp):
        return None
    agree = [[same_fact(f, q) for q in fp] for f in fg]
    if not all(any(row) for row in agree) or not all(any(col) for col in zip(*agree, strict=True)):
        return Match(False, 0.1, "number")
    if len(fg) == len(fp) and _outside(pair.g, fg) == _outside(pair.p, fp):
        return Match(True, 0.95, fg[0].kind)
    return None


def digits(pair: Pair) -> Match | None:
    """Digits inside formulas, commands, names must agree ("2x**2 + 3x" / "3x**2 + 2x"); those of typed values
    that agree (``numbers_in_phrases``) are not compared again."""
    gdig, pdig = re.findall(r"\d+(?:\.\d+)?", pair.g), re.findall(r"\d+(?:\.\d+)?", pair.p)
    if gdig and pdig and gdig != pdig:
        gdig = re.findall(r"\d+(?:\.\d+)?", _outside(pair.g, _values(pair.g)))
        pdig = re.findall(r"\d+(?:\.\d+)?", _outside(pair.p, _values(pair.p)))
    return Match(False, 0.1, "number") if gdig and pdig and gdig != pdig else None


STAGES: tuple[Stage, ...] = (
    same_text,
    email,
    url,
    boolean,
    price_level,
    json_numbers,
    year_range,
    value_range,
    month_of_date,
    relative_day,
    date,
    clock_time,
    date_against_time,
    phone_number,
    money_amount,
    quantity,
    rating_scale,
    number,
    ordinal_number,
    counted,
    street_address,
    airport,
    place,
    opposites,
    closed_class,
    timezone,
    sequel,
    abbreviation,
    formula,
    identifier,
    spelling,
    person,
    given_name,
    numbers_in_phrases,
    digits,
)


# Stages that read a phrase as the values inside it; a typed value compared with another is one value.
PHRASE_STAGES: tuple[Stage, ...] = (numbers_in_phrases, digits)
VALUE_STAGES: tuple[Stage, ...] = tuple(s for s in STAGES if s not in PHRASE_STAGES)


def run(gold: Any, pred: Any, stages: tuple[Stage, ...] = STAGES) -> Match | None:
    """The first stage's decision on (gold, pred), or None when no stage decides."""
    pair = Pair(gold, pred)
    for stage in stages:
        decision = stage(pair)
        if decision is not None:
            return decision
    return None


@lru_cache(maxsize=65536)
def value_decision(gold: str, pred: str) -> Match | None:
    """The typed decision on two values (``VALUE_STAGES``), memoised; None when no stage decides."""
    return run(gold, pred, VALUE_STAGES)


Decide = Callable[[Any, Any], Match | None]

# Kinds of fact that measure an amount: a bare number stands for any of them ("3" / "$3", "3" / "3 miles").
_AMOUNTS = frozenset({"number", "percent", "money", "quantity"})
_BARE = frozenset({"number", "percent"})


def comparable(a: Fact, b: Fact) -> bool:
    """Two facts that can state one value: of one kind, or a bare number and an amount."""
    return a.kind == b.kind or ({a.kind, b.kind} <= _AMOUNTS and bool({a.kind, b.kind} & _BARE))


def fact_match(a: Fact, b: Fact, decide: Decide = value_decision) -> Match | None:
    """The typed decision on two facts of one value slot (``comparable``), through the stage chain (``decide``:
    ``ValueComparator.typed`` or the module's memoised chain); a pair no stage decides is the same when their
    normalised values are. Names are compared as names (``facts.entities_agree``). None: not comparable."""
    if not comparable(a, b):
        return None
    if a.kind == "entity":
        return _verdict(entities_agree(str(a.value), str(b.value)), "name", yes=0.9, no=0.1)
    decided = decide(a.text, b.text)
    if decided is not None:
        return decided
    return _verdict(a.value == b.value, a.kind)


def same_fact(a: Fact, b: Fact, decide: Decide = value_decision) -> bool:
    """Do two facts state the same value (``fact_match``)?"""
    m = fact_match(a, b, decide)
    return m is not None and m.equivalent
