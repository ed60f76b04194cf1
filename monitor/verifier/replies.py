"""Reply verdicts from the verifier: gold against the prediction, with a decision trace.

* Short replies (up to three sentences each, both fitting the model's input together) are one question: the
  verifier reads gold as the premise and the prediction as the hypothesis. ``same`` at or above
  ``pass_threshold`` passes; otherwise the larger of ``changed`` and ``dropped`` names the failure
  (``inconsistent_response`` / ``incomplete_response``).
* An omission is confirmed by the reverse reading (``confirm_omissions``): with the prediction as the premise,
  is gold supported (``same`` + ``dropped`` at or above ``pass_threshold``)? Then nothing of gold is missing
  and the reply passes: the forward reading only saw a detail worded differently.
* Longer replies (a pair that would be cut off at the model's input length) are checked sentence by sentence
  (as MiniCheck and SummaC do): each gold sentence against the run of predicted sentences that shares most of
  its words, so ``detail`` names the gold sentence left out or contradicted, with its probabilities. A gold
  sentence the prediction repeats word for word is said and not asked. The worst sentence decides.
* The typed value comparators are evidence beside it: a gold number, amount, date, time, phone or id whose
  slot holds another value in the prediction is a change, whatever the verifier says; so are two of gold's phrases
  traded places (``transposed``) and a piece of gold said with the opposite polarity (``negated``).
* A calibrated head (``head``, written by `aem calibrate`) replaces the cut on P(same): P(right) from the
  three probabilities' log-odds (``monitor.verifier.head``) passes at 0.5 and is the score.

Every verdict carries a ``Decision``: which check decided, the verifier's three probabilities, the sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Protocol

from monitor.asking import Ask, Asking, ask, settle
from monitor.equivalence.types import Decision, ReplyMatch
from monitor.equivalence.values.base import canon
from monitor.verifier.fusion import Agreement, Evidence, Fusion
from monitor.verifier.grounding import MAX_PAIR_CHARS, render_source, unsupported_sentences
from monitor.verifier.head import REFIT_CUT, Head
from monitor.verifier.model import PairScorer, Probabilities
from monitor.verifier.negated import Negation, negated_piece
from monitor.verifier.sentences import best_window, content_words, sentences
from monitor.verifier.transposed import Transposition, transposed

_SHORT_SENTENCES = 3  # up to this many sentences on each side: one pair
_LEANS_SAME = 0.5  # P(same) at or above which the verifier leans towards the same meaning


class Similarity(Protocol):
    """The bi-encoder's cosine of text pairs (``SemanticScorer``)."""

    def similarity(self, pairs: Sequence[tuple[str, str]]) -> list[float]: ...


@dataclass(frozen=True)
class VerifierConfig:
    """The verifier's cuts (``scoring.verifier`` in the config file; ``aem calibrate`` fits them)."""

    pass_threshold: float = 0.1  # P(same) at or above which a reply passes (chosen on the work parts)
    grounding_threshold: float = 0.6  # reference-free: P(changed) at or above which a sentence is unsupported
    typed_values: bool = True  # a changed typed value fails the reply whatever the verifier says
    confirm_omissions: bool = False  # an omission stands only if the reverse reading does not support gold
    fused_threshold: float = 0.5  # the fused decision: P(right) at or above which a reply passes
    head: Head | None = None  # a calibrated decision over the three probabilities (replaces pass_threshold)
    # A reply the verifier leans against (P(same) under 0.5) though it passes the cut fails when the bi-encoder's
    # cosine of the two whole texts is below this: they share next to nothing. 0: off.
    unrelated_cosine: float = 0.25
    # The lexical checks beside the verifier: two of gold's phrases traded places, a piece of gold said the
    # opposite way. Off only to measure the verifier alone (benchmarks/accuracy_replies.py).
    lexical_checks: bool = True


@dataclass(frozen=True)
class Unit:
    """One verifier question: does ``hypothesis`` say what ``premise`` says?"""

    premise: str
    hypothesis: str
    sentence: str | None  # the gold sentence concerned (long replies)

    @property
    def pair(self) -> tuple[str, str]:
        return self.premise, self.hypothesis

    @property
    def reverse(self) -> tuple[str, str]:
        return self.hypothesis, self.premise


