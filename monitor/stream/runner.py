"""`aem run`: the poll loop wiring source → processor → sinks → checkpoint.

The parts each have a module: `sources` decodes a record into trace events with their positions,
`processor` scores, `sinks` publish, `dlq` takes what cannot be scored, `partitions` owns assignment
and restore, `checkpoint` is the one commit path (its docstring states the at-least-once invariant),
`telemetry` counts the pipeline's own health. `Monitor` only polls and hands on.
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

from monitor.models.dialog import Payload, Reply, ToolCall
from monitor.scoring import ScoringEngine
from monitor.scoring.warmup import warm_up
from monitor.stream.bounds import oversize
from monitor.stream.checkpoint import Checkpoint
from monitor.stream.dlq import DeadLetter, DeadLetterSink
from monitor.stream.emissions import Failure, Outcome
from monitor.stream.events import InvalidEvent, Position
from monitor.stream.health import BrokerProbe, BrokerUnreachable, Health, HealthServer
from monitor.stream.heap import freeze_set_up, thaw
from monitor.stream.kafka_io import ResendingProducer, ensure_partitions, ensure_topics, make_consumer, make_producer
from monitor.stream.labels import trusted_time
from monitor.stream.pipeline import Pipeline
from monitor.stream.progress import Figures, ProgressLog
from monitor.stream.settings import MonitorSettings
from monitor.stream.sinks import RunStats, VerdictTopicSink
from monitor.stream.sources import SourceEvent
from monitor.stream.state import STATE_TOPIC_CONFIG, KafkaStateStore, StateStore
from monitor.verifier import VerifierReplyComparator

log = structlog.get_logger(__name__)
Pair = tuple[Payload, Payload]

__all__ = ["Monitor", "RunStats"]


class Monitor:
    """One consumer-group member: decode, score and record every trace event of its partitions.

    Built by ``monitor.wiring.build_monitor`` from its parts (``Pipeline``). `consumer`, `producer` and
    `store` may be injected (unit tests pass fakes); `run` builds the real ones that are missing.
    """

    def __init__(
        self,
        settings: MonitorSettings,
        engine: ScoringEngine,
        pipeline: Pipeline,
        registry: CollectorRegistry,
        consumer: Any = None,
        producer: Any = None,
        store: StateStore | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = s = settings
        self.engine = engine
        self.registry = registry
        self.metrics = pipeline.metrics
        self.telemetry = pipeline.telemetry  # the pipeline's own health, apart from the verdicts
        self.processor = pipeline.processor
        self.source = pipeline.source  # native events or OTLP batches
        self.partitions = pipeline.partitions
        self.stream_clock = pipeline.stream_clock
        self.stats = pipeline.stats
        self.prometheus = pipeline.prometheus
        self.sinks = pipeline.sinks
        self.stop_event = threading.Event()
        self.ready = threading.Event()
        self.clock = clock
        self._consumer = consumer
        self._producer = producer
        self._store = store
        self.partitions.store = store
        self.checkpoint: Checkpoint | None = None
        self.dlq: DeadLetterSink | None = None
        self.progress = ProgressLog()
        self._http: HealthServer | None = None
        self.metrics_port: int | None = None
        # hardening hooks: /healthz, the broker probe, the one Kafka client config (monitor/stream/health.py)
        self.kafka = s.cluster
        self.health = Health(s.healthz_max_poll_age_s, s.healthz_max_broker_silence_s)
        self.failure: BrokerUnreachable | None = None
        self.dlq_policy = s.dlq_policy
        self._probe: BrokerProbe | None = None
        self._records: dict[Position, Any] = {}  # the records of the poll being stepped, by position
        self._polled: dict[tuple[str, int], SourceEvent] = {}  # its events, by (conversation, turn_no)
        self._frozen = False  # `start` froze the set-up heap (monitor/stream/heap.py)

    @property
    def owner(self) -> dict[str, TopicPartition]:
        return self.partitions.owner

    # -- lifecycle -----------------------------------------------------------------------------

    def serve_metrics(self) -> int:
        if self._http is None:
            s = self.settings
            self._http = HealthServer(
                self.registry, self.health, s.metrics_host, s.metrics_port, s.http_max_connections
            ).start()
            self.metrics_port = self._http.port
            log.info("metrics_served", port=self.metrics_port)
        return self._http.port

    def _give_up_on_broker(self, silent_s: float) -> None:
        """Called by the broker probe: stop, and make `run` raise (so `aem run` exits non-zero)."""
        self.failure = BrokerUnreachable(
            f"no contact with the broker at {self.kafka} for {silent_s:.0f}s "
            f"(broker_unreachable_exit_s={self.settings.broker_unreachable_exit_s:g})"
        )
        self.stop_event.set()

    def stop(self) -> None:
        self.stop_event.set()

    def start(self) -> None:
        """Connect what was not injected: topics, producer, state store, consumer; wire the sinks."""
        s = self.settings
        replies = self.engine.checker.replies
        # the typed stages' tables and the verifier's first run, before the first turn rather than during it
        warm_up(replies.scorer if isinstance(replies, VerifierReplyComparator) else None)
        self.engine.prepare_encoder()  # the ONNX export, if not cached yet: not mid-poll
        if self._producer is None:
            if s.create_topics:
                ensure_topics(self.kafka, [s.topic, s.verdict_topic, s.dlq_topic], s.topic_partitions)
            # A send waiting on metadata fails after 10 s instead of 60: ResendingProducer then resends.
            self._producer = ResendingProducer(
                lambda: make_producer(self.kafka, max_block_ms=10000), [s.verdict_topic, s.dlq_topic]
            )
        if self._store is None and s.resolved_state_topic and isinstance(self._producer, ResendingProducer):
            partitions = len(self._producer.partitions_for(s.topic) or ())
            ensure_topics(self.kafka, [s.resolved_state_topic], partitions, configs=STATE_TOPIC_CONFIG)
            have = len(self._producer.partitions_for(s.resolved_state_topic) or ())
            if have < partitions:
                ensure_partitions(self.kafka, s.resolved_state_topic, partitions, have)
                self._producer.refresh()  # a fresh client: the old one's metadata lacks the new partitions
            self._store = KafkaStateStore(self.kafka, s.resolved_state_topic, self._producer)
            self._producer.partitions_for(s.resolved_state_topic)
        self.partitions.store = self._store
        self.processor.changelog = self._store is not None
        if self._consumer is None:
            self._consumer = make_consumer(self.kafka, [], s.group_id, max_poll_records=s.max_poll_records)
        self._consumer.subscribe([s.topic], listener=self.partitions.rebalances)
        calibration_id = s.calibration.id if s.calibration else None
        self.sinks.insert(0, VerdictTopicSink(self._producer, s.verdict_topic, calibration_id))
        self.dlq = DeadLetterSink(  # hardening hook: the DLQ payload policy (monitor/stream/dlq_policy.py)
            self._producer, s.dlq_topic, self.telemetry, s.dlq_max_bytes, policy=self.dlq_policy
        )
        self.checkpoint = Checkpoint(
            self._consumer,
            self._producer,
            self.sinks,
            self.partitions,
            s.commit_interval_s,
            clock=self.clock,
            holding=self.source.holding,
        )
        freeze_set_up()  # the garbage collector walks only what the stream allocates from here on
        self._frozen = True
        log.info("monitor_started", topic=s.topic, group=s.group_id, bootstrap=str(self.kafka))

    def run(self) -> None:
        self.start()
        # hardening hook: reachability for /healthz, and the exit after broker_unreachable_exit_s
        s = self.settings
        self.health.broker_contact()  # start-up reached the broker (topics, producer metadata)
        self._probe = BrokerProbe(
            self.kafka,
            self.health,
            interval_s=s.broker_probe_interval_s,
            silence_limit_s=s.broker_unreachable_exit_s,
            on_silence=self._give_up_on_broker,
        ).start()
        last_lag = 0.0
        try:
            while not self.stop_event.is_set():
                try:
                    self.poll_once()
                    if self.clock() - last_lag >= self.settings.lag_interval_s:
                        self._update_lag()
                        self.metrics.expire_releases()  # the verdict series of long-gone releases
                        last_lag = self.clock()
                    self.progress.tick(self._figures)
                except KafkaError as exc:  # the broker went away or the group moved: retry, lose nothing
                    log.warning("kafka_error_retrying", error=repr(exc))
                    self.stop_event.wait(1.0)
        finally:
            self._shutdown()
        if self.failure is not None:
            raise self.failure

    def _figures(self) -> Figures:
        lag = sum(sample.value for m in self.telemetry.consumer_lag.collect() for sample in m.samples)
        s = self.stats
        return Figures(s.events, s.verdicts, s.dialogs, s.invalid, len(self.processor.open), int(lag))

    def _shutdown(self) -> None:
        """Finish the current batch: record what is ready, flush, commit, leave the group."""
        assert self.checkpoint is not None
        if self._probe is not None:
            self._probe.stop()
        try:
            if self.failure is None:  # with the broker gone nothing could be flushed or committed
                self._emit(self.processor.tick())
                self.checkpoint.commit(timeout=10)
        except KafkaError as exc:
            log.warning("shutdown_commit_failed", error=repr(exc))
        finally:
            self._consumer.close(autocommit=False)
            self._producer.close(timeout=5)
            if self._http is not None:
                self._http.shutdown()
                self._http = None
            if self._frozen:
                thaw()
                self._frozen = False
            log.info("monitor_stopped", events=self.stats.events, verdicts=self.stats.verdicts)

    # -- one poll's worth ------------------------------------------------------------------------

    def poll_once(self) -> None:
        assert self.checkpoint is not None
        batch = self._consumer.poll(timeout_ms=self.settings.poll_timeout_ms)
        self.health.polled()
        self.stream_clock.advance(reachable=self._broker_reachable())
        try:
            revoked, restored = self.partitions.sync(set(self._consumer.assignment()))
            self.checkpoint.forget(revoked)
            if revoked:
                self.source.drop(revoked)
            for tp in revoked:
                self.telemetry.forget_partition(tp.topic, tp.partition)
            if restored.emissions or restored.failed:
                self._emit(restored)
                self.checkpoint.commit(timeout=30)
        except KafkaError:
            self._rewind(batch)  # the batch was not looked at: fetch it again next time
            raise
        if self._consumer.assignment():
            self.progress.group_joined(self.settings.group_id, self._consumer.assignment())
            self.ready.set()
        # Events of a partition whose conversations are not restored yet would be scored without
        # their history: leave them for the next poll.
        waiting = {tp: recs for tp, recs in batch.items() if not self.partitions.ready(tp)}
        if waiting:
            self._rewind(waiting)
        ready = {tp: records for tp, records in batch.items() if tp not in waiting}
        try:
            self.step([rec for records in ready.values() for rec in records])
        except KafkaError:
            self._rewind(ready)  # e.g. the DLQ could not take a record: read the batch again (duplicates known)
            raise
        for tp, records in ready.items():
            if records:
                self.checkpoint.polled_to(tp, records[-1].offset)
        if self.checkpoint.due(idle=not any(ready.values())) or any(sink.saturated for sink in self.sinks):
            self.checkpoint.commit(timeout=30)  # a saturated sink is flushed before more is read

    def step(self, records: Sequence[Any]) -> None:
        """Decode, process and emit one poll's records."""
        assert self.checkpoint is not None
        decoded: list[SourceEvent] = []
        self._records = {}
        for rec in records:
            position = (TopicPartition(rec.topic, rec.partition), rec.offset)
            self.stats.events += 1
            self._records[position] = rec
            try:
                decoded += self.source.decode(rec, position)
            except InvalidEvent as exc:
                self._dead_letter(rec, str(exc))
            except Exception as exc:  # the per-event guard: whatever a record does, the loop moves on
                log.error("event_decode_failed", source=_source(position), error=repr(exc)[:300])
                self._dead_letter(rec, _failure_reason("decoding", exc))
        if not self.partitions.rebalancing:  # traces held for their root wait too: their partition may move
            decoded += self.source.tick()
        self._polled = {(item.event.conversation_id, item.event.turn_no): item for item in decoded}
        self.engine.decide(self._batch_pairs(decoded))  # the poll's turns decided in one batch; never raises
        for item in decoded:
            try:
                self._step_event(item)
            except Exception as exc:  # the per-event guard: to the DLQ with its reason, the loop moves on
                log.error("event_step_failed", conversation=item.event.conversation_id, error=repr(exc)[:300])
                self._failed(Failure(item.event, _failure_reason("processing", exc), item.raw))
        if not self.partitions.rebalancing:  # timers wait too: a conversation may be about to move
            self._emit(self.processor.tick())
        self._records, self._polled = {}, {}

    def _batch_pairs(self, decoded: Sequence[SourceEvent]) -> list[Pair]:
        """The (gold, predicted) pairs to decide as a batch: inline gold, never an event too large to score."""
        work = self.processor.limits.work
        pairs: list[Pair] = []
        for item in decoded:
            event, raw = item.event, item.raw
            try:
                gold = event.gold_turn
                if isinstance(gold, ToolCall | Reply) and oversize(event, work, len(raw) if raw else None) is None:
                    pairs.append((gold, event.predict_turn))
            except Exception as exc:  # its scoring meets the same problem, guarded
                log.warning("batch_pair_skipped", conversation=event.conversation_id, error=repr(exc)[:300])
        return pairs

    def _step_event(self, item: SourceEvent) -> None:
        """Score one decoded event and hand on what it produced."""
        event, position = item.event, item.position
        self.partitions.track(event.conversation_id, position[0])
        record_ms = int(item.received * 1000)  # the broker's time wins: the event's own is read only without it
        event_time = event.epoch_seconds if record_ms <= 0 else None
        seen_at = trusted_time(event_time, record_ms, time.time(), self.settings.clock_skew_s)
        self.prometheus.saw_release(event.agent, event.release, seen_at)
        result = self.processor.process(event, seen_at, item.raw)  # latency from the clamped time
        self.progress.saw(result.event_outcome, event.conversation_id)
        if result.event_outcome:
            self.telemetry.record_event(result.event_outcome)
        elif event.turn == "User":
            self.telemetry.record_event("scored")
        self._emit(result)

    def _broker_reachable(self) -> bool:
        """The probe heard from the broker lately (without a probe, e.g. injected fakes: assumed)."""
        if self._probe is None:
            return True
        return self.health.broker_silence() < 1.5 * self.settings.broker_probe_interval_s

    def _emit(self, out: Outcome) -> None:
        """Hand emissions to the sinks and failures to the DLQ."""
        assert self.checkpoint is not None
        self.telemetry.observe(out)
        for emission in out.emissions:
            for sink in self.sinks:
                sink.add(emission)
        for failure in out.failed:
            self._failed(failure)
        if out.emissions or out.failed:
            self.checkpoint.emitted()

    def _dead_letter(self, rec: Any, reason: str) -> None:
        assert self.dlq is not None
        source = f"{rec.topic}/{rec.partition}/{rec.offset}"
        self.dlq.send(DeadLetter(reason, rec.value, source, key=rec.key, headers=tuple(rec.headers or ())))
        self.stats.invalid += 1

    def _failed(self, failure: Failure) -> None:
        """An event whose scoring raised: to the DLQ as it came (key, bytes and headers of its record, when
        it is from this poll; otherwise the event re-encoded, its source the partition it came from)."""
        assert self.dlq is not None
        event = failure.event
        item = self._polled.get((event.conversation_id, event.turn_no))
        rec = self._records.get(item.position) if item is not None else None
        if item is not None:
            source = _source(item.position)
        else:
            tp = self.partitions.owner.get(event.conversation_id)
            source = f"{tp.topic}/{tp.partition}" if tp is not None else "-"
        if rec is not None and self.source.whole_records:
            letter = DeadLetter(failure.reason, rec.value, source, key=rec.key, headers=tuple(rec.headers or ()))
        else:
            value = failure.raw or failure.event.model_dump_json(exclude_none=True).encode("utf-8")
            letter = DeadLetter(failure.reason, value, source)
        self.dlq.send(letter)
        self.stats.invalid += 1

    def _rewind(self, batch: dict[Any, list[Any]]) -> None:
        """Seek back to the first record of a polled batch, so the next poll returns it again."""
        assigned = self._consumer.assignment()
        for tp, records in batch.items():
            if records and tp in assigned:
                self._consumer.seek(tp, records[0].offset)

    def _update_lag(self) -> None:
        """Lag per partition: the high-water mark the fetches already brought (no extra request) less the
        committed offset (what a restart re-reads; the fetch position while nothing was polled yet)."""
        assigned = list(self._consumer.assignment())
        ends: dict[TopicPartition, int] = {}
        for tp in assigned:
            high = self._consumer.highwater(tp)
            if high is not None:
                ends[tp] = high
        unknown = [tp for tp in assigned if tp not in ends]
        if unknown:
            try:
                # hardening hook: bounded, so a dead broker cannot hold the loop for request_timeout_ms (30 s)
                ends.update(self._consumer.end_offsets(unknown, timeout_ms=5000))
            except KafkaError as exc:
                log.warning("lag_lookup_failed", error=str(exc))
        for tp, end in ends.items():
            base = self.checkpoint.committed.get(tp) if self.checkpoint is not None else None
            if base is None:
                try:
                    base = self._consumer.position(tp, timeout_ms=1000)
                except KafkaError:
                    continue
            if base is not None:
                self.telemetry.set_lag(tp.topic, tp.partition, max(0, end - base))


def _source(position: Position) -> str:
    """A position as the DLQ names it: topic/partition/offset."""
    return f"{position[0].topic}/{position[0].partition}/{position[1]}"


def _failure_reason(stage: str, exc: BaseException) -> str:
    return f"{stage} failed: {type(exc).__name__}: {str(exc)[:300]}"
