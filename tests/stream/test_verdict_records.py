"""The verdict-record serialiser writes its head directly: byte for byte what pydantic-core writes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_core import to_json

from monitor.models.verdict import TurnVerdict
from monitor.models.vocabulary import Attribution, ChainBucket, FailureReason, Mode, TurnType
from monitor.scoring.session import ChainClosure
from monitor.stream.emissions import Emission
from monitor.stream.verdict_records import head_json, verdict_record

texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=30) | st.sampled_from(
    ["", "\x00\x1f\x7f", 'quote " back \\ slash', "\b\f\n\r\t", "é 日本 🙂", "\u2028\u2029"]
)
ints = st.integers(min_value=-(2**70), max_value=2**70)


def _optional(strategy: st.SearchStrategy) -> st.SearchStrategy:
    return st.none() | strategy


verdicts = st.builds(
    TurnVerdict,
    turn_no=_optional(ints),
    turn=st.sampled_from(TurnType),
    success=_optional(st.booleans()),
    failure_reason=_optional(st.sampled_from(FailureReason)),
    score=_optional(st.floats()),
    attribution=_optional(st.sampled_from(Attribution)),
    mode=_optional(st.sampled_from(Mode)),
    detail=_optional(texts),
)


def pydantic_bytes(head: dict[str, str], body: bytes) -> bytes:
    """The head and the body each serialised by pydantic-core (the oracle)."""
    return to_json(head)[:-1] + b"," + body[1:]


@settings(max_examples=400, deadline=None)
@given(verdict=verdicts, cid=texts, agent=texts, release=texts, mode=st.sampled_from(Mode) | texts)
def test_turn_record_is_pydantics(verdict, cid, agent, release, mode):
    head = {"kind": "turn", "conversation_id": cid, "agent": agent, "release": release, "mode": mode}
    expected = pydantic_bytes(head, TurnVerdict.__pydantic_serializer__.to_json(verdict, exclude={"mode"}))
    assert verdict_record(Emission("turn", cid, agent, release, mode, verdict=verdict)) == expected
    assert head_json("turn", cid, agent, release, mode) == to_json(head)[:-1]


@settings(max_examples=200, deadline=None)
@given(turns=st.lists(_optional(ints), max_size=5), bucket=st.sampled_from(ChainBucket), cid=texts)
def test_chain_record_is_pydantics(turns, bucket, cid):
    head = {"kind": "chain", "conversation_id": cid, "agent": "a", "release": "r", "mode": "reference"}
    expected = pydantic_bytes(head, to_json({"turns": turns, "chain_length": bucket}))
    closure = ChainClosure(turns=tuple(turns), outcomes=tuple(True for _ in turns), bucket=bucket)
    assert verdict_record(Emission("chain", cid, "a", "r", "reference", chain=closure)) == expected


def test_usual_records_take_the_direct_path():
    assert head_json("turn", "c1", "agent", "1.0", Mode.REFERENCE) == b'{"kind":"turn","conversation_id":"c1",' + (
        b'"agent":"agent","release":"1.0","mode":"reference"'
    )


def test_what_it_does_not_vouch_for_goes_to_pydantic():
    assert head_json("turn", "c\ud800", "a", "r", "reference") is None  # a lone surrogate
    assert head_json("turn", "c1", "a", "r", None) is None  # type: ignore[arg-type]
