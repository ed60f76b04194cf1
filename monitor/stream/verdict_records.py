"""The one verdict-record serialiser: an emission → the JSON bytes of docs/verdict-messages.md.

The head's five strings (kind, conversation, agent, release, mode) are joined with the standard library's C
string escaper: pydantic-core's `to_json` of them as a dict costs more than the verdict's own serialisation.
The bytes are the same (tests/stream/test_verdict_records.py); a value that is not a string, or a lone
surrogate, leaves the head to pydantic-core. The body is serialised by pydantic-core.
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
    e = emission
    head = head_json(e.kind, e.conversation_id, e.agent, e.release, e.mode)
    if head is None:
        names = ("kind", "conversation_id", "agent", "release", "mode")
        head = to_json({name: getattr(e, name) for name in names})[:-1]
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
