"""`aem run`: the poll loop, in five steps — poll → decode → process → emit → commit.

1. **poll** the consumer (after acting on rebalances: `partitions.py` drops, keeps and restores conversations);
2. **decode** each record into trace events with their positions (a `Source`, `sources.py`; an unreadable
   record goes to the DLQ whole);
3. **process** them (the `TurnProcessor`, `processor.py`: no Kafka in it): the poll's turns decided in one
   batch, then each turn applied in order;
4. **emit** what that produced: emissions to every sink (`sinks.py`), failures to the DLQ (`dlq.py`);
5. **commit** when due (`checkpoint.py`: sinks → changelog → producer → offsets; the changelog is the commit
   point, its docstring states why nothing is lost).

`Monitor` only polls and hands on: the composition root (`monitor/wiring.py`) builds every part, and the ones
that need the broker through the pipeline's `connect` factory.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import structlog
from kafka import TopicPartition
from kafka.errors import KafkaError
from prometheus_client import CollectorRegistry

from monitor.scoring import ScoringEngine
from monitor.scoring.warmup import warm_up
from monitor.stream.checkpoint import Checkpoint
from monitor.stream.dlq import DeadLetter
from monitor.stream.emissions import Failure, Outcome
from monitor.stream.events import InvalidEvent, Position
from monitor.stream.health import Watch
from monitor.stream.heap import freeze_set_up, thaw
from monitor.stream.labels import trusted_time
from monitor.stream.pipeline import Connection, Pipeline
from monitor.stream.progress import Figures, ProgressLog
from monitor.stream.settings import MonitorSettings
from monitor.stream.sinks import RunStats
from monitor.stream.sources import PolledRecord, SourceEvent
from monitor.verifier import VerifierReplyComparator

log = structlog.get_logger(__name__)

__all__ = ["Monitor", "RunStats"]


class Monitor:
    """One consumer-group member: decode, score and record every trace event of its partitions.

    Built by ``monitor.wiring.build_monitor`` from its parts (``Pipeline``); `start` connects them to the broker
    through ``pipeline.connect``."""

    def __init__(
        self,
        settings: MonitorSettings,
        engine: ScoringEngine,
        pipeline: Pipeline,
        registry: CollectorRegistry,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = s = settings
        self.engine = engine
        self.registry = registry
        self.pipeline = pipeline
        self.processor, self.partitions, self.sinks = pipeline.processor, pipeline.partitions, pipeline.sinks
        self.telemetry, self.stats = pipeline.telemetry, pipeline.stats
        self.clock = clock
        self.stop_event, self.ready = threading.Event(), threading.Event()
        self.connection: Connection | None = None
        self.progress = ProgressLog()
        self.watch = Watch(s, registry, self._give_up)  # /healthz, /metrics and the broker probe
        self.failure: Exception | None = None
        self.metrics_port: int | None = None
        self._records: dict[Position, PolledRecord] = {}  # the poll being stepped: its records by position
        self._polled: dict[tuple[str, int], SourceEvent] = {}  # ... and its events by (conversation, turn_no)

    @property
    def owner(self) -> dict[str, TopicPartition]:
        return self.partitions.owner

    @property
    def checkpoint(self) -> Checkpoint | None:
        return self.connection.checkpoint if self.connection is not None else None

    @property
    def link(self) -> Connection:
        """The broker's parts (`start` made them)."""
        assert self.connection is not None, "the monitor is not started"
        return self.connection

    # -- lifecycle -----------------------------------------------------------------------------

    def serve_metrics(self) -> int:
        self.metrics_port = self.watch.serve()
        return self.metrics_port

    def stop(self) -> None:
        self.stop_event.set()

    def start(self) -> None:
        """Warm the models up, connect (topics, producer, state store, consumer, DLQ, checkpoint), subscribe."""
        replies = self.engine.checker.replies
        # the typed stages' tables and the verifier's first run, before the first turn rather than during it
        warm_up(replies.scorer if isinstance(replies, VerifierReplyComparator) else None)
        self.engine.prepare_encoder()  # the ONNX export, if not cached yet: not mid-poll
        self.connection = self.pipeline.connect()
        self.connection.consumer.subscribe([self.settings.topic], listener=self.partitions.rebalances)
        freeze_set_up()  # the garbage collector walks only what the stream allocates from here on
        s = self.settings
        log.info("monitor_started", topic=s.topic, group=s.group_id, bootstrap=str(s.cluster))

    def run(self) -> None:
        self.start()
        s = self.settings
        self.watch.start_probe()
        last_lag = 0.0
        try:
            while not self.stop_event.is_set():
                try:
                    self.poll_once()
                    if self.clock() - last_lag >= s.lag_interval_s:
                        self.telemetry.update_lag(self.link.consumer, self.link.checkpoint.committed)
                        self.pipeline.metrics.expire_releases()  # the verdict series of long-gone releases
                        last_lag = self.clock()
                    self.progress.tick(self._figures)
                except KafkaError as exc:  # the broker went away or the group moved: retry, lose nothing
                    log.warning("kafka_error_retrying", error=repr(exc))
                    self.stop_event.wait(1.0)
        finally:
            self._shutdown()
        if self.failure is not None:
            raise self.failure

    def _give_up(self, failure: Exception) -> None:
        """The broker stayed out of reach: stop, and make `run` raise (so `aem run` exits non-zero)."""
        self.failure = failure
        self.stop_event.set()

    def _figures(self) -> Figures:
        lag = sum(sample.value for m in self.telemetry.consumer_lag.collect() for sample in m.samples)
        s = self.stats
        return Figures(s.events, s.verdicts, s.dialogs, s.invalid, len(self.processor.open), int(lag))

    def _shutdown(self) -> None:
        """Finish the current batch: record what is ready, flush, commit, leave the group."""
        self.watch.stop_probe()
        try:
            if self.failure is None:  # with the broker gone nothing could be flushed or committed
                self._emit(self.processor.tick())
                self.link.checkpoint.commit(timeout=10)
        except KafkaError as exc:
            log.warning("shutdown_commit_failed", error=repr(exc))
        finally:
            self.link.consumer.close(autocommit=False)
            self.link.producer.close(timeout=5)
            self.engine.close()  # after the commit: turns still waiting for the judge stay open, a restart asks again
            self.watch.stop()
            thaw()
            log.info("monitor_stopped", events=self.stats.events, verdicts=self.stats.verdicts)

    # -- one poll: the five steps ------------------------------------------------------------------

    def poll_once(self) -> None:
        consumer, checkpoint = self.link.consumer, self.link.checkpoint
        batch = consumer.poll(timeout_ms=self.settings.poll_timeout_ms)  # 1. poll
        self.watch.health.polled()
        self.pipeline.stream_clock.advance(reachable=self.watch.reachable())
        try:
            self._rebalanced(set(consumer.assignment()))
        except KafkaError:
            self._rewind(batch)  # the batch was not looked at: fetch it again next time
            raise
        # Events of a partition whose conversations are not restored yet would be scored without their history.
        ready = {tp: records for tp, records in batch.items() if self.partitions.ready(tp)}
        self._rewind({tp: records for tp, records in batch.items() if tp not in ready})
        try:
            self.step([rec for records in ready.values() for rec in records])  # 2.-4.
        except KafkaError:
            self._rewind(ready)  # e.g. the DLQ could not take a record: read it again (duplicates known)
            raise
        for tp, records in ready.items():
            if records:
                checkpoint.polled_to(tp, records[-1].offset)
        if checkpoint.due(idle=not any(ready.values())) or any(sink.saturated for sink in self.sinks):
            checkpoint.commit(timeout=30)  # 5. commit (a saturated sink is flushed before more is read)

    def step(self, records: Sequence[PolledRecord]) -> None:
        """Decode, process and emit one poll's records."""
        decoded: list[SourceEvent] = []
        self._records = {}
        for rec in records:  # 2. decode
            position = (TopicPartition(rec.topic, rec.partition), rec.offset)
            self.stats.events += 1
            self._records[position] = rec
            try:
                decoded += self.pipeline.source.decode(rec, position)
            except InvalidEvent as exc:
                self._dead_letter(DeadLetter.of_record(rec, str(exc)))
            except Exception as exc:  # the per-event guard: whatever a record does, the loop moves on
                log.error("event_decode_failed", source=_source(position), error=repr(exc)[:300])
                self._dead_letter(DeadLetter.of_record(rec, _failure_reason("decoding", exc)))
        if not self.partitions.rebalancing:  # traces held for their root wait too: their partition may move
            decoded += self.pipeline.source.tick()
        self._polled = {(item.event.conversation_id, item.event.turn_no): item for item in decoded}
        self.processor.decide([(item.event, item.raw) for item in decoded])  # 3. process: one batch, then each
        for item in decoded:
            try:
                self._emit(self._process(item))  # 4. emit
            except Exception as exc:  # the per-event guard: to the DLQ with its reason, the loop moves on
                log.error("event_step_failed", conversation=item.event.conversation_id, error=repr(exc)[:300])
                self._failed(Failure(item.event, _failure_reason("processing", exc), item.raw))
        if not self.partitions.rebalancing:  # timers wait too: a conversation may be about to move
            self._emit(self.processor.tick())
        self._records, self._polled = {}, {}

    def _rebalanced(self, assignment: set[TopicPartition]) -> None:
        """Act on rebalances: forget what moved away, restore what arrived (and send what it never sent)."""
        revoked, restored = self.partitions.sync(assignment)
        self.link.checkpoint.forget(revoked)
        self.pipeline.source.drop(revoked)
        for tp in revoked:
            self.telemetry.forget_partition(tp.topic, tp.partition)
        if restored.emissions or restored.failed:
            self._emit(restored)
            self.link.checkpoint.commit(timeout=30)
        if assignment:
            self.progress.group_joined(self.settings.group_id, assignment)
            self.ready.set()

    def _process(self, item: SourceEvent) -> Outcome:
        """One decoded event through the processor, from its trusted time (the broker's, clamped)."""
        event = item.event
        self.partitions.track(event.conversation_id, item.position[0])
        record_ms = int(item.received * 1000)  # the broker's time wins: the event's own is read only without it
        event_time = event.epoch_seconds if record_ms <= 0 else None
        seen_at = trusted_time(event_time, record_ms, time.time(), self.settings.clock_skew_s)
        self.pipeline.prometheus.saw_release(event.agent, event.release, seen_at)
        result = self.processor.process(event, seen_at, item.raw)  # latency from the clamped time
        self.progress.saw(result.event_outcome, event.conversation_id)
        if result.event_outcome:
            self.telemetry.record_event(result.event_outcome)
        elif event.turn == "User":
            self.telemetry.record_event("scored")
        return result

    def _emit(self, out: Outcome) -> None:
        """Hand emissions to the sinks and failures to the DLQ."""
        self.telemetry.observe(out)
        for emission in out.emissions:
            for sink in self.sinks:
                sink.add(emission)
        for failure in out.failed:
            self._failed(failure)
        if out.emissions or out.failed:
            self.link.checkpoint.emitted()

    def _failed(self, failure: Failure) -> None:
        """An event whose scoring raised: to the DLQ as its record came when it is from this poll (and the record
        is the event), else the event re-encoded, its source the partition it came from."""
        event = failure.event
        item = self._polled.get((event.conversation_id, event.turn_no))
        rec = self._records.get(item.position) if item is not None else None
        if rec is not None and self.pipeline.source.whole_records:
            self._dead_letter(DeadLetter.of_record(rec, failure.reason))
            return
        tp = self.partitions.owner.get(event.conversation_id)
        source = _source(item.position) if item is not None else f"{tp.topic}/{tp.partition}" if tp else "-"
        value = failure.raw or event.model_dump_json(exclude_none=True).encode("utf-8")
        self._dead_letter(DeadLetter(failure.reason, value, source))

    def _dead_letter(self, letter: DeadLetter) -> None:
        self.link.dlq.send(letter)
        self.stats.invalid += 1

    def _rewind(self, batch: dict[TopicPartition, list[Any]]) -> None:
        """Seek back to the first record of a polled batch, so the next poll returns it again."""
        consumer = self.link.consumer
        assigned = consumer.assignment()
        for tp, records in batch.items():
            if records and tp in assigned:
                consumer.seek(tp, records[0].offset)


def _source(position: Position) -> str:
    """A position as the DLQ names it: topic/partition/offset."""
    return f"{position[0].topic}/{position[0].partition}/{position[1]}"


def _failure_reason(stage: str, exc: BaseException) -> str:
    return f"{stage} failed: {type(exc).__name__}: {str(exc)[:300]}"
