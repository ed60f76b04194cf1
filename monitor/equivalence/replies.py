"""Reply comparison: truthfulness (nothing in pred contradicts gold) and completeness (pred covers gold)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any

import structlog

from monitor.equivalence.abbreviations import CATEGORIES
from monitor.equivalence.calibration import REPLY_MODEL, reply_features
from monitor.equivalence.facts import NUMERIC_KINDS, Fact, extract_facts, facts_agree, normalise_numbers
from monitor.equivalence.normalize import STOPWORDS, alias_set, canon_string, expand_aliases, fold, lemma
from monitor.equivalence.semantic import SemanticScorer
from monitor.equivalence.types import ReplyMatch
from monitor.equivalence.values import ValueComparator

log = structlog.get_logger(__name__)

_WORD = re.compile(r"[A-Za-z0-9]+(?:[.'&/-][A-Za-z0-9]+)*")
_COPULA = frozenset({"is", "was", "were", "are", "be", "been", "totaled", "totalled", "total", "totaling",
                     "reached", "stood", "stands", "came", "amounted", "amounts", "equals", "equal", "of"})
_GROUP = {"money": "amount", "number": "amount", "percent": "amount", "quantity": "amount",
          "date": "date", "time": "time", "id": "id", "entity": "entity"}
_MAX_LISTED = 6
_TRUNCATED_PRECISION = 0.8
_TRUNCATED_RECALL = 0.5
# Words that link a label to its value: "revenue was 1.2M", "profit of $5", "EU revenue: 3%".
_LINK = frozenset({"is", "was", "were", "are", "be", "been", "of", "for", "at", "to", "totaled", "totalled",
                   "total", "totaling", "reached", "stood", "stands", "came", "amounted", "amounts", "equals",
                   "equal", "the", "a", "an", "about", "around", "approximately", "roughly", "nearly", "by"})


@dataclass(frozen=True)
class _Tok:
    text: str  # surface
    key: str  # lemma of the alias-expanded lower-case form
    start: int
    end: int
    content: bool
    fact: str  # kind of the fact the token belongs to, "" if none
    idx: int
    first: bool = True  # first token of its fact (a fact counts once in coverage)


@lru_cache(maxsize=32768)
def _analyse(text: str) -> tuple[str, tuple[Fact, ...], tuple[_Tok, ...]]:
    norm = normalise_numbers(text)
    facts = tuple(extract_facts(text))
    toks: list[_Tok] = []
    for m in _WORD.finditer(norm):
        w = m.group(0)
        low = fold(w)
        exp = expand_aliases(w) if (w.isupper() and len(w) >= 2) else low
        key = " ".join(lemma(x) for x in exp.split())
        owner = next((f for f in facts if f.span[0] <= m.start() < f.span[1]), None)
        first = owner is None or not (toks and toks[-1].start >= owner.span[0] and toks[-1].fact)
        toks.append(_Tok(w, _stem(key), m.start(), m.end(), low not in STOPWORDS,
                         owner.kind if owner else "", len(toks), first))
    return norm, facts, tuple(toks)


class ReplyComparator:
    """Compares a predicted natural-language reply with the gold reply."""

    def __init__(
        self,
        semantic: SemanticScorer | None = None,
        threshold: float = 0.5,
        values: ValueComparator | None = None,
    ) -> None:
        self.semantic = semantic
        self.threshold = threshold
        self.values = values or ValueComparator(semantic=semantic, threshold=threshold)

    # ------------------------------------------------------------------ public API
    def prefetch(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Encode all replies of ``pairs`` in one batch (one text per reply)."""
        if self.semantic is None:
            return
        texts: list[str] = []
        for gold, pred in pairs:
            if canon_string(gold) != canon_string(pred):
                texts.extend((gold.strip(), pred.strip()))
        if texts:
            self.semantic.prefetch(list(dict.fromkeys(texts)))

    def compare(self, gold: str, pred: str) -> ReplyMatch:
        gold, pred = gold or "", pred or ""
        if canon_string(gold) == canon_string(pred):
            return ReplyMatch(True, True, 1.0, (), (), "exact")
        g_norm, g_facts, g_toks = _analyse(gold)
        p_norm, p_facts, p_toks = _analyse(pred)
        diff = _fact_diff(g_facts, p_facts, g_norm, p_norm)
        mismatched = diff.mismatched + self._substitutions(g_toks, p_toks, diff.mismatched, g_norm, p_norm)
        mismatched += tuple(m for m in metric_swaps(gold, pred) if m not in mismatched)
        missing = diff.missing

        g_items = _items(g_toks)
        p_items = _items(p_toks)
        g_cov = _coverage(g_items, p_items, diff.g_unmatched_spans, fold(p_norm))
        p_cov = _coverage(p_items, g_items, diff.p_unmatched_spans, fold(g_norm))
        recall = sum(g_cov) / len(g_cov) if g_cov else 1.0
        precision = sum(p_cov) / len(p_cov) if p_cov else 1.0

        if self.semantic is not None:
            cos = self.semantic.similarity([(gold.strip(), pred.strip())])[0]
            truth_score = REPLY_MODEL.score(reply_features(cos, precision))
            comp_score = REPLY_MODEL.score(reply_features(cos, recall))
            method = "semantic"
        else:
            truth_score, comp_score = precision, recall
            method = "lexical"
        # A prediction that only repeats part of gold (nothing of its own, most of gold left out) is
        # a truncated reply, however close its embedding.
        if precision >= _TRUNCATED_PRECISION and recall < _TRUNCATED_RECALL:
            comp_score = min(comp_score, recall)
        truthful = not mismatched and truth_score >= self.threshold
        complete = not missing and comp_score >= self.threshold
        score = min(truth_score, comp_score)
        if mismatched or missing:
            score = min(score, 0.45)
            method += "+facts"
        if not truthful and not mismatched:
            mismatched = tuple(dict.fromkeys(
                t.text for t, c in zip(p_items, p_cov, strict=True) if not c and t.content))[:_MAX_LISTED]
        if not complete and not missing:
            missing = tuple(dict.fromkeys(
                t.text for t, c in zip(g_items, g_cov, strict=True) if not c and t.content))[:_MAX_LISTED]
        return ReplyMatch(truthful, complete, round(float(score), 4), tuple(mismatched), tuple(missing), method)

    def unsupported_facts(self, reply: str, sources: Sequence[Any]) -> tuple[str, ...]:
        """Facts in ``reply`` (numbers, amounts, dates, ids, named entities) that no source supports."""
        out: list[str] = []
        for f in extract_facts(reply):
            if f.kind == "entity" and fold(f.text) in _GENERIC_ENTITIES:
                continue
            m = self.values.supported(f.text, sources)
            if not m.equivalent:
                out.append(f.text)
        return tuple(dict.fromkeys(out))

    # ------------------------------------------------------------------ internals
    def _substitutions(
        self, g_toks: Sequence[_Tok], p_toks: Sequence[_Tok], already: Sequence[str], g_norm: str, p_norm: str
    ) -> tuple[str, ...]:
        """Content words swapped next to a fact ("revenue was 1.2M" -> "profit was 0.3M")."""
        if not any(t.fact for t in p_toks) and not any(t.fact for t in g_toks):
            return ()
        g = [t for t in g_toks if t.content or t.fact]
        p = [t for t in p_toks if t.content or t.fact]
        sm = SequenceMatcher(None, [t.key for t in g], [t.key for t in p], autojunk=False)
        out: list[str] = []
        for op, i1, i2, j1, j2 in sm.get_opcodes():
            if op != "replace":
                continue
            gw = [t for t in g[i1:i2] if not t.fact]
            pw = [t for t in p[j1:j2] if not t.fact]
            if not gw or not pw or len(gw) > 2 or len(pw) > 2:
                continue
            if not (_labels_fact(p_toks, pw, p_norm) and _labels_fact(g_toks, gw, g_norm)):
                continue
            g_phrase = " ".join(t.text for t in gw)
            p_phrase = " ".join(t.text for t in pw)
            if alias_set(g_phrase) & alias_set(p_phrase):
                continue
            if not self.values.compare(g_phrase, p_phrase).equivalent:
                out.append(p_phrase)
        return tuple(x for x in out if x not in already)


