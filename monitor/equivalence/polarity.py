"""Clauses of a reply and their polarity: "the refund was approved" vs "the refund was not approved".

A reply is cut into clauses at sentence ends, semicolons and colons, and at "and" / "but" / commas
that join two statements ("and" between two nouns joins none: "cut the tail and body of a shrimp"). A
clause is negated when it holds an odd number of negation cues ("not", "n't", "no", "never", "without",
...). An answer particle that agrees with the clause ("No, they don't") is not counted twice, and set
phrases that negate nothing ("no problem", "not only", a suggestion "why don't you ...") are ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from monitor.equivalence.people import honorifics

_SENTENCE = re.compile(r"(?<=[.!?;:])\s+|(?<=[a-z0-9)][.!?])(?=[A-Z])|\s*[;:]\s+|\n+")
# A period ends no sentence after a title, an initial or a dotted initialism ("Mr. O'Neill", "Franklyn M.
# Bergonzi", "U.S. officials", "St. Louis").
_ABBREVIATED = re.compile(r"(?:^|[\s(\"'])(?P<word>[A-Za-z]{1,4}|(?:[A-Z]\.)+[A-Z])\.$")
_GENERAL_ABBREVIATIONS = frozenset({"st", "mt", "ft", "jr", "sr", "vs", "gen", "gov", "sen", "rep", "lt", "col",
                                    "sgt", "capt", "inc", "corp", "ltd", "co"})
# Joins of two statements or list items: commas, "and", "but", "while", "although".
_JOIN = re.compile(r",\s+|\s+(?:and|but|while|whereas|although|though)\s+", re.I)
# Lower-case only: a capitalised "No" inside a clause belongs to a name ("No Sleep by Martin Garrix").
# A cue inside a hyphenated compound ("the do-not-call registry", "a no-fly zone") or a quoted word
# ('said "no" to the tax') names something; it does not negate the clause.
_NEG_CUE = re.compile(
    r"(?<![-\"“'‘])\b(?:not|no|never|none|nothing|nobody|neither|nor|without|cannot|unable|unavailable)\b(?![-\"”'’])"
    r"|n't\b|n’t\b"
)
# A negated verb of ceasing states that something goes on ("contacts would not stop" = "would continue"):
# the two negations cancel, unless a place follows ("the bus does not stop at Elm Street" still negates).
_NEGATED_CEASING = re.compile(
    r"(?:\bnot|\bnever|n't|n’t)\s+(?:stop|cease|quit|halt|fail)(?:s|ed|ped)?\b"
    r"(?!\s+(?:at|in|on|near|by|here|there|outside|between|along|before|after|anywhere)\b)", re.I)
_NOT_NEGATING = re.compile(
    r"\b(?:no\s+(?:problem|worries|doubt|matter|later\s+than|more\s+than|less\s+than)|not\s+only"
    r"|not\s+a\s+problem|why\s+not|if\s+not|why\s+(?:don['’]?t|do\s+not|won['’]?t|not)\s+(?:you|we))\b",
    re.I,
)
# "No" opens an answer when punctuation, a pronoun or an apology follows ("No, it isn't", "No it is not");
# before a lower-case noun it is a determiner that negates ("No pets are allowed"); before a capital it
# opens a name ("No Sleep by Martin Garrix").
_PARTICLE = re.compile(
    r"^\W*(yes|yeah|yep|yup|sure|nope|no(?=\s*[,.!-]|\s*$|\s+(?:i|it|its|it's|they|there|he|she|we|you|that|this"
    r"|sorry|thanks|unfortunately)\b|(?-i:\s+[A-Z])))\b[\s,.!-]*",
    re.I,
)


# A negation softened by a degree word ("not really", "not all that", "not particularly") and a statement
# limited by one ("almost", "just", "only", "hardly") both understate: between them there is no flip.
_HEDGED_NEGATION = re.compile(
    r"\bnot\s+(?:really|all\s+that|that|particularly|entirely|exactly|quite|necessarily)\b", re.I)
_LIMITING = re.compile(r"\b(?:almost|just|only|merely|mostly|largely|hardly|barely|scarcely|somewhat|slightly"
                       r"|marginally|little)\b", re.I)


def understatements(a: str, b: str) -> bool:
    """Whether one clause is a softened negation ("is not really all that important") and the other a limited
    statement ("is almost just representative"): two understatements of one thing, not a polarity flip. A
    softened negation against a plain statement ("is not really expensive" / "is expensive") is still a flip."""
    def soft(x: str, y: str) -> bool:
        return bool(_HEDGED_NEGATION.search(x)) and negated(x) and not negated(y) and bool(_LIMITING.search(y))

    return soft(a, b) or soft(b, a)


@dataclass(frozen=True)
class Clause:
    """One statement of a reply: its ``text``, character ``span`` in the reply, and ``negated``."""

    text: str
    span: tuple[int, int]
    negated: bool


# "No entry fee" and "free to enter" say one thing: a cost denied is a cost of nothing.
_COST = re.compile(r"\b(?:fees?|charges?|costs?|cover|admission price|entrance price|entry price)\b", re.I)
_FREE = re.compile(r"\bfree\b(?!\s+(?:between|from|until|till|after|before)\b|\s+(?:at|on)\s+\d)", re.I)


def no_cost_agrees(a: str, b: str) -> bool:
    """Whether one clause denies a cost ("there is no entry fee") and the other calls it free ("it is free
    to enter"): the same statement, not a polarity flip. "free" for a time ("free between 8 and 2") is
    another sense and does not count."""
    def denies(x: str, y: str) -> bool:
        return negated(x) and bool(_COST.search(x)) and not negated(y) and bool(_FREE.search(y))

    return denies(a, b) or denies(b, a)


def negated(text: str) -> bool:
    """Does ``text`` state its content negatively? ("they do not serve alcohol", "No, it's not.")"""
    body = _NEGATED_CEASING.sub(" ", _NOT_NEGATING.sub(" ", text))
    particle = _PARTICLE.match(body)
    rest = body[particle.end():] if particle else body
    rest = re.sub(r"^\W*(Not|No|Never|None|Nothing|Nobody|Neither)\b", lambda m: m.group(0).lower(), rest)
    cues = len(_NEG_CUE.findall(rest))
    if particle and particle.group(1).lower() in {"no", "nope"} and (cues == 0 and not rest.strip()):
        return True  # a bare "No."
    return cues % 2 == 1


# "and" joins two statements only when a statement follows it before the next join: a verb form that heads
# one (an auxiliary or modal, a past tense, a contraction, a word in -s right after "and": "and allows
# pets"), a subject pronoun, "to" or a negation. Otherwise it joins two nouns of one statement ("cut the
# tail and body of a shrimp").
_AND = re.compile(r"\s+and\s+", re.I)
_STATEMENT = re.compile(
    r"\b(?:i|you|he|she|it|we|they|there|is|are|was|were|be|been|being|am|has|have|had|do|does|did|will|would"
    r"|can|could|shall|should|may|might|must|to|not|no|never|[a-z]+ed)\b|[a-z][’']\w|^[a-z]+[^\Ws]s\b",
    re.I)


def _joins_statements(text: str, m: re.Match[str]) -> bool:
    """Whether join ``m`` of ``text`` separates two statements (every join but a noun-joining "and")."""
    if not _AND.fullmatch(m.group(0)):
        return True
    nxt = _JOIN.search(text, m.end())
    return bool(_STATEMENT.search(text[m.end() : nxt.start() if nxt else len(text)]))


def _abbreviation_ends(text: str, at: int) -> bool:
    """Whether the period just before ``at`` closes an abbreviation rather than a sentence."""
    m = _ABBREVIATED.search(text, 0, at)
    if m is None or m.end() != at:
        return False
    word = m.group("word")
    if "." in word or (len(word) == 1 and word.isupper()):
        return True
    return word.lower() in _GENERAL_ABBREVIATIONS or word.lower() in honorifics()


def _pieces(text: str, start: int, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    out, pos = [], start
    for m in pattern.finditer(text, start):
        if pattern is _SENTENCE and _abbreviation_ends(text, m.start()):
            continue
        if pattern is _JOIN and not _joins_statements(text, m):
            continue
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, len(text)))
    return out


@lru_cache(maxsize=32768)
def clauses(text: str) -> tuple[Clause, ...]:
    """The clauses of ``text`` in order (empty pieces dropped)."""
    out: list[Clause] = []
    for s, e in _pieces(text, 0, _SENTENCE):
        sentence = text[s:e]
        for cs, ce in _pieces(sentence, 0, _JOIN):
            piece = sentence[cs:ce].strip(" ,.!?;:-\u2013\u2014\"'")
            if not piece:
                continue
            left = s + cs + sentence[cs:ce].find(piece)
            out.append(Clause(piece, (left, left + len(piece)), negated(piece)))
    return tuple(out)
