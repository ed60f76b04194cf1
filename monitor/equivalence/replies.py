"""Reply comparison at the level of facts and clauses.

* Every value-bearing fact of the gold reply must be in the prediction: a fact left out makes the reply
  incomplete; another value in its slot makes it inconsistent (``reply_facts``).
* A gold clause and the predicted clause that says the same thing must agree in polarity ("was approved" /
  "was not approved"): a flip is inconsistent (``polarity``).
* A gold clause without a checkable fact ("rented a car for the weekend") must be covered by the prediction,
  judged by sentence embeddings, never by shared words.
* The whole prediction must be close to gold in meaning (embedding cosine): wording is free.

``analyse`` does the threshold-free work of a pair (facts, embeddings); ``decide`` applies the thresholds
(``ReplyThresholds``), so the benchmark can choose them on held-out folds without recomputing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import structlog

from monitor.cache import LruCache
from monitor.equivalence.abbreviations import CATEGORIES
from monitor.equivalence.alignment import content_aligned
from monitor.equivalence.calibration import DEFAULT_REPLY_THRESHOLDS, ReplyThresholds
from monitor.equivalence.categories import category_clashes, state_kept
from monitor.equivalence.demonyms import other_countries
from monitor.equivalence.existential import denies_something_else
from monitor.equivalence.facts import Fact, extract_facts
from monitor.equivalence.normalize import STOPWORDS, canon_string, content_tokens, fold
from monitor.equivalence.polarity import Clause, clauses, no_cost_agrees, understatements
from monitor.equivalence.questions import question_clashes
from monitor.equivalence.reply_facts import FactDiff, GoldFact, diff_facts, reply_facts
from monitor.equivalence.semantic import SemanticScorer
from monitor.equivalence.spelling import misspelt
from monitor.equivalence.substitution import Substitution, substitution
from monitor.equivalence.types import ReplyMatch, reply_reason  # noqa: F401 - re-exported
from monitor.equivalence.values import ValueComparator
from monitor.models.vocabulary import FailureReason

log = structlog.get_logger(__name__)

INCONSISTENT = FailureReason.INCONSISTENT_RESPONSE
INCOMPLETE = FailureReason.INCOMPLETE_RESPONSE
_MIN_CLAUSE_CONTENT = 2  # content words a fact-less gold clause needs before its coverage is checked
_FACT_FAIL_SCORE = 0.45
_RESTATES = 0.9  # clause cosine of a near word-for-word restatement
# Pairs whose facts and clauses ``prefetch`` worked out, kept for ``analyse`` (a poll's worth, and then some).
PAIR_MEMO_SIZE = 4096


@dataclass(frozen=True)
class ClauseCheck:
    """One gold clause against the prediction."""

    text: str
    checkable: bool  # a fact-less statement with content (its coverage is judged)
    coverage: float  # best similarity to a predicted clause or the whole prediction
    align: float  # similarity to the closest predicted clause
    flipped_by: str | None  # that predicted clause, when its polarity is the opposite of gold's


@dataclass(frozen=True)
class ReplyAnalysis:
    """Everything about a reply pair that does not depend on the thresholds."""

    exact: bool
    cos: float
    facts: FactDiff
    swaps: tuple[str, ...]
    clauses: tuple[ClauseCheck, ...]
    method: str
    clashes: tuple[tuple[str, str], ...] = ()  # (predicted, gold) category words of one set ("pop", "country"),
    # or the things two questions ask for ("which city", "what date")
    substituted: Substitution | None = None  # a noun in place of an incompatible gold noun ("cat" / "lamb")
    aligned: bool = False  # every content word of gold is said by the prediction (``alignment``)


_EXACT = ReplyAnalysis(True, 1.0, FactDiff((), (), 0), (), (), "exact")


@dataclass(frozen=True)
class PairFacts:
    """The threshold- and embedding-free part of a pair's analysis: gold's normalised text and facts, both
    replies' clauses, and the fact comparison. ``prefetch`` works it out (to know which clauses to encode)
    and ``analyse`` reads it back instead of comparing the facts a second time."""

    g_norm: str
    g_facts: tuple[Fact, ...]
    g_clauses: tuple[Clause, ...]
    p_clauses: tuple[Clause, ...]
    facts: FactDiff
    aligned: bool
    to_cover: tuple[bool, ...]  # per gold clause: a fact-less statement whose coverage is judged (``_checkable``)
    # and whose reported state, if any, the prediction does not keep (``categories.state_kept``)


class ReplyComparator:
    """Compares a predicted natural-language reply with the gold reply."""

    def __init__(
        self,
        semantic: SemanticScorer | None = None,
        threshold: float = 0.5,
        values: ValueComparator | None = None,
        thresholds: ReplyThresholds = DEFAULT_REPLY_THRESHOLDS,
    ) -> None:
        self.semantic = semantic
        self.threshold = threshold
        self.thresholds = thresholds
        self.values = values or ValueComparator(semantic=semantic, threshold=threshold)
        # Deterministic per pair, so an entry evicted before ``analyse`` is only worked out again.
        self.pair_memo: LruCache[tuple[str, str], PairFacts] = LruCache("reply_pair_facts", PAIR_MEMO_SIZE)

    # ------------------------------------------------------------------ public API
    def prefetch(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Encode, in one batch, the replies of ``pairs`` and their clauses."""
        if self.semantic is None:
            return
        differ = [(g, p) for g, p in pairs if canon_string(g) != canon_string(p)]
        whole = [t for g, p in differ for t in (g.strip(), p.strip())]
        if whole:
            self.semantic.prefetch(list(dict.fromkeys(whole)))
        # Then the clauses of the pairs whose verdict their similarities can change (the whole replies' cosine,
        # now cached, tells): a second batch.
        texts = [t for g, p in differ for t in self._clause_texts(g, p)]
        if texts:
            self.semantic.prefetch(list(dict.fromkeys(texts)))

    def compare(self, gold: str, pred: str) -> ReplyMatch:
        return self.decide(self.analyse(gold, pred, self.thresholds), self.thresholds)

    def analyse(self, gold: str, pred: str, th: ReplyThresholds | None = None) -> ReplyAnalysis:
        """The pair's analysis; with ``th`` (the thresholds ``decide`` will apply), clause similarities that
        cannot change that verdict are not computed (their checks carry no similarity)."""
        gold, pred = gold or "", pred or ""
        if canon_string(gold) == canon_string(pred):
            return _EXACT
        pf = self.pair_facts(gold, pred)
        g_facts, g_clauses, p_clauses, facts = pf.g_facts, pf.g_clauses, pf.p_clauses, pf.facts
        cos = self._similarity([(gold.strip(), pred.strip())])[0]
        if _clauses_matter(pf) and self._clauses_decide(th, cos, pf):
            checks = self._clause_checks(pf, pred.strip())
        else:  # no clause similarity can change the verdict: none is computed (nor encoded)
            checks = tuple(ClauseCheck(g.text, False, 0.0, 0.0, None) for g in g_clauses) if p_clauses else ()
        method = "semantic" if self.semantic is not None else "lexical"
        clashes = category_clashes(gold, pred) + question_clashes(gold, pred)  # "which city" for "what date"
        return ReplyAnalysis(False, cos, facts, metric_swaps(gold, pred), checks, method, clashes,
                             _substituted(gold, pred, g_facts, th), pf.aligned)

    def decide(self, a: ReplyAnalysis, th: ReplyThresholds) -> ReplyMatch:
        """The verdict of an analysed pair under thresholds ``th``."""
        if a.exact:
            return ReplyMatch(True, True, 1.0, (), (), "exact")
        # Only an embedding cosine weighs against details: word overlap is 1.0 for any omission.
        weighed = a.method == "semantic"
        found = [f for f in _findings(a, th) if not (weighed and _outweighed(f, a.cos, th))]
        mismatched = [f.text for f in found if f.contradicts]
        missing = [f.text for f in found if not f.contradicts]
        details = [f.detail for f in found]
        cut = _cut(a.facts, a.aligned, th)
        off_topic = a.cos < cut
        if off_topic and not (mismatched or missing):
            details.append(f"says something other than gold (similarity {a.cos:.2f})")
        truthful = not mismatched and not off_topic
        complete = not missing and not off_topic
        score = _score(a.cos, cut)
        method = a.method
        if mismatched or missing:
            score = min(score, _FACT_FAIL_SCORE)
            method += "+facts"
        detail = "; ".join(dict.fromkeys(details)) or None
        return ReplyMatch(truthful, complete, round(score, 4), _unique(mismatched), _unique(missing), method, detail)

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

    def pair_facts(self, gold: str, pred: str) -> PairFacts:
        """The pair's facts and clauses (``PairFacts``), from the memo when ``prefetch`` has worked them out."""
        key = (gold, pred)
        known = self.pair_memo.get(key)
        if known is None:
            g_norm, g_facts = reply_facts(gold)
            g_clauses, p_clauses = clauses(g_norm), clauses(reply_facts(pred)[0])
            facts = diff_facts(gold, pred, self._same_value, tuple(c.span[0] for c in g_clauses))
            to_cover = tuple(_checkable(g_norm, g_facts, g) and not state_kept(g.text, pred) for g in g_clauses)
            known = PairFacts(g_norm, g_facts, g_clauses, p_clauses, facts, content_aligned(gold, pred), to_cover)
            self.pair_memo.put(key, known)
        return known

    # ------------------------------------------------------------------ internals
    def _same_value(self, g: Fact, p: Fact) -> bool:
        if g.kind == "entity" and other_countries(g.text, p.text):
            return False  # Algerian / Tunisian, Austria / Australian: whatever an embedding says of them
        if g.kind == "entity" and _variant(fold(g.text), fold(p.text)):
            return True  # Greece / Greek, Syria / Syrian, Timothy / Tim
        if g.kind == "entity" and misspelt(g.text, p.text):
            return True  # Eygptian / Egypt's
        return self.values.compare(g.text, p.text).equivalent

    def _clause_texts(self, gold: str, pred: str) -> list[str]:
        """The clause texts ``analyse`` will compare for this pair (none when ``_clauses_matter`` says no)."""
        pf = self.pair_facts(gold, pred)
        if not _clauses_matter(pf):
            return []
        cos = self._similarity([(gold.strip(), pred.strip())])[0]  # cached by the first batch
        if not self._clauses_decide(self.thresholds, cos, pf):
            return []
        return [c.text for c in (*pf.g_clauses, *pf.p_clauses)]

    def _clauses_decide(self, th: ReplyThresholds | None, cos: float, pf: PairFacts) -> bool:
        """Whether clause similarities can change ``decide``'s verdict under ``th`` (None: any thresholds),
        given the whole replies' cosine. A possible negation always needs them. A verdict ``_settled`` by the
        typed facts does not. A gold name left out and a
        fact-less clause only yield wording findings, which whole replies at ``min(overrule, overrule_names)``
        outweigh whatever the clauses' coverage (``_outweighed``)."""
        if th is None or self.semantic is None:
            return True
        g_clauses, p_clauses, facts = pf.g_clauses, pf.p_clauses, pf.facts
        if th.align <= 1 and any(g.negated != p.negated for g in g_clauses for p in p_clauses):
            return True
        if _settled(cos, facts, pf.aligned, th):
            return False
        if cos >= min(th.overrule, th.overrule_names):
            return False
        return any(d.fact.kind == "entity" for d in facts.dropped) or (
            th.clause > 0 and any(pf.to_cover)
        )

    def _similarity(self, pairs: list[tuple[str, str]]) -> list[float]:
        if not pairs:
            return []
        if self.semantic is not None:
            return [float(x) for x in self.semantic.similarity(pairs)]
        return [_word_overlap(a, b) for a, b in pairs]

    def _clause_checks(self, pf: PairFacts, pred: str) -> tuple[ClauseCheck, ...]:
        g_clauses, p_clauses = pf.g_clauses, pf.p_clauses
        if not g_clauses or not p_clauses:
            return ()
        pairs = [(g.text, p.text) for g in g_clauses for p in p_clauses] + [(g.text, pred) for g in g_clauses]
        sims = self._similarity(pairs)
        n = len(p_clauses)
        rows = [sims[i * n : (i + 1) * n] for i in range(len(g_clauses))]
        # A predicted clause that restates one gold clause nearly word for word says that and nothing else:
        # it does not also cover the other gold clauses (nor does the whole prediction, if it is that clause).
        owner = {j: i for i, row in enumerate(rows) for j in range(n) if row[j] >= _RESTATES}
        out = []
        for i, g in enumerate(g_clauses):
            row = [0.0 if owner.get(j, i) != i else x for j, x in enumerate(rows[i])]
            j = max(range(n), key=rows[i].__getitem__)
            whole = sims[len(g_clauses) * n + i] if n > 1 or owner.get(0, i) == i else 0.0
            checkable = pf.to_cover[i]
            flipped = p_clauses[j].text if p_clauses[j].negated != g.negated else None
            if flipped and (understatements(g.text, p_clauses[j].text) or no_cost_agrees(g.text, p_clauses[j].text)):
                flipped = None  # "is not really all that important" / "is almost just representative"; "no
                # entry fee" / "free to enter"
            if flipped and denies_something_else(g.text, p_clauses[j].text):
                flipped = None  # "There's no rule that decides who may bowl" / "A team can use the same player"
            out.append(ClauseCheck(g.text, checkable, max(max(row), whole), rows[i][j], flipped))
        return tuple(out)


