"""Category words as values: "a country song" / "a pop song", "moderate" / "inexpensive".

The closed sets live in ``data/categories.json``. Lower-case category words are not facts to the fact
extractor (they carry no capital, digit or typed form); here a member of one set in gold, replaced in the
prediction by another member of the same set, is a changed value. Words that negate by prefix
("furnished" / "unfurnished", "refundable" / "non-refundable") are found the same way, without a list, and so
are WordNet antonyms ("open" / "closed", "arrive" / "leave"; ``wordnet.antonyms``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from difflib import SequenceMatcher
from functools import lru_cache
from importlib import resources
from typing import Any

from monitor.equivalence import wordnet
from monitor.equivalence.normalize import STOPWORDS, fold
from monitor.equivalence.polarity import clauses
from monitor.equivalence.relative_dates import day_clashes

_PREFIX = re.compile(r"^(?:un|non-?|in|dis)(?=[a-z]{4})")


@lru_cache(maxsize=1)
def category_groups() -> dict[str, dict[str, str]]:
    """Set name -> {member: the value it names}; members written together as a list name one value
    ("bbq" / "barbecue"), loaded once."""
    data = json.loads(resources.files("monitor.equivalence").joinpath("data/categories.json").read_text())
    out: dict[str, dict[str, str]] = {}
    for name, members in data["sets"].items():
        groups: dict[str, str] = {}
        for member in members:
            words = [member] if isinstance(member, str) else member
            for w in words:
                groups[fold(w)] = fold(words[0])
        out[name] = groups
    return out


def price_level_rank(text: str) -> int | None:
    """1 for the cheapest level of the `price level` set ("inexpensive"), 2 for the next ("moderate"), ...;
    None when ``text`` is no price level."""
    groups = category_groups()["price level"]
    key = groups.get(fold(text).strip())
    return None if key is None else list(dict.fromkeys(groups.values())).index(key) + 1


@lru_cache(maxsize=1)
def category_sets() -> dict[str, tuple[str, ...]]:
    """Set name -> members (longest first, so "premium economy" is found before "economy"), loaded once."""
    return {name: tuple(sorted(groups, key=len, reverse=True)) for name, groups in category_groups().items()}


@lru_cache(maxsize=1024)
def word_pattern(member: str) -> re.Pattern[str]:
    """``member`` as a whole word or phrase, compiled once (not from ``re``'s small shared cache per call)."""
    return re.compile(rf"(?<![\w-]){re.escape(member)}(?![\w-])")


def _members(text: str, members: tuple[str, ...]) -> set[str]:
    found: set[str] = set()
    for m in members:
        if m not in text:  # the pattern cannot match without the member's letters: skip the regex
            continue
        pattern = word_pattern(m)
        if pattern.search(text):
            found.add(m)
            text = pattern.sub(" ", text)
    return found


def category_clashes(gold: str, pred: str) -> tuple[tuple[str, str], ...]:
    """(predicted word, gold word) pairs: a category member in gold replaced by another of its set, and a
    word negated by prefix on the other side ("unfurnished" for gold's "furnished"), and another day said in
    place of gold's ("Thursday" for "Tuesday", "today" for "tomorrow"; ``relative_dates.day_clashes``)."""
    g, p = fold(gold), fold(pred)
    out: list[tuple[str, str]] = []
    groups = category_groups()
    for name, members in category_sets().items():
        in_g, in_p = _members(g, members), _members(p, members)
        if in_g and in_p and not ({groups[name][m] for m in in_g} & {groups[name][m] for m in in_p}):
            out.append((sorted(in_p)[0], sorted(in_g)[0]))
    out.extend(opposite_words(g, p))
    out.extend(outcome_swaps(g, p))
    out.extend(state_flips(g, p))
    out.extend(day_clashes(g, p))
    return tuple(dict.fromkeys(out))


def opposite_words(gold: str, pred: str) -> list[tuple[str, str]]:
    """(predicted word, gold word) pairs that negate each other: by prefix, or as WordNet antonyms in place."""
    g, p = fold(gold), fold(pred)
    return _prefix_opposites(g, p) + _antonym_swaps(g, p)


@lru_cache(maxsize=1)
def _outcomes() -> dict[str, Any]:
    """``data/outcomes.json``, read once."""
    data: dict[str, Any] = json.loads(resources.files("monitor.equivalence").joinpath("data/outcomes.json").read_text())
    return data


@lru_cache(maxsize=1)
def outcome_opposites() -> dict[str, frozenset[str]]:
    """State -> the states that contradict it, both ways (``data/outcomes.json``), loaded once."""
    table: dict[str, set[str]] = {}
    for state, others in _outcomes()["opposites"].items():
        for other in others:
            table.setdefault(fold(state), set()).add(fold(other))
            table.setdefault(fold(other), set()).add(fold(state))
    return {k: frozenset(v) for k, v in table.items()}


@lru_cache(maxsize=1)
def _outcome_states() -> tuple[str, ...]:
    """Every state of ``outcome_opposites``, longest first ("out of stock" before "in stock"'s words)."""
    return tuple(sorted(outcome_opposites(), key=len, reverse=True))


@lru_cache(maxsize=1)
def outcome_synonyms() -> tuple[tuple[str, ...], ...]:
    """Groups of words that report one state (``data/outcomes.json`` "same"), longest first."""
    groups = _outcomes().get("same", [])
    return tuple(tuple(sorted((fold(w) for w in group), key=len, reverse=True)) for group in groups)


def _polarities(text: str, words: set[str]) -> set[bool]:
    return {c.negated for c in clauses(text) for w in words if word_pattern(w).search(c.text)}


def _reported_states(gold: str, pred: str) -> Iterator[tuple[set[str], set[str], set[bool], set[bool]]]:
    """For each group of words that report one state (``outcome_synonyms``) and that both folded texts use: the
    words of the group each uses and the polarities each says them with."""
    for group in outcome_synonyms():
        in_g = _members(gold, group)
        in_p = _members(pred, group) if in_g else set()
        if in_g and in_p:
            yield in_g, in_p, _polarities(gold, in_g), _polarities(pred, in_p)


def state_flips(gold: str, pred: str) -> list[tuple[str, str]]:
    """(predicted, gold) words of one state said with opposite polarity everywhere ("They do not allow pets" /
    "Pets are welcome"), though the clauses are worded too differently to line up."""
    out = []
    for in_g, in_p, g_pol, p_pol in _reported_states(fold(gold), fold(pred)):
        g_only, p_only = in_g - in_p, in_p - in_g  # the same word flipped is the clauses' negation finding
        if g_only and p_only and len(g_pol) == 1 and len(p_pol) == 1 and g_pol != p_pol:
            out.append((sorted(p_only)[0], sorted(g_only)[0]))
    return out


def state_kept(gold_clause: str, pred: str) -> bool:
    """Whether the prediction reports the state a gold clause reports, in a word of the same group
    (``data/outcomes.json`` "same") and with the same polarity: "Your reservation is confirmed" is kept by "The
    car has been reserved" (the clause's point is the state; its subject is the request at hand)."""
    return any(len(g_pol) == 1 and g_pol == p_pol
               for _, _, g_pol, p_pol in _reported_states(fold(gold_clause), fold(pred)))


def outcome_swaps(gold: str, pred: str) -> list[tuple[str, str]]:
    """(predicted, gold) states: a state gold reports, absent from the prediction, which reports an opposite
    state instead ("declined" for "approved", "out of stock" for "in stock"), both said with the same polarity
    ("not declined" agrees with "approved"). Unlike antonyms, the two need not stand in the same place: the
    states are few and specific, and a reply reports one of them."""
    g, p = fold(gold), fold(pred)
    table = outcome_opposites()
    in_g = _members(g, _outcome_states())
    if not in_g:
        return []
    in_p = _members(p, _outcome_states())
    out = []
    for state in sorted(in_g - in_p):
        for other in sorted(table[state] & (in_p - in_g)):
            if _negated_around(g, state) == _negated_around(p, other):
                out.append((other, state))
    return out


def _prefix_opposites(g: str, p: str) -> list[tuple[str, str]]:
    gw, pw = set(re.findall(r"[a-z][a-z-]+", g)), set(re.findall(r"[a-z][a-z-]+", p))
    out = []
    for word in gw - pw:
        bare = _PREFIX.sub("", word)
        if _PREFIX.match(word) and bare in pw - gw and not _negated_around(p, bare):
            out.append((bare, word))
    for word in pw - gw:
        bare = _PREFIX.sub("", word)
        if _PREFIX.match(word) and bare in gw - pw and not _negated_around(g, bare):
            out.append((word, bare))
    return out


def _antonym_swaps(g: str, p: str) -> list[tuple[str, str]]:
    """A gold word replaced, in the same place, by its WordNet antonym ("closed" for "open", "closes" for
    "opens"), both said with the same polarity: "not closed" agrees with "open". Words are lined up by base
    form as in a diff, so "arrives" standing for gold's "arriving" is not read against gold's "leaving"."""
    gw = [w for w in re.findall(r"[a-z]+|\d+", g) if w not in STOPWORDS]
    pw = [w for w in re.findall(r"[a-z]+|\d+", p) if w not in STOPWORDS]
    gb, pb = [_base(w) for w in gw], [_base(w) for w in pw]
    out = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, gb, pb, autojunk=False).get_opcodes():
        if tag != "replace":
            continue
        for word, base in zip(gw[i1:i2], gb[i1:i2], strict=True):
            for other, other_base in zip(pw[j1:j2], pb[j1:j2], strict=True):
                if base not in pb and other_base not in gb and _opposed(word, other, other_base) and (
                        _negated_around(g, word) == _negated_around(p, other)):
                    out.append((other, word))
    return out


# Adjectives only: verbs of posture and motion are details a paraphrase changes ("a bird sitting on concrete" /
# "standing on concrete" is the same picture to people), measured in docs/replies.md.
_ANTONYM_PARTS = "a"


def _opposed(word: str, other: str, other_base: str) -> bool:
    ants = wordnet.antonyms(word, _ANTONYM_PARTS)
    return other in ants or other_base in ants


@lru_cache(maxsize=16384)
def _base(word: str) -> str:
    """The word's verb base form if WordNet lists one ("arriving" -> "arrive"), else the word."""
    return next(iter(wordnet.verb_bases(word)), word)


def _negated_around(text: str, word: str) -> bool:
    """Is ``word`` said in a negated clause ("it's not refundable" agrees with "non-refundable")?"""
    return any(c.negated for c in clauses(text) if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", c.text))
