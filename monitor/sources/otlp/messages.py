"""Messages carried on GenAI spans: replies, user messages, the tool calls a model asks for and their results.

Read in this order (the first that has an answer wins):
1. `gen_ai.output.messages` / `gen_ai.input.messages` (semantic conventions v1.37+: a JSON string,
   or an array value, of `{role, parts: [{type: text, content} | {type: tool_call, id, name, arguments}
   | {type: tool_call_response, id, response}]}`; also the chat-completions `{role, content, tool_calls}`);
2. the older indexed attributes `gen_ai.completion.N.*` / `gen_ai.prompt.N.*` (conventions before v1.37,
   as OpenLLMetry writes them, `.tool_calls.M.{id,name,arguments}` for requested calls);
3. OpenInference `llm.output_messages.N.message.*` / `llm.input_messages.N.message.*`
   (`.tool_calls.M.tool_call.{id,function.name,function.arguments}`, `.tool_call_id` on tool results),
   then its `output.value` (replies only).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ToolRequest:
    """A tool call a model asked for: its id (None when the span gives none), name and arguments."""

    id: str | None
    name: str
    arguments: Any


@dataclass(frozen=True)
class Message:
    role: str
    text: str  # the text parts joined; "" when the message only requests tool calls
    calls: tuple[ToolRequest, ...] = ()
    results: tuple[tuple[str, Any], ...] = ()  # (tool call id, result) of the tool results it carries


def _loads(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):  # not JSON, or an integer past the int-digit limit
            return None
    return value


def _id(value: Any) -> str | None:
    return str(value) if isinstance(value, str | int) and str(value) else None


def _part(part: dict[str, Any], texts: list[str], calls: list[ToolRequest], results: list[tuple[str, Any]]) -> None:
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("content"), str):
        texts.append(part["content"])
    elif kind == "tool_call":
        calls.append(ToolRequest(_id(part.get("id")), str(part.get("name") or ""), part.get("arguments")))
    elif kind == "tool_call_response" and (call_id := _id(part.get("id"))) is not None:
        results.append((call_id, part.get("response", part.get("result"))))


def _chat_completion_calls(items: Any) -> list[ToolRequest]:
    """`tool_calls: [{id, function: {name, arguments}}]`, the chat-completions shape."""
    out = []
    for call in items if isinstance(items, list) else []:
        if isinstance(call, dict):
            function = call["function"] if isinstance(call.get("function"), dict) else call
            out.append(ToolRequest(_id(call.get("id")), str(function.get("name") or ""), function.get("arguments")))
    return out


def _structured(value: Any) -> list[Message]:
    """`gen_ai.{input,output}.messages`: role/parts objects (also the older role/content shape)."""
    data = _loads(value)
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        return []
    out = []
    for item in data:
        if not isinstance(item, dict):
            continue
        role = str(item.get("role", ""))
        texts: list[str] = []
        calls: list[ToolRequest] = []
        results: list[tuple[str, Any]] = []
        parts = item.get("parts")
        if isinstance(parts, list):
            for part in parts:
                if isinstance(part, dict):
                    _part(part, texts, calls, results)
        elif isinstance(item.get("content"), str):
            if role == "tool" and (call_id := _id(item.get("tool_call_id"))) is not None:
                results.append((call_id, item["content"]))
            else:
                texts.append(item["content"])
        calls += _chat_completion_calls(item.get("tool_calls"))
        out.append(Message(role, "\n".join(t for t in texts if t), tuple(calls), tuple(results)))
    return out


@dataclass(frozen=True)
class _Layout:
    """Where an indexed family keeps each field of message N (keys after `<prefix>.<N>.`)."""

    prefix: str
    role: str
    content: str
    call: str  # `<call>.<M>.` starts requested call M
    call_id: str
    call_name: str
    call_arguments: str
    result_id: str  # on a tool message: the call it answers


_LAYOUTS = {
    "gen_ai.completion": _Layout(
        "gen_ai.completion", "role", "content", "tool_calls", "id", "name", "arguments", "tool_call_id"
    ),
    "gen_ai.prompt": _Layout(
        "gen_ai.prompt", "role", "content", "tool_calls", "id", "name", "arguments", "tool_call_id"
    ),
    "llm.output_messages": _Layout(
        "llm.output_messages",
        "message.role",
        "message.content",
        "message.tool_calls",
        "tool_call.id",
        "tool_call.function.name",
        "tool_call.function.arguments",
        "message.tool_call_id",
    ),
    "llm.input_messages": _Layout(
        "llm.input_messages",
        "message.role",
        "message.content",
        "message.tool_calls",
        "tool_call.id",
        "tool_call.function.name",
        "tool_call.function.arguments",
        "message.tool_call_id",
    ),
}


def _indexed(attributes: Mapping[str, Any], layout: _Layout) -> list[Message]:
    """Flattened lists: `<prefix>.<N>.<field>`, in index order."""
    pattern = re.compile(rf"^{re.escape(layout.prefix)}\.(\d+)\.")
    indexes = sorted({int(m.group(1)) for key in attributes if (m := pattern.match(key))})
    out = []
    for n in indexes:
        base = f"{layout.prefix}.{n}."
        role = str(attributes.get(base + layout.role, ""))
        content = attributes.get(base + layout.content, "")
        content = content if isinstance(content, str) else ""
        call_pattern = re.compile(rf"^{re.escape(base + layout.call)}\.(\d+)\.")
        numbers = sorted({int(c.group(1)) for key in attributes if (c := call_pattern.match(key))})
        calls = []
        for number in numbers:
            call = f"{base}{layout.call}.{number}."
            name = attributes.get(call + layout.call_name)
            arguments = attributes.get(call + layout.call_arguments)
            calls.append(ToolRequest(_id(attributes.get(call + layout.call_id)), str(name or ""), arguments))
        result_id = _id(attributes.get(base + layout.result_id))
        if role == "tool" and result_id is not None:
            out.append(Message(role, "", tuple(calls), ((result_id, content),)))
        else:
            out.append(Message(role, content, tuple(calls)))
    return out


def output_messages(attributes: Mapping[str, Any]) -> list[Message]:
    for found in (
        _structured(attributes.get("gen_ai.output.messages")),
        _indexed(attributes, _LAYOUTS["gen_ai.completion"]),
        _indexed(attributes, _LAYOUTS["llm.output_messages"]),
    ):
        if found:
            return found
    value = attributes.get("output.value")
    if isinstance(value, str) and value:
        return [Message("assistant", value)]
    return []


def input_messages(attributes: Mapping[str, Any]) -> list[Message]:
    for found in (
        _structured(attributes.get("gen_ai.input.messages")),
        _indexed(attributes, _LAYOUTS["gen_ai.prompt"]),
        _indexed(attributes, _LAYOUTS["llm.input_messages"]),
    ):
        if found:
            return found
    return []


def final_reply(attributes: Mapping[str, Any]) -> Message | None:
    """The last assistant message of a span's output (None when there is none)."""
    replies = [m for m in output_messages(attributes) if m.role in ("assistant", "model", "")]
    return replies[-1] if replies else None


def requested_calls(attributes: Mapping[str, Any]) -> list[ToolRequest]:
    """The tool calls the assistant messages of a span's output ask for, in order."""
    return [c for m in output_messages(attributes) if m.role in ("assistant", "model", "") for c in m.calls]


def tool_results(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """Tool results in a span's input, by the id of the call they answer."""
    return {call_id: result for m in input_messages(attributes) for call_id, result in m.results}


def latest_user_message(attributes: Mapping[str, Any]) -> str | None:
    """The user's text when a span's input ends with a user message (the prompt this call answers)."""
    messages = input_messages(attributes)
    if messages and messages[-1].role in ("user", "human") and messages[-1].text:
        return messages[-1].text
    return None