class Weight(StrEnum):
    """How a finding weighs against the whole replies' cosine (``ReplyThresholds.overrule*``)."""

    CONTRADICTION = "contradiction"  # a changed value, a negated clause, a swapped metric or category word
    VALUE = "value"  # a typed value (number, money, date, time, phone, address, id) left out
    WORDING = "wording"  # a name left out, a fact-less clause not covered


@dataclass(frozen=True)
class Finding:
    text: str  # the predicted words (contradiction) or the gold fact or clause (omission)
    detail: str
    contradicts: bool
    weight: Weight


def _findings(a: ReplyAnalysis, th: ReplyThresholds) -> list[Finding]:
    """Every fact, polarity and coverage finding of an analysed pair, contradictions first."""
    out: list[Finding] = []
    for g, p in a.facts.changed:
        out.append(
            Finding(_shown(p.text), f"'{_shown(p.text)}' vs gold '{_shown(g.fact.text)}'", True, Weight.CONTRADICTION)
        )
    for swap in a.swaps:
        out.append(Finding(swap, f"'{swap}' in place of gold's metric", True, Weight.CONTRADICTION))
    for p_word, g_word in a.clashes:
        out.append(Finding(p_word, f"'{p_word}' in place of gold's '{g_word}'", True, Weight.CONTRADICTION))
    sub = a.substituted
    if sub is not None and sub.pred_word and sub.shared >= th.substitution and a.cos < th.substitution_cos:
        out.append(Finding(sub.pred_word, f"'{sub.pred_word}' vs gold '{sub.gold_word}'", True, Weight.CONTRADICTION))
    for c in a.clauses:
        if c.flipped_by is not None and c.align >= th.align:
            out.append(Finding(c.flipped_by, f"'{c.flipped_by}' negates gold '{c.text}'", True, Weight.CONTRADICTION))
    for g in a.facts.dropped:
        if g.fact.kind == "entity" and _clause_coverage(a, g.clause) >= th.entity:
            continue  # a name left out of a clause the prediction otherwise states: wording
        out.append(Finding(g.fact.text, f"leaves out '{_shown(g.phrase)}'", False, _fact_weight(g)))
    for c in a.clauses:
        if c.checkable and th.clause > 0 and c.coverage < th.clause:
            out.append(Finding(c.text, f"leaves out '{c.text}'", False, Weight.WORDING))
    return out


