"""The facts of a gold reply, found (or not) in a predicted reply.

A gold fact (number, money, date, time, count, name, place, id, phone number, address) is *kept* when
the prediction states the same value (in any spelling the typed comparator accepts); *changed* when the
prediction leaves it out but states another value of the same slot in its place; *dropped* otherwise.
Facts the prediction adds are not judged here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from monitor.equivalence.normalize import STOPWORDS, fold, lemma
from monitor.equivalence.reference_data.demonyms import countries_of
from monitor.equivalence.replies.facts import Fact, extract_facts, normalise_numbers, other_places
from monitor.equivalence.types import ValueComparing
from monitor.equivalence.values.base import Money, Quantity
from monitor.equivalence.values.grounding import folded_source, states_word_for_word
from monitor.equivalence.values.people import title_for_name
from monitor.equivalence.values.places import other_names, place_relation, place_within
from monitor.equivalence.values.stages import same_fact

# Facts of one slot group can stand in for each other ("$24" in place of "$270", "Italian" for "Japanese").
SLOT_GROUP = {"money": "amount", "number": "amount", "percent": "amount", "quantity": "amount",
              "date": "date", "time": "time", "id": "id", "phone": "phone", "address": "address",
              "entity": "entity"}
# Capitalised words that are not values of a slot.
_GENERIC = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today",
                      "tomorrow", "sure", "thanks", "thank", "hello", "hi", "ok", "okay", "yes", "no", "please",
                      "dear", "great", "alright", "perfect", "sorry", "unfortunately", "yup", "yeah", "how", "what",
                      "which", "when", "where", "who", "why", "there", "here", "let", "kindly"})
_WORD = re.compile(r"[A-Za-z0-9$€£]+(?:['’.:,-][A-Za-z0-9]+)*")

SameValue = Callable[[Fact, Fact], bool]


@dataclass(frozen=True)
class GoldFact:
    """A fact of the gold reply."""

    fact: Fact


@dataclass(frozen=True)
class FactDiff:
    changed: tuple[tuple[GoldFact, Fact], ...]  # (gold fact, the predicted value in its place)
    dropped: tuple[GoldFact, ...]
    kept: int
    kept_values: int = 0  # of them, typed values (not names): numbers, amounts, dates, times, phones, ids...


@lru_cache(maxsize=32768)
def reply_facts(text: str) -> tuple[str, tuple[Fact, ...]]:
    """The number-normalised text and the slot-value facts in it."""
    norm = normalise_numbers(text)
    title_case = _title_cased(norm)
    facts = tuple(f for f in extract_facts(text)
                  if not (f.kind == "entity" and (title_case or fold(f.text) in _GENERIC))
                  and not _parenthetical_alias(norm, f))
    return norm, _qualified_places(norm, facts)


def _qualified_places(norm: str, facts: tuple[Fact, ...]) -> tuple[Fact, ...]:
    """A place and the region or country after its comma are one place fact ("Albany, NY", "Paris, France"):
    the qualifier says where the place is and names no place of its own, so "NY" in "Albany, NY" does not
    keep gold's "New York City". Two places in a list ("London, Paris") stay two."""
    out: list[Fact] = []
    for f in facts:
        prev = out[-1] if out else None
        if (prev is not None and prev.kind == f.kind == "entity" and norm[prev.span[1] : f.span[0]] == ", "
                and place_relation(f"{prev.text}, {f.text}", prev.text) == "same"):
            text = norm[prev.span[0] : f.span[1]]
            out[-1] = Fact("entity", text, fold(text), (prev.span[0], f.span[1]))
        else:
            out.append(f)
    return tuple(out)


_ALIAS = re.compile(r"[A-Za-z0-9.&-]*[A-Z][A-Za-z0-9.&-]*")


def _parenthetical_alias(norm: str, fact: Fact) -> bool:
    """A short form in brackets right after what it abbreviates ("the Andromeda galaxy (M31)", "San
    Francisco International Airport (SFO)") restates that name: no fact of its own."""
    s, e = fact.span
    return (norm[s - 1 : s] == "(" and norm[e : e + 1] == ")" and bool(_ALIAS.fullmatch(fact.text))
            and bool(re.search(r"\w\s*\($", norm[:s])))


