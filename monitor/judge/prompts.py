"""Versioned prompts of the LLM judge, one per sub-metric it refines (completeness, truthfulness).

Changing a prompt's wording changes what its verdicts mean: bump :data:`PROMPT_VERSION` with it (the
version is part of the cache key, so cached verdicts of an older prompt are never reused).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from monitor.models.dialog import Reply, ToolCall, UserMessage
from monitor.scoring.types import COMPLETENESS, TRUTHFULNESS, ObservedTurn

PROMPT_VERSION = "2026-11-29.1"

_MAX_OUTPUT_CHARS = 4000

_VERDICT_FORMAT = (
    "Answer with one JSON object and nothing else:\n"
    '{"verdict": "pass" or "fail", "score": a number from 0 to 1 (1 = fully meets the criterion), '
    '"reason": "one short sentence", "missing": [what the reply leaves out], '
    '"unsupported": [claims of the reply that the conversation does not support]}'
)

SYSTEM = (
    "You are a strict evaluator of a customer-facing AI agent. You judge one reply of the agent "
    "against the conversation that preceded it, on one criterion only. Tool outputs are the ground "
    "truth about the world; the user's messages are the ground truth about the request. " + _VERDICT_FORMAT
)

CRITERIA: dict[str, str] = {
    COMPLETENESS: (
        "Criterion: COMPLETENESS. Does the reply address everything the user's latest request asked "
        "for, given what the tools returned? Fail when it ignores a question, omits a result the user "
        "needs (for example a confirmation number, price or date that a tool returned for the request), "
        'or stops halfway. Do not judge factual accuracy here. List what is missing in "missing".'
    ),
    TRUTHFULNESS: (
        "Criterion: TRUTHFULNESS. Is every claim of the reply supported by the user's messages or the "
        "tool outputs? Fail when the reply states a number, amount, date, time, identifier, name or "
        "status that contradicts them or appears nowhere in them, or claims an action succeeded when a "
        "tool reported failure. Do not judge completeness here. List the unsupported claims in "
        '"unsupported".'
    ),
}


def _clip(text: str, limit: int = _MAX_OUTPUT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + " …[truncated]"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def render_transcript(history: Sequence[ObservedTurn]) -> str:
    """The conversation so far as plain text: user messages, tool calls with outputs, agent replies."""
    lines: list[str] = []
    for turn in history:
        payload = turn.predict
        if isinstance(payload, UserMessage):
            lines.append(f"[{turn.turn_no}] USER: {payload.content}")
        elif isinstance(payload, Reply):
            lines.append(f"[{turn.turn_no}] AGENT: {payload.response}")
        elif isinstance(payload, ToolCall):
            lines.append(f"[{turn.turn_no}] TOOL CALL {payload.tool_id}.{payload.action}({_json(payload.args)})")
            if payload.output is not None:
                lines.append(f"[{turn.turn_no}] TOOL OUTPUT: {_clip(_json(payload.output))}")
    return "\n".join(lines) if lines else "(no earlier turns)"


def build_messages(sub_metric: str, transcript: str, reply: str) -> list[dict[str, str]]:
    """Chat-completions messages asking for a JSON verdict on one sub-metric."""
    if sub_metric not in CRITERIA:
        raise ValueError(f"no judge prompt for sub-metric {sub_metric!r}")
    user = (
        f"{CRITERIA[sub_metric]}\n\n"
        f"Conversation so far:\n{transcript}\n\n"
        f"Agent reply to evaluate:\n{reply}\n\n"
        f"{_VERDICT_FORMAT}"
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