_GENERIC_ENTITIES = frozenset(
    {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today", "tomorrow",
     "sure", "thanks", "thank", "hello", "hi", "ok", "okay", "yes", "no", "please", "dear"}
)


@dataclass(frozen=True)
class _FactDiff:
    mismatched: tuple[str, ...]
    missing: tuple[str, ...]
    g_unmatched_spans: tuple[tuple[int, int], ...]
    p_unmatched_spans: tuple[tuple[int, int], ...]


# A gold fact of these kinds that the prediction leaves out makes it incomplete outright; other facts
# (plain numbers, named entities) only weigh in the coverage score.
_HARD_MISSING = frozenset({"money", "percent", "quantity", "date", "time", "id"})


def _fact_diff(g_facts: Sequence[Fact], p_facts: Sequence[Fact], g_norm: str, p_norm: str) -> _FactDiff:
    g_low, p_low = fold(g_norm), fold(p_norm)
    g_free = [g for g in g_facts if not any(facts_agree(g, p) for p in p_facts) and not _mentioned(g, p_low)]
    p_free = [p for p in p_facts if not any(facts_agree(g, p) for g in g_facts) and not _mentioned(p, g_low)]
    mismatched: list[str] = []
    rivalled: set[int] = set()
    for p in p_free:
        group = _GROUP[p.kind]
        for gi, g in enumerate(g_free):
            if _GROUP[g.kind] != group:
                continue
            if p.kind in NUMERIC_KINDS or _entity_clash(p, g):
                mismatched.append(p.text)
                rivalled.add(gi)
                break
    missing = [g.text for gi, g in enumerate(g_free) if gi not in rivalled and g.kind in _HARD_MISSING]
    return _FactDiff(
        tuple(dict.fromkeys(mismatched)),
        tuple(dict.fromkeys(missing)),
        tuple(g.span for g in g_free),
        tuple(p.span for p in p_free),
    )


