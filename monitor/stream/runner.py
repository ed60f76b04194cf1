"""`aem run`: the poll loop, in five steps — poll → decode → process → emit → commit (docs/architecture.md).

Each poll acts on rebalances first (`partitions.py`), decodes each record through the `Source` (an unreadable
one goes to the DLQ whole), processes the events (`TurnProcessor`: the poll's turns decided in one batch, then
each applied in order), emits what that produced (sinks, the DLQ) and commits when due (`checkpoint.py`).
`Monitor` builds no part: the composition root (`monitor/wiring.py`) does, the broker's through `connect`.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import structlog
from kafka import TopicPartition
from kafka.errors import KafkaError

from monitor.models.trace_event import InvalidEvent
from monitor.scoring import ScoringEngine
from monitor.stream.dlq import DeadLetter
from monitor.stream.emissions import Failure, Outcome, failure_reason
from monitor.stream.events import PolledRecord, Position, SourceEvent
from monitor.stream.pipeline import Connection, Pipeline
from monitor.stream.settings import MonitorSettings

log = structlog.get_logger(__name__)


class Monitor:
    """One consumer-group member: decode, score and record every trace event of its partitions.

    Built by ``monitor.wiring.build_monitor`` from its parts (``Pipeline``); `start` connects them to the broker
    through ``pipeline.connect``."""

    link: Connection  # the broker's parts (`start` makes them)

    def __init__(
        self,
        settings: MonitorSettings,
        engine: ScoringEngine,
        pipeline: Pipeline,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.engine = engine
        self.pipeline = pipeline
        self.processor, self.partitions, self.sinks = pipeline.processor, pipeline.partitions, pipeline.sinks
        self.telemetry, self.stats = pipeline.telemetry, pipeline.stats
        self.clock = clock
        self.stop_event, self.ready = threading.Event(), threading.Event()
        self.progress, self.watch = pipeline.progress, pipeline.watch
        self.watch.on_unreachable = self._give_up
        self.partitions.stopping = self.stop_event.is_set  # a restore under way gives up on SIGTERM
        self.failure: Exception | None = None
        self.metrics_port: int | None = None
        self._polled: dict[tuple[str, int], SourceEvent] = {}  # the poll being stepped: by (conversation, turn_no)

    # -- lifecycle -----------------------------------------------------------------------------

    def serve_metrics(self) -> int:
        self.metrics_port = self.watch.serve()
        return self.metrics_port

    def stop(self) -> None:
        self.stop_event.set()

    def start(self) -> None:
        """Warm the models up, connect (topics, producer, state store, consumer, DLQ, checkpoint), subscribe."""
        self.engine.warm_up()  # tables, the verifier's first run, the encoder's export: before the first turn
        self.link = self.pipeline.connect()
        self.link.consumer.subscribe([self.settings.topic], listener=self.partitions.rebalances)
        # Set-up leaves hundreds of thousands of long-lived objects (tables, gazetteer, encoder, schemas) that every
        # full collection would walk (over a second per 10,000 turns, docs/design/action-throughput.md): frozen, the
        # collector walks only what the stream allocates from here on (process-wide: the first monitor to stop thaws)
        gc.freeze()
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

    def _figures(self) -> dict[str, int]:
        lag = int(sum(sample.value for m in self.telemetry.consumer_lag.collect() for sample in m.samples))
        s, open_dialogs = self.stats, len(self.processor.open)
        return dict(
            events=s.events, verdicts=s.verdicts, dialogs=s.dialogs, dlq=s.invalid, lag=lag, open_dialogs=open_dialogs
        )

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
            gc.unfreeze()
            log.info("monitor_stopped", events=self.stats.events, verdicts=self.stats.verdicts)

    # -- one poll: the five steps ------------------------------------------------------------------

    def poll_once(self) -> None:
        consumer, checkpoint = self.link.consumer, self.link.checkpoint
        batch = consumer.poll(timeout_ms=self.settings.poll_timeout_ms)  # 1. poll
        self.watch.health.polled()
        self.pipeline.stream_clock.advance(reachable=self.watch.reachable())
        try:
            self._rebalanced(set(consumer.assignment()))
            # Events of a partition whose conversations are not restored yet would be scored without their history.
            ready = {tp: records for tp, records in batch.items() if self.partitions.ready(tp)}
            self._rewind({tp: records for tp, records in batch.items() if tp not in ready})
            self.step([rec for records in ready.values() for rec in records])  # 2.-4.
        except KafkaError:  # a restore or the DLQ failed: fetch the batch again next time (duplicates known)
            self._rewind(batch)
            raise
        for tp, records in ready.items():
            if records:
                checkpoint.polled_to(tp, records[-1].offset)
        if checkpoint.due(idle=not any(ready.values())) or any(sink.saturated for sink in self.sinks):
            checkpoint.commit(timeout=30)  # 5. commit (a saturated sink is flushed before more is read)

    def step(self, records: Sequence[PolledRecord]) -> None:
        """Decode, process and emit one poll's records."""
        decoded: list[SourceEvent] = []
        for rec in records:  # 2. decode
            position = (TopicPartition(rec.topic, rec.partition), rec.offset)
            self.stats.events += 1
            try:
                decoded += self.pipeline.source.decode(rec, position)
            except InvalidEvent as exc:
                self._dead_letter(DeadLetter.of_record(rec, str(exc)))
            except Exception as exc:  # the per-event guard: whatever a record does, the loop moves on
                log.error("event_decode_failed", source=_source(position), error=repr(exc)[:300])
                self._dead_letter(DeadLetter.of_record(rec, failure_reason("decoding", exc)))
        if not self.partitions.rebalancing:  # traces held for their root wait too: their partition may move
            decoded += self.pipeline.source.tick()
        self._polled = {(item.event.conversation_id, item.event.turn_no): item for item in decoded}
        self.processor.decide([(item.event, item.raw) for item in decoded])  # 3. process: one batch, then each
        for done, item in enumerate(decoded):
            if self.stop_event.is_set():  # SIGTERM mid-poll: the rest is not committed, so a restart reads it again
                for left in decoded[done:]:  # (what was processed of those records is recognised as duplicates)
                    self.link.checkpoint.unprocessed(*left.position)
                log.info("poll_cut_short", processed=done, left=len(decoded) - done)
                break
            try:
                self._emit(self._process(item))  # 4. emit
            except Exception as exc:  # the per-event guard: to the DLQ with its reason, the loop moves on
                log.error("event_step_failed", conversation=item.event.conversation_id, error=repr(exc)[:300])
                self._failed(Failure(item.event, failure_reason("processing", exc), item.raw))
        if not self.partitions.rebalancing:  # timers wait too: a conversation may be about to move
            self._emit(self.processor.tick())
        self._polled = {}

    def _rebalanced(self, assignment: set[TopicPartition]) -> None:
        """Act on rebalances: forget what moved away, restore what arrived (and send what it never sent)."""
        revoked, restored = self.partitions.sync(assignment)
        self.link.checkpoint.forget(revoked)
        self.pipeline.source.drop(revoked)
        self.telemetry.forget(revoked)
        if restored.emissions or restored.failed:
            self._emit(restored)
            self.link.checkpoint.commit(timeout=30)
        if assignment:
            self.progress.group_joined(self.settings.group_id, assignment)
            self.ready.set()

    def _process(self, item: SourceEvent) -> Outcome:
        """One decoded event through the processor (latency counts from when it was received)."""
        event = item.event
        self.partitions.owner[event.conversation_id] = item.position[0]
        self.pipeline.prometheus.saw_release(event.agent, event.release, item.received)
        result = self.processor.process(event, item.received, item.raw)
        self.progress.saw(result.event_outcome, event.conversation_id)
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
        if item is not None and item.record is not None:
            self._dead_letter(DeadLetter.of_record(item.record, failure.reason))
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
