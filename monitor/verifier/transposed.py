"""Two of gold's phrases traded places: "from Boston to Denver" / "from Denver to Boston", "Alice paid Bob" / "Bob
paid Alice", "open on Friday and closed on Sunday" / "open on Sunday and closed on Friday".

The same words in another order are what a cross-encoder reads least well (word-scrambling pairs): it passes such a
reply as a rewording. A reply that is gold word for word except that two phrases with content words trade places,
around words that are not a mere coordination ("Alice and Bob" / "Bob and Alice" says the same), reverses a relation
or a route: a change, whatever the verifier reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from monitor.equivalence.normalize import STOPWORDS, tokens

_MAX_PHRASE = 4  # words a traded phrase may have
_COORDINATION = frozenset(["and", "or", "nor", "&", "plus", "vs", "versus"])  # "X and Y" says what "Y and X" says


@dataclass(frozen=True)
class Transposition:
    """Gold's ``first`` and ``second`` phrases, traded places in the reply (as gold writes them)."""

    first: str
    second: str

    def __str__(self) -> str:
        return f"swaps gold's '{self.first}' and '{self.second}'"


def transposed(gold: str, pred: str) -> Transposition | None:
    """The two phrases of ``gold`` that trade places in ``pred``, when that is the only difference between their
    words; None otherwise."""
    g, p = tokens(gold), tokens(pred)
    if len(g) != len(p) or g == p or sorted(g) != sorted(p):
        return None
    start = next(i for i, (a, b) in enumerate(zip(g, p, strict=True)) if a != b)
    end = len(g) - next(i for i, (a, b) in enumerate(zip(reversed(g), reversed(p), strict=True)) if a != b)
    gr, pr = g[start:end], p[start:end]
    for x in range(1, min(_MAX_PHRASE, len(gr) - 2) + 1):
        for y in range(1, min(_MAX_PHRASE, len(gr) - x - 1) + 1):
            first, middle, second = gr[:x], gr[x : len(gr) - y], gr[len(gr) - y :]
            if pr == second + middle + first and _trades_meaning(first, middle, second):
                return Transposition(as_written(gold, first), as_written(gold, second))
    return None


def as_written(text: str, words: list[str]) -> str:
    """``words`` (folded tokens of ``text``) as ``text`` writes them."""
    found = re.search(r"[\W_]+".join(re.escape(w) for w in words), text, re.IGNORECASE)
    return found.group(0) if found else " ".join(words)


def _trades_meaning(first: list[str], middle: list[str], second: list[str]) -> bool:
    """Whether trading ``first`` and ``second`` around ``middle`` can change what is said: both carry a content
    word and the words between them are more than a coordination."""
    def content(words: list[str]) -> bool:
        return any(w not in STOPWORDS for w in words)

    coordination = all(w in _COORDINATION or w in STOPWORDS for w in middle) and any(w in _COORDINATION for w in middle)
    return content(first) and content(second) and first != second and not coordination
