"""Which offsets are safe to commit: everything below the oldest event still waiting for its verdict."""

from __future__ import annotations

import heapq
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

P = TypeVar("P", bound=Hashable)  # a partition: TopicPartition in the monitor


@dataclass
class PartitionOffsets:
    pending: list[int] = field(default_factory=list)  # heap of offsets seen but not yet recorded
    done: set[int] = field(default_factory=set)
    next_offset: int | None = None  # one past the highest offset seen
    committed: int | None = None

    def safe(self) -> int | None:
        while self.pending and self.pending[0] in self.done:
            self.done.discard(heapq.heappop(self.pending))
        if self.pending:
            return self.pending[0]
        return self.next_offset


class OffsetTracker(Generic[P]):
    """Per-partition bookkeeping for at-least-once commits."""

    def __init__(self) -> None:
        self.partitions: dict[P, PartitionOffsets] = {}

    def seen(self, partition: P, offset: int) -> None:
        state = self.partitions.setdefault(partition, PartitionOffsets())
        heapq.heappush(state.pending, offset)
        state.next_offset = max(state.next_offset or 0, offset + 1)

    def done(self, partition: P, offset: int) -> None:
        state = self.partitions.get(partition)
        if state is not None:
            state.done.add(offset)

    def to_commit(self) -> dict[P, int]:
        """Partitions whose safe offset moved since the last commit."""
        out: dict[P, int] = {}
        for partition, state in self.partitions.items():
            safe = state.safe()
            if safe is not None and safe != state.committed:
                out[partition] = safe
        return out

    def lag_base(self, partition: P) -> int | None:
        """The offset a restart would read from: the last commit, else the oldest offset not yet done."""
        state = self.partitions.get(partition)
        if state is None:
            return None
        return state.committed if state.committed is not None else state.safe()

    def committed(self, offsets: dict[P, int]) -> None:
        for partition, offset in offsets.items():
            if partition in self.partitions:
                self.partitions[partition].committed = offset

    def forget(self, partition: P) -> None:
        self.partitions.pop(partition, None)
