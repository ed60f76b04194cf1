"""OpenTelemetry GenAI traces as input: OTLP batches → spans → numbered turns (see docs/otlp.md)."""

from monitor.sources.otlp.assemble import Assembled, AssemblyLimits, ReadyEvent, Resume, ResumeLookup, SpanAssembler
from monitor.sources.otlp.batch import decode_batch, read_batch
from monitor.sources.otlp.genai import MappedSpan, OtlpMapping, Skip, map_span
from monitor.sources.otlp.wire import BatchError, Encoding, Span

__all__ = [
    "Assembled",
    "AssemblyLimits",
    "BatchError",
    "Encoding",
    "MappedSpan",
    "OtlpMapping",
    "ReadyEvent",
    "Resume",
    "ResumeLookup",
    "Skip",
    "Span",
    "SpanAssembler",
    "decode_batch",
    "map_span",
    "read_batch",
]