def _items(toks: Sequence[_Tok]) -> list[_Tok]:
    """The units coverage counts: content words, and each fact once."""
    return [t for t in toks if (t.fact and t.first) or (t.content and not t.fact)]


def _coverage(items: Sequence[_Tok], other: Sequence[_Tok], unmatched: Sequence[tuple[int, int]],
              other_low: str) -> list[bool]:
    """Per token of ``items``: does the other text cover it? Fact tokens follow their fact's verdict."""
    other_keys = {t.key for t in other}
    out = []
    for t in items:
        k = t.key
        if t.fact and (k in other_keys or not any(s <= t.start < e for s, e in unmatched)):
            out.append(True)
            continue
        hit = k in other_keys or any(
            len(k) >= 4 and len(b) >= 4 and (b.startswith(k[:5]) or k.startswith(b[:5])) for b in other_keys)
        out.append(hit or (" " in k and k in other_low))
    return out


def _labels_fact(toks: Sequence[_Tok], words: Sequence[_Tok], text: str) -> bool:
    """Are ``words`` the label of an adjacent fact, with only link words between ("revenue was 1.2M")?

    A clause break (":", ";", a dash, a comma) ends the label unless the fact follows it directly
    ("EU revenue: 3%"): in "the report is ready: the total was 450" the label of 450 is "total".
    """
    return _reaches_fact(toks, words[-1].idx + 1, 1, text)


_CLAUSE_BREAK = re.compile(r"[:;,\u2013\u2014(]|\s-\s")


def _reaches_fact(toks: Sequence[_Tok], i: int, step: int, text: str = "") -> bool:
    hops = 0
    copula = False
    while 0 <= i < len(toks) and hops <= 3:
        if text and step == 1 and i > 0 and not toks[i].fact and _CLAUSE_BREAK.search(
            text[toks[i - 1].end : toks[i].start]
        ):
            return False
        if toks[i].fact:
            return copula and toks[i].fact in NUMERIC_KINDS
        word = fold(toks[i].text)
        if word not in _LINK:
            return False
        copula = copula or word in _COPULA
        i += step
        hops += 1
    return False


def _stem(key: str) -> str:
    """A crude suffix stripper for matching inflections (departs/departed/departing)."""
    if " " in key or not key.isalpha() or len(key) <= 4:
        return key
    for suf in ("ing", "ed", "es", "ly", "s"):
        if key.endswith(suf) and len(key) - len(suf) >= 3:
            return key[: -len(suf)]
    return key


def _mentioned(f: Fact, other_low: str) -> bool:
    key = fold(f.text)
    return bool(re.search(rf"(?<![a-z0-9]){re.escape(key)}(?![a-z0-9])", other_low))


def _entity_clash(p: Fact, g: Fact) -> bool:
    """A one-word name replaced by another, unrelated one (EU -> US, Paris -> London), not a variant of it
    (Greece -> Greek, Syria -> Syrian)."""
    if p.kind != "entity" or g.kind != "entity" or " " in p.text or " " in g.text:
        return False
    a, b = fold(p.text).strip("."), fold(g.text).strip(".")
    if a[:4] == b[:4] or alias_set(a) & alias_set(b):
        return False
    return p.text.isupper() == g.text.isupper()


def reply_coverage(gold: str, pred: str) -> tuple[float, float]:
    """(recall, precision): how much of gold the prediction covers, and of the prediction gold covers."""
    g_norm, g_facts, g_toks = _analyse(gold)
    p_norm, p_facts, p_toks = _analyse(pred)
    diff = _fact_diff(g_facts, p_facts, g_norm, p_norm)
    g_items = _items(g_toks)
    p_items = _items(p_toks)
    g_cov = _coverage(g_items, p_items, diff.g_unmatched_spans, fold(p_norm))
    p_cov = _coverage(p_items, g_items, diff.p_unmatched_spans, fold(g_norm))
    return (sum(g_cov) / len(g_cov) if g_cov else 1.0, sum(p_cov) / len(p_cov) if p_cov else 1.0)


_METRIC_NAMES = sorted(CATEGORIES.get("metric", {}), key=len, reverse=True)
_METRIC_RE = re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in _METRIC_NAMES) + r")(?![\w-])")


def metric_terms(text: str) -> dict[str, str]:
    """Metric names in a text: canonical metric -> the words used ("net income" -> profit)."""
    table = CATEGORIES.get("metric", {})
    return {table[m.group(1)]: m.group(1) for m in _METRIC_RE.finditer(fold(text))}


def metric_swaps(gold: str, pred: str) -> tuple[str, ...]:
    """Metrics the prediction names in place of different ones gold names ("revenue" -> "profit")."""
    g, p = metric_terms(gold), metric_terms(pred)
    if not (g.keys() - p.keys()):
        return ()
    return tuple(p[m] for m in p.keys() - g.keys())