def _substituted(gold: str, pred: str, g_facts: Sequence[Fact], th: ReplyThresholds | None) -> Substitution | None:
    """A noun substituted in a minimal pair, looked for in fact-less gold replies (where gold states facts,
    the fact checks judge what the prediction says), unless thresholds ``th`` turn the check off."""
    if g_facts or (th is not None and th.substitution > 1):
        return None
    return substitution(gold, pred)


def _cut(facts: FactDiff, aligned: bool, th: ReplyThresholds) -> float:
    """The whole-reply cosine below which two replies do not say the same thing: ``semantic``, or
    ``semantic_facts`` when gold states typed values and the prediction keeps every gold fact; at most
    ``semantic_aligned`` when the prediction says every content word of gold (``alignment``)."""
    all_kept = facts.kept_values > 0 and not facts.changed and not facts.dropped
    cut = th.semantic_facts if all_kept else th.semantic
    return min(cut, th.semantic_aligned) if aligned else cut


def _settled(cos: float, facts: FactDiff, aligned: bool, th: ReplyThresholds) -> bool:
    """Whether an off-topic reply's verdict, failure reason and score are fixed before its clauses are
    compared (the caller has ruled out a negation): a changed value makes it inconsistent; else a typed value
    left out, which nothing outweighs this far apart, makes it incomplete. Clauses could only add omissions,
    which change neither, and name them in the detail."""
    if cos >= _cut(facts, aligned, th):
        return False
    nothing_outweighed = cos < min(th.overrule, th.overrule_names)
    return bool(facts.changed) or (nothing_outweighed and any(d.fact.kind != "entity" for d in facts.dropped))


