"""Opposites as values: curated pairs ("cheap" / "expensive", "ascending" / "descending": ``data/opposites.json``),
words negated by prefix ("refundable" / "non-refundable") and WordNet antonyms in place ("open" / "closed")."""

from __future__ import annotations

import itertools
import re
from difflib import SequenceMatcher
from functools import lru_cache

from monitor.equivalence.normalize import STOPWORDS, fold
from monitor.equivalence.reference_data import data_table, wordnet

_PREFIX = re.compile(r"^(?:un|non-?|in|dis)(?=[a-z]{4})")
# Pieces of a value that are said with a polarity of their own ("refundable, not transferable").
_PIECE = re.compile(r"[.;:!?,]\s*|\s+(?:and|but|while|whereas|although|though)\s+")
_NEG_CUE = re.compile(
    r"(?<![-\"“'‘])\b(?:not|no|never|none|nothing|nobody|neither|nor|without|cannot|unable|unavailable)\b(?![-\"”'’])"
    r"|n't\b|n’t\b"
)


@lru_cache(maxsize=1)
def opposite_table() -> dict[str, frozenset[str]]:
    """Word or two-word phrase -> its opposites, loaded once."""
    data = data_table("opposites.json")
    table: dict[str, set[str]] = {}
    for a, b in data["pairs"]:
        table.setdefault(a, set()).add(b)
        table.setdefault(b, set()).add(a)
    return {k: frozenset(v) for k, v in table.items()}


def _phrases(text: str) -> set[str]:
    words = re.findall(r"[a-z]+", fold(text))
    return set(words) | {f"{a} {b}" for a, b in itertools.pairwise(words)}


def antonym_clash(gold: str, pred: str) -> bool:
    """Does one side use a word whose opposite the other side uses instead ("cheap" / "expensive")?"""
    table = opposite_table()
    g, p = _phrases(gold), _phrases(pred)
    return any(word in table and (table[word] & (p - g)) for word in g - p)


def opposite(a: str, b: str) -> bool:
    """Are two words opposites: a curated pair ("cheap" / "expensive") or WordNet direct antonyms as adjectives
    ("outside" / "inside", "early" / "late")?"""
    table = opposite_table()
    return b in table.get(a, ()) or a in table.get(b, ()) or b in wordnet.antonyms(a) or a in wordnet.antonyms(b)


def opposite_words(gold: str, pred: str) -> list[tuple[str, str]]:
    """(predicted word, gold word) pairs that negate each other: by prefix, or as WordNet antonyms in place."""
    g, p = fold(gold), fold(pred)
    return _prefix_opposites(g, p) + _antonym_swaps(g, p)


def _prefix_opposites(g: str, p: str) -> list[tuple[str, str]]:
    gw, pw = set(re.findall(r"[a-z][a-z-]+", g)), set(re.findall(r"[a-z][a-z-]+", p))
    out = []
    for word in gw - pw:
        bare = negated_by_prefix(word)
        if bare is not None and bare in pw - gw and not _negated_around(p, bare):
            out.append((bare, word))
    for word in pw - gw:
        bare = negated_by_prefix(word)
        if bare is not None and bare in gw - pw and not _negated_around(g, bare):
            out.append((word, bare))
    return out


def _antonym_swaps(g: str, p: str) -> list[tuple[str, str]]:
    """A gold word replaced, in the same place, by its WordNet antonym ("closed" for "open"), both said with the
    same polarity: "not closed" agrees with "open". Words are lined up by base form as in a diff."""
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


def _opposed(word: str, other: str, other_base: str) -> bool:
    ants = wordnet.antonyms(word)  # adjectives only: verbs of posture and motion are details a paraphrase changes
    return other in ants or other_base in ants


@lru_cache(maxsize=16384)
def _base(word: str) -> str:
    """The word's verb base form if WordNet lists one ("arriving" -> "arrive"), else the word."""
    return wordnet.verb_base(word) or word


def _negated_around(text: str, word: str) -> bool:
    """Is ``word`` said in a negated piece of ``text`` (an odd number of negation cues: "not refundable")?"""
    pattern = re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])")
    return any(negated(piece) for piece in polarity_pieces(text) if pattern.search(piece))


def polarity_pieces(text: str) -> list[str]:
    """The pieces of folded ``text`` that are said with a polarity of their own ("refundable, not transferable":
    two), split at sentence marks, commas and contrasting conjunctions."""
    return [piece for piece in _PIECE.split(text) if piece.strip()]


def negated(piece: str) -> bool:
    """Is a piece of folded text negated: an odd number of negation cues ("not", "no", "never", "n't"...)?"""
    return len(_NEG_CUE.findall(piece)) % 2 == 1


def negation_cue(word: str) -> bool:
    """Is ``word`` (folded) one of the cues ``negated`` counts ("not", "never", "doesn't", "unable"...)?"""
    return bool(_NEG_CUE.fullmatch(word)) or word.endswith(("n't", "n’t"))


def negated_by_prefix(word: str) -> str | None:
    """The word a prefix negates ("unfurnished" -> "furnished", "non-refundable" -> "refundable"), or None."""
    return _PREFIX.sub("", word) if _PREFIX.match(word) else None
