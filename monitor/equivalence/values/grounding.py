"""Grounding: is a value (a tool argument, a fact of a reply) supported by the conversation's sources?

Sources are user texts and earlier tool outputs (JSON values). A value is supported when a source holds
an equivalent value (through the value comparator), or states it somewhere in its text: verbatim, as the
same typed fact ("2024-06-20" in "on June 20th"), or as a phrase whose content words all appear there.
A place is grounded by itself or a finer place in it ("WA" by "Seattle"), never by a coarser one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any, Protocol

from monitor.equivalence.normalize import STOPWORDS, alias_set, fold
from monitor.equivalence.replies.facts import extract_facts
from monitor.equivalence.types import Match
from monitor.equivalence.values import typed
from monitor.equivalence.values.base import DateValue, Money, Quantity, canon
from monitor.equivalence.values.calibration import value_text, value_tokens
from monitor.equivalence.values.places import place_relation
from monitor.equivalence.values.stages import comparable, same_fact
from monitor.equivalence.values.times import clock_times_in


class Comparator(Protocol):
    """What grounding needs of a value comparator."""

    def compare(self, gold: Any, pred: Any, field: str | None = None) -> Match: ...

    def typed(self, gold: Any, pred: Any) -> Match | None: ...


_UNSUPPORTED = Match(False, 0.0, "unsupported")


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def leaf_texts(value: Any) -> Iterator[str]:
    """The texts grounding reads in a source value: every scalar leaf and every key, as strings (iteratively:
    a deep value cannot exhaust the stack)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            for k, v in item.items():
                yield str(k)
                stack.append(v)
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif item is None:
            continue
        elif isinstance(item, bool):
            yield str(item).lower()
        else:
            yield str(item)


def folded_source(source: Any) -> str:
    """A source's leaves and keys, folded, one per line: what ``states_word_for_word`` scans."""
    return "\n".join(fold(t) for t in leaf_texts(source))


def states_word_for_word(folded: str, value: Any) -> bool:
    """Whether ``folded`` (``folded_source``) states ``value`` word for word, with no letter or digit right
    before or after it: a source that does supports the value (the comparators would find it there, at 1.0),
    so grounding needs no comparator for it."""
    key = canon(str(value))
    if not key:
        return True
    if key in STOPWORDS:  # a stop word only as a whole leaf ("a" is not stated by "a window seat")
        return f"\n{key}\n" in f"\n{folded}\n"
    return word_in(key, folded)


@lru_cache(maxsize=65536)
def grounding_keys(text: str) -> frozenset[str]:
    """What a text can be found by when a value is grounded (``SourceIndex.candidates``): its content words as
    values are compared (folded, aliases expanded, lemmatised), and a key per typed value it states (an amount's
    or a number's magnitude, a date's month and day, a clock time on a 12-hour dial, an id's or a name's folded
    reading). A source that supports a value almost always shares one with it ("2024-06-20" and "June 20th",
    "18:30" and "half past six", "AB123" and "booking AB-123"); the keys only choose what the comparators are
    run on, they decide nothing."""
    keys = set(value_tokens(value_text(text)))
    for fact in extract_facts(text):
        keys.update(_fact_keys(fact.kind, fact.value))
    keys.update(f"t:{minute % 720}" for minute in clock_times_in(text))
    if typed.looks_like_identifier(text):
        keys.add(f"i:{typed.identifier_key(text)}")
    return frozenset(keys)


def _fact_keys(kind: str, value: object) -> Iterator[str]:
    if isinstance(value, Money | Quantity):
        yield f"n:{round(value.amount, 2):g}"
    elif isinstance(value, DateValue):
        yield from (f"d:{month}-{day}" for _, month, day in value.candidates)
    elif kind == "time" and isinstance(value, int):
        yield f"t:{value % 720}"
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield f"n:{round(value, 2):g}"
    elif isinstance(value, str) and value:
        yield f"i:{typed.identifier_key(value)}"


_RUN = re.compile(r"[a-z0-9]+")


def words_of(folded: str) -> frozenset[str]:
    """The runs of letters and digits of a folded text: a source that states a value word for word holds every
    run of the value's key as a whole run too (``states_word_for_word`` wants no letter or digit beside it), so
    a source missing one need not be scanned."""
    return frozenset(_RUN.findall(folded))


