"""What `aem run` says at info level while it works: the group join, a progress line every 30 s, and a
warning with counts when redelivered or replayed events are dropped as duplicates."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import structlog
from kafka import TopicPartition

log = structlog.get_logger(__name__)


@dataclass
class ProgressLog:
    interval_s: float = 30.0
    duplicate_interval_s: float = 10.0
    clock: Callable[[], float] = time.monotonic
    joined: bool = False
    duplicates: int = 0  # since the last warning
    duplicates_total: int = 0
    examples: list[str] = field(default_factory=list)  # a few conversations the dropped events belong to
    _last_progress: float | None = None
    _last_duplicates: float = 0.0

    def group_joined(self, group: str, assignment: Iterable[TopicPartition]) -> None:
        """Log the first assignment once: the consumer is a member of its group."""
        if not self.joined:
            self.joined = True
            log.info("group_joined", group=group, partitions=sorted(tp.partition for tp in assignment))

    def saw(self, outcome: str | None, conversation_id: str) -> None:
        """Count an event the processor dropped as a duplicate."""
        if outcome != "duplicate":
            return
        self.duplicates += 1
        self.duplicates_total += 1
        if len(self.examples) < 3 and conversation_id not in self.examples:
            self.examples.append(conversation_id)

    def tick(self, figures: Callable[[], dict[str, int]]) -> None:
        """Log what is due; `figures` (the monitor's counters) is only called when a progress line is."""
        now = self.clock()
        if self.duplicates and now - self._last_duplicates >= self.duplicate_interval_s:
            log.warning(
                "duplicates_dropped",
                dropped=self.duplicates,
                total=self.duplicates_total,
                conversations=self.examples,
                hint="events whose (conversation_id, turn_no) was already scored; replay with fresh ids to rescore",
            )
            self.duplicates, self.examples, self._last_duplicates = 0, [], now
        if self._last_progress is None:
            self._last_progress = now
        elif now - self._last_progress >= self.interval_s:
            log.info("progress", **figures())
            self._last_progress = now
