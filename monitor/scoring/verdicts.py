"""Turning internal scored turns into the wire-level verdict model."""

from __future__ import annotations

from monitor.models.verdict import TurnVerdict
from monitor.scoring.types import ScoredTurn


def to_verdict(scored: ScoredTurn) -> TurnVerdict:
    check = scored.check
    return TurnVerdict(
        turn_no=scored.turn_no,
        turn=scored.turn,
        success=check.success,
        failure_reason="prior_action_failed" if scored.attribution == "cascading" else check.failure_reason,
        sub_metric=check.sub_metric,
        field=check.field,
        score=None if check.score is None else round(check.score, 4),
        caused_by=scored.caused_by,
        chain_length=scored.chain_length,  # type: ignore[arg-type]
        attribution=scored.attribution,  # type: ignore[arg-type]
        gold_index=scored.gold_index,
        mode=scored.mode,
        symptom=check.failure_reason if scored.attribution == "cascading" else None,
        detail=check.detail,
    )
