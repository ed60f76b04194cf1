"""Sinks: where the processor's emissions go — the verdict topic, Prometheus, the live stats.

A sink takes each emission as it is produced (`add`) and is flushed by the checkpoint before any
offset is committed (`flush`): whatever it buffers must be handed on by then.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic_core import to_json

from monitor.stream.emissions import Emission
from monitor.stream.labels import LabelGuard
from monitor.stream.metrics import MonitorMetrics


class Sink(Protocol):
    def add(self, emission: Emission) -> None:
        """Take one emission (a turn verdict or a dialog summary)."""

    def flush(self) -> None:
        """Hand on everything buffered; raise if that cannot be done (nothing is committed then)."""


class RecordProducer(Protocol):
    def send(self, topic: str, **record: Any) -> None: ...


@dataclass
class VerdictTopicSink:
    """Verdict records on the verdict topic, keyed by conversation (the producer batches them)."""

    producer: RecordProducer
    topic: str
    calibration_id: str | None = None  # added to every record when the monitor runs calibrated

    def __post_init__(self) -> None:
        self._suffix = b"" if self.calibration_id is None else b',"calibration_id":' + to_json(self.calibration_id)

    def add(self, emission: Emission) -> None:
        value = emission.encode()
        if self._suffix:
            value = value[:-1] + self._suffix + b"}"
        self.producer.send(self.topic, key=emission.conversation_id.encode("utf-8"), value=value)

    def flush(self) -> None:
        """Records went to the producer in `add`; the checkpoint flushes the producer itself."""


@dataclass
class PrometheusSink:
    """Turn, failure, score, chain and dialog metrics, and event (broker time) → turn verdict latency."""

    metrics: MonitorMetrics

    def add(self, emission: Emission) -> None:
        if emission.verdict is not None:
            self.metrics.record_turn(
                emission.verdict, emission.agent, emission.release, emission.mode, emission.conversation_id
            )
            if emission.event_time is not None:
                self.metrics.event_latency.observe(max(0.0, time.time() - emission.event_time))
        elif emission.chain is not None:
            chain = emission.chain
            self.metrics.record_chain(emission.agent, emission.release, chain.bucket, chain.outcomes)
        elif emission.result is not None:
            self.metrics.record_dialog(emission.result)

    def flush(self) -> None:
        """Metrics are live the moment they are recorded."""


@dataclass
class RunStats:
    """Live counters for the terminal view and benchmarks."""

    events: int = 0
    verdicts: int = 0
    dialogs: int = 0
    invalid: int = 0
    started: float = field(default_factory=time.monotonic)
    by_release: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # (agent, release) -> [pass, all]
    root_causes: dict[str, int] = field(default_factory=dict)


@dataclass
class StatsSink:
    """Live pass rates per (agent, release), bounded like the metric labels: cleaned values, and pairs
    beyond the guard's cap tallied under ``release="other"`` (monitor/stream/labels.py)."""

    stats: RunStats
    labels: LabelGuard = field(default_factory=LabelGuard)

    def add(self, emission: Emission) -> None:
        verdict = emission.verdict
        if verdict is None:
            self.stats.dialogs += int(emission.result is not None)
            return
        self.stats.verdicts += 1
        if verdict.success is not None:
            pair = self.labels.admit(emission.agent, emission.release, count=False)  # /metrics counts overflows
            tally = self.stats.by_release.setdefault(pair, [0, 0])
            tally[0] += int(verdict.success)
            tally[1] += 1
        if verdict.success is False and verdict.attribution == "root_cause" and verdict.failure_reason:
            key = f"{verdict.failure_reason}:{verdict.field or '-'}"
            self.stats.root_causes[key] = self.stats.root_causes.get(key, 0) + 1

    def flush(self) -> None:
        """Counters only."""
