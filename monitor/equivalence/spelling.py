"""One-word names that differ by a typing slip: "Eygptian" / "Egypt's", "Massachusets" / "Massachusetts".

A slip is one edit (a letter left out, added, changed, or two neighbours swapped) in a word of at least five
letters, keeping the first letter. A longer form of the name ("Egyptian" for "Egypt") is compared by its
first letters, and a title of office beside the name is set aside ("Egypt's President" for "Eygptian").
Two names that are both known places and differ ("Austria" / "Australia") are never a slip.
"""

from __future__ import annotations

import re

from monitor.equivalence.people import honorifics, offices
from monitor.equivalence.places import place_relation

_MIN_LETTERS = 5


def edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[len(b)]


def _word(text: str) -> str | None:
    """The one name word of ``text``, titles of office and honorifics aside ("Egypt's President" -> "egypt")."""
    titles = offices() | honorifics()
    words = [re.sub(r"['’]s$", "", w) for w in text.lower().split() if w.strip(".") not in titles]
    return words[0] if len(words) == 1 and re.fullmatch(r"[a-z]+", words[0]) else None


def misspelt(a: str, b: str) -> bool:
    """Whether one-word names ``a`` and ``b`` are one name with a typing slip ("Eygptian" / "Egypt's")."""
    wa, wb = _word(a), _word(b)
    if wa is None or wb is None or wa == wb or wa[0] != wb[0]:
        return False
    short, long = sorted((wa, wb), key=len)
    if len(short) < _MIN_LETTERS:
        return False
    if min(edit_distance(short, long), edit_distance(short, long[: len(short)])) > 1:
        return False
    return place_relation(wa, wb) != "different"
