"""Turning internal scored turns into the wire-level verdict model."""

from __future__ import annotations

from monitor.models.verdict import TurnVerdict
from monitor.models.vocabulary import Attribution, FailureReason
from monitor.scoring.types import ScoredTurn

_VALIDATE = TurnVerdict.__pydantic_validator__.validate_python  # the model's own validation, minus __init__'s overhead


def to_verdict(scored: ScoredTurn, chain: bool = True) -> TurnVerdict:
    """The wire verdict of a scored turn; ``chain`` False leaves ``chain_length`` out (the stream sends it
    in a chain message of its own)."""
    check = scored.check
    cascading = scored.attribution == Attribution.CASCADING
    verdict: TurnVerdict = _VALIDATE(
        {
            "turn_no": scored.turn_no,
            "turn": scored.turn,
            "success": check.success,
            "failure_reason": FailureReason.PRIOR_ACTION_FAILED if cascading else check.failure_reason,
            "sub_metric": check.sub_metric,
            "field": check.field,
            "score": None if check.score is None else round(check.score, 4),
            "caused_by": scored.caused_by,
            "chain_length": scored.chain_length if chain else None,
            "attribution": scored.attribution,
            "gold_index": scored.gold_index,
            "mode": scored.mode,
            "symptom": check.failure_reason if cascading else None,
            "detail": check.detail,
            "decision": check.decision,
            "action": scored.action,
        }
    )
    return verdict
