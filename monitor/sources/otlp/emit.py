"""Dialog files → GenAI spans, made with the OpenTelemetry SDK and encoded by its OTLP encoder.

The sample producer behind `aem replay --format otlp_json|otlp_proto`. A dialog becomes one trace,
shaped as instrumented agents emit it:

    invoke_agent <agent>              root; gen_ai.conversation.id, aem.reference_id, aem.final
    ├── chat <model>                  per Agent turn: input = the history, output = the reply
    ├── chat <model>                  per Tool turn: the model asks for the call (a tool_call part) …
    └── execute_tool <action>         … and the tool runs: name, aem.tool_id, arguments, result

User turns are the input messages of the next model call. Spans end (and are exported) in order,
the root last; the batches are `ExportTraceServiceRequest`s, as the Collector's Kafka exporter writes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

from monitor.models.dialog import Dialog, Payload, Reply, ToolCall, UserMessage
from monitor.sources.otlp.wire import Encoding, request_to_json

MODEL = "aem-replay"
STEP_NS = 1_000_000  # one turn per millisecond: start times order the turns


@dataclass(frozen=True)
class OtlpRecord:
    key: bytes
    value: bytes


class _Collector(SpanExporter):
    """Keeps the spans the SDK exports (as they end), for encoding in batches."""

    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.spans.extend(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self.spans.clear()

    def take(self) -> list[ReadableSpan]:
        out, self.spans = self.spans, []
        return out


def _messages(*items: dict[str, Any]) -> str:
    return json.dumps(list(items), ensure_ascii=False)


def _text(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


def dialog_steps(dialog: Dialog) -> list[Payload]:
    """The predicted side of a dialog, in turn order (an aligned turn without a prediction replays its gold)."""
    if dialog.unaligned:
        return [t.predict_turn for t in sorted(dialog.predict_turns or [], key=lambda t: t.turn_no)]
    steps: list[Payload] = []
    for t in sorted(dialog.turns or [], key=lambda t: t.turn_no):
        payload = t.predict_turn if t.predict_turn is not None else t.gold_turn
        if payload is not None:
            steps.append(payload)
    return steps


def has_reference(dialog: Dialog) -> bool:
    return dialog.unaligned or any(t.gold_turn is not None and t.turn != "User" for t in dialog.turns or [])


class DialogSpans:
    """Turns dialogs into OTLP batches; one SDK tracer provider per (agent, release) resource."""

    def __init__(self, encoding: Encoding, spans_per_batch: int | None = None) -> None:
        self.encoding = encoding
        self.spans_per_batch = spans_per_batch
        self._collector = _Collector()
        self._providers: dict[tuple[str, str], TracerProvider] = {}

    def _tracer(self, agent: str, release: str) -> trace.Tracer:
        provider = self._providers.get((agent, release))
        if provider is None:
            resource = Resource.create({"service.name": agent, "service.version": release})
            provider = TracerProvider(resource=resource)
            provider.add_span_processor(SimpleSpanProcessor(self._collector))
            self._providers[(agent, release)] = provider
        return provider.get_tracer("aem.replay")

    def records(
        self, dialog: Dialog, conversation_id: str | None = None, release: str | None = None
    ) -> list[OtlpRecord]:
        """One dialog as OTLP batches (one trace), keyed by conversation id."""
        cid = conversation_id or dialog.dialog_id
        self._emit(dialog, cid, release or dialog.release or "unknown")
        spans = self._collector.take()
        size = self.spans_per_batch or len(spans) or 1
        return [self._encode(spans[i : i + size], cid) for i in range(0, len(spans), size)]

    def _encode(self, spans: Sequence[ReadableSpan], cid: str) -> OtlpRecord:
        request = encode_spans(spans)
        value = request.SerializeToString() if self.encoding is Encoding.PROTO else request_to_json(request)
        return OtlpRecord(cid.encode("utf-8"), value)

    def _emit(self, dialog: Dialog, cid: str, release: str) -> None:
        tracer = self._tracer(dialog.agent, release)
        steps = dialog_steps(dialog)
        start = time.time_ns() - (2 * len(steps) + 2) * STEP_NS
        root_attributes: dict[str, Any] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": dialog.agent,
            "gen_ai.conversation.id": cid,
            "aem.final": True,
        }
        if has_reference(dialog):
            root_attributes["aem.reference_id"] = dialog.dialog_id
        root = tracer.start_span(f"invoke_agent {dialog.agent}", start_time=start, attributes=root_attributes)
        context = trace.set_span_in_context(root)
        clock = iter(range(start + STEP_NS, start + (2 * len(steps) + 2) * STEP_NS, STEP_NS))
        history: list[dict[str, Any]] = []
        last_reply: str | None = None
        for n, step in enumerate(steps):
            if isinstance(step, UserMessage):
                history.append(_text("user", step.content))
                if n == len(steps) - 1:  # a closing user message: a model call that got no answer
                    self._chat(tracer, context, next(clock), cid, history, None)
            elif isinstance(step, Reply):
                output = _text("assistant", step.response)
                self._chat(tracer, context, next(clock), cid, history, output)
                history.append(output)
                last_reply = step.response
            elif isinstance(step, ToolCall):
                self._tool(tracer, context, clock, cid, history, step, n)
        if last_reply is not None and isinstance(steps[-1], Reply):
            root.set_attribute("gen_ai.output.messages", _messages(_text("assistant", last_reply)))
        root.end(end_time=next(clock))

    def _chat(
        self,
        tracer: trace.Tracer,
        context: Any,
        at: int,
        cid: str,
        history: list[dict[str, Any]],
        output: dict[str, Any] | None,
    ) -> None:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": MODEL,
            "gen_ai.conversation.id": cid,
            "gen_ai.input.messages": _messages(*history),
        }
        if output is not None:
            attributes["gen_ai.output.messages"] = _messages(output)
        span = tracer.start_span(f"chat {MODEL}", context=context, start_time=at, attributes=attributes)
        span.end(end_time=at + STEP_NS // 2)

    def _tool(
        self,
        tracer: trace.Tracer,
        context: Any,
        clock: Iterator[int],
        cid: str,
        history: list[dict[str, Any]],
        step: ToolCall,
        n: int,
    ) -> None:
        call_id = f"call_{n}"
        request = {"type": "tool_call", "id": call_id, "name": step.action, "arguments": step.args}
        asked = {"role": "assistant", "parts": [request]}
        self._chat(tracer, context, next(clock), cid, history, asked)
        history.append(asked)
        at = next(clock)
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": step.action,
            "gen_ai.tool.call.id": call_id,
            "aem.tool_id": step.tool_id,
            "gen_ai.tool.call.arguments": json.dumps(step.args, ensure_ascii=False),
        }
        if step.output is not None:
            attributes["gen_ai.tool.call.result"] = json.dumps(step.output, ensure_ascii=False)
        span = tracer.start_span(f"execute_tool {step.action}", context=context, start_time=at, attributes=attributes)
        span.end(end_time=at + STEP_NS // 2)
        response = {"type": "tool_call_response", "id": call_id, "response": step.output}
        history.append({"role": "tool", "parts": [response]})


def dialog_records(
    dialogs: Iterable[tuple[Dialog, str]], encoding: Encoding, release: str | None = None
) -> Iterator[OtlpRecord]:
    """(dialog, conversation id) pairs → OTLP records, one trace per dialog."""
    spans = DialogSpans(encoding)
    for dialog, cid in dialogs:
        yield from spans.records(dialog, cid, release)
