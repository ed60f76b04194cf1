"""A set of turn numbers stored as sorted, disjoint ranges: one small tuple for a conversation's usual 1..n.

Open conversations keep several and up to `finished_memory` finished ones are remembered by theirs, so size
counts: a ``set`` of three ints is 216 bytes, a run from turn 0 or 1 here is one tuple shared by every set
that holds it (40 bytes a set). Past ``_SPILL`` bounds (turns 1, 3, 5, …) the ranges move into a
``SortedList``, so an insert stays O(log n).
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Iterable, Iterator
from functools import partial

from sortedcontainers import SortedList

_SHARED_STOP = 4096  # runs 0..n and 1..n below it are one tuple for every conversation (at most ~8k of them)
_RUNS: dict[tuple[int, ...], tuple[int, ...]] = {}
_SPILL = 64  # bounds (32 ranges) past which they live in a SortedList


def _shared(bounds: tuple[int, ...]) -> tuple[int, ...]:
    """The one copy of a single run from turn 0 or 1, shared by every set that holds it."""
    if len(bounds) == 2 and bounds[0] <= 1 and bounds[1] <= _SHARED_STOP:
        return _RUNS.setdefault(bounds, bounds)
    return bounds


class TurnSet:
    """Turn numbers as ``(start0, stop0, start1, stop1, …)``: half-open ranges, sorted, never touching."""

    __slots__ = ("_bounds",)

    def __init__(self, turns: Iterable[int] = ()) -> None:
        bounds: list[int] = []
        for turn in sorted(set(turns)):  # in one pass: each turn extends the last range or starts the next
            if bounds and bounds[-1] == turn:
                bounds[-1] = turn + 1
            else:
                bounds += (turn, turn + 1)
        self._bounds: tuple[int, ...] | SortedList = (
            SortedList(bounds) if len(bounds) > _SPILL else _shared(tuple(bounds))
        )

    def __contains__(self, turn: object) -> bool:
        if not isinstance(turn, int):
            return False
        bounds = self._bounds
        i = bounds.bisect_right(turn) if isinstance(bounds, SortedList) else bisect_right(bounds, turn)
        return i % 2 == 1  # odd: inside [start, stop)

    def add(self, turn: int) -> None:
        bounds = self._bounds
        if isinstance(bounds, SortedList):
            _insert(bounds, turn)
        elif bounds and bounds[-1] == turn:  # the usual case: the next turn in order
            self._bounds = _shared((*bounds[:-1], turn + 1))
        else:
            edited = list(bounds)
            _insert(edited, turn)
            self._bounds = SortedList(edited) if len(edited) > _SPILL else _shared(tuple(edited))

    def __iter__(self) -> Iterator[int]:
        for start, stop in self._ranges():
            yield from range(start, stop)

    def __len__(self) -> int:
        return sum(stop - start for start, stop in self._ranges())

    def _ranges(self) -> Iterator[tuple[int, int]]:
        bounds = iter(self._bounds)
        return zip(bounds, bounds, strict=True)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TurnSet):
            return tuple(self._bounds) == tuple(other._bounds)
        if isinstance(other, set | frozenset):
            return set(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like set

    def __repr__(self) -> str:
        return f"TurnSet({list(self)!r})"


def _insert(bounds: list[int] | SortedList, turn: int) -> None:
    """Add `turn` to range bounds in place: each change deletes or inserts a bound (O(log n) in a SortedList)."""
    if isinstance(bounds, SortedList):
        i, put = bounds.bisect_right(turn), bounds.add
    else:
        i, put = bisect_right(bounds, turn), partial(insort, bounds)
    if i % 2 == 1:
        return  # already in
    joins_left = i > 0 and bounds[i - 1] == turn  # the range before stops right at it
    joins_right = i < len(bounds) and bounds[i] == turn + 1  # the range after starts right after it
    if joins_left and joins_right:  # fills the gap between two ranges
        del bounds[i]
        del bounds[i - 1]
    elif joins_left:  # the range before grows by one
        del bounds[i - 1]
        put(turn + 1)
    elif joins_right:  # the range after starts one earlier
        del bounds[i]
        put(turn)
    else:
        put(turn)
        put(turn + 1)
