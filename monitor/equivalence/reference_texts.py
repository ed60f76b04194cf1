"""The texts a reference set will be embedded as: gold replies and the gold tool-argument values.

Loaded reference files are embedded once, in one batch, at start-up (``EmbeddingScorer.prefetch_references``);
these are the exact strings the reply and value comparators later hand to the scorer as the gold side.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from monitor.equivalence.values.calibration import value_text
from monitor.models.dialog import Payload, Reply, ToolCall


def reference_texts(golds: Iterable[Payload | None]) -> list[str]:
    """Distinct gold texts, in first-seen order: a reply's text, each string argument value (and the head
    of a comma-structured one, "Boston" of "Boston, MA"). Values without letters (numbers, dates in digits,
    ids) are decided by typed checks and are left out."""
    out: dict[str, None] = {}
    for gold in golds:
        if isinstance(gold, Reply):
            text = (gold.response or "").strip()
            if text:
                out[text] = None
        elif isinstance(gold, ToolCall):
            for value in _strings(gold.args):
                out.update(dict.fromkeys(_value_texts(value)))
    return list(out)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def _value_texts(value: str) -> list[str]:
    if not any(c.isalpha() for c in value):
        return []
    texts = [value_text(value)]
    if "," in value:
        head = next((x.strip() for x in value.split(",") if x.strip()), "")
        if head and any(c.isalpha() for c in head):
            texts.append(value_text(head))
    return [t for t in texts if t]
