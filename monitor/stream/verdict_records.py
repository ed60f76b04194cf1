"""The one verdict-record serialiser: an emission → the JSON bytes of docs/verdict-messages.md.

The head is written directly (the verdict sink's hot path): every verdict record starts with the same
five strings: kind, conversation, agent, release and mode. pydantic-core's `to_json` of them as a dict
infers each value's type (the mode is an enum) and costs more than the turn verdict's own serialisation;
here they are joined with the standard library's C string escaper instead. The bytes are the same as
pydantic-core's: both escape `"`, `\\` and the control characters alike (`\\n`, `\\t`, ... and `\\u00XX`)
and keep non-ASCII as UTF-8. A value that is not a string, or a lone surrogate, makes `head_json` return
None: the head is then serialised by pydantic-core. The body (the verdict, chain or dialog summary) is
serialised by pydantic-core without a detour through str. tests/stream/test_verdict_records.py checks the
bytes against pydantic-core's.
"""

from __future__ import annotations

from json.encoder import encode_basestring  # the C escaper when available

from pydantic_core import to_json

from monitor.models.verdict import DialogResult, TurnVerdict
from monitor.stream.emissions import Emission

_VERDICT_JSON = TurnVerdict.__pydantic_serializer__
_DIALOG_JSON = DialogResult.__pydantic_serializer__
_NOT_IN_TURN_BODY = {"mode"}  # the head carries these (never mutated)
_NOT_IN_DIALOG_BODY = {"dialog_id", "agent", "release", "mode"}


def verdict_record(emission: Emission, calibration_id: str | None = None) -> bytes:
    """The verdict-topic value of one emission; `calibration_id` is added when the monitor runs calibrated."""
    kind, cid, agent, release, mode = (
        emission.kind,
        emission.conversation_id,
        emission.agent,
        emission.release,
        emission.mode,
    )
    head = head_json(kind, cid, agent, release, mode)
    if head is None:
        head = to_json({"kind": kind, "conversation_id": cid, "agent": agent, "release": release, "mode": mode})[:-1]
    if emission.verdict is not None:
        body = _VERDICT_JSON.to_json(emission.verdict, exclude=_NOT_IN_TURN_BODY)[1:]
    elif emission.chain is not None:
        body = to_json({"turns": list(emission.chain.turns), "chain_length": emission.chain.bucket})[1:]
    else:
        assert emission.result is not None
        body = _DIALOG_JSON.to_json(emission.result, exclude=_NOT_IN_DIALOG_BODY)[1:]
    if calibration_id is not None:
        body = body[:-1] + b',"calibration_id":' + to_json(calibration_id) + b"}"
    return head + b"," + body


def head_json(kind: str, conversation_id: str, agent: str, release: str, mode: str) -> bytes | None:
    """`{"kind":…,"mode":…` — the head object without its closing brace — or None (see the module doc)."""
    values = (kind, conversation_id, agent, release, mode)
    if not all(isinstance(value, str) for value in values):
        return None
    text = (
        f'{{"kind":{encode_basestring(kind)},"conversation_id":{encode_basestring(conversation_id)},'
        f'"agent":{encode_basestring(agent)},"release":{encode_basestring(release)},"mode":{encode_basestring(mode)}'
    )
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: pydantic decides what happens, as before
        return None
