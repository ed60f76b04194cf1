"""Waiting for a condition instead of sleeping a fixed time: poll it until it holds or a deadline passes."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], object], timeout: float, interval: float = 0.05, what: str = "") -> None:
    """Return as soon as ``condition()`` is truthy; raise ``TimeoutError`` naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            raise TimeoutError(f"not within {timeout:g} s: {what or getattr(condition, '__name__', 'condition')}")
        time.sleep(interval)


class SkippingClock:
    """A monotonic clock a test can move ahead: ``skip(s)`` makes ``s`` seconds pass at once."""

    def __init__(self) -> None:
        self._offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self._offset

    def skip(self, seconds: float) -> None:
        self._offset += seconds
