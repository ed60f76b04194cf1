"""The LLM judge as the reply scorer of reference mode (``scoring.reply_scorer: llm``): one request per reply
pair with the reference-comparison prompt (``prompts.REFERENCE``), through the judge client (versioned prompts,
structured output, retries, cache, budget). No verdict from the judge: the turn is unscored, never a pass."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import structlog

from monitor.asking import Asking
from monitor.equivalence.replies.reply_facts import unsupported_facts
from monitor.equivalence.types import Decision, ReplyMatch, ValueComparing
from monitor.equivalence.values.base import canon
from monitor.judge.llm import JudgeUnavailable, LLMJudge
from monitor.judge.prompts import REFERENCE

log = structlog.get_logger(__name__)


@dataclass
class LLMReplyComparator:
    """``ReplyComparing`` by an LLM judge comparing the reply with gold."""

    llm: LLMJudge
    values: ValueComparing
    batched: ClassVar[bool] = False

    def compare_steps(self, gold: str, pred: str) -> Asking[ReplyMatch]:
        """Asks nothing to batch: each pair is one request to the judge, sent when the decision is driven."""
        return self.compare(gold, pred)
        yield []  # pragma: no cover - makes this a decision (a generator)

    def compare(self, gold: str, pred: str) -> ReplyMatch:
        if canon(gold or "") == canon(pred or ""):
            return ReplyMatch(True, True, 1.0, (), (), "exact", None, Decision("exact"))
        try:
            verdict = self.llm.judge(REFERENCE, [{"role": "reference", "content": gold}], pred)
        except JudgeUnavailable as exc:
            log.warning("judge_unscored", sub_metric=REFERENCE, error=str(exc))
            return ReplyMatch(False, False, 0.0, (), (), "llm", None, Decision("llm"), f"LLM judge unavailable: {exc}")
        decision = Decision("llm", {"score": round(verdict.score, 4)})
        if verdict.verdict == "pass":
            return ReplyMatch(True, True, verdict.score, (), (), "llm", None, decision)
        detail = verdict.reason or None
        if verdict.unsupported or not verdict.missing:
            return ReplyMatch(False, True, verdict.score, tuple(verdict.unsupported), (), "llm", detail, decision)
        return ReplyMatch(True, False, verdict.score, (), tuple(verdict.missing), "llm", detail, decision)

    def unsupported_facts(
        self,
        reply: str,
        sources: Sequence[Any],
        stated: Callable[[str], bool] | None = None,
        sources_for: Callable[[str], Sequence[Any]] | None = None,
    ) -> tuple[str, ...]:
        """Typed facts of ``reply`` that no source supports (the value comparators' grounding)."""
        return unsupported_facts(reply, sources, self.values, stated=stated, sources_for=sources_for)
