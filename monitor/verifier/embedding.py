"""The documented baseline reply scorer (``scoring.reply_scorer: embedding``): bare sentence-embedding cosine of
gold and prediction at or above ``threshold`` passes; below it the reply is ``inconsistent_response``. It cannot
tell a changed fact from a dropped one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from monitor.embeddings.semantic import SemanticScorer
from monitor.equivalence.normalize import canon_string
from monitor.equivalence.reply_facts import unsupported_facts
from monitor.equivalence.types import Decision, ReplyMatch, ValueComparing


@dataclass
class EmbeddingReplyComparator:
    """``ReplyComparing`` by bare cosine."""

    semantic: SemanticScorer
    values: ValueComparing
    threshold: float = 0.5

    def prefetch(self, pairs: Sequence[tuple[str, str]]) -> None:
        self.semantic.prefetch(list(dict.fromkeys(t.strip() for pair in pairs for t in pair if t.strip())))

    def compare(self, gold: str, pred: str) -> ReplyMatch:
        if canon_string(gold or "") == canon_string(pred or ""):
            return ReplyMatch(True, True, 1.0, (), (), "exact", None, Decision("exact"))
        cos = self.semantic.similarity([((gold or "").strip(), (pred or "").strip())])[0]
        decision = Decision("embedding", {"cosine": round(cos, 4)}, self.threshold)
        if cos >= self.threshold:
            return ReplyMatch(True, True, round(cos, 4), (), (), "embedding", None, decision)
        detail = f"says something other than gold (cosine {cos:.2f} < {self.threshold})"
        return ReplyMatch(False, True, round(cos, 4), (gold.strip(),), (), "embedding", detail, decision)

    def unsupported_facts(self, reply: str, sources: Sequence[Any]) -> tuple[str, ...]:
        """Typed facts of ``reply`` that no source supports (the value comparators' grounding)."""
        return unsupported_facts(reply, sources, self.values)
