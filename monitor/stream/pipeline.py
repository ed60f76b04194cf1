"""The parts of one `aem run` pipeline, built by the composition root (``monitor.wiring.build_pipeline``) and
handed to `Monitor` (``runner.py``) ready-made; those that need the broker by its `connect` factory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from monitor.stream.checkpoint import Checkpoint
from monitor.stream.dlq import DeadLetterSink
from monitor.stream.health import Watch
from monitor.stream.metrics import VerdictMetrics
from monitor.stream.partitions import PartitionState
from monitor.stream.processor import TurnProcessor
from monitor.stream.progress import ProgressLog
from monitor.stream.sinks import PrometheusSink, RunStats, Sink
from monitor.stream.sources import Source
from monitor.stream.stream_clock import StreamClock
from monitor.stream.telemetry import PipelineTelemetry


@dataclass
class Connection:
    """What the loop holds of the broker: the consumer and producer (kafka-python's, or a test's in-memory
    stand-ins), the DLQ and the checkpoint."""

    consumer: Any
    producer: Any
    dlq: DeadLetterSink
    checkpoint: Checkpoint


@dataclass
class Pipeline:
    """Source → processor → sinks, with the verdict metrics and the pipeline's own telemetry apart."""

    source: Source
    processor: TurnProcessor
    partitions: PartitionState  # assignment, restore and the state store of the processor's conversations
    sinks: list[Sink]  # `connect` adds the verdict-topic sink first
    prometheus: PrometheusSink  # one of `sinks`: the loop tells it of releases it sees
    stats: RunStats
    metrics: VerdictMetrics
    telemetry: PipelineTelemetry
    stream_clock: StreamClock  # idle and gap timers: time the stream could be read
    watch: Watch  # /healthz, /metrics and the broker probe
    progress: ProgressLog  # the info-level progress line
    connect: Callable[[], Connection]  # made by the composition root: the broker's parts, when the monitor starts
