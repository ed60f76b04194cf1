"""Price levels as values: "moderate" / "$$", "inexpensive" / "cheap" (``data/price_levels.json``)."""

from __future__ import annotations

from functools import lru_cache

from monitor.equivalence.normalize import fold
from monitor.equivalence.reference_data import data_table


@lru_cache(maxsize=1)
def _levels() -> dict[str, int]:
    """Word -> its level (1 for the cheapest), loaded once."""
    data = data_table("price_levels.json")
    return {fold(word): rank for rank, words in enumerate(data["price level"], start=1) for word in words}


def price_level_rank(text: str) -> int | None:
    """1 for the cheapest price level ("inexpensive"), 2 for the next ("moderate"), ...; None when ``text`` is
    no price level."""
    return _levels().get(fold(text).strip())
