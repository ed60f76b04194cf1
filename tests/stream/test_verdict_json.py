"""The directly written turn and chain records are byte for byte what pydantic-core writes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_core import to_json

from monitor.models.verdict import TurnVerdict
from monitor.models.vocabulary import Attribution, ChainBucket, FailureReason, Mode, SubMetric, TurnType
from monitor.scoring.session import ChainClosure
from monitor.stream.emissions import Emission
from monitor.stream.verdict_json import chain_record, turn_record

texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=30) | st.sampled_from(
    ["", "\x00\x1f\x7f", 'quote " back \\ slash', "\b\f\n\r\t", "é 日本 🙂", "\u2028\u2029"]
)
floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, -0.0, 1e-4, 0.99995, 1e15, 123.456])
ints = st.integers(min_value=-(2**70), max_value=2**70)


def _optional(strategy: st.SearchStrategy) -> st.SearchStrategy:
    return st.none() | strategy


verdicts = st.builds(
    TurnVerdict,
    turn_no=_optional(ints),
    turn=st.sampled_from(TurnType),
    success=_optional(st.booleans()),
    failure_reason=_optional(st.sampled_from(FailureReason)),
    sub_metric=_optional(st.sampled_from(SubMetric)),
    field=_optional(texts),
    score=_optional(floats),
    caused_by=_optional(ints),
    chain_length=_optional(st.sampled_from(ChainBucket)),
    attribution=_optional(st.sampled_from(Attribution)),
    gold_index=_optional(ints),
    mode=_optional(st.sampled_from(Mode)),
    symptom=_optional(st.sampled_from(FailureReason)),
    detail=_optional(texts),
)


def pydantic_bytes(head: dict[str, str], body: bytes) -> bytes:
    return to_json(head)[:-1] + b"," + body[1:]


@settings(max_examples=400, deadline=None)
@given(verdict=verdicts, cid=texts, agent=texts, release=texts, mode=st.sampled_from(Mode))
def test_turn_record_is_pydantics(verdict, cid, agent, release, mode):
    head = {"kind": "turn", "conversation_id": cid, "agent": agent, "release": release, "mode": mode}
    expected = pydantic_bytes(head, TurnVerdict.__pydantic_serializer__.to_json(verdict, exclude={"mode"}))
    fast = turn_record(cid, agent, release, mode, verdict)
    if fast is not None:
        assert fast == expected
    emission = Emission("turn", cid, agent, release, mode, verdict=verdict)
    assert emission.encode() == expected


@settings(max_examples=200, deadline=None)
@given(turns=st.lists(_optional(ints), max_size=5), bucket=st.sampled_from(ChainBucket), cid=texts, mode=texts)
def test_chain_record_is_pydantics(turns, bucket, cid, mode):
    head = {"kind": "chain", "conversation_id": cid, "agent": "a", "release": "r", "mode": mode}
    expected = pydantic_bytes(head, to_json({"turns": turns, "chain_length": bucket}))
    closure = ChainClosure(turns=tuple(turns), outcomes=tuple(True for _ in turns), bucket=bucket)
    assert Emission("chain", cid, "a", "r", mode, chain=closure).encode() == expected


def test_usual_records_take_the_direct_path():
    verdict = TurnVerdict(turn_no=2, turn=TurnType.TOOL, success=False, score=0.3333, detail="x: 'a' vs gold 'b'")
    assert turn_record("c1", "agent", "1.0", Mode.REFERENCE, verdict) is not None
    assert chain_record("c1", "agent", "1.0", Mode.REFERENCE, (1, 2, 3), ChainBucket.THREE_PLUS) is not None


def test_values_it_does_not_vouch_for_go_to_pydantic():
    for score in (float("nan"), float("inf"), 1e-5, 1e16):
        verdict = TurnVerdict(turn_no=1, turn=TurnType.TOOL, success=True, score=score)
        assert turn_record("c1", "a", "r", Mode.REFERENCE, verdict) is None
    lone = TurnVerdict(turn_no=1, turn=TurnType.TOOL, success=True, detail="\ud800")
    assert turn_record("c1", "a", "r", Mode.REFERENCE, lone) is None