def _title_cased(text: str) -> bool:
    """A headline-style text ("Jordan Opens First Tent Camp"): its capitals mark no names.

    Title case capitalises every word but short function words, so one lower-case content word of four or
    more letters ("It starts at 5 pm at Chase Center Experience") shows ordinary sentence case."""
    # The opening word is capitalised in any sentence, and a word in capitals is an acronym ("ABBA"): neither
    # tells title case from sentence case.
    words = [w for w in re.findall(r"[A-Za-z]+", text)[1:] if len(w) >= 4 and not w.isupper()]
    lower = [w for w in words if w[0].islower() and w.lower() not in STOPWORDS]
    return len(words) >= 3 and not lower and sum(w[0].isupper() for w in words) >= 0.7 * len(words)


def _mentioned(fact: Fact, other_low: str) -> bool:
    key = fold(fact.text).strip(".")
    # The substring test first: most facts are not in the other text, and the regex would be compiled anew.
    return bool(key) and key in other_low and bool(re.search(rf"(?<![a-z0-9]){re.escape(key)}(?![a-z0-9])", other_low))


def _context(norm: str, fact: Fact) -> str:
    words = _WORD.findall(norm[max(0, fact.span[0] - 30) : fact.span[0]])
    return fold(words[-1]) if words else ""


def _rival(g: Fact, g_norm: str, free: Sequence[Fact], p_norm: str) -> Fact | None:
    """The predicted value standing in gold's slot (``_may_stand_in``): same kind first, then same group, then
    same lead word."""
    g_counts = _counted(g_norm, g)
    group = [p for p in free if SLOT_GROUP[p.kind] == SLOT_GROUP[g.kind] and _may_stand_in(g, g_counts, p, p_norm)]
    if not group:
        return None
    lead = _context(g_norm, g)
    return max(group, key=lambda p: (p.kind == g.kind, bool(lead) and _context(p_norm, p) == lead))


def _may_stand_in(g: Fact, g_counts: frozenset[str], p: Fact, p_norm: str) -> bool:
    """A count stands in for a count of the same things ("2 bags" for "one checked bag"), and for a measure only
    in what it counts ("94 degrees Fahrenheit" for "92 degrees"; never "35 CAD" for "one checked bag"), nor a
    measure for it otherwise; other values of one slot group may."""
    p_counts = _counted(p_norm, p)
    if g_counts and p_counts:
        return bool(g_counts & p_counts)
    if g_counts and p.kind in _MEASURES:
        return _measured_in(p, g_counts)
    if p_counts and g.kind in _MEASURES:
        return _measured_in(g, p_counts)
    return True


def _measured_in(measure: Fact, counts: frozenset[str]) -> bool:
    """Is ``measure`` stated in the things a count counts ("94 degrees Fahrenheit" in degrees)?"""
    return counts <= {lemma(w) for w in re.findall(r"[a-z]+", fold(measure.text))}


