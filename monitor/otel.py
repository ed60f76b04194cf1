"""Ship an agent's OpenTelemetry spans straight to AEM Monitor's topic, with no Collector in between.

    from monitor.otel import kafka_span_processor
    provider.add_span_processor(kafka_span_processor("localhost:9092"))

`KafkaSpanExporter` writes what the Collector's Kafka exporter writes with `partition_traces_by_id`:
one `ExportTraceServiceRequest` per trace in each export (OTLP protobuf by default, or OTLP/JSON),
keyed by the trace id in hex, so a trace stays on one partition. `aem run --input-format otlp_proto`
reads it as it reads a Collector's output (docs/otlp.md).

Spans still queued when the agent exits — it crashed, or never called `provider.shutdown()` — are sent
at interpreter exit: the processor is shut down then (flushing the queue), and the exporter closes its
producer itself, after the flush, where kafka-python would close it at exit before the flush ran.
"""

from __future__ import annotations

import atexit
from collections.abc import Sequence
from typing import Any

import structlog
from kafka import KafkaProducer
from kafka.errors import KafkaError
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from monitor.sources.otlp.wire import Encoding, request_to_json

log = structlog.get_logger(__name__)

DEFAULT_TOPIC = "otlp_spans"  # the Collector Kafka exporter's default, and `aem run`'s for OTLP input


def by_trace(spans: Sequence[ReadableSpan]) -> dict[str, list[ReadableSpan]]:
    """Spans grouped by trace id (hex), in the order they came."""
    out: dict[str, list[ReadableSpan]] = {}
    for span in spans:
        context = span.context
        trace_id = format(context.trace_id, "032x") if context is not None else "0" * 32
        out.setdefault(trace_id, []).append(span)
    return out


class KafkaSpanExporter(SpanExporter):
    """An OpenTelemetry SDK span exporter that writes OTLP trace batches to a Kafka topic."""

    def __init__(
        self,
        bootstrap_servers: str | list[str] = "localhost:9092",
        topic: str = DEFAULT_TOPIC,
        encoding: Encoding | str = Encoding.PROTO,
        producer: Any = None,
        send_timeout_s: float = 30.0,
        **producer_config: Any,
    ) -> None:
        """`producer_config` goes to kafka-python's `KafkaProducer` (security settings and the like)."""
        self.topic = topic
        self.encoding = Encoding(encoding)
        self.send_timeout_s = send_timeout_s
        if producer is None:
            producer = KafkaProducer(
                bootstrap_servers=bootstrap_servers, acks="all", client_id="aem-span-exporter", **producer_config
            )
            # kafka-python closes every producer at interpreter exit, before the SDK's own exit hook flushes
            # the last spans through it; this producer is closed by `shutdown`, after that flush.
            unregister = getattr(producer, "_unregister_cleanup", None)
            if callable(unregister):
                unregister()
        self.producer = producer

    def encode(self, spans: Sequence[ReadableSpan]) -> bytes:
        request = encode_spans(spans)
        return request.SerializeToString() if self.encoding is Encoding.PROTO else request_to_json(request)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            sent = [
                self.producer.send(self.topic, key=trace_id.encode("ascii"), value=self.encode(trace_spans))
                for trace_id, trace_spans in by_trace(spans).items()
            ]
            for future in sent:
                future.get(timeout=self.send_timeout_s)
        except KafkaError as exc:
            log.warning("otlp_export_failed", topic=self.topic, spans=len(spans), error=str(exc)[:200])
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        try:
            self.producer.flush(timeout=timeout_millis / 1000)
        except KafkaError as exc:
            log.warning("otlp_flush_failed", topic=self.topic, error=str(exc)[:200])
            return False
        return True

    def shutdown(self) -> None:
        try:
            self.producer.close(timeout=self.send_timeout_s)
        except KafkaError as exc:  # spans still unsent when the broker is away: dropped, and said so
            log.warning("otlp_exporter_close_failed", topic=self.topic, error=str(exc)[:200])


def kafka_span_processor(
    bootstrap_servers: str | list[str] = "localhost:9092",
    topic: str = DEFAULT_TOPIC,
    encoding: Encoding | str = Encoding.PROTO,
    **producer_config: Any,
) -> BatchSpanProcessor:
    """A batching span processor around `KafkaSpanExporter`: add it to your `TracerProvider`.

    It is shut down at interpreter exit (its queue flushed to the topic) even when the provider is not.
    """
    processor = BatchSpanProcessor(KafkaSpanExporter(bootstrap_servers, topic, encoding, **producer_config))
    atexit.register(processor.shutdown)
    return processor


__all__ = ["DEFAULT_TOPIC", "KafkaSpanExporter", "kafka_span_processor"]
