"""A bounded worker pool for judge requests: submitting never blocks, a full pool refuses at once.

``workers`` threads run requests; up to ``queue_limit`` more wait. A submit beyond that returns a future
that already failed with :class:`PoolFull`, so the scoring loop never queues behind a slow judge: the
turn is ``unscored`` instead. :func:`wait_for` waits for one future until a deadline and no longer.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TypeVar

T = TypeVar("T")


class PoolFull(RuntimeError):
    """Every worker is busy and the queue is full."""


class OverBudget(RuntimeError):
    """A result was not ready within its time budget."""


class BoundedPool:
    def __init__(self, workers: int, queue_limit: int, name: str = "aem-judge") -> None:
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
        self._slots = threading.BoundedSemaphore(workers + queue_limit)
        self.capacity = workers + queue_limit
        self._taken = 0
        self._lock = threading.Lock()

    @property
    def full(self) -> bool:
        """Every slot is taken: a submit now would be refused."""
        with self._lock:
            return self._taken >= self.capacity

    def _take(self) -> bool:
        if not self._slots.acquire(blocking=False):
            return False
        with self._lock:
            self._taken += 1
        return True

    def _give_back(self) -> None:
        with self._lock:
            self._taken -= 1
        self._slots.release()

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        """Run ``fn`` on a worker; a future failed with :class:`PoolFull` when no slot is free (never blocks)."""
        if not self._take():
            refused: Future[T] = Future()
            refused.set_exception(PoolFull(f"all {self.capacity} judge slots are taken"))
            return refused
        try:
            future = self._executor.submit(fn)
        except RuntimeError:  # shut down
            self._give_back()
            raise
        future.add_done_callback(lambda _: self._give_back())
        return future

    def close(self) -> None:
        """Stop taking work; requests in flight finish on their own (their HTTP timeout bounds them)."""
        self._executor.shutdown(wait=False, cancel_futures=True)


def wait_for(future: Future[T], deadline: float) -> T:
    """The future's result if it is ready by ``deadline`` (a ``time.monotonic()`` value), else :class:`OverBudget`."""
    try:
        return future.result(timeout=max(0.0, deadline - time.monotonic()))
    except FutureTimeout:
        raise OverBudget("no verdict within the turn's time budget") from None
