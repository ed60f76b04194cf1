"""Lexical substitution in a minimal pair: "The lamb is looking at the camera." / "A cat looking at the camera."

The two sentences share a frame and differ in a noun in the same place. When the nouns of a replaced stretch
name concrete things (people, animals, artifacts, food, body parts, objects, plants, substances) and are
*incompatible* — neither synonyms nor one a kind of the other in WordNet (``wordnet.compatible``) — the
prediction talks about something else. Words are matched first by form (same word, same WordNet base form)
and then, for nouns, by compatibility ("guy" / "man", "lady" / "woman", "eye shadow" / "cosmetics"), so a
synonym or a hypernym is no substitution. Words WordNet does not know, verbs and names are never evidence.

``substitution`` returns the substituted pair (if any) and the share of content words the two sides match:
how minimal the pair is, which the comparator's ``substitution`` threshold weighs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from monitor.equivalence import wordnet
from monitor.equivalence.normalize import STOPWORDS, fold, lemma

_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+)[\"'(]*$")


@dataclass(frozen=True)
class Substitution:
    """The outcome for one pair: ``pred_word`` in place of ``gold_word`` (both None when there is none) and
    ``shared``, the share of both sides' content words matched by form or compatible noun."""

    pred_word: str | None
    gold_word: str | None
    shared: float


_NONE = Substitution(None, None, 0.0)
# WordNet's lexicographer files of physical things (lexnames(5WN)): noun.animal, noun.artifact, noun.body,
# noun.food, noun.object, noun.person, noun.plant, noun.substance. A sentence is about such things; abstract
# nouns (acts, communication, groups, time, attributes) are what a paraphrase rewords ("statement" /
# "ministry", "rate" / "number"), and WordNet links few of those by kind.
_CONCRETE = frozenset({5, 6, 8, 13, 17, 18, 20, 27})


def _words(text: str) -> list[str]:
    """Content words of ``text``, lower-cased, without names (capitalised words inside a sentence) and with
    two-word nouns WordNet lists joined ("eye shadow")."""
    out: list[str] = []
    for m in _WORD.finditer(text):
        w = fold(m.group(0))
        if w in STOPWORDS or len(w) < 2:
            continue
        if m.group(0)[0].isupper() and (not _SENTENCE_START.search(text[: m.start()]) or wordnet.is_name(w)):
            continue
        out.append(w)
    joined: list[str] = []
    for w in out:
        if joined and _compound(joined[-1], w):
            joined[-1] = f"{joined[-1]} {w}"
        else:
            joined.append(w)
    return joined


def _compound(a: str, b: str) -> bool:
    """Two nouns that WordNet lists as one ("eye shadow"; not "dog trots", "large white")."""
    return " " not in a and bool(wordnet.noun_bases(f"{a}_{b}")) and all(wordnet.is_noun(w) for w in (a, b))


# An English closed compound is headed by its last part ("hackysack" is a sack, "doghouse" a house): a word
# WordNet does not list is read as the longest noun (four letters or more) it ends with, when at least three
# letters precede it.
_HEAD_MIN, _STEM_MIN = 4, 3


@lru_cache(maxsize=65536)
def _lexeme(word: str) -> str:
    """``word`` itself when WordNet lists it, else the noun heading it as a closed compound ("hackysack" ->
    "sack"), else ``word``."""
    if " " in word or wordnet.known(word) is not False:
        return word
    for i in range(_STEM_MIN, len(word) - _HEAD_MIN + 1):
        head = word[i:].lstrip("-")
        if len(head) >= _HEAD_MIN and wordnet.noun_bases(head):
            return head
    return word


@lru_cache(maxsize=65536)
def _forms(word: str) -> frozenset[str]:
    word = _lexeme(word)
    return frozenset({word, lemma(word), *wordnet.noun_bases(word), *wordnet.verb_bases(word)})


def _same_form(a: str, b: str) -> bool:
    return a == b or bool(_forms(a) & _forms(b))


def _as_noun(word: str) -> str | None:
    """The noun ``word`` is read as: the head of a closed compound WordNet does not list (a noun by its place),
    ``word`` itself when it is mostly a noun, else None."""
    head = _lexeme(word)
    return head if head != word or wordnet.is_noun(word) else None


def _nouns_agree(a: str, b: str) -> bool:
    na, nb = _as_noun(a), _as_noun(b)
    return na is not None and nb is not None and wordnet.compatible(na, nb) is True


def _match(gold: list[str], pred: list[str]) -> list[int | None]:
    """For each predicted word, the gold word it matches (index), pairing words of the same form first, then
    compatible nouns; each gold word is matched once."""
    out: list[int | None] = [None] * len(pred)
    used: set[int] = set()
    for agree in (_same_form, _nouns_agree):
        for j, p in enumerate(pred):
            if out[j] is None:
                i = next((i for i, g in enumerate(gold) if i not in used and agree(g, p)), None)
                if i is not None:
                    out[j] = i
                    used.add(i)
    return out


def _replaced(gold: list[str], pred: list[str], match: list[int | None]) -> list[tuple[list[str], list[str]]]:
    """The stretches of gold that the prediction says otherwise in the same place: the replace blocks of the
    two word sequences aligned on their matched words ("lamb" / "cat" in "lamb looking camera" / "cat looking
    camera"), without the words matched elsewhere; a word moved or added is no replacement."""
    keys = [f"g{i}" for i in range(len(gold))]
    p_keys = [f"g{i}" if i is not None else f"p{j}" for j, i in enumerate(match)]
    matched = set(match)
    blocks = SequenceMatcher(None, keys, p_keys, autojunk=False).get_opcodes()
    return [([g for i, g in enumerate(gold[i1:i2], i1) if i not in matched],
             [p for j, p in enumerate(pred[j1:j2], j1) if match[j] is None])
            for tag, i1, i2, j1, j2 in blocks if tag == "replace"]


def _nouns(words: list[str]) -> list[str]:
    """The nouns among ``words`` that name a concrete thing in one of their two commonest WordNet senses."""
    return [w for w in words if (n := _as_noun(w)) is not None and wordnet.lexfiles(n) & _CONCRETE]


@lru_cache(maxsize=32768)
def substitution(gold: str, pred: str) -> Substitution:
    """The noun the prediction puts in place of an incompatible gold noun, and how much the sides share."""
    if not wordnet.available():
        return _NONE
    g_words, p_words = _words(gold), _words(pred)
    if not g_words or not p_words:
        return _NONE
    match = _match(g_words, p_words)
    matched = sum(i is not None for i in match)
    shared = 2 * matched / (len(g_words) + len(p_words))
    for g_block, p_block in _replaced(g_words, p_words, match):
        g_nouns, p_nouns = _nouns(g_block), _nouns(p_block)
        if g_nouns and p_nouns:
            return Substitution(p_nouns[0], g_nouns[0], shared)
    return Substitution(None, None, shared)
