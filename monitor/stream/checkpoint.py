"""The one commit path of `aem run`: sinks → state changelog → producer → offsets, in that order."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol

import structlog
from kafka import TopicPartition
from kafka.errors import KafkaError
from kafka.structs import OffsetAndMetadata

from monitor.stream.sinks import Sink

log = structlog.get_logger(__name__)


class CommittingConsumer(Protocol):
    def assignment(self) -> set[TopicPartition]: ...

    def commit(self, offsets: dict[TopicPartition, OffsetAndMetadata]) -> None: ...


class FlushingProducer(Protocol):
    def flush(self, timeout: float | None = None) -> None: ...


class Changelog(Protocol):
    def write_changes(self) -> None:
        """Send the state records of everything changed since the last call (to the producer)."""


class Checkpoint:
    """Commits what was consumed once the changelog that holds it is flushed (the Kafka Streams model): every event
    the processor took is on the state changelog (held turns, turns waiting for a judge, scored ones), and a
    restore rebuilds open conversations from it and sends the verdicts never sent, so nothing tracks which event
    is "done". A crash before the commit leaves the events to be redelivered, recognised as duplicates.
    """

    def __init__(
        self,
        consumer: CommittingConsumer,
        producer: FlushingProducer,
        sinks: Sequence[Sink],
        changelog: Changelog,
        interval_s: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
        holding: Callable[[], Mapping[TopicPartition, int]] = dict,
    ) -> None:
        self.consumer = consumer
        self.producer = producer
        self.sinks = list(sinks)
        self.changelog = changelog
        self.interval_s = interval_s
        self.clock = clock
        self.holding = holding
        self.polled: dict[TopicPartition, int] = {}  # the next offset to read, per partition
        self.committed: dict[TopicPartition, int] = {}
        self.left: dict[TopicPartition, int] = {}  # the oldest record with events a stop left unprocessed
        self._output = False  # something reached the sinks since the last commit
        self._last = clock()

    def polled_to(self, tp: TopicPartition, offset: int) -> None:
        """The record at `offset` was read (and handed on, or dead-lettered)."""
        self.polled[tp] = max(self.polled.get(tp, 0), offset + 1)

    def unprocessed(self, tp: TopicPartition, offset: int) -> None:
        """The record at `offset` holds an event that was not processed (a stop came mid-poll): no offset past it
        is committed, so the restart reads it again (the events of it that were processed are duplicates)."""
        self.left[tp] = min(offset, self.left.get(tp, offset))

    def emitted(self) -> None:
        """Results reached the sinks (a timer finished a conversation, a restore sent what was never sent)."""
        self._output = True

    def forget(self, partitions: Iterable[TopicPartition]) -> None:
        """Partitions this member no longer owns: their next owner commits them."""
        for tp in partitions:
            self.polled.pop(tp, None)
            self.committed.pop(tp, None)
            self.left.pop(tp, None)

    def due(self, idle: bool) -> bool:
        """Commit when something was read or emitted since, and either the poll was empty or the interval passed."""
        waiting = self._output or any(self.committed.get(tp) != offset for tp, offset in self._targets().items())
        return waiting and (idle or self.clock() - self._last >= self.interval_s)

    def _targets(self) -> dict[TopicPartition, int]:
        """Per polled partition, the offset to commit: the next to read, or the oldest one the source holds or
        a stop left unprocessed."""
        held = self.holding()
        return {tp: min(offset, held.get(tp, offset), self.left.get(tp, offset)) for tp, offset in self.polled.items()}

    def commit(self, timeout: float = 30.0) -> dict[TopicPartition, int]:
        """Sinks → changelog → producer → offsets, stopping at the first step that raises; returns the offsets
        committed (no further than a record the source is still `holding`, nor than one left `unprocessed`)."""
        for sink in self.sinks:
            sink.flush()
        self.changelog.write_changes()
        self.producer.flush(timeout=timeout)
        self._last = self.clock()
        self._output = False
        assigned = self.consumer.assignment()
        mine = {tp: off for tp, off in self._targets().items() if tp in assigned and self.committed.get(tp) != off}
        if not mine:
            return {}
        try:
            self.consumer.commit({tp: OffsetAndMetadata(off, "", -1) for tp, off in mine.items()})
        except KafkaError as exc:  # the next commit carries them
            log.warning("commit_failed_retrying", error=str(exc))
            return {}
        self.committed.update(mine)
        return mine