@dataclass(frozen=True)
class Reading:
    """The verifier's answer to one unit, with the reverse reading where an omission was checked."""

    unit: Unit
    forward: Probabilities
    backward: Probabilities | None = None


@dataclass
class VerifierReplyComparator:
    """``ReplyComparing`` over the trained verifier (``scoring.reply_scorer: verifier``)."""

    scorer: PairScorer
    config: VerifierConfig = field(default_factory=VerifierConfig)
    facts: Any = None  # typed-value evidence (``evidence.TypedValueEvidence``); None: off
    semantic: Similarity | None = None  # the bi-encoder: the unrelated-reply check; with fusion, the fused decision
    # and judge-only retrieval
    fusion: Fusion | None = None  # the fused decision's parameters; None (or no encoder): the verifier alone
    batched: ClassVar[bool] = True

    def units(self, gold: str, pred: str) -> list[Unit]:
        gold, pred = (gold or "").strip(), (pred or "").strip()
        if canon(gold) == canon(pred) or not gold:
            return []
        gs, ps = sentences(gold), sentences(pred)
        if len(gs) <= _SHORT_SENTENCES and len(ps) <= _SHORT_SENTENCES and len(gold) + len(pred) <= MAX_PAIR_CHARS:
            return [Unit(gold, pred, None)]
        said = {canon(p) for p in ps}  # a gold sentence the prediction repeats word for word is said
        return [Unit(g, best_window(g, ps), g) for g in gs if canon(g) not in said]

    def compare(self, gold: str, pred: str) -> ReplyMatch:
        return settle(self.compare_steps(gold, pred))

    def compare_steps(self, gold: str, pred: str) -> Asking[ReplyMatch]:
        """``compare`` as a decision that asks the verifier (``monitor.asking``): the forward readings of its
        units, then the reverse readings the forward ones call for. With typed values on, the verifier reads
        the prediction with the values the typed comparators find equal written as gold writes them
        (``TypedValueEvidence.reading``)."""
        read = self._read(gold, pred)
        units = self.units(*read)
        if not units and (canon(gold.strip()) == canon(pred.strip()) or not gold.strip()):
            return ReplyMatch(True, True, 1.0, (), (), "exact", None, Decision("exact"))
        if not units and canon(read[0]) == canon(read[1]):
            detail = "gold's words, its values written otherwise (typed values equal)"
            return ReplyMatch(True, True, 1.0, (), (), "typed_values", detail, Decision("typed_values"))
        if not units:
            return self._all_repeated(gold, pred)
        if self.fusion is not None and self.semantic is not None:
            return (yield from self._fused(gold, pred, read, units, self.fusion, self.semantic))
        forward = yield from ask(self.scorer.probabilities, [u.pair for u in units])
        again = [u.reverse for u, p in zip(units, forward, strict=True) if self._needs_reverse(p)]
        backward = iter((yield from ask(self.scorer.probabilities, again)))
        readings = [
            Reading(u, p, next(backward) if self._needs_reverse(p) else None)
            for u, p in zip(units, forward, strict=True)
        ]
        head = self.config.head
        worst = min(readings, key=_pass_score if head is None else lambda r: head.p_right(r.forward))
        changed = self._changed(gold, pred)
        cut = self._cut()
        if changed:
            decision = Decision("typed_values", worst.forward.as_dict(), cut, worst.unit.sentence)
            named = "; ".join(str(c) for c in changed)
            detail = f"{named} (typed values; verifier same {worst.forward.same:.2f})"
            values = tuple(c.traced for c in changed)
            score = _pass_score(worst) if head is None else head.p_right(worst.forward)
            return ReplyMatch(False, True, _below(cut, score), values, (), "verifier+values", detail, decision)
        swap, flip = self._lexical(read)
        if swap is not None:
            score = _pass_score(worst) if head is None else head.p_right(worst.forward)
            return _transposed(swap, worst.forward.as_dict(), cut, _below(cut, score), _shown(worst.forward))
        if flip is not None:
            score = _pass_score(worst) if head is None else head.p_right(worst.forward)
            return _negated(flip, worst.forward.as_dict(), cut, _below(cut, score), _shown(worst.forward))
        verdict = _verdict(worst, cut, gold, pred, head)
        floor, semantic = self.config.unrelated_cosine, self.semantic
        if verdict.equivalent and verdict.complete and worst.forward.same < _LEANS_SAME and floor and semantic:
            [cosine] = yield from ask(semantic.similarity, [(gold.strip(), pred.strip())])
            if cosine < floor:
                return _unrelated(worst, cut, cosine, floor, gold, pred)
        return verdict

    def _lexical(self, read: tuple[str, str]) -> tuple[Transposition | None, Negation | None]:
        """What the lexical checks find in the pair as the verifier reads it: traded phrases, else a piece of gold
        said the opposite way (neither when ``lexical_checks`` is off)."""
        if not self.config.lexical_checks:
            return None, None
        swap = transposed(*read)
        return swap, negated_piece(*read) if swap is None else None

    def _cut(self) -> float:
        """The cut a reply's score is held to: ``pass_threshold``, or with a calibrated head P(right) 0.5."""
        return self.config.pass_threshold if self.config.head is None else REFIT_CUT

    def _fused(
        self, gold: str, pred: str, read: tuple[str, str], units: list[Unit], fusion: Fusion, semantic: Similarity
    ) -> Asking[ReplyMatch]:
        """The fused decision: every unit's evidence (cosines, both readings) in one round, P(right) per unit,
        the weakest unit decides; a changed typed value or two of gold's phrases traded places (``read``: the pair
        as the verifier reads it) fail the reply whatever the rest says."""
        scored = yield from self._evidence(gold, pred, units, semantic)
        (evidence, unit), p_right = min(((e, fusion.p_right(e[0])) for e in scored), key=lambda x: x[1])
        cut = self.config.fused_threshold
        decision = Decision(
            "fused", evidence.forward.as_dict(), cut, unit.sentence, evidence.backward.as_dict(), evidence.as_dict()
        )
        changed = self._changed(gold, pred)
        if changed:
            named = "; ".join(str(c) for c in changed)
            where = f" in gold sentence {unit.sentence!r}" if unit.sentence else ""
            detail = f"{named}{where} (typed values; P(right) {p_right:.2f})"
            decision = replace(decision, check="typed_values")
            score = _below(cut, p_right)
            values = tuple(c.traced for c in changed)
            return ReplyMatch(False, True, score, values, (), "verifier+values", detail, decision)
        swap, flip = self._lexical(read)
        if swap is not None:
            return _transposed(swap, evidence.forward.as_dict(), cut, _below(cut, p_right), f"P(right) {p_right:.2f}")
        if flip is not None:
            return _negated(flip, evidence.forward.as_dict(), cut, _below(cut, p_right), f"P(right) {p_right:.2f}")
        score = round(p_right, 4)
        if p_right >= cut:
            return ReplyMatch(True, True, score, (), (), "fused", None, decision)
        f = evidence.forward
        where = f"gold sentence {unit.sentence!r}" if unit.sentence else f"gold {_clip(gold.strip())!r}"
        what = _clip(unit.sentence or gold.strip())
        shown = f"P(right) {p_right:.2f}; {_shown(f)}"
        if f.changed >= f.dropped:
            detail = f"changes or contradicts {where}{_says(unit, gold, pred)} ({shown})"
            return ReplyMatch(False, True, score, _novel_words(gold, pred) or (what,), (), "fused", detail, decision)
        detail = f"leaves out part of {where} ({shown})"
        return ReplyMatch(True, False, score, (), (what,), "fused", detail, decision)

    def _evidence(
        self, gold: str, pred: str, units: list[Unit], semantic: Similarity
    ) -> Asking[list[tuple[Evidence, Unit]]]:
        """Each unit's evidence, asked in one round: the cosines (whole texts, the unit's pair) and the verifier's
        readings both ways; and the typed value comparators' agreement of the whole texts."""
        cosines = [(gold.strip(), pred.strip()), *(u.pair for u in units)]
        readings = [*(u.pair for u in units), *(u.reverse for u in units)]
        cos, probs = yield [Ask(semantic.similarity, tuple(cosines)), Ask(self.scorer.probabilities, tuple(readings))]
        agreement = self.facts.agreement(gold, pred) if self.facts is not None else Agreement()
        n = len(units)
        return [(Evidence(cos[0], cos[1 + i], probs[i], probs[n + i], agreement), u) for i, u in enumerate(units)]

    def evidence_steps(self, gold: str, pred: str, semantic: Similarity) -> Asking[list[Evidence]]:
        """The evidence the fused decision reads for a pair, one per unit (empty for the same text): what
        ``train/fit_fusion.py`` fits on."""
        units = self.units(*self._read(gold, pred))
        return [e for e, _ in (yield from self._evidence(gold, pred, units, semantic))] if units else []

    def _read(self, gold: str, pred: str) -> tuple[str, str]:
        """The texts the verifier reads: the pair itself, or with typed values on, ``TypedValueEvidence.reading``."""
        if self.facts is None or not self.config.typed_values:
            return gold, pred
        return self.facts.reading(gold, pred)

    def _changed(self, gold: str, pred: str) -> tuple[Any, ...]:
        """The typed gold values the prediction replaces (``evidence.ChangedValue``); none when typed values are off."""
        return self.facts.changed_values(gold, pred) if self.facts is not None and self.config.typed_values else ()

    def _all_repeated(self, gold: str, pred: str) -> ReplyMatch:
        """A long reply that repeats every gold sentence word for word says all of gold; what it adds is
        checked by the typed values only (a different time or amount beside them still fails)."""
        changed = self._changed(gold, pred)
        if changed:
            named = "; ".join(str(c) for c in changed)
            values = tuple(c.traced for c in changed)
            detail = f"{named} (typed values; every gold sentence repeated word for word)"
            score = _below(self._cut(), 1.0)
            return ReplyMatch(False, True, score, values, (), "verifier+values", detail, Decision("typed_values"))
        detail = "every gold sentence is repeated word for word"
        return ReplyMatch(True, True, 1.0, (), (), "repeated", detail, Decision("repeated"))

    def unsupported_facts(
        self,
        reply: str,
        sources: Sequence[Any],
        stated: Callable[[str], bool] | None = None,
        sources_for: Callable[[str], Sequence[Any]] | None = None,
    ) -> tuple[str, ...]:
        """The sentences of ``reply`` that what the conversation has said (``sources``) does not support, and
        its typed values no source supports (``sources_for``: the sources each sentence or value is compared
        with instead, its candidates in a long conversation)."""
        lines = [line for source in sources for line in render_source(source)] if sources_for is None else []
        own = None if sources_for is None else lambda claim: [ln for s in sources_for(claim) for ln in render_source(s)]
        # A sentence that states typed values (times, amounts, ids...) is decided by the typed comparators, which
        # read "08:15" as "8:15 am"; the verifier reads the claims that carry none.
        skip = self.facts.has_values if self.facts is not None and self.config.typed_values else None
        retrieval = self.semantic.similarity if self.semantic is not None and self.fusion is not None else None
        cut = self.config.grounding_threshold
        found = unsupported_sentences(self.scorer, reply, lines, cut, skip, retrieval, own)
        typed: tuple[str, ...] = ()
        if self.facts is not None and self.config.typed_values:
            decided = [s for s in sentences(reply) if self.facts.has_values(s)]  # the verifier skipped these
            typed = self.facts.unsupported_values(reply, sources, stated, sources_for)
            typed += self.facts.unsupported_names(" ".join(decided), sources, stated, sources_for) if decided else ()
            typed += self.facts.misattributed(decided, sources) if decided else ()
        return tuple(dict.fromkeys([*typed, *(claim for claim, _ in found)]))

    def _needs_reverse(self, forward: Probabilities) -> bool:
        return (
            self.config.confirm_omissions
            and forward.same < self.config.pass_threshold
            and (forward.dropped > forward.changed)
        )


