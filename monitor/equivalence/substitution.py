"""Lexical substitution in a minimal pair: "The lamb is looking at the camera." / "A cat looking at the camera."

The two sentences share a frame and differ in a noun. When the nouns left unmatched on each side are
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


@lru_cache(maxsize=65536)
def _forms(word: str) -> frozenset[str]:
    return frozenset({word, lemma(word), *wordnet.noun_bases(word), *wordnet.verb_bases(word)})


def _same_form(a: str, b: str) -> bool:
    return a == b or bool(_forms(a) & _forms(b))


def _nouns_agree(a: str, b: str) -> bool:
    return bool(wordnet.is_noun(a)) and bool(wordnet.is_noun(b)) and wordnet.compatible(a, b) is True


def _match(gold: list[str], pred: list[str]) -> tuple[list[str], list[str]]:
    """The words of each side left once words of the same form, then compatible nouns, are paired off."""
    g_left, p_left = list(gold), list(pred)
    for agree in (_same_form, _nouns_agree):
        for g in list(g_left):
            p = next((p for p in p_left if agree(g, p)), None)
            if p is not None:
                g_left.remove(g)
                p_left.remove(p)
    return g_left, p_left


@lru_cache(maxsize=32768)
def substitution(gold: str, pred: str) -> Substitution:
    """The noun the prediction puts in place of an incompatible gold noun, and how much the sides share."""
    if not wordnet.available():
        return _NONE
    g_words, p_words = _words(gold), _words(pred)
    if not g_words or not p_words:
        return _NONE
    g_left, p_left = _match(g_words, p_words)
    shared = (len(g_words) - len(g_left) + len(p_words) - len(p_left)) / (len(g_words) + len(p_words))
    g_nouns = [w for w in g_left if wordnet.is_noun(w) and wordnet.senses(w)]
    p_nouns = [w for w in p_left if wordnet.is_noun(w) and wordnet.senses(w)]
    if not g_nouns or not p_nouns:
        return Substitution(None, None, shared)
    return Substitution(p_nouns[0], g_nouns[0], shared)