def diff_facts(gold: str, pred: str, same_value: SameValue) -> FactDiff:
    """Compare the facts of ``gold`` with ``pred``; ``same_value`` is the typed comparison of two facts of one
    slot group, tried after the built-in agreement and a literal mention.

    Facts are aligned one to one (``align_facts``): one predicted value accounts for one gold fact, so "3" in
    "3 baths" does not also keep gold's "3 apartments", and a number inside another fact ("8" in "8:30 pm")
    is no mention of gold's "8"."""
    g_norm, g_facts = reply_facts(gold)
    p_norm, p_facts = reply_facts(pred)
    g_low = fold(g_norm)
    matched, claimed = aligned(gold, pred)
    used = set(claimed)
    missing: list[Fact] = []
    for gi, g in enumerate(g_facts):
        if gi in matched:
            continue
        if _mentioned(g, _unclaimed_text(p_norm, p_facts, used, g)) or _named_otherwise(g, p_norm, p_facts, used):
            continue
        country = _same_country(g, p_facts, used)
        if country is not None:
            used.add(country)  # "Syria" for gold's "Syrian": that name speaks of gold's country, of no other
            continue
        if _country_named(g, p_norm, p_facts, used):
            continue
        hit = next((i for i, p in enumerate(p_facts)
                    if i not in used and SLOT_GROUP[p.kind] == SLOT_GROUP[g.kind] and same_value(g, p)), None)
        if hit is None:
            missing.append(g)
        else:
            used.add(hit)
    free = [p for i, p in enumerate(p_facts) if i not in used and not _covered(p, g_facts, g_low)]
    changed: list[tuple[GoldFact, Fact]] = []
    dropped: list[GoldFact] = []
    for g in missing:
        gf = GoldFact(g)
        rival = _rival(g, g_norm, free, p_norm)
        if rival is not None and _generalises(g, rival):
            free.remove(rival)  # "Israel" for gold's "Tel Aviv": less said, nothing contradicted
            dropped.append(gf)
        elif rival is None:
            dropped.append(gf)
        else:
            free.remove(rival)
            changed.append((gf, rival))
    kept_values = sum(1 for g in g_facts if g.kind != "entity" and g not in missing)
    return FactDiff(tuple(changed), tuple(dropped), len(g_facts) - len(missing), kept_values)


def align_facts(g_norm: str, g_facts: Sequence[Fact], p_norm: str,
                p_facts: Sequence[Fact]) -> tuple[dict[int, int], set[int]]:
    """Gold fact index -> predicted fact index of the same value, and the predicted facts so claimed.

    First facts of one kind and value that count the same thing ("3 baths" / "3 baths"; a gold value stated
    twice may claim one predicted fact), then the rest one to one in gold order."""
    agree = [[same_fact(g, p) or _same_amount(g, p) for p in p_facts] for g in g_facts]
    g_nouns = [_counted(g_norm, g) for g in g_facts]
    p_nouns = [_counted(p_norm, p) for p in p_facts]
    matched: dict[int, int] = {}
    for gi in range(len(g_facts)):
        strong = [pi for pi in range(len(p_facts)) if agree[gi][pi] and g_facts[gi].kind == p_facts[pi].kind
                  and (g_facts[gi].kind != "number" or g_nouns[gi] & p_nouns[pi])]
        if strong:
            matched[gi] = strong[0]
    used = set(matched.values())
    for gi in range(len(g_facts)):
        if gi in matched:
            continue
        if g_nouns[gi] and any(pi not in used and g_nouns[gi] & p_nouns[pi] for pi in range(len(p_facts))):
            continue  # the prediction counts gold's things with another number ("1 bedroom" for "2 bedrooms")
        hit = next((pi for pi in range(len(p_facts)) if pi not in used and agree[gi][pi]), None)
        if hit is not None:
            matched[gi] = hit
            used.add(hit)
    return matched, used


ALIGNED_MEMO_SIZE = 4096  # pairs: a poll's worth


@lru_cache(maxsize=ALIGNED_MEMO_SIZE)
def aligned(gold: str, pred: str) -> tuple[Mapping[int, int], frozenset[int]]:
    """``align_facts`` of two replies' facts, kept for the pair: the caller gets read-only results."""
    g_norm, g_facts = reply_facts(gold)
    p_norm, p_facts = reply_facts(pred)
    matched, used = align_facts(g_norm, g_facts, p_norm, p_facts)
    return MappingProxyType(matched), frozenset(used)


def _generalises(g: Fact, p: Fact) -> bool:
    """A predicted name that only says less than gold's: the country of gold's city or region, or a title of
    office in place of gold's person ("France's President" for "France's Francois Hollande")."""
    if g.kind != "entity" or p.kind != "entity":
        return False
    return place_within(g.text, p.text) or title_for_name(g.text, p.text)


_COUNT_NOUNS = 2
_MEASURES = frozenset({"date", "time", "phone", "money", "percent", "quantity"})


