"""Typed-value evidence for the verifier: the library-backed value comparators (numbers, money, dates, times,
phones, ids, addresses, quantities) applied to the facts of a reply pair. A gold value whose slot holds another
value in the prediction is a change whatever the verifier reads: a different number is a different number."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from monitor.equivalence.replies.facts import Fact, extract_facts
from monitor.equivalence.replies.reply_facts import (
    aligned,
    article_for_one,
    counted_phrase,
    diff_facts,
    reply_facts,
    unsupported_facts,
)
from monitor.equivalence.types import ValueComparing
from monitor.equivalence.values.places import parse_place, place_relation
from monitor.equivalence.values.stages import same_fact
from monitor.verifier.fusion import Agreement


@dataclass(frozen=True)
class ChangedValue:
    """A gold value the prediction replaces: what kind of value, the prediction's, gold's."""

    kind: str  # "city", "place", "count", "number", "money", "date", "time", "phone", "id", ...
    pred: str  # as shown: a count with what it counts ("2 checked bags")
    gold: str
    value: str = ""  # the prediction's value itself ("2"), traced to earlier turns; ``pred`` when empty

    @property
    def traced(self) -> str:
        return self.value or self.pred

    def __str__(self) -> str:
        return f"{self.kind} {self.pred!r} vs gold {self.gold!r}"


def _place_kind(text: str) -> str:
    readings = parse_place(text) or ()
    return "city" if readings and all(p.city for p in readings) else "place"


@dataclass
class TypedValueEvidence:
    """``changed_values(gold, pred)``: the typed gold values the prediction replaces (``city 'Porto' vs gold
    'Lisbon'``). Names are read as places where both sides name one: another place in gold's slot is a change,
    as it is for a tool argument; other names are the verifier's to read."""

    values: ValueComparing

    def changed_values(self, gold: str, pred: str) -> tuple[ChangedValue, ...]:
        """Each typed gold value the prediction replaces, in gold's order."""
        diff = diff_facts(gold, pred, self._same)
        g_norm, p_norm = reply_facts(gold)[0], reply_facts(pred)[0]
        out: list[ChangedValue] = []
        for g, p in diff.changed:
            if g.fact.kind == "number" and p.kind == "number" and counted_phrase(g_norm, g.fact) != g.fact.text:
                out.append(ChangedValue("count", counted_phrase(p_norm, p), counted_phrase(g_norm, g.fact), p.text))
            elif g.fact.kind != "entity":
                out.append(ChangedValue(g.fact.kind, p.text, g.fact.text))
            elif p.kind == "entity" and place_relation(g.fact.text, p.text) == "different":
                out.append(ChangedValue(_place_kind(g.fact.text), p.text, g.fact.text))
        return tuple(out)

    def agreement(self, gold: str, pred: str) -> Agreement:
        """How many of gold's typed values the prediction states with the same value, leaves out, and how many
        of gold's facts (names included) it states: evidence for the fused decision."""
        diff = diff_facts(gold, pred, self._same)
        dropped = sum(1 for g in diff.dropped if g.fact.kind != "entity")
        return Agreement(diff.kept_values, dropped, diff.kept)

    def respelled(self, gold: str, pred: str) -> str:
        """``pred`` (number words as digits) with each typed value that states a gold value written as gold
        writes it ("020 7946 0958" for gold's "+44 20 7946 0958")."""
        g_facts = reply_facts(gold)[1]
        p_norm, p_facts = reply_facts(pred)
        matched, _ = aligned(gold, pred)
        # One rewrite per predicted value: gold may state a value twice that the prediction states once.
        swaps = list({p_facts[pi].span: (p_facts[pi].span, g_facts[gi].text) for gi, pi in sorted(matched.items())[::-1]
                      if g_facts[gi].kind != "entity" and same_fact(g_facts[gi], p_facts[pi])}.values())
        g_norm = reply_facts(gold)[0]
        for gi, g in enumerate(g_facts):  # "a checked bag" read as gold's "1 checked bag"
            article = None if gi in matched else article_for_one(g_norm, g, p_norm)
            if article is not None and all(e <= article[0] or s >= article[1] for (s, e), _ in swaps):
                swaps.append((article, g.text))
        swaps.sort(reverse=True)
        for (start, end), text in swaps:
            if p_norm[end:end + 1] in ".,;:!?" and p_norm[end:end + 1]:
                text = text.rstrip(".,;:!?")  # gold's "8:15 am." before the reply's own full stop
            p_norm = p_norm[:start] + text + p_norm[end:]
        return p_norm

    def reading(self, gold: str, pred: str) -> tuple[str, str]:
        """The pair as the verifier reads it: number words as digits on both sides, and each value of the
        prediction that the typed comparators find equal to a gold value written as gold writes it — so the
        verifier reads "8:15 am" twice, not "08:15 in the morning" against "8:15 am", and decides the rest."""
        return reply_facts(gold)[0], self.respelled(gold, pred)

    def unsupported_values(
        self, reply: str, sources: Sequence[Any], stated: Callable[[str], bool] | None = None
    ) -> tuple[str, ...]:
        """Typed values of ``reply`` (not names) that no source supports."""
        return unsupported_facts(reply, sources, self.values, names=False, stated=stated)

    def has_values(self, text: str) -> bool:
        """Does ``text`` state a typed value (not a name)?"""
        return any(f.kind != "entity" for f in extract_facts(text))

    def _same(self, g: Fact, p: Fact) -> bool:
        if g.kind == "entity" or p.kind == "entity":  # names are the verifier's to read: no embedding asked
            return g.text.casefold() == p.text.casefold()
        return self.values.compare(g.text, p.text).equivalent
