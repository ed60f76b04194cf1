"""What a question asks for: a time, a place, a person or a quantity.

An agent that asks the user for one thing when gold asks for another ("Which city are you departing from?" for
gold's "What date would you like?") asks the wrong question, however alike the two sentences sound. The thing
asked for is read from the question word ("when", "where", "who", "how many", "how much") or from the noun
after "what" / "which" ("which city", "what kind of date"), classed by WordNet: a kind of location is a place,
a kind of time period, time unit or point in time is a time, a kind of person is a person (the two commonest
senses of the noun). Two replies clash only when both ask questions (sentences ending in "?") whose things
asked for are known and share no class: a noun WordNet does not class ("restaurant", "name") is no evidence,
and "Where are you leaving from?" / "Which city are you departing from?" ask for one thing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from monitor.equivalence import wordnet
from monitor.equivalence.normalize import STOPWORDS

_QUESTION = re.compile(r"[^.!?]*\?")
_WH = re.compile(
    r"\b(?:(?P<when>when)|(?P<where>where)|(?P<who>who|whom)|how\s+(?P<many>many)|how\s+(?P<much>much)"
    r"|(?P<what>what|which)(?:\s+(?:kind|type|sort)\s+of)?(?P<rest>(?:\s+[a-z'’]+){1,3}))\b",
    re.I,
)
_GENERIC = frozenset({"kind", "type", "sort", "one", "ones", "thing", "things", "option", "options"})
_WORD_CLASS = {"when": "time", "where": "place", "who": "person", "many": "quantity", "much": "quantity"}
# The anchors of each class, by a word whose first sense is the class ("point" has the point in time elsewhere).
_ANCHORS = {"place": ("location",), "time": ("time_period", "time_unit"), "person": ("person",)}
_POINT_IN_TIME = "point_in_time"


@lru_cache(maxsize=1)
def _anchor_offsets() -> dict[str, frozenset[int]]:
    out = {cls: frozenset(wordnet.senses(w)[0] for w in words if wordnet.senses(w)) for cls, words in _ANCHORS.items()}
    out["time"] |= frozenset(wordnet.senses(_POINT_IN_TIME)[:1])
    return out


@lru_cache(maxsize=4096)
def noun_classes(noun: str) -> frozenset[str]:
    """The classes ("place", "time", "person") of the two commonest senses of ``noun``; empty when WordNet has
    none of them (or is absent)."""
    ancestry = wordnet.ancestors(noun)
    return frozenset(cls for cls, anchors in _anchor_offsets().items() if ancestry & anchors)


def asked_for(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """(question phrase, classes) for each thing the questions of ``text`` ask for that has a known class
    ("Which city are you departing from?" -> ("which city", {"place"}))."""
    out: list[tuple[str, frozenset[str]]] = []
    for q in _QUESTION.finditer(text):
        for m in _WH.finditer(q.group(0)):
            kind = next((k for k in _WORD_CLASS if m.group(k)), None)
            if kind is not None:
                out.append((m.group(0).lower(), frozenset({_WORD_CLASS[kind]})))
                continue
            words = [w for w in m.group("rest").lower().split() if w not in STOPWORDS]
            if words and words[0] in _GENERIC:
                continue  # "What type would you like?": a kind of anything
            classes = noun_classes(words[0]) if words else frozenset()
            if classes:
                out.append((f"{m.group('what').lower()} {words[0]}", classes))
    return tuple(out)


def question_clashes(gold: str, pred: str) -> tuple[tuple[str, str], ...]:
    """(predicted phrase, gold phrase) when both replies ask for things of known classes and no class is shared
    ("which city" in place of gold's "what date")."""
    g, p = asked_for(gold), asked_for(pred)
    if not g or not p:
        return ()
    if frozenset().union(*(c for _, c in g)) & frozenset().union(*(c for _, c in p)):
        return ()
    return ((p[0][0], g[0][0]),)