def _counted(norm: str, fact: Fact) -> frozenset[str]:
    """What a bare number counts: the content words right after it in its clause ("3 nice options" ->
    {nice, option}); empty for other kinds of fact."""
    if fact.kind != "number":
        return frozenset()
    after = re.match(r"[^.,;:!?()\d]*", norm[fact.span[1]:])
    words = [lemma(w) for w in re.findall(r"[a-z]+", fold(after.group(0) if after else ""))]
    return frozenset([w for w in words if w not in STOPWORDS][:_COUNT_NOUNS])


_ARTICLE_COUNT = re.compile(r"\b([Aa]n?)((?:\s+[a-z][a-z'-]*){1,3})")


def article_for_one(g_norm: str, g: Fact, p_norm: str) -> tuple[int, int] | None:
    """Where the prediction says gold's count of one with an article ("a checked bag" for "one checked bag"):
    the article's span, or None. The words after the article must name everything gold's count counts."""
    nouns = _counted(g_norm, g)
    if g.kind != "number" or g.value != 1.0 or not nouns:
        return None
    hit = next((m for m in _ARTICLE_COUNT.finditer(p_norm)
                if nouns <= {lemma(fold(w)) for w in m.group(2).split()}), None)
    return hit.span(1) if hit else None


def counted_phrase(norm: str, fact: Fact) -> str:
    """A number with what it counts, as written ("2 checked bags"); other facts as they are."""
    if not _counted(norm, fact):
        return fact.text
    end, seen = fact.span[1], 0
    for m in re.finditer(r"[A-Za-z][A-Za-z'-]*", norm[fact.span[1]:]):
        if re.search(r"[.,;:!?()\d]", norm[end : fact.span[1] + m.start()]) or seen == _COUNT_NOUNS:
            break
        if lemma(fold(m.group(0))) not in STOPWORDS:  # "2 bedrooms", not "2 bedrooms and"
            end, seen = fact.span[1] + m.end(), seen + 1
    return norm[fact.span[0] : end].rstrip()


def _unclaimed_text(p_norm: str, p_facts: Sequence[Fact], used: AbstractSet[int], g: Fact) -> str:
    """The folded prediction with claimed facts, and (for a bare number) measures that hold a number as a
    part ("8" in "March 8th", "8:30 pm", "$8"), blanked out."""
    return fold(_unclaimed(p_norm, p_facts, used, g))


def _unclaimed(p_norm: str, p_facts: Sequence[Fact], used: AbstractSet[int], g: Fact) -> str:
    chars = list(p_norm)
    for i, p in enumerate(p_facts):
        if i in used or (g.kind == "number" and p.kind in _MEASURES):
            chars[p.span[0]:p.span[1]] = " " * (p.span[1] - p.span[0])
    return "".join(chars)