def stated_words(value: Any) -> frozenset[str]:
    """The runs a source must hold to state ``value`` word for word (empty: any source may)."""
    return words_of(canon(str(value)))


def word_in(key: str, folded: str) -> bool:
    """Whether ``key`` occurs in ``folded`` text as a whole word: no letter or digit beside it, and a number not
    inside a time or a date ("12" is not stated by "12:30" or "3/12")."""
    start = folded.find(key)
    while start >= 0:
        end = start + len(key)
        if not (_joined(folded, start - 1, -1, key[0]) or _joined(folded, end, 1, key[-1])):
            return True
        start = folded.find(key, start + 1)
    return False


def _joined(text: str, i: int, step: int, edge: str) -> bool:
    """Whether the character at ``i`` continues a word of which ``edge`` is the last (or first) character: a
    letter or digit, or, beside a digit, a time's or date's separator followed by a digit ("12" in "12:30")."""
    if not 0 <= i < len(text):
        return False
    if text[i] in _WORD_CHARS:
        return True
    j = i + step
    return edge.isdigit() and text[i] in ":/" and 0 <= j < len(text) and text[j].isdigit()


def _stop_word_in(value: str, text: str) -> Match:
    """A value that is a stop word ("a", "The") is stated only by a source that is that word, or, written with
    a capital ("A", a row or a grade), by that capital word in the text ("Row A") — never by the article."""
    if canon(text) == canon(value):
        return Match(True, 1.0, "exact")
    if value.strip() != value.strip().lower() and re.search(rf"(?<!\w){re.escape(value.strip())}(?!\w)", text):
        return Match(True, 1.0, "exact")
    return _UNSUPPORTED


def is_typed_value(value: Any) -> bool:
    """Whether ``value`` is one typed value as a whole (a date, a time, an amount, a quantity, a phone...): it is
    grounded by the typed stages or by being stated, never by embedding similarity to pieces of it."""
    text = str(value)
    facts = [f for f in extract_facts(text) if f.kind != "entity"]
    return len(facts) == 1 and canon(facts[0].text) == canon(text)


