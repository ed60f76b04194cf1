"""The head of a verdict record written directly (the verdict sink's hot path).

Every verdict record starts with the same five strings (docs/verdict-messages.md): kind, conversation,
agent, release and mode. pydantic-core's `to_json` of them as a dict infers each value's type (the mode
is an enum) and costs more than the turn verdict's own serialisation; here they are joined with the
standard library's C string escaper instead. The bytes are the same as pydantic-core's: both escape `"`,
`\\` and the control characters alike (`\\n`, `\\t`, ... and `\\u00XX`) and keep non-ASCII as UTF-8.
A value that is not a string, or a lone surrogate, makes `None` come back: the caller then serialises
with pydantic as before. tests/stream/test_verdict_json.py compares both.
"""

from __future__ import annotations

from json.encoder import encode_basestring  # the C escaper when available


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

