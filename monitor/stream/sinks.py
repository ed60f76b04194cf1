"""Sinks: where the processor's emissions go — the verdict topic, Prometheus, the live stats (the `Sink`
contract: docs/architecture.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from monitor.stream.emissions import Emission
from monitor.stream.labels import LabelGuard
from monitor.stream.metrics import VerdictMetrics
from monitor.stream.verdict_records import verdict_record

MAX_UNFLUSHED_RECORDS = 20_000  # verdict records sent since the last flush before the sink asks for a commit


class Sink(Protocol):
    """A sink whose emissions count the moment they are added (metrics, counters) needs only `add`."""

    def add(self, emission: Emission) -> None:
        """Take one emission (a turn verdict, a chain or a dialog summary)."""

    def flush(self) -> None:
        """Hand on everything buffered; raise if that cannot be done (nothing is committed then)."""
        return None

    @property
    def saturated(self) -> bool:
        """Holding as much as it should: flush before more is added."""
        return False


class RecordProducer(Protocol):
    """What the verdict and DLQ sinks need from a producer (ResendingProducer, or a fake in unit tests)."""

    def send(self, topic: str, fallback: dict[str, Any] | None = None, **record: Any) -> None: ...


@dataclass
class VerdictTopicSink:
    """Verdict records on the verdict topic, keyed by conversation (the producer batches them)."""

    producer: RecordProducer
    topic: str
    calibration_id: str | None = None  # added to every record when the monitor runs calibrated
    unflushed: int = 0  # records sent since the last flush

    def add(self, emission: Emission) -> None:
        value = verdict_record(emission, self.calibration_id)
        self.producer.send(self.topic, key=emission.conversation_id.encode("utf-8"), value=value)
        self.unflushed += 1

    def flush(self) -> None:  # the records are with the producer: the checkpoint flushes it once for all records
        self.unflushed = 0

    @property
    def saturated(self) -> bool:
        return self.unflushed >= MAX_UNFLUSHED_RECORDS


@dataclass
class PrometheusSink(Sink):
    """Turn, failure, score, chain and dialog metrics: the only writer of `VerdictMetrics`."""

    metrics: VerdictMetrics

    def saw_release(self, agent: str, release: str, received: float) -> None:
        """An event of (agent, release) was received: first seen, and still live."""
        self.metrics.see_release(agent, release, received)

    def add(self, emission: Emission) -> None:
        if emission.verdict is not None:
            self.metrics.record_turn(
                emission.verdict, emission.agent, emission.release, emission.mode, emission.conversation_id
            )
        elif emission.chain is not None:
            chain = emission.chain
            self.metrics.record_chain(emission.agent, emission.release, chain.bucket, chain.outcomes)
        elif emission.result is not None:
            self.metrics.record_dialog(emission.result)


@dataclass
class RunStats:
    """Live counters for the terminal view and benchmarks."""

    events: int = 0
    verdicts: int = 0
    dialogs: int = 0
    invalid: int = 0
    by_release: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # (agent, release) -> [pass, all]
    root_causes: dict[str, int] = field(default_factory=dict)


@dataclass
class StatsSink(Sink):
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
