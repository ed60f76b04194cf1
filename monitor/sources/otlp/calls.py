"""One trace's tool calls, each counted once: requested calls of model spans against `execute_tool` spans.

Agents report a tool call up to twice: as a `tool_call` part of the model span that asked for it, and
as an `execute_tool` span of the run (pydantic-ai, the OpenAI Agents SDK write both; the instrumented
`openai` client writes only the first). The executed span wins: a requested call yields to the
`execute_tool` span with its call id, or, when one of the two carries no id, to a tool span of the same
name not matched otherwise (one for one, in time order; arguments may differ, as a framework may coerce
them before running the tool). A requested call with no such span stays, its output taken from the
tool result the trace's later model input carries for its id (`tool_call_response` parts); an
executed span without a result takes it the same way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from monitor.sources.otlp.genai import MappedSpan, SpanTurn, TurnKind, json_value

Item = TypeVar("Item", bound=tuple[Any, ...])  # (order key, SpanTurn, MappedSpan, ...): turn at 1, span at 2


def _action(turn: SpanTurn) -> str:
    return str(turn.payload.get("action"))


def _with_output(turn: SpanTurn, results: Mapping[str, Any]) -> SpanTurn:
    if "output" in turn.payload or turn.call_id is None or turn.call_id not in results:
        return turn
    return replace(turn, payload={**turn.payload, "output": json_value(results[turn.call_id])})


def reconcile(items: Sequence[Item]) -> list[Item]:
    """The items whose turns count (in the given order), requested calls that were executed left out."""
    tools = [x[1] for x in items if x[1].kind is TurnKind.TOOL]
    executed = [t for t in tools if not t.requested]
    executed_ids = {t.call_id for t in executed if t.call_id is not None}
    requested_ids = {t.call_id for t in tools if t.requested and t.call_id is not None}
    without_id = Counter(_action(t) for t in executed if t.call_id is None)
    unclaimed = Counter(_action(t) for t in executed if t.call_id is not None and t.call_id not in requested_ids)
    results: dict[str, Any] = {}
    for x in items:
        span: MappedSpan = x[2]
        results.update(span.results)
    kept: list[Item] = []
    for x in items:
        turn: SpanTurn = x[1]
        if turn.kind is TurnKind.TOOL and turn.requested:
            if turn.call_id is not None and turn.call_id in executed_ids:
                continue
            if without_id[_action(turn)] > 0:
                without_id[_action(turn)] -= 1
                continue
            if turn.call_id is None and unclaimed[_action(turn)] > 0:
                unclaimed[_action(turn)] -= 1
                continue
        if turn.kind is TurnKind.TOOL:
            x = (*x[:1], _with_output(turn, results), *x[2:])  # type: ignore[assignment]
        kept.append(x)
    return kept
