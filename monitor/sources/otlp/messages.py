"""Messages carried on GenAI spans: the final assistant reply and the latest user message.

Read in this order (the first that has an answer wins):
1. `gen_ai.output.messages` / `gen_ai.input.messages` (semantic conventions v1.37+: a JSON string,
   or an array value, of `{role, parts: [{type: text, content} | {type: tool_call, ...}]}`);
2. the older indexed attributes `gen_ai.completion.N.role/content` / `gen_ai.prompt.N.role/content`
   (conventions before v1.37, as OpenLLMetry writes them);
3. OpenInference `llm.output_messages.N.message.role/content` / `llm.input_messages.N.message.*`,
   then its `output.value` (replies only).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Message:
    role: str
    text: str  # the text parts joined; "" when the message only requests tool calls
    tool_calls: int = 0


def _loads(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):  # not JSON, or an integer past the int-digit limit
            return None
    return value


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
        calls = 0
        parts = item.get("parts")
        if isinstance(parts, list):
            for part in parts:
                if not isinstance(part, dict):
                    continue
                kind = part.get("type")
                if kind == "text" and isinstance(part.get("content"), str):
                    texts.append(part["content"])
                elif kind == "tool_call":
                    calls += 1
        elif isinstance(item.get("content"), str):
            texts.append(item["content"])
        if isinstance(item.get("tool_calls"), list):
            calls += len(item["tool_calls"])
        out.append(Message(role, "\n".join(t for t in texts if t), calls))
    return out


def _indexed(attributes: Mapping[str, Any], prefix: str, role_key: str, content_key: str) -> list[Message]:
    """Flattened lists: `<prefix>.<N>.<role_key>` / `<prefix>.<N>.<content_key>`, in index order."""
    pattern = re.compile(rf"^{re.escape(prefix)}\.(\d+)\.")
    indexes = sorted({int(m.group(1)) for key in attributes if (m := pattern.match(key))})
    out = []
    for n in indexes:
        role = attributes.get(f"{prefix}.{n}.{role_key}", "")
        content = attributes.get(f"{prefix}.{n}.{content_key}", "")
        calls = sum(1 for key in attributes if key.startswith(f"{prefix}.{n}.tool_calls.") and key.endswith(".name"))
        out.append(Message(str(role), content if isinstance(content, str) else "", calls))
    return out


def output_messages(attributes: Mapping[str, Any]) -> list[Message]:
    for found in (
        _structured(attributes.get("gen_ai.output.messages")),
        _indexed(attributes, "gen_ai.completion", "role", "content"),
        _indexed(attributes, "llm.output_messages", "message.role", "message.content"),
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
        _indexed(attributes, "gen_ai.prompt", "role", "content"),
        _indexed(attributes, "llm.input_messages", "message.role", "message.content"),
    ):
        if found:
            return found
    return []


def final_reply(attributes: Mapping[str, Any]) -> Message | None:
    """The last assistant message of a span's output (None when there is none)."""
    replies = [m for m in output_messages(attributes) if m.role in ("assistant", "model", "")]
    return replies[-1] if replies else None


def latest_user_message(attributes: Mapping[str, Any]) -> str | None:
    """The user's text when a span's input ends with a user message (the prompt this call answers)."""
    messages = input_messages(attributes)
    if messages and messages[-1].role in ("user", "human") and messages[-1].text:
        return messages[-1].text
    return None