def _pass_score(reading: Reading) -> float:
    """How far the reading supports a pass: P(same), or, for a forward omission the reverse reading checked,
    how far the prediction supports gold."""
    if reading.backward is None:
        return reading.forward.same
    return max(reading.forward.same, reading.backward.supported)


def _novel_words(gold: str, pred: str) -> tuple[str, ...]:
    """The prediction's content words gold lacks, as written: what it says instead (for tracing a cascade)."""
    missing = content_words(pred) - content_words(gold)
    return tuple(dict.fromkeys(w for w in re.findall(r"[\w$.,:/-]+", pred) if w.lower().strip(".,") in missing))


def _verdict(reading: Reading, cut: float, gold: str, pred: str, head: Head | None = None) -> ReplyMatch:
    p, unit = reading.forward, reading.unit
    decision = Decision(
        "verifier" if head is None else "verifier_refit", p.as_dict(), cut, unit.sentence,
        reading.backward.as_dict() if reading.backward else None,
    )
    score = round(_pass_score(reading) if head is None else head.p_right(p), 4)
    if score >= cut:
        return ReplyMatch(True, True, score, (), (), "verifier", None, decision)
    where = f"gold sentence {unit.sentence!r}" if unit.sentence else f"gold {_clip(gold.strip())!r}"
    what = _clip(unit.sentence or gold.strip())
    if p.changed >= p.dropped:
        detail = f"changes or contradicts {where}{_says(unit, gold, pred)} ({_shown(p)})"
        return ReplyMatch(False, True, score, _novel_words(gold, pred) or (what,), (), "verifier", detail, decision)
    reverse = f"; gold supported by the reply {reading.backward.supported:.2f}" if reading.backward else ""
    detail = f"leaves out {where} ({_shown(p)}{reverse})"
    return ReplyMatch(True, False, score, (), (what,), "verifier", detail, decision)


