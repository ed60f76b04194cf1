"""The one commit path of `aem run`: sinks → state changelog → producer → offsets, in that order."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

import structlog
from kafka import TopicPartition
from kafka.errors import KafkaError
from kafka.structs import OffsetAndMetadata

from monitor.stream.offsets import OffsetTracker
from monitor.stream.sinks import Sink

log = structlog.get_logger(__name__)

Position = tuple[TopicPartition, int]


class CommittingConsumer(Protocol):
    def assignment(self) -> set[TopicPartition]: ...

    def commit(self, offsets: dict[TopicPartition, OffsetAndMetadata]) -> None: ...


class FlushingProducer(Protocol):
    def flush(self, timeout: float | None = None) -> None: ...


class Changelog(Protocol):
    def write_changes(self) -> None:
        """Send the state records of everything changed since the last call (to the producer)."""


class Checkpoint:
    """Owns the source offsets and commits them at least once, never past an unpublished verdict.

    The invariant, in one place: an offset is committed only when every event below it has its
    results published. `commit` therefore runs four steps in this order, and a step that raises
    stops the ones after it:

    1. every sink flushes (whatever it buffered reaches the producer);
    2. the state changelog of the changed conversations is written (to the producer);
    3. the producer is flushed: verdicts, DLQ records and changelog records are acknowledged;
    4. only now do the positions handed in since the last commit count as done, and for each
       partition the offset below the oldest position still waiting for its verdict is committed.

    A crash anywhere leaves the uncommitted events to be redelivered; the changelog lets their
    conversations be rebuilt so redeliveries are recognised as duplicates.
    """

    def __init__(
        self,
        consumer: CommittingConsumer,
        producer: FlushingProducer,
        sinks: Sequence[Sink],
        changelog: Changelog,
        interval_s: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.consumer = consumer
        self.producer = producer
        self.sinks = list(sinks)
        self.changelog = changelog
        self.interval_s = interval_s
        self.clock = clock
        self.offsets: OffsetTracker[TopicPartition] = OffsetTracker()
        self._completed: list[Position] = []  # results handed to the sinks, not yet flushed
        self._output = False  # something reached the sinks since the last commit (with or without a position)
        self._last = clock()

    def seen(self, position: Position) -> None:
        """A polled event: its offset is not safe to commit until it is completed and flushed."""
        self.offsets.seen(*position)

    def completed(self, positions: Iterable[Position]) -> None:
        """These events' results went to the sinks (or the DLQ); they count once flushed."""
        self._completed.extend(positions)

    def emitted(self) -> None:
        """Results reached the sinks that belong to no polled event (a timer finished a conversation)."""
        self._output = True

    def forget(self, partitions: Iterable[TopicPartition]) -> None:
        """Partitions this member no longer owns: their next owner commits them."""
        gone = set(partitions)
        for tp in gone:
            self.offsets.forget(tp)
        self._completed = [p for p in self._completed if p[0] not in gone]

    def due(self, idle: bool) -> bool:
        """Commit when something completed or was emitted, and either the poll was empty or the interval passed."""
        waiting = bool(self._completed) or self._output
        return waiting and (idle or self.clock() - self._last >= self.interval_s)

    def commit(self, timeout: float = 30.0) -> dict[TopicPartition, int]:
        """Run the four steps (see the class docstring); returns the offsets committed."""
        for sink in self.sinks:
            sink.flush()
        self.changelog.write_changes()
        self.producer.flush(timeout=timeout)
        self._last = self.clock()
        self._output = False
        for tp, offset in self._completed:
            self.offsets.done(tp, offset)
        self._completed = []
        return self._commit_offsets()

    def _commit_offsets(self) -> dict[TopicPartition, int]:
        assigned = self.consumer.assignment()
        mine = {tp: off for tp, off in self.offsets.to_commit().items() if tp in assigned}
        if not mine:
            return {}
        try:
            self.consumer.commit({tp: OffsetAndMetadata(off, "", -1) for tp, off in mine.items()})
        except KafkaError as exc:  # the done positions stay done: the next commit carries them
            log.warning("commit_failed_retrying", error=str(exc))
            return {}
        self.offsets.committed(mine)
        return mine
