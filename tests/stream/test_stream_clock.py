"""The timers' clock: wall time while the stream can be read, not the time of an outage."""

from __future__ import annotations

from monitor.stream.stream_clock import StreamClock
from tests.stream.helpers import FakeClock


def test_it_follows_the_wall_clock_poll_by_poll():
    wall = FakeClock()
    clock = StreamClock(wall, max_step_s=5)
    start = clock()
    for _ in range(4):
        wall.advance(0.2)
        clock.advance()
    assert abs(clock() - start - 0.8) < 1e-9


def test_a_loop_held_for_a_long_time_ages_conversations_by_one_step_only():
    wall = FakeClock()
    clock = StreamClock(wall, max_step_s=5)
    start = clock()
    wall.advance(30)  # e.g. a flush waiting on a frozen broker
    clock.advance()
    assert clock() - start == 5


def test_time_without_broker_contact_does_not_count():
    wall = FakeClock()
    clock = StreamClock(wall, max_step_s=5)
    start = clock()
    for _ in range(100):  # 20 s of empty polls against an unreachable broker
        wall.advance(0.2)
        clock.advance(reachable=False)
    wall.advance(0.2)
    clock.advance(reachable=True)
    assert abs(clock() - start - 0.2) < 1e-9
