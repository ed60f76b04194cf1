"""Typed-value evidence for the verifier: the library-backed value comparators (numbers, money, dates, times,
phones, ids, addresses, quantities) applied to the facts of a reply pair. A gold value whose slot holds another
value in the prediction is a change whatever the verifier reads: a different number is a different number."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from monitor.equivalence.replies.facts import Fact, extract_facts
from monitor.equivalence.replies.reply_facts import diff_facts, unsupported_facts
from monitor.equivalence.types import ValueComparing


@dataclass
class TypedValueEvidence:
    """``changed_values(gold, pred)``: the typed gold values the prediction replaces, as ``'x' vs gold 'y'``."""

    values: ValueComparing

    def changed_values(self, gold: str, pred: str) -> tuple[tuple[str, str], ...]:
        """(predicted value, gold value) of each typed gold value the prediction replaces."""
        diff = diff_facts(gold, pred, self._same)
        return tuple((p.text, g.fact.text) for g, p in diff.changed if g.fact.kind != "entity")

    def unsupported_values(self, reply: str, sources: Sequence[Any]) -> tuple[str, ...]:
        """Typed values of ``reply`` (not names) that no source supports."""
        return unsupported_facts(reply, sources, self.values, names=False)

    def has_values(self, text: str) -> bool:
        """Does ``text`` state a typed value (not a name)?"""
        return any(f.kind != "entity" for f in extract_facts(text))

    def _same(self, g: Fact, p: Fact) -> bool:
        if g.kind == "entity" or p.kind == "entity":  # names are the verifier's to read: no embedding asked
            return g.text.casefold() == p.text.casefold()
        return self.values.compare(g.text, p.text).equivalent