def _below(cut: float, score: float) -> float:
    """The score of a reply failed by a check other than the cut on the verifier's answer: at most 0.9 of the cut,
    so a failing turn's score is below its cut (docs/verdicts.md) whatever the verifier read."""
    return round(min(score, cut * 0.9), 4)


def _unrelated(reading: Reading, cut: float, cosine: float, floor: float, gold: str, pred: str) -> ReplyMatch:
    """A reply that passed the cut while the verifier leaned against it, failed because it shares next to nothing
    with gold (the bi-encoder's cosine of the whole texts below ``unrelated_cosine``)."""
    p, unit = reading.forward, reading.unit
    decision = Decision("unrelated", p.as_dict(), cut, unit.sentence, evidence={"cosine": round(cosine, 4)})
    detail = f"shares next to nothing with gold {_clip(gold.strip())!r} (cosine {cosine:.2f} < {floor}; {_shown(p)})"
    score = _below(cut, _pass_score(reading))
    return ReplyMatch(False, True, score, _novel_words(gold, pred) or (_clip(gold.strip()),), (), "verifier+cosine",
                      detail, decision)  # fmt: skip


def _transposed(
    swap: Transposition, probabilities: dict[str, float], cut: float, score: float, shown: str
) -> ReplyMatch:
    """A reply that is gold with two of its phrases traded places (``transposed``): a reversed route or relation."""
    decision = Decision("transposed", probabilities, cut)
    detail = f"{swap}: the same words in another order ({shown})"
    return ReplyMatch(False, True, score, (swap.second, swap.first), (), "verifier+order", detail, decision)


def _negated(flip: Negation, probabilities: dict[str, float], cut: float, score: float, shown: str) -> ReplyMatch:
    """A reply that says a piece of gold the opposite way (``negated_piece``): "has wifi" for "does not have wifi",
    "sits inside" for "sits outside"."""
    decision = Decision("negated", probabilities, cut)
    detail = f"{flip}: {flip.how} ({shown})"
    return ReplyMatch(False, True, score, (flip.said,), (), "verifier+polarity", detail, decision)


def _says(unit: Unit, gold: str, pred: str) -> str:
    """What the reply says that the gold text (sentence) it was read against does not, for ``detail``."""
    novel = _novel_words(unit.sentence or gold, unit.hypothesis if unit.sentence else pred)
    return f": says {', '.join(repr(w.rstrip('.,')) for w in novel[:5])}" if novel else ""


def _shown(p: Probabilities) -> str:
    return f"same {p.same:.2f}, changed {p.changed:.2f}, dropped {p.dropped:.2f}"


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
