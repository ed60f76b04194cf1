"""`aem run`: the Kafka source → processor → sinks loop, with at-least-once commits."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog
from kafka import ConsumerRebalanceListener, TopicPartition
from kafka.errors import CommitFailedError, KafkaError
from kafka.structs import OffsetAndMetadata
from prometheus_client import CollectorRegistry

from monitor.models.dialog import Reply, ToolCall
from monitor.scoring import ReferenceTurn, ScoringEngine, reference_of
from monitor.sources.files import read_dialogs
from monitor.stream.dlq import DeadLetter, DeadLetterSink
from monitor.stream.events import EventLimits, InvalidEvent, TraceEvent, decode_event
from monitor.stream.health import BrokerProbe, BrokerUnreachable, Health, HealthServer
from monitor.stream.kafka_io import (
    ResendingProducer,
    ensure_partitions,
    ensure_topics,
    make_consumer,
    make_producer,
    partition_count,
)
from monitor.stream.labels import LabelGuard, trusted_time
from monitor.stream.metrics import MonitorMetrics
from monitor.stream.offsets import OffsetTracker
from monitor.stream.otlp import otlp_input
from monitor.stream.processor import Failure, Outcome, ProcessorLimits, TurnProcessor
from monitor.stream.settings import MonitorSettings
from monitor.stream.state import STATE_TOPIC_CONFIG, KafkaStateStore

log = structlog.get_logger(__name__)


def load_references(paths: Sequence[str]) -> dict[str, list[ReferenceTurn]]:
    """Golden dialogs by dialog_id, as reference steps (any `aem score` shape)."""
    out: dict[str, list[ReferenceTurn]] = {}
    for path in paths:
        for dialog in read_dialogs(path):
            steps = reference_of(dialog)
            if steps:
                out[dialog.dialog_id] = steps
    return out


class _Revocations(ConsumerRebalanceListener):
    """Runs on the client's IO thread: only records what happened; the main loop acts on it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.revoked: set[TopicPartition] = set()
        self.assigned: set[TopicPartition] = set()

    def on_partitions_revoked(self, revoked):
        with self.lock:
            self.revoked.update(revoked)

    def on_partitions_assigned(self, assigned):
        with self.lock:
            self.assigned.update(assigned)
            self.revoked.difference_update(assigned)

    def take(self) -> tuple[set[TopicPartition], set[TopicPartition]]:
        with self.lock:
            revoked, assigned = self.revoked, self.assigned
            self.revoked, self.assigned = set(), set()
        return revoked, assigned


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


