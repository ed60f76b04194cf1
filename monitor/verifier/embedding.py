"""The documented baseline reply scorer (``scoring.reply_scorer: embedding``): bare sentence-embedding cosine of
gold and prediction at or above ``threshold`` passes; below it the reply is ``inconsistent_response``. It cannot
tell a changed fact from a dropped one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from monitor.asking import Asking, ask, settle
from monitor.embeddings.semantic import SemanticScorer
from monitor.equivalence.replies.reply_facts import unsupported_facts
from monitor.equivalence.types import Decision, ReplyMatch, ValueComparing
from monitor.equivalence.values.base import canon


@dataclass
class EmbeddingReplyComparator:
    """``ReplyComparing`` by bare cosine."""

    semantic: SemanticScorer
    values: ValueComparing
    threshold: float = 0.5
    batched: ClassVar[bool] = True

    def compare(self, gold: str, pred: str) -> ReplyMatch:
        return settle(self.compare_steps(gold, pred))

    def compare_steps(self, gold: str, pred: str) -> Asking[ReplyMatch]:
        """``compare`` as a decision that asks for its cosine (``monitor.asking``)."""
        if canon(gold or "") == canon(pred or ""):
            return ReplyMatch(True, True, 1.0, (), (), "exact", None, Decision("exact"))
        (cos,) = yield from ask(self.semantic.similarity, [((gold or "").strip(), (pred or "").strip())])
        decision = Decision("embedding", {"cosine": round(cos, 4)}, self.threshold)
        if cos >= self.threshold:
            return ReplyMatch(True, True, round(cos, 4), (), (), "embedding", None, decision)
        detail = f"says something other than gold (cosine {cos:.2f} < {self.threshold})"
        return ReplyMatch(False, True, round(cos, 4), (gold.strip(),), (), "embedding", detail, decision)

    def unsupported_facts(
        self,
        reply: str,
        sources: Sequence[Any],
        stated: Callable[[str], bool] | None = None,
        sources_for: Callable[[str], Sequence[Any]] | None = None,
    ) -> tuple[str, ...]:
        """Typed facts of ``reply`` that no source supports (the value comparators' grounding)."""
        return unsupported_facts(reply, sources, self.values, stated=stated, sources_for=sources_for)
