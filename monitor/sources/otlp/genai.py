"""One span → the turns it stands for (GenAI semantic conventions, OpenInference as a fallback).

- `execute_tool` → a Tool turn (`gen_ai.tool.name`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`);
- `chat` / `invoke_agent` (and the older `text_completion`/`generate_content`) → an Agent turn from the
  final assistant message, and a Tool turn per tool call its output asks for (`tool_call` parts, the
  indexed `tool_calls`): these are *requested* calls, which yield to an `execute_tool` span of the same
  call when the trace has one (see `calls.py`), so each call counts once; a `chat` span whose input ends
  with a user message also gives a User turn (context, never scored) placed at the span's start.
  The tool results a span's input carries (`tool_call_response` parts, OpenInference tool messages)
  are kept by call id, for the requested calls they answer.
Anything else maps to no turn and is counted as skipped, by reason.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from monitor.sources.otlp.messages import ToolRequest, final_reply, latest_user_message, requested_calls, tool_results
from monitor.sources.otlp.wire import Span

OPERATION = "gen_ai.operation.name"
CONVERSATION = "gen_ai.conversation.id"
AGENT_NAME = "gen_ai.agent.name"
TOOL_NAME = "gen_ai.tool.name"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
TOOL_CALL_ID = "gen_ai.tool.call.id"
SESSION_ID = "session.id"  # OpenInference's conversation
AEM_TOOL_ID = "aem.tool_id"
AEM_FINAL = "aem.final"
OPENINFERENCE_KIND = "openinference.span.kind"

_OPENINFERENCE_OPERATIONS = {"LLM": "chat", "AGENT": "invoke_agent", "TOOL": "execute_tool"}
_REPLY_OPERATIONS = frozenset({"chat", "text_completion", "generate_content", "invoke_agent"})


class OtlpMapping(BaseModel):
    """Which span attributes name the AEM fields the GenAI conventions have no word for."""

    model_config = ConfigDict(extra="forbid")

    tool_id_attribute: str | None = None  # tool_id when aem.tool_id is absent (else the tool name)
    reference_attribute: Annotated[str, Field(min_length=1)] = "aem.reference_id"  # a dialog id in --reference files
    release_attribute: str | None = None  # overrides resource service.version as the release
    conversation_attribute: str | None = None  # read before gen_ai.conversation.id and session.id


class TurnKind(StrEnum):
    AGENT = "Agent"
    TOOL = "Tool"
    USER = "User"


class Skip(StrEnum):
    """Why a span gave no turn (a label, never an error)."""

    NOT_GENAI = "not_genai"
    OPERATION = "unsupported_operation"
    NO_OUTPUT = "no_output"
    NO_TOOL_NAME = "no_tool_name"


@dataclass(frozen=True)
class SpanTurn:
    kind: TurnKind
    payload: dict[str, Any]
    order_ns: int  # where the turn sits in its conversation (ties broken by span id, then position)
    call_id: str | None = None  # a Tool turn's tool call id, when the span gives one
    requested: bool = False  # a call read from a model span's output: yields to an execute_tool span of it


@dataclass(frozen=True)
class MappedSpan:
    """A span with the conversation fields read from it and the turns it maps to (maybe none)."""

    span: Span
    conversation_id: str | None  # gen_ai.conversation.id; None: the trace is the conversation
    agent: str | None
    release: str | None
    reference_id: str | None
    final: bool  # aem.final = true: ends an explicitly identified conversation
    turns: tuple[SpanTurn, ...]
    skipped: Skip | None = None
    from_agent_span: bool = False  # turns of an invoke_agent span yield to equal turns of its children
    results: Mapping[str, Any] = field(default_factory=dict)  # tool results in its input, by call id


def operation_of(attributes: Mapping[str, Any]) -> str | None:
    op = attributes.get(OPERATION)
    if isinstance(op, str) and op:
        return op
    kind = attributes.get(OPENINFERENCE_KIND)
    return _OPENINFERENCE_OPERATIONS.get(kind) if isinstance(kind, str) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def json_value(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):  # not JSON, or an integer past the int-digit limit
            return value
    return value


def tool_turn(span: Span, mapping: OtlpMapping) -> SpanTurn | Skip:
    a = span.attributes
    action = _text(a.get(TOOL_NAME)) or _text(a.get("tool.name"))
    if action is None:
        return Skip.NO_TOOL_NAME
    tool_id = _text(a.get(AEM_TOOL_ID))
    if tool_id is None and mapping.tool_id_attribute:
        tool_id = _text(a.get(mapping.tool_id_attribute))
    raw_args = a.get(TOOL_ARGUMENTS, a.get("input.value"))
    args = json_value(raw_args) if raw_args is not None else {}
    if not isinstance(args, dict):
        args = {"input": args}
    payload: dict[str, Any] = {"tool_id": tool_id or action, "action": action, "args": args}
    result = a.get(TOOL_RESULT, a.get("output.value"))
    if result is not None:
        payload["output"] = json_value(result)
    call_id = _text(a.get(TOOL_CALL_ID)) or _text(a.get("tool_call.id"))
    return SpanTurn(TurnKind.TOOL, payload, span.start_ns, call_id=call_id)


def requested_turn(call: ToolRequest, at: int) -> SpanTurn | None:
    """A tool call a model span asks for, as a Tool turn (None when it has no name)."""
    if not call.name:
        return None
    args = json_value(call.arguments) if call.arguments is not None else {}
    if not isinstance(args, dict):
        args = {"input": args}
    payload: dict[str, Any] = {"tool_id": call.name, "action": call.name, "args": args}
    return SpanTurn(TurnKind.TOOL, payload, at, call_id=call.id, requested=True)


def reply_turns(span: Span, operation: str) -> tuple[SpanTurn, ...] | Skip:
    turns: list[SpanTurn] = []
    if operation != "invoke_agent":
        user = latest_user_message(span.attributes)
        if user is not None:
            turns.append(SpanTurn(TurnKind.USER, {"content": user}, span.start_ns))
    reply = final_reply(span.attributes)
    if reply is not None and reply.text:
        # An agent's answer exists when the agent span ends; a model call's when it starts to stream.
        at = span.end_ns if operation == "invoke_agent" else span.start_ns
        turns.append(SpanTurn(TurnKind.AGENT, {"response": reply.text}, at))
    calls = requested_calls(span.attributes) if operation != "invoke_agent" else []
    requested = [t for call in calls if (t := requested_turn(call, span.start_ns)) is not None]
    turns += requested
    if turns:
        return tuple(turns)
    return Skip.NO_TOOL_NAME if calls else Skip.NO_OUTPUT


def map_span(span: Span, mapping: OtlpMapping) -> MappedSpan:
    a = span.attributes
    operation = operation_of(a)
    turns: tuple[SpanTurn, ...] = ()
    skipped: Skip | None = None
    if operation is None:
        skipped = Skip.NOT_GENAI
    elif operation == "execute_tool":
        found = tool_turn(span, mapping)
        turns, skipped = ((found,), None) if isinstance(found, SpanTurn) else ((), found)
    elif operation in _REPLY_OPERATIONS:
        got = reply_turns(span, operation)
        turns, skipped = (got, None) if isinstance(got, tuple) else ((), got)
    else:
        skipped = Skip.OPERATION
    return MappedSpan(
        span=span,
        conversation_id=conversation_of(span, mapping),
        agent=_text(a.get(AGENT_NAME)),
        release=release_of(span, mapping),
        reference_id=_text(a.get(mapping.reference_attribute)),
        final=a.get(AEM_FINAL) is True,
        turns=turns,
        skipped=skipped,
        from_agent_span=operation == "invoke_agent",
        results=tool_results(a) if operation in _REPLY_OPERATIONS else {},
    )


RELEASE_RESOURCE = ("service.version", "deployment.environment.name", "deployment.environment")


def release_of(span: Span, mapping: OtlpMapping) -> str | None:
    """The configured span attribute, else resource `service.version`, else the deployment environment."""
    if mapping.release_attribute and (found := _scalar(span.attributes.get(mapping.release_attribute))):
        return found
    for key in RELEASE_RESOURCE:
        if found := _scalar(span.resource.get(key)):
            return found
    return None


def conversation_of(span: Span, mapping: OtlpMapping) -> str | None:
    """The configured attribute, else `gen_ai.conversation.id`, else OpenInference `session.id`."""
    keys = (mapping.conversation_attribute, CONVERSATION, SESSION_ID)
    for key in keys:
        if key and (found := _scalar(span.attributes.get(key))):
            return found
    return None


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool) or value is None or isinstance(value, list | dict):
        return None
    text = str(value)
    return text or None