class Monitor:
    """One consumer-group member: decode, score and record every trace event of its partitions."""

    def __init__(
        self,
        settings: MonitorSettings,
        engine: ScoringEngine,
        registry: CollectorRegistry | None = None,
    ) -> None:
        self.settings = settings
        self.metrics = MonitorMetrics(  # hardening hook: bounded labels (monitor/stream/labels.py)
            registry,
            release_ttl_seconds=settings.release_ttl_s,
            labels=LabelGuard(settings.max_label_chars, settings.max_release_pairs),
        )
        self.engine = engine
        self.metrics.judge_configured.set(1 if getattr(self.engine.judge, "llm", None) is not None else 0)
        self.processor = TurnProcessor(
            self.engine,
            load_references(settings.reference),
            ProcessorLimits(
                max_open=settings.max_open_dialogs,
                idle_timeout_s=settings.idle_timeout_s,
                gap_timeout_s=settings.gap_timeout_s,
                max_held=settings.max_held_turns,
            ),
        )
        self.limits = EventLimits(max_bytes=settings.max_event_bytes, max_depth=settings.max_event_depth)
        self.otlp = otlp_input(settings, self.metrics.registry, self.processor)  # None: native trace events
        self.offsets = OffsetTracker()
        self.stop_event = threading.Event()
        self.ready = threading.Event()
        self.stats = RunStats()
        self.owner: dict[str, TopicPartition] = {}  # conversation -> the partition its events come from
        self.state: KafkaStateStore | None = None
        self.restored: set[TopicPartition] = set()  # partitions whose checkpoints are loaded
        self._unflushed: list[tuple[TopicPartition, int]] = []  # positions recorded, awaiting flush
        self._last_flush = 0.0
        self._listener = _Revocations()
        self._rebalancing = False  # partitions revoked, new assignment not yet known
        self._consumer: Any = None
        self._producer: Any = None
        self._http: HealthServer | None = None
        self.metrics_port: int | None = None
        # hardening hooks: /healthz, the broker probe, the one Kafka client config (monitor/stream/health.py)
        self.kafka = settings.cluster
        self.health = Health(settings.healthz_max_poll_age_s, settings.healthz_max_broker_silence_s)
        self.failure: BrokerUnreachable | None = None
        self.dlq_policy = settings.dlq_policy
        self._probe: BrokerProbe | None = None

    # -- lifecycle -----------------------------------------------------------------------------

    def serve_metrics(self) -> int:
        if self._http is None:
            s = self.settings
            self._http = HealthServer(
                self.metrics.registry, self.health, s.metrics_host, s.metrics_port, s.http_max_connections
            ).start()
            self.metrics_port = self._http.port
            log.info("metrics served", port=self.metrics_port)
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

    def run(self) -> None:
        s = self.settings
        if s.create_topics:
            ensure_topics(self.kafka, [s.topic, s.verdict_topic, s.dlq_topic], s.topic_partitions)
        # A send waiting on metadata fails after 10 s instead of 60: ResendingProducer then resends.
        self._producer = ResendingProducer(
            lambda: make_producer(self.kafka, max_block_ms=10000), [s.verdict_topic, s.dlq_topic]
        )
        if s.resolved_state_topic:
            partitions = partition_count(self.kafka, s.topic)
            ensure_topics(self.kafka, [s.resolved_state_topic], partitions, configs=STATE_TOPIC_CONFIG)
            ensure_partitions(self.kafka, s.resolved_state_topic, partitions)
            self.state = KafkaStateStore(self.kafka, s.resolved_state_topic, self._producer)
            self._producer.partitions_for(s.resolved_state_topic)
        self._consumer = make_consumer(self.kafka, [], s.group_id, max_poll_records=s.max_poll_records)
        self._consumer.subscribe([s.topic], listener=self._listener)
        log.info("monitor started", topic=s.topic, group=s.group_id, bootstrap=str(self.kafka))
        # hardening hook: reachability for /healthz, and the exit after broker_unreachable_exit_s
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
                    batch = self._consumer.poll(timeout_ms=s.poll_timeout_ms)
                    self.health.polled()
                    try:
                        self._handle_rebalance()
                    except KafkaError:
                        self._rewind(batch)  # the batch was not looked at: fetch it again next time
                        raise
                    if self._consumer.assignment():
                        self.ready.set()
                    # Events of a partition whose checkpoints are not restored yet would be scored
                    # without their conversation's history: leave them for the next poll.
                    waiting = {tp: recs for tp, recs in batch.items() if not self._is_restored(tp)}
                    if waiting:
                        self._rewind(waiting)
                    self.step([rec for tp, records in batch.items() if tp not in waiting for rec in records])
                    if time.monotonic() - last_lag >= s.lag_interval_s:
                        self._update_lag()
                        self.metrics.expire_releases()
                        last_lag = time.monotonic()
                except KafkaError as exc:  # the broker went away or the group moved: retry, lose nothing
                    log.warning("kafka error; retrying", error=repr(exc))
                    self.stop_event.wait(1.0)
        finally:
            self._shutdown()
        if self.failure is not None:
            raise self.failure

    def _shutdown(self) -> None:
        """Finish the current batch: record what is ready, flush, commit, leave the group."""
        if self._probe is not None:
            self._probe.stop()
        try:
            if self.failure is None:  # with the broker gone nothing could be flushed or committed
                self._record(self.processor.tick())
                self._flush_and_commit(timeout=10)
        except KafkaError as exc:
            log.warning("shutdown commit failed", error=repr(exc))
        finally:
            self._consumer.close(autocommit=False)
            self._producer.close(timeout=5)
            if self._http is not None:
                self._http.shutdown()
                self._http = None
            log.info("monitor stopped", events=self.stats.events, verdicts=self.stats.verdicts)

    # -- one poll's worth ------------------------------------------------------------------------

    def step(self, records: Sequence[Any]) -> None:
        decoded: list[tuple[TraceEvent, tuple[TopicPartition, int]]] = []
        record_ms: dict[tuple[TopicPartition, int], int] = {}  # hardening hook: broker timestamps
        for rec in records:
            tp = TopicPartition(rec.topic, rec.partition)
            record_ms[(tp, rec.offset)] = rec.timestamp
            self.offsets.seen(tp, rec.offset)
            self.stats.events += 1
            try:
                if self.otlp is not None:  # OTLP batches: many spans per record, ready when their trace is
                    got = self.otlp.decode(rec.value, (tp, rec.offset))
                    decoded += got.events
                    self._unflushed += got.done
                else:
                    decoded.append((decode_event(rec.value, self.limits), (tp, rec.offset)))
            except InvalidEvent as exc:
                self._dead_letter(rec, str(exc))
                self._unflushed.append((tp, rec.offset))
        if self.otlp is not None:
            held = self.otlp.tick()
            decoded += held.events
            self._unflushed += held.done
        self.engine.prefetch(
            (e.gold_turn, e.predict_turn) for e, _ in decoded if isinstance(e.gold_turn, ToolCall | Reply)
        )
        out = Outcome()
        for event, ref in decoded:
            self.owner[event.conversation_id] = ref[0]
            seen_at = trusted_time(event.epoch_seconds, record_ms.get(ref), time.time(), self.settings.clock_skew_s)
            self.metrics.see_release(event.agent, event.release, seen_at)
            result = self.processor.process(event, ref)
            if result.event_outcome:
                self.metrics.record_event(result.event_outcome)
            elif event.turn == "User":
                self.metrics.record_event("scored")
            out.extend(result)
        out.extend(self.processor.tick())
        self._record(out)
        due = time.monotonic() - self._last_flush >= self.settings.commit_interval_s
        if self._unflushed and (due or not records):
            self._flush_and_commit(timeout=30)
        self.metrics.open_dialogs.set(len(self.processor.open))

    def _record(self, out: Outcome) -> None:
        """Send verdicts, count them, checkpoint the touched conversations (nothing committed yet)."""
        self._publish(out)
        self._checkpoint()

    def _flush_and_commit(self, timeout: float) -> None:
        """Once everything sent is acknowledged, the positions it covers are done and can be committed."""
        self._producer.flush(timeout=timeout)
        self._last_flush = time.monotonic()
        for tp, offset in self._unflushed:
            self.offsets.done(tp, offset)
        self._unflushed = []
        self._commit()

    def _checkpoint(self) -> None:
        for cid, record in self.processor.checkpoint():
            tp = self.owner.get(cid)
            if self.state is not None and tp is not None:
                record["at"] = time.time()
                try:
                    self.state.save(tp.partition, cid, record, source=f"{tp.topic}/{tp.partition}")
                except KafkaError as exc:  # e.g. a record above max_request_size: skip it, keep the others
                    log.warning("checkpoint not saved", conversation=cid, error=repr(exc)[:300])
            if record.get("status") == "finished":
                self.owner.pop(cid, None)

    def _restore(self, partitions: set[TopicPartition]) -> None:
        """Rebuild the open conversations of newly assigned partitions before their events are read."""
        if self.state is None or not partitions:
            self.restored.update(partitions)
            return
        by_number = {tp.partition: tp for tp in partitions}
        loaded = self.state.load_many(sorted(by_number))
        cutoff = time.time() - self.settings.finished_retention_s
        restored = Outcome()
        for number, records in loaded.items():
            tp = by_number[number]
            for cid, record in records.items():
                if record.get("status") == "finished" and record.get("at", 0) < cutoff:
                    self.state.forget(number, cid)
                    continue
                self.owner[cid] = tp
                restored.extend(self.processor.restore(cid, record))
        self.restored.update(partitions)
        self._record(restored)
        self._producer.flush(timeout=30)
        log.info(
            "state restored",
            partitions=sorted(by_number),
            open=len(self.processor.open),
            emitted_on_restore=len(restored.emissions),
        )

    def _dead_letter(self, rec: Any, reason: str) -> None:
        source = f"{rec.topic}/{rec.partition}/{rec.offset}"
        letter = DeadLetter(reason, rec.value, source, key=rec.key, headers=tuple(rec.headers or ()))
        self._dead_letters().send(letter)
        self.stats.invalid += 1

    def _failed(self, failure: Failure) -> None:
        """An event whose scoring raised: to the DLQ (re-encoded), its position done."""
        ref = failure.ref
        source = f"{ref[0].topic}/{ref[0].partition}/{ref[1]}" if isinstance(ref, tuple) else str(ref)
        value = failure.event.model_dump_json(exclude_none=True).encode("utf-8")
        letter = DeadLetter(failure.reason, value, source, key=None)
        self._dead_letters().send(letter)
        self.stats.invalid += 1

    def _dead_letters(self) -> DeadLetterSink:
        # hardening hook: the DLQ payload policy (monitor/stream/dlq_policy.py)
        s = self.settings
        return DeadLetterSink(self._producer, s.dlq_topic, self.metrics, s.dlq_max_bytes, policy=self.dlq_policy)

    def _publish(self, out: Outcome) -> None:
        now = time.time()
        if out.evicted:
            self.metrics.evictions.inc(out.evicted)
        for emission in out.emissions:
            value = json.dumps(emission.to_wire(), ensure_ascii=False).encode("utf-8")
            self._producer.send(self.settings.verdict_topic, key=emission.conversation_id.encode(), value=value)
            if emission.verdict is not None:
                verdict = emission.verdict
                self.metrics.record_turn(
                    verdict, emission.agent, emission.release, emission.mode, emission.conversation_id
                )
                if emission.event_time is not None:
                    event_time = trusted_time(emission.event_time, None, now, self.settings.clock_skew_s)
                    self.metrics.event_latency.observe(max(0.0, now - event_time))
                self.stats.verdicts += 1
                if verdict.success is not None:
                    labels = self.metrics.labels.admit(emission.agent, emission.release, count=False)
                    tally = self.stats.by_release.setdefault(labels, [0, 0])
                    tally[0] += int(verdict.success)
                    tally[1] += 1
                if verdict.success is False and verdict.attribution == "root_cause" and verdict.failure_reason:
                    key = f"{verdict.failure_reason}:{verdict.field or '-'}"
                    self.stats.root_causes[key] = self.stats.root_causes.get(key, 0) + 1
            elif emission.result is not None:
                self.metrics.record_dialog(emission.result)
                self.stats.dialogs += 1
            self._unflushed.extend(emission.refs)  # type: ignore[arg-type]
        self._unflushed.extend(out.done)  # type: ignore[arg-type]
        for failure in out.failed:
            if failure.ref is not None:
                self._failed(failure)
                self._unflushed.append(failure.ref)  # type: ignore[arg-type]

    def _commit(self) -> None:
        offsets = self.offsets.to_commit()
        if not offsets or self._consumer is None:
            return
        assigned = self._consumer.assignment()
        mine = {tp: off for tp, off in offsets.items() if tp in assigned}
        if not mine:
            return
        try:
            self._consumer.commit({tp: OffsetAndMetadata(off, "", -1) for tp, off in mine.items()})
            self.offsets.committed(mine)
        except (CommitFailedError, KafkaError) as exc:
            log.warning("commit failed; will retry", error=str(exc))

    def _handle_rebalance(self) -> None:
        revoked, assigned = self._listener.take()
        if revoked:
            gone = [cid for cid, tp in self.owner.items() if tp in revoked]
            self.processor.drop(gone)
            if self.otlp is not None:
                self.otlp.drop(revoked)
            for cid in gone:
                self.owner.pop(cid, None)
            for tp in revoked:
                self.offsets.forget(tp)
                self.restored.discard(tp)
                with contextlib.suppress(KeyError):
                    self.metrics.consumer_lag.remove(tp.topic, str(tp.partition))
            self._unflushed = [ref for ref in self._unflushed if ref[0] not in revoked]
            log.info("partitions revoked", partitions=sorted(p.partition for p in revoked), dropped=len(gone))
        if assigned:
            log.info("partitions assigned", partitions=sorted(p.partition for p in assigned))
            self._rebalancing = False
        elif revoked:
            self._rebalancing = True
        if self._rebalancing:
            return  # mid-rebalance assignment() still lists the old partitions: restore once the new set is known
        fresh = set(self._consumer.assignment()) - self.restored
        if fresh:
            self._restore(fresh)

    def _is_restored(self, tp: TopicPartition) -> bool:
        return self.state is None or tp in self.restored

    def _rewind(self, batch: dict[Any, list[Any]]) -> None:
        """Seek back to the first record of a polled batch, so the next poll returns it again."""
        assigned = self._consumer.assignment()
        for tp, records in batch.items():
            if records and tp in assigned:
                self._consumer.seek(tp, records[0].offset)

    def _update_lag(self) -> None:
        assigned = list(self._consumer.assignment())
        if not assigned:
            return
        try:
            # hardening hook: bounded, so a dead broker cannot hold the loop for request_timeout_ms (30 s)
            ends = self._consumer.end_offsets(assigned, timeout_ms=5000)
        except KafkaError as exc:
            log.warning("lag lookup failed", error=str(exc))
            return
        for tp in assigned:
            try:
                position = self._consumer.position(tp, timeout_ms=1000)
            except KafkaError:
                continue
            if position is not None and tp in ends:
                self.metrics.consumer_lag.labels(tp.topic, str(tp.partition)).set(max(0, ends[tp] - position))
