"""The clock the conversation timers run on: time in which the monitor could read its stream.

The idle and gap timeouts mean "nothing came *while it could have come*": on wall time a broker frozen for
longer than the idle timeout would finish every open conversation before the events waiting in it are read.
So this clock advances only while the broker probe reports contact, by at most `max_step_s` per poll (a loop
held in a flush by a frozen broker does not age the conversations either).
"""

from __future__ import annotations

import time
from collections.abc import Callable


class StreamClock:
    def __init__(self, clock: Callable[[], float] = time.monotonic, max_step_s: float = 5.0) -> None:
        self.wall = clock
        self.max_step_s = max_step_s
        self._last = clock()
        self._now = self._last

    def __call__(self) -> float:
        return self._now

    def advance(self, reachable: bool = True) -> None:
        """Called once per poll: the time since the last call counts if the broker was reachable."""
        wall = self.wall()
        if reachable:
            self._now += min(max(0.0, wall - self._last), self.max_step_s)
        self._last = wall