def _fact_weight(g: GoldFact) -> Weight:
    """A name left out may be wording (a description, a title or a pronoun stands in for it: "told The
    Associated Press that", "Mr. Hussein"), and so is a date the prediction places in a relative span
    ("last week" for "on June 5"); another typed value left out is a value the reader does not get."""
    return Weight.WORDING if g.fact.kind == "entity" or g.vague else Weight.VALUE


def _outweighed(f: Finding, cos: float, th: ReplyThresholds) -> bool:
    """Whole replies close enough outweigh an omission: a dropped name or an uncovered clause at
    ``overrule_names``, a dropped typed value at ``overrule``. A contradiction (another value in a gold slot,
    a negation, a swapped metric or category word) is never outweighed."""
    if f.weight is Weight.CONTRADICTION:
        return False
    cut = th.overrule if f.weight is Weight.VALUE else min(th.overrule, th.overrule_names)
    return cos >= cut


def _checkable(g_norm: str, g_facts: Sequence[Fact], g: Clause) -> bool:
    """A gold clause whose coverage is judged: a fact-less statement with content (not a question, not a
    request)."""
    has_fact = any(g.span[0] <= f.span[0] < g.span[1] for f in g_facts)
    content = sum(1 for w in re.findall(r"[a-z']+", fold(g.text)) if w not in STOPWORDS)
    # A negated statement says something with one content word ("No, it is not free").
    needed = 1 if g.negated else _MIN_CLAUSE_CONTENT
    return not has_fact and not _is_question(g_norm, g) and not _is_request(g.text) and content >= needed


