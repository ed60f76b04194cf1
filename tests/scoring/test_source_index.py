"""The sources a judge-only value is compared with (`SourceIndex.candidates`) and the word-for-word scan
(`SourceIndex.states`): a bounded number of sources however long the conversation, the same answers."""

from __future__ import annotations

from typing import Any

from monitor.equivalence.values.grounding import states_word_for_word
from monitor.scoring.sources import RECENT_SOURCES, SOURCES_PER_VALUE, SourceIndex


def index_of(sources: list[Any]) -> SourceIndex:
    index = SourceIndex()
    for position, source in enumerate(sources):
        index._add(position, source)
    return index


def outputs(n: int) -> list[Any]:
    return [{"status": "failed", "code": 4000 + i, "note": f"no record {i * 7 + 3}"} for i in range(n)]


def test_a_short_conversation_is_compared_whole() -> None:
    index = index_of(outputs(SOURCES_PER_VALUE))
    assert index.candidates("anything at all") == list(range(SOURCES_PER_VALUE))


def test_a_long_conversation_gives_the_last_sources_and_those_sharing_a_rare_key() -> None:
    sources = [{"booking": "AB-123", "departs": "2024-06-20"}, *outputs(300)]
    index = index_of(sources)
    for value in ("June 20th, 2024", "AB123", "ab 123"):
        chosen = index.candidates(value)
        assert len(chosen) <= SOURCES_PER_VALUE and chosen == sorted(chosen)
        assert chosen[0] == 0, value  # only turn 1's output states it
        assert chosen[-RECENT_SOURCES:] == list(range(len(sources) - RECENT_SOURCES, len(sources)))
    assert index.candidates("nowhere said") == list(range(len(sources) - RECENT_SOURCES, len(sources)))


def test_the_word_for_word_scan_gives_the_answers_of_a_scan_of_every_source() -> None:
    sources = [
        *outputs(40),
        "Café au lait at 12:30 on 3/12, $45.00 - Row A",
        {"a": [1, 2.5, True, None], "ÉCOLE": "naïve"},
    ]
    index = index_of(sources)
    texts = [s.text for s in index._sources]
    values: list[Any] = ["12", "30", "12:30", "3", "a", "A", "row a", "café", "$45.00", "45", "2.5", "true"]
    values += ["naïve", "école", "", "$", "no record 10", "record 10", "failed", "status failed", 7, 4003, 4003.0]
    for value in values:
        assert index.states(value) == any(states_word_for_word(t, value) for t in texts), value
