"""A set of turn numbers stored as sorted, disjoint ranges: one small tuple for a conversation's usual 1..n.

An open conversation keeps two of these (turns seen, turns on the changelog) and a finished one is
remembered by its seen turns for up to `finished_memory` conversations, so their size counts: a
built-in ``set`` of three ints is 216 bytes, this is one object and one tuple (about 100 bytes) for
any contiguous run of turns, and a run from turn 0 or 1 is one tuple shared by every set that holds it
(40 bytes a set). Membership is a binary search over the range starts.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator

_SHARED_STOP = 4096  # runs 0..n and 1..n below it are one tuple for every conversation (at most ~8k of them)
_RUNS: dict[tuple[int, ...], tuple[int, ...]] = {}


def _shared(bounds: tuple[int, ...]) -> tuple[int, ...]:
    """The one copy of a single run from turn 0 or 1: an open conversation's seen and saved turns, and
    every conversation at the same turn, hold the same tuple instead of 56 bytes each."""
    if len(bounds) == 2 and bounds[0] <= 1 and bounds[1] <= _SHARED_STOP:
        return _RUNS.setdefault(bounds, bounds)
    return bounds


class TurnSet:
    """Turn numbers as ``(start0, stop0, start1, stop1, …)``: half-open ranges, sorted, never touching."""

    __slots__ = ("_bounds",)

    def __init__(self, turns: Iterable[int] = ()) -> None:
        self._bounds: tuple[int, ...] = ()
        for turn in sorted(set(turns)):
            self.add(turn)

    def __contains__(self, turn: object) -> bool:
        if not isinstance(turn, int):
            return False
        i = bisect_right(self._bounds, turn)  # odd: inside [start, stop)
        return i % 2 == 1

    def add(self, turn: int) -> None:
        bounds = self._bounds
        if bounds and bounds[-1] == turn:  # the usual case: the next turn in order
            self._bounds = _shared((*bounds[:-1], turn + 1))
            return
        i = bisect_right(bounds, turn)
        if i % 2 == 1:
            return  # already in
        joins_left = i > 0 and bounds[i - 1] == turn  # the range before stops right at it
        joins_right = i < len(bounds) and bounds[i] == turn + 1  # the range after starts right after it
        if joins_left and joins_right:
            self._bounds = bounds[: i - 1] + bounds[i + 1 :]
        elif joins_left:
            self._bounds = (*bounds[: i - 1], turn + 1, *bounds[i:])
        elif joins_right:
            self._bounds = (*bounds[:i], turn, *bounds[i + 1 :])
        else:
            self._bounds = (*bounds[:i], turn, turn + 1, *bounds[i:])
        self._bounds = _shared(self._bounds)

    def __iter__(self) -> Iterator[int]:
        bounds = self._bounds
        for start, stop in zip(bounds[::2], bounds[1::2], strict=True):
            yield from range(start, stop)

    def __len__(self) -> int:
        bounds = self._bounds
        return sum(stop - start for start, stop in zip(bounds[::2], bounds[1::2], strict=True))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TurnSet):
            return self._bounds == other._bounds
        if isinstance(other, set | frozenset):
            return set(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like set

    def __repr__(self) -> str:
        return f"TurnSet({list(self)!r})"
