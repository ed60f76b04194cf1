"""Fifty HTTP clients dripping a header line every 2 s at a real `aem run`, amid ordinary traffic at 100/s.

They must hold nothing: `/healthz` and `/metrics` answer at once while they drip, ordinary verdicts are at
most 2 s late, and SIGTERM ends the process promptly (it does not wait for the drippers).
"""

from __future__ import annotations

import socket
import threading
import time
import urllib.request

import pytest

from tests.reliability.test_crash_loops import (
    MAX_LATE_S,
    ordinary_events,
    scored_turns,
    start,
    wait_turns,
    worst_lateness,
)
from tests.support.kafka import TopicSet, send

pytestmark = pytest.mark.integration

DRIPPERS = 50


def drip(port: int, stop: threading.Event, opened: list[socket.socket]) -> None:
    """Open a connection and send one header line every 2 s until told to stop (or the server closes it)."""
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    except OSError:
        return
    opened.append(sock)
    try:
        sock.sendall(b"GET /metrics HTTP/1.1\r\n")
        while not stop.wait(2.0):
            sock.sendall(b"X-Drip: 1\r\n")
    except OSError:
        pass  # closed by the server at its deadline


def answered_in(url: str) -> float:
    started = time.monotonic()
    with urllib.request.urlopen(url, timeout=10) as response:
        response.read()
    return time.monotonic() - started


def test_dripping_clients_delay_neither_probes_nor_verdicts(broker) -> None:
    topics = TopicSet.fresh(broker.bootstrap, partitions=2)
    group, state = f"{topics.traces}-g", f"{topics.traces}.state"
    events = ordinary_events("before", per_release=4)
    monitor = start(topics, broker.bootstrap, group, state)
    stop, opened = threading.Event(), []
    try:
        deadline = time.monotonic() + 30
        while monitor.metrics_port is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert monitor.metrics_port is not None, "".join(monitor.lines[-20:])
        base = f"http://127.0.0.1:{monitor.metrics_port}"
        drippers = [
            threading.Thread(target=drip, args=(monitor.metrics_port, stop, opened), daemon=True)
            for _ in range(DRIPPERS)
        ]
        for thread in drippers:
            thread.start()
        time.sleep(1.0)  # every dripper connected and sent its first line
        send(broker.bootstrap, topics.traces, events, rate=100)
        probes = [answered_in(f"{base}/healthz"), answered_in(f"{base}/metrics")]
        records = wait_turns(broker.bootstrap, topics.verdicts, scored_turns(events))
        late = worst_lateness(broker.bootstrap, topics.traces, records, "before-")
        print(f"{len(opened)} drippers; probes answered in {max(probes):.3f} s; verdicts at most {late:.2f} s late")
        assert len(opened) == DRIPPERS
        assert max(probes) < 1.0
        assert late <= MAX_LATE_S, f"ordinary verdicts up to {late:.2f} s late"
        started = time.monotonic()
        assert monitor.stop(timeout=20) == 0
        stopped_in = time.monotonic() - started
        assert stopped_in < 10, f"SIGTERM took {stopped_in:.1f} s with drippers connected"
    finally:
        stop.set()
        for sock in opened:
            sock.close()
        monitor.stop()
