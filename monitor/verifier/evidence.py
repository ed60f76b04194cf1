"""Typed-value evidence for the verifier: the library-backed value comparators (numbers, money, dates, times,
phones, ids, addresses, quantities) applied to the facts of a reply pair. A gold value whose slot holds another
value in the prediction is a change whatever the verifier reads: a different number is a different number."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from monitor.equivalence.normalize import fold
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
from monitor.equivalence.values.grounding import grounding_keys, word_in
from monitor.equivalence.values.places import parse_place, place_relation
from monitor.equivalence.values.stages import same_fact
from monitor.verifier.fusion import Agreement
from monitor.verifier.grounding import SourceLine, source_lines

_MAX_RECORDS = 64  # tool records a sentence's values are traced through (more: not traced)


def _identifying_values(records: Sequence[tuple[int, SourceLine]]) -> tuple[str, ...]:
    """The values of the fields that tell one record of an output from the others (a name, an event: every record
    of the output that has the field gives it another value), worded, not typed values ("the clement hotel", not
    "5 miles"): what a sentence names when it speaks of one record, capitals or not."""
    fields: dict[tuple[int, str], list[str]] = {}
    for i, line in records:
        for name, value in line.pairs:
            if name and value.strip():
                fields.setdefault((i, name), []).append(value.strip())
    out: list[str] = []
    for values in fields.values():
        folded = [fold(v) for v in values]
        if len(values) >= 2 and len(set(folded)) == len(folded):
            out += [v for v in values if len(v) >= 3 and any(c.isalpha() for c in v) and not extract_facts(v)]
    return tuple(dict.fromkeys(out))


def _named_records(norm: str, names: Sequence[str], taken: Sequence[Fact]) -> list[Fact]:
    """The identifying values (``_identifying_values``) a sentence states word for word, as names, where no fact
    of the sentence already stands."""
    lowered = norm.lower()
    out: list[Fact] = []
    for name in names:
        for m in re.finditer(r"(?<![\w])" + re.escape(name.lower()) + r"(?![\w])", lowered):
            if not any(f.span[0] < m.end() and m.start() < f.span[1] for f in (*taken, *out)):
                out.append(Fact("entity", norm[m.start():m.end()], name, (m.start(), m.end())))
    return out


def _typed_keys(text: str) -> frozenset[str]:
    """The keys of the typed values a text states (``grounding_keys``: an amount's size, a date's month and day,
    a clock time, an id): a record shares one with every value it states."""
    return frozenset(k for k in grounding_keys(text) if k[:2] in ("n:", "d:", "t:", "i:"))


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
            counted = counted_phrase(g_norm, g.fact) if g.fact.kind == "number" else g.fact.text
            if counted != g.fact.text and p.kind == "number":
                out.append(ChangedValue("count", counted_phrase(p_norm, p), counted, p.text))
            elif counted != g.fact.text:  # a measure for gold's count of its unit: "94 degrees Fahrenheit"
                out.append(ChangedValue(p.kind, p.text, counted))
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
        g_norm, g_facts = reply_facts(gold)
        p_norm, p_facts = reply_facts(pred)
        matched, _ = aligned(gold, pred)
        # One rewrite per predicted value: gold may state a value twice that the prediction states once.
        swaps = list({p_facts[pi].span: (p_facts[pi].span, g_facts[gi].text) for gi, pi in sorted(matched.items())[::-1]
                      if g_facts[gi].kind != "entity" and same_fact(g_facts[gi], p_facts[pi])}.values())
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
        self,
        reply: str,
        sources: Sequence[Any],
        stated: Callable[[str], bool] | None = None,
        sources_for: Callable[[str], Sequence[Any]] | None = None,
    ) -> tuple[str, ...]:
        """Typed values of ``reply`` (not names) that no source supports (``sources_for``: each value's own)."""
        return unsupported_facts(reply, sources, self.values, names=False, stated=stated, sources_for=sources_for)

    def unsupported_names(
        self,
        text: str,
        sources: Sequence[Any],
        stated: Callable[[str], bool] | None = None,
        sources_for: Callable[[str], Sequence[Any]] | None = None,
    ) -> tuple[str, ...]:
        """Names in ``text`` that no source supports (a place, a hotel, a carrier): for the sentences the typed
        values decide, which the verifier does not read ("Casa Alfama in Porto is 120 EUR" after an output
        that says Lisbon)."""
        return unsupported_facts(
            text, sources, self.values, names=True, stated=stated, values_too=False, sources_for=sources_for
        )

    def misattributed(self, claims: Sequence[str], sources: Sequence[Any]) -> tuple[str, ...]:
        """Values a sentence says of a name that the tool outputs give to another one: each typed value is said of
        the nearest name or id before it in its sentence (after it, when none comes before) — a name as the
        sentence writes it, or a record's identifying value it states (``_identifying_values``: "the clement
        hotel is 4 miles away" in lower case); when both are in
        tool records and no record holds the two together, the value is misattributed ("Casa Alfama is 95 EUR"
        where 95 EUR is Hotel Baixa's price). A value a user turn states (a request's own parameter) and a value
        in an output's top-level fields (which speak of all its records) are not held to one record. The sources
        are rendered and keyed once for all of ``claims``."""
        users = [s for s in sources if isinstance(s, str)]
        lines = [(i, line) for i, src in enumerate(sources) if not isinstance(src, str) for line in source_lines(src)]
        # (source, record line) and (source, top-level line): an output's top-level values speak of all its records
        own = [(i, line) for i, line in lines if not line.top]
        records = [(i, line.text) for i, line in own]
        shared = [(i, line.text) for i, line in lines if line.top]
        if len(records) < 2 or len(records) > _MAX_RECORDS:
            return ()
        folded = [fold(line) for _, line in records]
        keys = [_typed_keys(line) for _, line in records]  # which records a value can be in, before comparing
        names = _identifying_values(own)

        def states(v: Fact, lines: Sequence[str]) -> bool:
            return self.values.supported(v.text, list(lines), typed_only=True).equivalent

        out: list[str] = []
        for sentence in claims:
            norm, facts = reply_facts(sentence)
            said = [f for f in facts if f.kind not in ("entity", "id")]
            anchors = [f for f in facts if f.kind in ("entity", "id")]
            anchors += _named_records(norm, names, facts)
            anchors.sort(key=lambda f: f.span)
            if not anchors or not said:
                continue
            holding = {a: [r for r, line in zip(records, folded, strict=True) if word_in(fold(a.text), line)]
                       for a in anchors}
            for v in said:
                if users and states(v, users):
                    continue
                found = _typed_keys(v.text)
                with_value = [r for r, k in zip(records, keys, strict=True)
                              if (k & found or not found) and states(v, [r[1]])]
                lists = {i for i, _ in with_value}
                # the names of the same tool output as the value; the nearest before it, else the first after it
                near = [a for a in anchors if {i for i, _ in holding[a]} & lists]
                before = [a for a in near if a.span[1] <= v.span[0]]
                anchor = before[-1] if before else next(iter(near), None)
                if anchor is None or set(holding[anchor]) & set(with_value):
                    continue
                if states(v, [line for _, line in holding[anchor]]):
                    continue  # the anchor's own record states it in a form the keys missed
                if any(i in lists and states(v, [line]) for i, line in shared):
                    continue  # an output's top-level field speaks of all its records
                out.append(f"{v.text!r} said of {anchor.text!r}")
        return tuple(out)

    def has_values(self, text: str) -> bool:
        """Does ``text`` state a typed value (not a name)?"""
        return any(f.kind != "entity" for f in extract_facts(text))

    def _same(self, g: Fact, p: Fact) -> bool:
        if g.kind == "entity" or p.kind == "entity":  # names are the verifier's to read: no embedding asked
            return g.text.casefold() == p.text.casefold()
        return self.values.compare(g.text, p.text).equivalent