def _named_otherwise(g: Fact, p_norm: str, p_facts: Sequence[Fact], used: AbstractSet[int]) -> bool:
    """Whether the prediction names gold's city by another name that can refer to it, capitalised, in words
    no other fact claims ("NOLA" in "19 hurt in NOLA Mother's Day shooting" for gold's "New Orleans")."""
    if g.kind != "entity":
        return False
    names = other_names(g.text)
    if not names:
        return False
    text = _unclaimed(p_norm, p_facts, used, g)
    for m in re.finditer(r"\b[A-Z][\w'’.-]*(?:\s+[A-Z\d][\w'’.-]*)*", text):
        words = m.group(0).split()
        spans = [" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, len(words) + 1)]
        hit = next((s for s in spans if fold(s).strip(".") in names), None)
        if hit is not None and not _placed_elsewhere(g.text, hit, text[m.end():]):
            return True
    return False


def _countries(word: str) -> frozenset[str]:
    """The countries a word names, in the singular or plural ("Palestinian", "Palestinians")."""
    return countries_of(word) or countries_of(lemma(fold(word)))


def _same_country(g: Fact, p_facts: Sequence[Fact], used: AbstractSet[int]) -> int | None:
    """The predicted name fact, not yet claimed, that names the country gold's name or word for a people names
    ("Syria" for gold's "Syrian")."""
    wanted = _countries(g.text) if g.kind == "entity" else frozenset()
    return next((i for i, p in enumerate(p_facts)
                 if wanted and i not in used and p.kind == "entity" and _countries(p.text) & wanted), None)


def _country_named(g: Fact, p_norm: str, p_facts: Sequence[Fact], used: AbstractSet[int]) -> bool:
    """Whether gold's name of a country or its people is named by a capitalised word of the prediction that no
    other fact claims and that names the same country in another form ("Israeli" for gold's "Israel", a
    sentence's first word, which is no name fact of its own)."""
    if g.kind != "entity" or not (wanted := _countries(g.text)):
        return False
    text = _unclaimed(p_norm, p_facts, used, g)
    return any(_countries(m.group(0)) & wanted for m in re.finditer(r"\b[A-Z][\w'’.]*", text))


def _placed_elsewhere(gold: str, name: str, after: str) -> bool:
    """Whether the words after ``name`` place it somewhere gold's city is not ("Nola, Italy")."""
    where = re.match(r",\s*([A-Z][\w'’. -]*?)(?=\s*(?:[.;:!?(]|,\s*[a-z]|$))", after)
    return where is not None and place_relation(gold, f"{name}, {where.group(1)}") == "different"


def _amount(f: Fact) -> float | None:
    v = f.value
    if isinstance(v, Money | Quantity):
        return v.amount
    return v if isinstance(v, float) else None


def _same_amount(g: Fact, p: Fact) -> bool:
    """Two amounts of one number in other units of speech ("7 miles per hour" / "7 miles an hour"), unless
    both name currencies, or both the periods of rates, and they differ."""
    if SLOT_GROUP[g.kind] != "amount" or SLOT_GROUP[p.kind] != "amount":
        return False
    if isinstance(g.value, Money) and isinstance(p.value, Money):
        currencies = {g.value.currency, p.value.currency} - {None}
        periods = {g.value.per, p.value.per} - {None}
        if len(currencies) > 1 or len(periods) > 1:
            return False
    a, b = _amount(g), _amount(p)
    return a is not None and b is not None and abs(a - b) <= 1e-9 * max(1.0, abs(a))


def _covered(p: Fact, g_facts: Sequence[Fact], g_low: str) -> bool:
    """A predicted fact gold states too (it cannot stand in for another gold value). A place named inside a
    gold name of another place is not stated by gold ("York" in "New York")."""
    if any(same_fact(g, p) or _same_amount(g, p) for g in g_facts):
        return True
    return _mentioned(p, g_low) and not (
        p.kind == "entity" and any(g.kind == "entity" and other_places(str(g.value), str(p.value)) for g in g_facts))


def unsupported_facts(
    reply: str,
    sources: Sequence[Any],
    values: ValueComparing,
    names: bool = True,
    stated: Callable[[str], bool] | None = None,
    values_too: bool = True,
    sources_for: Callable[[str], Sequence[Any]] | None = None,
) -> tuple[str, ...]:
    """The typed facts of ``reply`` that no source supports under the value comparators (``names``: names too,
    not only numbers, money, dates, times, ids...; ``values_too=False``: names only), each once, in order. A
    fact a source states word for word is supported without a comparator (``states_word_for_word``; ``stated``:
    that scan over sources folded once already, the conversation's ``SourceIndex.states``). ``sources_for``: the
    sources each fact is compared with (its candidates, ``SourceIndex.candidates``), else all of ``sources``."""
    if stated is None:
        folded = [folded_source(s) for s in sources]

        def stated(text: str) -> bool:
            return any(states_word_for_word(t, text) for t in folded)

    return tuple(
        dict.fromkeys(
            f.text
            for f in extract_facts(reply)
            if (names if f.kind == "entity" else values_too)
            and not stated(f.text)
            and not values.supported(
                f.text, sources if sources_for is None else sources_for(f.text), typed_only=f.kind != "entity"
            ).equivalent
        )
    )
