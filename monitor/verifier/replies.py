"""Reply verdicts from the verifier: gold against the prediction, with a decision trace.

* Short replies (a few sentences each) are one pair: the verifier reads gold as the premise and the prediction
  as the hypothesis. ``same`` at or above ``pass_threshold`` passes; otherwise the larger of ``changed`` and
  ``dropped`` names the failure (``inconsistent_response`` / ``incomplete_response``).
* Longer replies are checked sentence by sentence (as MiniCheck and SummaC do): each gold sentence against the
  run of predicted sentences that shares most of its words, so ``detail`` names the gold sentence left out or
  contradicted, with its probabilities. The worst sentence decides.
* The typed value comparators are evidence beside it: a gold number, amount, date, time, phone or id whose
  slot holds another value in the prediction is a change, whatever the verifier says.

Every verdict carries a ``Decision``: which check decided, the verifier's three probabilities, the sentence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from monitor.equivalence.normalize import canon_string
from monitor.equivalence.types import Decision, ReplyMatch
from monitor.verifier.grounding import render_source, unsupported_sentences
from monitor.verifier.model import PairScorer, Probabilities
from monitor.verifier.sentences import best_window, sentences

_SHORT_SENTENCES = 3  # up to this many sentences on each side: one pair


@dataclass(frozen=True)
class VerifierConfig:
    """The verifier's cuts (``scoring.verifier`` in the config file; ``aem calibrate`` fits them)."""

    pass_threshold: float = 0.5  # P(same) at or above which a reply passes
    grounding_threshold: float = 0.5  # reference-free: P(changed) at or above which a sentence is unsupported
    typed_values: bool = True  # a changed typed value fails the reply whatever the verifier says
    both_directions: bool = False  # short replies: P(same) is the mean of gold -> prediction and the reverse


@dataclass(frozen=True)
class Unit:
    """One verifier question: does ``hypothesis`` say what ``premise`` says?"""

    premise: str
    hypothesis: str
    sentence: str | None  # the gold sentence concerned (long replies)
    reverse: bool = False  # the prediction as premise (both_directions)


@dataclass
class VerifierReplyComparator:
    """``ReplyComparing`` over the trained verifier (``scoring.reply_scorer: verifier``)."""

    scorer: PairScorer
    config: VerifierConfig = field(default_factory=VerifierConfig)
    facts: Any = None  # a typed-fact differ: ``changed_values(gold, pred) -> tuple[str, ...]`` (None: off)

    def prefetch(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Score every verifier question of ``pairs`` in batches (``compare`` then reads the cache)."""
        units = [(u.premise, u.hypothesis) for g, p in pairs for u in self.units(g, p)]
        if units:
            self.scorer.probabilities(list(dict.fromkeys(units)))

    def units(self, gold: str, pred: str) -> list[Unit]:
        gold, pred = (gold or "").strip(), (pred or "").strip()
        if canon_string(gold) == canon_string(pred) or not gold:
            return []
        gs, ps = sentences(gold), sentences(pred)
        if len(gs) <= _SHORT_SENTENCES and len(ps) <= _SHORT_SENTENCES:
            reverse = [Unit(pred, gold, None, reverse=True)] if self.config.both_directions else []
            return [Unit(gold, pred, None), *reverse]
        return [Unit(g, best_window(g, ps), g) for g in gs]

    def compare(self, gold: str, pred: str) -> ReplyMatch:
        units = self.units(gold, pred)
        if not units:  # the same text (or no gold text at all)
            return ReplyMatch(True, True, 1.0, (), (), "exact", None, Decision("exact"))
        changed = self.facts.changed_values(gold, pred) if self.facts is not None and self.config.typed_values else ()
        probs = self.scorer.probabilities([(u.premise, u.hypothesis) for u in units])
        if units[-1].reverse:  # the forward reading names the reason; the mean of both readings is P(same)
            forward, backward = probs
            probs, units = [replace(forward, same=(forward.same + backward.same) / 2)], units[:1]
        worst_i = min(range(len(units)), key=lambda i: probs[i].same)
        worst, unit = probs[worst_i], units[worst_i]
        if changed:
            decision = Decision("typed_values", worst.as_dict(), self.config.pass_threshold, unit.sentence)
            detail = f"{'; '.join(changed)} (typed values; verifier same {worst.same:.2f})"
            return ReplyMatch(False, True, min(worst.same, 0.45), changed, (), "verifier+values", detail, decision)
        decision = Decision("verifier", worst.as_dict(), self.config.pass_threshold, unit.sentence)
        score = round(worst.same, 4)
        if worst.same >= self.config.pass_threshold:
            return ReplyMatch(True, True, score, (), (), "verifier", None, decision)
        where = f"gold sentence {unit.sentence!r}" if unit.sentence else "the reply"
        shown = _probabilities(worst)
        if worst.changed >= worst.dropped:
            what = unit.sentence or gold.strip()
            detail = f"changes or contradicts {where} ({shown})"
            return ReplyMatch(False, True, score, (_clip(what),), (), "verifier", detail, decision)
        detail = f"leaves out {where} ({shown})"
        return ReplyMatch(True, False, score, (), (_clip(unit.sentence or gold.strip()),), "verifier", detail, decision)

    def unsupported_facts(self, reply: str, sources: Sequence[Any]) -> tuple[str, ...]:
        """The sentences of ``reply`` that what the conversation has said (``sources``) does not support."""
        lines = [render_source(s) for s in sources]
        found = unsupported_sentences(self.scorer, reply, lines, self.config.grounding_threshold)
        typed = (
            self.facts.unsupported_values(reply, sources) if self.facts is not None and self.config.typed_values else ()
        )
        return tuple(dict.fromkeys([*typed, *(claim for claim, _ in found)]))


def _probabilities(p: Probabilities) -> str:
    return f"same {p.same:.2f}, changed {p.changed:.2f}, dropped {p.dropped:.2f}"


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
