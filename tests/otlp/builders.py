"""Hand-made OTLP/JSON batches (hex ids, string int64s, AnyValue unions) for the OTLP tests."""

from __future__ import annotations

import json
from typing import Any

from prometheus_client import CollectorRegistry

from monitor.models.dialog import Dialog
from monitor.models.trace_event import TraceEvent
from monitor.scoring import ScoringEngine
from monitor.stream.emissions import Outcome
from monitor.stream.events import SourceEvent
from monitor.stream.otlp import OtlpInput
from monitor.stream.processor import TurnProcessor
from monitor.stream.verdict_records import verdict_record
from tests.stream.fakes import Record

T0 = 1_767_225_600_000_000_000  # 2026-01-01T00:00:00Z in ns


def value(v: Any) -> dict[str, Any]:
    """A Python value as an OTLP/JSON AnyValue."""
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, list):
        return {"arrayValue": {"values": [value(x) for x in v]}}
    if isinstance(v, dict):
        return {"kvlistValue": {"values": attrs(v)}}
    return {"stringValue": str(v)}


def attrs(mapping: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": value(v)} for k, v in mapping.items()]


def span(
    trace_id: str, span_id: str, parent: str = "", start_ms: int = 0, end_ms: int | None = None, **attributes: Any
) -> dict[str, Any]:
    return {
        "traceId": trace_id,
        "spanId": span_id,
        "parentSpanId": parent,
        "name": str(attributes.get("gen_ai.operation.name", "work")),
        "kind": 1,
        "startTimeUnixNano": str(T0 + start_ms * 1_000_000),
        "endTimeUnixNano": str(T0 + (end_ms if end_ms is not None else start_ms + 1) * 1_000_000),
        "attributes": attrs({k.replace("__", "."): v for k, v in attributes.items()}),
    }


def batch(*spans: dict[str, Any], service: str = "sales-agent", version: str = "v7") -> bytes:
    resource = {"attributes": attrs({"service.name": service, "service.version": version})}
    doc = {"resourceSpans": [{"resource": resource, "scopeSpans": [{"scope": {"name": "t"}, "spans": list(spans)}]}]}
    return json.dumps(doc).encode()


def tool(trace_id: str, span_id: str, parent: str, start_ms: int, name: str, args: Any, result: Any, **extra: Any):
    return span(
        trace_id,
        span_id,
        parent,
        start_ms,
        **{
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.arguments": json.dumps(args),
            "gen_ai.tool.call.result": json.dumps(result),
            **extra,
        },
    )


def reply(text: str) -> str:
    return json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": text}], "finish_reason": "stop"}])


def chat(trace_id: str, span_id: str, parent: str, start_ms: int, text: str, **extra: Any):
    return span(
        trace_id,
        span_id,
        parent,
        start_ms,
        **{"gen_ai.operation.name": "chat", "gen_ai.output.messages": reply(text), **extra},
    )


class Pipeline:
    """OtlpInput → TurnProcessor, as the runner wires them, without Kafka."""

    def __init__(self, engine: ScoringEngine, references: dict[str, Any] | None = None, **input_args: Any) -> None:
        from tests.stream.helpers import FakeClock

        self.clock = FakeClock()
        self.registry = CollectorRegistry()
        self.processor = TurnProcessor(engine, references or {}, clock=self.clock)
        encoding = input_args.pop("encoding", "otlp_json")
        resume = self.processor.resume_point
        self.input = OtlpInput(encoding, clock=self.clock, registry=self.registry, resume=resume, **input_args)
        self.events: list[TraceEvent] = []
        self.out = Outcome()
        self.offset = 0

    def feed(self, raw: bytes) -> list[SourceEvent]:
        got = self.input.decode(Record("p0", 0, self.offset, raw), ("p0", self.offset))  # type: ignore[arg-type]
        self.offset += 1
        self._take(got)
        return got

    def tick(self, seconds: float = 0.0) -> None:
        self.clock.advance(seconds)
        self._take(self.input.tick())
        self.out.extend(self.processor.tick())

    def _take(self, got: list[SourceEvent]) -> None:
        for item in got:
            self.events.append(item.event)
            self.out.extend(self.processor.process(item.event))

    def turns(self) -> list[dict[str, Any]]:
        return [json.loads(verdict_record(e)) for e in self.out.emissions if e.kind == "turn"]

    def dialogs(self) -> list[dict[str, Any]]:
        return [json.loads(verdict_record(e)) for e in self.out.emissions if e.kind == "dialog"]

    def spans(self, outcome: str) -> float:
        return self.registry.get_sample_value("aem_otlp_spans_total", {"outcome": outcome}) or 0.0


def sales_dialog(dialog_id: str = "sales_report", release: str = "v7") -> Dialog:
    from tests.conftest import EXAMPLES

    turns = json.loads((EXAMPLES / "sales_report.json").read_text())
    return Dialog.model_validate({"dialog_id": dialog_id, "agent": "sales", "release": release, "turns": turns})


def unaligned(dialog: Dialog) -> Dialog:
    """The same dialog with its gold as a reference set: native events then carry `reference_id`."""
    turns = dialog.turns or []
    return Dialog.model_validate(
        {
            "dialog_id": dialog.dialog_id,
            "agent": dialog.agent,
            "release": dialog.release,
            "gold_turns": [{"turn": t.turn, "gold_turn": t.gold_turn, "tags": t.tags} for t in turns],
            "predict_turns": [
                {"turn_no": t.turn_no, "turn": t.turn, "predict_turn": t.predict_turn, "tags": t.tags} for t in turns
            ],
        }
    )
