"""Typed-value evidence for the verifier: the library-backed value comparators (numbers, money, dates, times,
phones, ids, addresses, quantities) applied to the facts of a reply pair. A gold value whose slot holds another
value in the prediction is a change whatever the verifier reads: a different number is a different number."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from monitor.equivalence.facts import Fact, extract_facts
from monitor.equivalence.reply_facts import diff_facts
from monitor.equivalence.types import ValueComparing


@dataclass
class TypedValueEvidence:
    """``changed_values(gold, pred)``: the typed gold values the prediction replaces, as ``'x' vs gold 'y'``."""

    values: ValueComparing

    def changed_values(self, gold: str, pred: str) -> tuple[str, ...]:
        diff = diff_facts(gold, pred, self._same)
        return tuple(f"{p.text!r} vs gold {g.fact.text!r}" for g, p in diff.changed if g.fact.kind != "entity")

    def unsupported_values(self, reply: str, sources: Sequence[Any]) -> tuple[str, ...]:
        """Typed values of ``reply`` (not names) that no source supports."""
        return tuple(
            dict.fromkeys(
                f.text
                for f in extract_facts(reply)
                if f.kind != "entity" and not self.values.supported(f.text, sources).equivalent
            )
        )

    def _same(self, g: Fact, p: Fact) -> bool:
        return self.values.compare(g.text, p.text).equivalent
