"""`to_verdict` builds the verdict without validation only when validation would change nothing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.models.verdict import TurnVerdict
from monitor.models.vocabulary import Attribution, ChainBucket, FailureReason, Mode, SubMetric, TurnType
from monitor.scoring.types import CheckResult, ScoredTurn
from monitor.scoring.verdicts import to_verdict


def _optional(strategy: st.SearchStrategy) -> st.SearchStrategy:
    return st.none() | strategy


checks = st.builds(
    CheckResult,
    success=_optional(st.booleans()),
    failure_reason=_optional(st.sampled_from(FailureReason) | st.sampled_from([r.value for r in FailureReason])),
    sub_metric=_optional(st.sampled_from(SubMetric)),
    field=_optional(st.text(max_size=8)),
    score=_optional(st.floats(min_value=-2, max_value=2) | st.integers(-1, 2)),
    detail=_optional(st.text(max_size=8)),
)
scored_turns = st.builds(
    ScoredTurn,
    turn_no=_optional(st.integers(0, 50) | st.booleans()),
    turn=st.sampled_from(TurnType) | st.sampled_from(["Tool", "Agent"]),
    check=checks,
    attribution=_optional(st.sampled_from(Attribution)),
    caused_by=_optional(st.integers(0, 50)),
    chain_length=_optional(st.sampled_from(ChainBucket)),
    gold_index=_optional(st.integers(0, 50)),
    mode=st.sampled_from(Mode),
)


def validated(scored: ScoredTurn, chain: bool) -> TurnVerdict:
    check = scored.check
    cascading = scored.attribution == Attribution.CASCADING
    return TurnVerdict.model_validate(
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


@settings(max_examples=300, deadline=None)
@given(scored=scored_turns, chain=st.booleans())
def test_to_verdict_equals_the_validated_model(scored, chain):
    fast, slow = to_verdict(scored, chain=chain), validated(scored, chain)
    assert fast == slow
    assert {k: type(v) for k, v in fast.__dict__.items()} == {k: type(v) for k, v in slow.__dict__.items()}
    assert fast.__pydantic_fields_set__ == slow.__pydantic_fields_set__
    assert fast.model_dump_json() == slow.model_dump_json()
    assert hash(fast) == hash(slow)


def test_an_integer_score_is_validated_into_a_float():
    scored = ScoredTurn(turn_no=1, turn=TurnType.TOOL, check=CheckResult(success=True, score=1))
    verdict = to_verdict(scored)
    assert type(verdict.score) is float and verdict.model_dump_json().count('"score":1.0') == 1
