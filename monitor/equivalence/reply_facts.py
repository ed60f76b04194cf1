"""The facts of a gold reply, found (or not) in a predicted reply.

A gold fact (number, money, date, time, count, name, place, id, phone number, address) is *kept* when
the prediction states the same value (in any spelling the typed comparator accepts); *changed* when the
prediction leaves it out but states another value of the same slot in its place; *dropped* otherwise.
Facts the prediction adds are not judged here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from monitor.equivalence.facts import Fact, extract_facts, facts_agree, normalise_numbers
from monitor.equivalence.normalize import STOPWORDS, fold
from monitor.equivalence.typed import Money, Quantity

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
_PHRASE_WORDS = 2

SameValue = Callable[[Fact, Fact], bool]


@dataclass(frozen=True)
class GoldFact:
    """A fact of the gold reply, with ``phrase``: the fact and the words that introduce it ("closes at 6")."""

    fact: Fact
    phrase: str
    clause: int = 0  # index of its clause among ``clause_starts``


@dataclass(frozen=True)
class FactDiff:
    changed: tuple[tuple[GoldFact, Fact], ...]  # (gold fact, the predicted value in its place)
    dropped: tuple[GoldFact, ...]
    kept: int


@lru_cache(maxsize=32768)
def reply_facts(text: str) -> tuple[str, tuple[Fact, ...]]:
    """The number-normalised text and the slot-value facts in it."""
    norm = normalise_numbers(text)
    title_case = _title_cased(norm)
    facts = tuple(f for f in extract_facts(text)
                  if not (f.kind == "entity" and (title_case or fold(f.text) in _GENERIC)))
    return norm, facts


def _title_cased(text: str) -> bool:
    """A headline-style text ("Jordan Opens First Tent Camp"): its capitals mark no names."""
    words = [w for w in re.findall(r"[A-Za-z]+", text) if len(w) >= 4]
    return len(words) >= 3 and sum(w[0].isupper() for w in words) >= 0.7 * len(words)


def phrase_of(fact: Fact, norm: str, clause_start: int) -> str:
    """The fact with up to two words before it in its clause, stopwords not counted ("closes at 6")."""
    before = list(_WORD.finditer(norm, clause_start, fact.span[0]))
    taken: list[str] = []
    for m in reversed(before):
        taken.insert(0, m.group(0))
        if sum(fold(w) not in STOPWORDS for w in taken) >= _PHRASE_WORDS or len(taken) >= 4:
            break
    return " ".join([*taken, fact.text]).strip()


def _mentioned(fact: Fact, other_low: str) -> bool:
    key = fold(fact.text).strip(".")
    return bool(key) and bool(re.search(rf"(?<![a-z0-9]){re.escape(key)}(?![a-z0-9])", other_low))


def _context(norm: str, fact: Fact) -> str:
    words = _WORD.findall(norm[max(0, fact.span[0] - 30) : fact.span[0]])
    return fold(words[-1]) if words else ""


def _rival(g: Fact, g_norm: str, free: Sequence[Fact], p_norm: str) -> Fact | None:
    """The predicted value standing in gold's slot: same kind first, then same group, then same lead word."""
    group = [p for p in free if SLOT_GROUP[p.kind] == SLOT_GROUP[g.kind]]
    if not group:
        return None
    lead = _context(g_norm, g)
    return max(group, key=lambda p: (p.kind == g.kind, bool(lead) and _context(p_norm, p) == lead))


def diff_facts(gold: str, pred: str, same_value: SameValue, clause_starts: Sequence[int] = (0,)) -> FactDiff:
    """Compare the facts of ``gold`` with ``pred``; ``same_value`` is the typed comparison of two facts of one
    slot group, tried after the built-in agreement and a literal mention. ``clause_starts`` are the character
    offsets (in the number-normalised gold) where gold's clauses start, for naming facts."""
    g_norm, g_facts = reply_facts(gold)
    p_norm, p_facts = reply_facts(pred)
    p_low = fold(p_norm)
    g_low = fold(g_norm)
    missing: list[Fact] = []
    used: set[int] = set()
    for g in g_facts:
        hit = next((i for i, p in enumerate(p_facts) if facts_agree(g, p) or _same_amount(g, p)), None)
        if hit is None and _mentioned(g, p_low):
            continue
        if hit is None:
            hit = next((i for i, p in enumerate(p_facts)
                        if SLOT_GROUP[p.kind] == SLOT_GROUP[g.kind] and same_value(g, p)), None)
        if hit is None:
            missing.append(g)
        else:
            used.add(hit)
    free = [p for i, p in enumerate(p_facts) if i not in used and not _covered(p, g_facts, g_low)]
    changed: list[tuple[GoldFact, Fact]] = []
    dropped: list[GoldFact] = []
    for g in missing:
        clause = max((i for i, s in enumerate(clause_starts) if s <= g.span[0]), default=0)
        start = clause_starts[clause] if clause_starts else 0
        gf = GoldFact(g, phrase_of(g, g_norm, start), clause)
        rival = _rival(g, g_norm, free, p_norm)
        if rival is None:
            dropped.append(gf)
        else:
            free.remove(rival)
            changed.append((gf, rival))
    return FactDiff(tuple(changed), tuple(dropped), len(g_facts) - len(missing))


def compared_values(gold: str, pred: str) -> list[tuple[str, str]]:
    """The (gold, predicted) fact texts ``diff_facts`` may hand to ``same_value``: gold facts that no predicted
    fact agrees with and that ``pred`` does not mention, against the predicted facts of their slot group.

    A caller encodes what these comparisons need for many replies in one batch, before comparing them one by one.
    """
    _, g_facts = reply_facts(gold)
    p_norm, p_facts = reply_facts(pred)
    p_low = fold(p_norm)
    out: list[tuple[str, str]] = []
    for g in g_facts:
        if any(facts_agree(g, p) or _same_amount(g, p) for p in p_facts) or _mentioned(g, p_low):
            continue
        out += [(g.text, p.text) for p in p_facts if SLOT_GROUP[p.kind] == SLOT_GROUP[g.kind]]
    return out


def _amount(f: Fact) -> float | None:
    v = f.value
    if isinstance(v, Money | Quantity):
        return v.amount
    return v if isinstance(v, float) else None


def _same_amount(g: Fact, p: Fact) -> bool:
    """Two amounts of one number in other units of speech ("7 miles per hour" / "7 miles an hour"), unless
    both name currencies and they differ."""
    if SLOT_GROUP[g.kind] != "amount" or SLOT_GROUP[p.kind] != "amount":
        return False
    if isinstance(g.value, Money) and isinstance(p.value, Money):
        currencies = {g.value.currency, p.value.currency} - {None}
        if len(currencies) > 1:
            return False
    a, b = _amount(g), _amount(p)
    return a is not None and b is not None and abs(a - b) <= 1e-9 * max(1.0, abs(a))


def _covered(p: Fact, g_facts: Sequence[Fact], g_low: str) -> bool:
    """A predicted fact gold states too (it cannot stand in for another gold value)."""
    return any(facts_agree(g, p) or _same_amount(g, p) for g in g_facts) or _mentioned(p, g_low)
