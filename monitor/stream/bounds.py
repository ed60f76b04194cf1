"""Bounded work per trace event: the limits of monitor/scoring/bounds.py, applied to an event's payloads."""

from __future__ import annotations

from monitor.scoring.bounds import Oversize, WorkLimits, fits, work_oversize
from monitor.stream.events import TraceEvent

__all__ = ["Oversize", "WorkLimits", "fits", "oversize"]


def oversize(event: TraceEvent, limits: WorkLimits, size: int | None = None) -> Oversize | None:
    """Which limit (if any) scoring this event would exceed; `size`: its JSON bytes, when known."""
    return work_oversize(event.predict_turn, event.gold_turn, limits, size)