class Grounding:
    """Decides whether values are supported by sources, with ``comparator`` for value-to-value checks."""

    def __init__(self, comparator: Comparator) -> None:
        self.comparator = comparator

    def supported(self, value: Any, sources: Sequence[Any], typed_only: bool = False) -> Match:
        """Is ``value`` supported by any source (user text, earlier tool outputs as JSON values)? With
        ``typed_only`` (a reply's time, amount, date...), a source value supports it through the typed stages
        or by stating it in its text, never by embedding similarity: a time is not grounded by a name."""
        best = _UNSUPPORTED
        for src in sources:
            m = self.supported_by(value, src, typed_only)
            if m.equivalent and m.score >= best.score:
                best = m
                if m.score >= 1.0:
                    return best
            elif not best.equivalent and m.score > best.score:
                best = Match(False, m.score, m.method)
        return best

    def supported_by(self, value: Any, source: Any, typed_only: bool = False) -> Match:
        if isinstance(value, Mapping):
            return _all([self.supported_by(v, source, typed_only) for v in value.values()], "object")
        if isinstance(value, list | tuple):
            return _all([self.supported_by(v, source, typed_only) for v in value], "list")
        if value is None or isinstance(value, bool):
            return Match(True, 1.0, "exact")
        if isinstance(source, Mapping):
            return self._best(value, [c for k, v in source.items() for c in (v, k)], typed_only)
        if isinstance(source, list | tuple):
            return self._best(value, list(source), typed_only)
        if source is None:
            return _UNSUPPORTED
        src = str(source) if not isinstance(source, bool) else str(source).lower()
        if canon(str(value)) in STOPWORDS:
            return _stop_word_in(str(value), src)
        direct = self.comparator.typed(value, source) if typed_only else self.comparator.compare(value, source)
        if direct is not None and direct.equivalent and grounds(value, source, direct):
            return direct
        return self.in_text(value, src)

    def _best(self, value: Any, candidates: list[Any], typed_only: bool = False) -> Match:
        best = _UNSUPPORTED
        for cand in candidates:
            m = self.supported_by(value, cand, typed_only)
            if m.equivalent:
                return m
            if m.score > best.score:
                best = m
        return best

    def in_text(self, value: Any, text: str) -> Match:
        """Is a scalar ``value`` stated somewhere in free ``text``?"""
        vs = str(value)
        key = canon(vs)
        if not key:
            return Match(True, 1.0, "exact")
        folded = fold(text)
        if typed.looks_like_identifier(vs):
            return _identifier_in_text(vs, key, text, folded)
        if word_in(key, folded):  # a stop word never gets here (supported_by: _stop_word_in)
            return Match(True, 1.0, "exact")
        minute = typed.parse_time(vs)
        if minute is not None and minute in clock_times_in(text):  # "18:30" in "at half past six tonight"
            return Match(True, 1.0, "time")
        facts = extract_facts(text)
        vfacts = [f for f in extract_facts(vs) if f.kind != "entity"]
        if isinstance(value, int | float) and not isinstance(value, bool):
            vfacts = vfacts or list(extract_facts(str(value)))
        if vfacts:
            return self._facts_in_text(vs, vfacts, facts, text)
        for f in facts:  # dates / times written differently from the text's spelling
            m = self.comparator.typed(vs, f.text)
            if m is not None and m.equivalent and grounds(vs, f.text, m):
                return m
        return self._phrase_in_text(vs, text, folded, facts)

    def _facts_in_text(self, vs: str, vfacts: list[Any], facts: list[Any], text: str) -> Match:
        if not all(any(same_fact(vf, f, self.comparator.typed) for f in facts) for vf in vfacts):
            # a bare value such as "2024-06-20" against text "August 1st, 2024" etc.; only a fact of a kind that can
            # state it ("May 2" is not stated by the "2" of "2 nights")
            for f in facts:
                if not any(comparable(vf, f) for vf in vfacts):
                    continue
                m = self.comparator.typed(vs, f.text)
                if m is not None and m.equivalent and grounds(vs, f.text, m):
                    return Match(True, 1.0, f.kind)
            return Match(False, 0.0, vfacts[0].kind)
        # the facts are there; a phrase around them must be mostly there too
        fact_tokens = {t for f in vfacts for t in value_tokens(value_text(f.text))}
        rest = set(value_tokens(value_text(vs))) - fact_tokens
        text_tokens = set(value_tokens(value_text(text)))
        if rest and len(rest & text_tokens) / len(rest) < 0.5:
            return Match(False, 0.3, vfacts[0].kind)
        return Match(True, 1.0, vfacts[0].kind)

    def _phrase_in_text(self, vs: str, text: str, folded: str, facts: list[Any]) -> Match:
        """A phrase: every content token (after alias expansion) appears in the text, or an entity matches."""
        vt = set(value_tokens(value_text(vs)))
        tt = set(value_tokens(value_text(text)))
        if vt and vt <= tt:
            return Match(True, 0.9, "contained")
        for reading in alias_set(vs):
            if word_in(reading, folded):
                return Match(True, 0.9, "abbreviation")
        for f in facts:
            if f.kind == "entity":
                m = self.comparator.compare(vs, f.text)
                if m.equivalent and grounds(vs, f.text, m):
                    return m
        overlap = len(vt & tt) / len(vt) if vt else 0.0
        return Match(False, round(0.49 * overlap, 4), "unsupported")


def _identifier_in_text(vs: str, key: str, text: str, folded: str) -> Match:
    idk = typed.identifier_key(vs)
    for f in extract_facts(text):
        if f.kind in ("id", "entity", "number") and typed.identifier_key(f.text) == idk:
            return Match(True, 1.0, "identifier")
    ok = word_in(key, folded)
    return Match(ok, 1.0 if ok else 0.0, "identifier")


def grounds(value: Any, source: Any, m: Match) -> bool:
    """A place is grounded by itself or by a finer place in it ("WA" by "Seattle"), not by a coarser one."""
    if m.method != "place-granularity":
        return True
    return place_relation(str(value), str(source)) != "a_finer"


def _all(ms: list[Match], method: str) -> Match:
    if not ms:
        return Match(True, 1.0, method)
    ok = all(m.equivalent for m in ms)
    return Match(ok, min(m.score for m in ms), method)