def _clauses_matter(pf: PairFacts) -> bool:
    """Whether clause similarities can change ``decide``'s verdict under any thresholds: they are read only
    for a checkable gold clause (its coverage), a predicted clause of the other polarity than a gold one (a
    possible negation) and a gold name left out (its clause's coverage may excuse it). Without any of these
    the pair's clauses need no embedding."""
    if not pf.g_clauses or not pf.p_clauses:
        return False
    return (
        any(d.fact.kind == "entity" for d in pf.facts.dropped)
        or any(g.negated != p.negated for g in pf.g_clauses for p in pf.p_clauses)
        or any(pf.to_cover)
    )


def _score(cos: float, cut: float) -> float:
    """Cosine mapped so that the semantic cut sits at 0.5."""
    if cos >= cut:
        return 0.5 + 0.5 * (cos - cut) / max(1e-9, 1.0 - cut)
    return max(0.0, 0.5 * cos / cut) if cut > 0 else 0.0


def _is_question(text: str, clause: Clause) -> bool:
    return bool(re.match(r"\s*[\"']?\s*\?", text[clause.span[1] :]))


# A request addressed to the user ("Please confirm the following", "Let's go over the details", "Can you
# confirm"): it states nothing; the facts it goes on to list are checked as facts.
_REQUEST = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|sure|alright|great|so)\W+)?(?:please|kindly|let'?s|let\s+me|can\s+you|could\s+you"
    r"|would\s+you|will\s+you)\b",
    re.I,
)


def _is_request(clause: str) -> bool:
    return bool(_REQUEST.match(clause))


def _word_overlap(a: str, b: str) -> float:
    """Without an embedding model: the share of the shorter text's content words the other has."""
    ta, tb = set(content_tokens(a)), set(content_tokens(b))
    if not ta or not tb:
        return 1.0 if ta == tb else 0.0
    return len(ta & tb) / min(len(ta), len(tb))


def _variant(a: str, b: str) -> bool:
    """One-word names that are forms of each other: same first four letters."""
    return " " not in a and " " not in b and len(a) >= 4 and len(b) >= 4 and a[:4] == b[:4]


def _clause_coverage(a: ReplyAnalysis, index: int) -> float:
    return a.clauses[index].coverage if 0 <= index < len(a.clauses) else 0.0


def _shown(text: str) -> str:
    """A fact as quoted in a detail: without a sentence-final period ("4:15 pm." -> "4:15 pm", not "p.m.")."""
    return re.sub(r"(?<![.\s][a-z])\.$", "", text)


def _unique(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


_GENERIC_ENTITIES = frozenset(
    {
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "today",
        "tomorrow",
        "sure",
        "thanks",
        "thank",
        "hello",
        "hi",
        "ok",
        "okay",
        "yes",
        "no",
        "please",
        "dear",
    }
)

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
