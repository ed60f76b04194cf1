"""Sentence splitting for long replies (pysbd: rule-based, English, no model)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from monitor.equivalence.normalize import CORE_STOPWORDS

_WORD = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=1)
def _segmenter() -> Any:
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


@lru_cache(maxsize=16384)
def sentences(text: str) -> tuple[str, ...]:
    """The sentences of ``text``, stripped, empty ones dropped."""
    text = text.strip()
    if not text:
        return ()
    parts = [s.strip() for s in _segmenter().segment(text)]
    return tuple(s for s in parts if s) or (text,)


@lru_cache(maxsize=65536)
def content_words(text: str) -> frozenset[str]:
    """Lower-cased words of ``text`` without the core of the stop list (``normalize.CORE_STOPWORDS``): which
    sentences of the other text a sentence is read against, whether a sentence makes a claim, and the words a
    changed reply says instead. Pronouns, modals and negations count here: "It is not available." is a claim,
    and leaving them out too failed fewer unsupported knowledge-grounded replies (BEGIN work part 0.803 ->
    0.784)."""
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in CORE_STOPWORDS)


def overlap(a: str, b: str) -> float:
    """Share of ``a``'s content words that ``b`` has."""
    wa = content_words(a)
    return len(wa & content_words(b)) / len(wa) if wa else 0.0


def best_window(sentence: str, others: tuple[str, ...], width: int = 2) -> str:
    """The run of at most ``width`` consecutive sentences of ``others`` that shares most of ``sentence``'s
    content words (the shortest such run)."""
    best, best_score = others[0] if others else "", -1.0
    for size in range(1, width + 1):
        for start in range(0, max(len(others) - size + 1, 1)):
            window = " ".join(others[start : start + size])
            score = overlap(sentence, window) - 0.01 * size
            if score > best_score:
                best, best_score = window, score
    return best
