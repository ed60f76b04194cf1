"""The monitor's own health, apart from the verdict metrics (`metrics.py`): events by outcome (each under
exactly one, when it is known), lag, latency, memory, the DLQ; written by the loop and the DLQ sink.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import structlog
from kafka import TopicPartition
from kafka.errors import KafkaError
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from monitor.stream.emissions import Outcome

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
EVENT_OUTCOMES = ("scored", "unscored", "invalid", "duplicate", "late")

log = structlog.get_logger(__name__)


class PipelineTelemetry:
    """Counts the pipeline's events and records its own health on the monitor's registry."""

    def __init__(self, registry: CollectorRegistry, clock: Callable[[], float] = time.time) -> None:
        r = self.registry = registry
        self.clock = clock
        self.events = Counter("aem_events", "Trace events by outcome", ["outcome"], registry=r)
        self._events = {outcome: self.events.labels(outcome) for outcome in EVENT_OUTCOMES}  # never removed
        self.consumer_lag = Gauge(
            "aem_consumer_lag_messages",
            "Messages after the committed offset: what a restart would read again",
            ["topic", "partition"],
            registry=r,
        )
        self.event_latency = Histogram(
            "aem_event_latency_seconds", "Event received to verdict", buckets=LATENCY_BUCKETS, registry=r
        )
        self.open_dialogs = Gauge("aem_open_dialogs", "Open conversations held in memory", registry=r)
        self.evictions = Counter("aem_evictions", "Open conversations finished early by the memory bound", registry=r)
        self.dlq_messages = Counter("aem_dlq_messages", "Events sent to the dead-letter topic", registry=r)
        self.state_skipped = Counter(
            "aem_state_records_skipped", "State-topic records restore could not read (left out)", ["reason"], registry=r
        )
        self.too_large = Counter(
            "aem_turns_too_large",
            "Turns left unscored (reason too_large) by the per-event work limit they passed",
            ["limit"],
            registry=r,
        )
        self.open_dialog_bytes = Gauge("aem_open_dialog_bytes", "Event bytes held by open conversations", registry=r)
        self.dlq_reduced = Counter(
            "aem_dlq_reduced", "DLQ records sent truncated or as metadata only", ["form"], registry=r
        )
        self.judge_configured = Gauge("aem_judge_configured", "1 when an LLM judge is configured, else 0", registry=r)

    def record_event(self, outcome: str) -> None:
        """One event whose outcome is known without a verdict: a user turn scored, a duplicate, a late one."""
        child = self._events.get(outcome)
        (child if child is not None else self.events.labels(outcome)).inc()

    def observe(self, out: Outcome) -> None:
        """What one step produced: each turn verdict's event (scored or unscored) and its latency, the step's own event
        when no verdict counts it, the conversations finished early and the turns past a work limit."""
        now = self.clock()
        if out.event_outcome:
            self.record_event(out.event_outcome)
        for emission in out.emissions:
            verdict = emission.verdict
            if verdict is None:
                continue
            if verdict.success is None:
                self._events["unscored"].inc()
            elif verdict.turn_no is not None:
                self._events["scored"].inc()
            if emission.received is not None:
                self.event_latency.observe(max(0.0, now - emission.received))
        if out.evicted:
            self.evictions.inc(out.evicted)
        for limit in out.too_large:
            self.too_large.labels(limit).inc()

    def dead_lettered(self, form: str) -> None:
        """One event to the DLQ, `form` "whole", "truncated" or "metadata"."""
        self._events["invalid"].inc()
        self.dlq_messages.inc()
        if form != "whole":
            self.dlq_reduced.labels(form).inc()

    def update_lag(self, consumer: Any, committed: Mapping[TopicPartition, int]) -> None:
        """Lag per partition: the high-water mark the fetches already brought (no extra request) less the
        committed offset (what a restart re-reads; the fetch position while nothing was committed yet)."""
        assigned = list(consumer.assignment())
        ends = {tp: high for tp in assigned if (high := consumer.highwater(tp)) is not None}
        unknown = [tp for tp in assigned if tp not in ends]
        if unknown:
            try:
                # hardening hook: bounded, so a dead broker cannot hold the loop for request_timeout_ms (30 s)
                ends.update(consumer.end_offsets(unknown, timeout_ms=5000))
            except KafkaError as exc:
                log.warning("lag_lookup_failed", error=str(exc))
        for tp, end in ends.items():
            base = committed.get(tp)
            if base is None:
                try:
                    base = consumer.position(tp, timeout_ms=1000)
                except KafkaError:
                    continue
            if base is not None:
                self.consumer_lag.labels(tp.topic, str(tp.partition)).set(max(0, end - base))

    def forget(self, partitions: Iterable[TopicPartition]) -> None:
        """Partitions this member no longer owns: their lag is another member's to report."""
        for tp in partitions:
            with contextlib.suppress(KeyError):
                self.consumer_lag.remove(tp.topic, str(tp.partition))
