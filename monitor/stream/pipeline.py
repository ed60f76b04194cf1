"""The parts of one `aem run` pipeline, built by the composition root (``monitor.wiring.build_pipeline``).

`Monitor` (``runner.py``) receives them ready-made and only polls and hands on; the parts that need a
broker connection (the verdict-topic sink, the DLQ, the checkpoint) are made when it connects.
"""

from __future__ import annotations

from dataclasses import dataclass

from monitor.stream.metrics import VerdictMetrics
from monitor.stream.partitions import PartitionState
from monitor.stream.processor import TurnProcessor
from monitor.stream.sinks import PrometheusSink, RunStats, Sink
from monitor.stream.sources import Source
from monitor.stream.stream_clock import StreamClock
from monitor.stream.telemetry import PipelineTelemetry


@dataclass
class Pipeline:
    """Source → processor → sinks, with the verdict metrics and the pipeline's own telemetry apart."""

    source: Source
    processor: TurnProcessor
    partitions: PartitionState  # assignment, restore and the state store of the processor's conversations
    sinks: list[Sink]  # the verdict-topic sink joins them first when the monitor connects
    prometheus: PrometheusSink  # one of `sinks`: the loop tells it of releases it sees
    stats: RunStats
    metrics: VerdictMetrics
    telemetry: PipelineTelemetry
    stream_clock: StreamClock  # idle and gap timers: time the stream could be read
