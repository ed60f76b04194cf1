"""Opposites ("cheap" / "expensive", "ascending" / "descending"): curated in ``data/opposites.json``."""

from __future__ import annotations

import itertools
import json
import re
from functools import lru_cache
from importlib import resources

from monitor.equivalence.normalize import fold


@lru_cache(maxsize=1)
def opposite_table() -> dict[str, frozenset[str]]:
    """Word or two-word phrase -> its opposites, loaded once."""
    data = json.loads(resources.files("monitor.equivalence").joinpath("data/opposites.json").read_text())
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
