"""The reply comparator ``aem score`` builds, for tests that judge replies through it."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from monitor.embeddings import EmbeddingScorer
from monitor.equivalence import ValueComparator
from monitor.equivalence.types import ReplyComparing, reply_reason
from monitor.scoring.config import ScoringConfig, VerifierSettings
from monitor.wiring import reply_comparator

PASS = "pass"


def shipped_comparator(fusion: bool = False) -> ReplyComparing:
    """The default reply comparator (``fusion``: with ``scoring.verifier.fusion: true``)."""
    embed = EmbeddingScorer()
    config = ScoringConfig(verifier=VerifierSettings(fusion=fusion))
    return reply_comparator(config, ValueComparator(semantic=embed), embed, None)


def outcome(comparator: ReplyComparing, gold: str, pred: str) -> str:
    """``pass``, or the failure reason's value."""
    reason = reply_reason(comparator.compare(gold, pred))
    return PASS if reason is None else reason.value
