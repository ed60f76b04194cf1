"""Turning internal scored turns into the wire-level verdict model."""

from __future__ import annotations

from typing import Any

from monitor.models.verdict import TurnVerdict
from monitor.models.vocabulary import Attribution, ChainBucket, FailureReason, Mode, SubMetric, TurnType
from monitor.scoring.types import ScoredTurn

_VALIDATE = TurnVerdict.__pydantic_validator__.validate_python  # the model's own validation, minus __init__'s overhead
_FIELDS = frozenset(TurnVerdict.model_fields)
# The exact types each field's validation passes through unchanged (None aside): a dict whose values all have
# them needs no validation, the model built from it is equal to the validated one.
_KEPT: dict[str, tuple[type, ...]] = {
    "turn_no": (int,),
    "turn": (TurnType,),
    "success": (bool,),
    "failure_reason": (FailureReason,),
    "sub_metric": (SubMetric,),
    "field": (str,),
    "score": (float,),
    "caused_by": (int,),
    "chain_length": (ChainBucket,),
    "attribution": (Attribution,),
    "gold_index": (int,),
    "mode": (Mode,),
    "symptom": (FailureReason,),
    "detail": (str,),
}
assert _KEPT.keys() == _FIELDS, "every TurnVerdict field needs its kept types here"
_new = TurnVerdict.__new__
_set = object.__setattr__


def _built(values: dict[str, Any]) -> TurnVerdict:
    """`values` as a TurnVerdict: as it is when every value already has its field's type, else validated."""
    for name, value in values.items():
        if value is not None and type(value) not in _KEPT[name]:
            verdict: TurnVerdict = _VALIDATE(values)
            return verdict
    verdict = _new(TurnVerdict)
    _set(verdict, "__dict__", values)
    _set(verdict, "__pydantic_fields_set__", set(_FIELDS))  # what validation sets: every field was given
    _set(verdict, "__pydantic_extra__", None)
    _set(verdict, "__pydantic_private__", None)
    return verdict


def to_verdict(scored: ScoredTurn, chain: bool = True) -> TurnVerdict:
    """The wire verdict of a scored turn; ``chain`` False leaves ``chain_length`` out (the stream sends it
    in a chain message of its own)."""
    check = scored.check
    cascading = scored.attribution == Attribution.CASCADING
    return _built(
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
        }
    )
