"""A hostile judge endpoint behind a real `aem run`, amid ordinary traffic at 100 events/s on the real broker.

The endpoint sends its answer's head at once, then one byte every 2 s: no per-read timeout ever trips. Eight
judged replies take every worker and queue slot. Ordinary verdicts must stay at most 2 s late and `/healthz`
200; once the endpoint answers again, a judged reply sent then is judged (the workers were freed by the
attempts' deadlines, not held for the drip); and SIGTERM with every worker held by the drip exits within 5 s.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.request
from typing import Any

import pytest

from tests.reliability.test_crash_loops import (
    MAX_LATE_S,
    amid,
    ordinary_events,
    scored_turns,
    wait_turns,
    worst_lateness,
)
from tests.support.kafka import MonitorProcess, TopicSet, send

from .conftest import ANSWER, RawEndpoint, drip
from .test_injection_stream import booking_events

pytestmark = pytest.mark.integration

GROUNDED = "Done: UA-100 is booked, BK-48213."  # grounded by the booking tool: the judge is asked about it
JUDGED = 8  # judge.concurrency 4 + judge.queue_limit 4
SIGTERM_S = 5.0


def judged_events(cid: str, n: int) -> list[dict[str, Any]]:
    """A booking conversation whose judged reply is asked about afresh (the user's message differs: no cache hit)."""
    events = booking_events(cid, GROUNDED)
    events[0]["predict_turn"]["content"] += "!" * (n + 1)
    return events


def turn_verdicts(records: list[Any], prefix: str) -> dict[str, dict[str, Any]]:
    values = (json.loads(r.value) for r in records)
    return {
        v["conversation_id"]: v
        for v in values
        if v["kind"] == "turn" and v["turn_no"] == 3 and v["conversation_id"].startswith(prefix)
    }


def test_a_dripping_judge_holds_neither_the_pool_nor_the_shutdown(broker: Any, raw_endpoint: Any) -> None:
    head, _, body = ANSWER_RESPONSE.partition(b"\r\n\r\n")
    mode = {"drip": True}
    connections: list[float] = []

    def behave(conn: socket.socket) -> None:
        connections.append(time.monotonic())
        if mode["drip"]:
            conn.sendall(head + b"\r\n\r\n")
            drip(body, 2.0, stop_after_s=600)(conn)
        else:
            conn.sendall(ANSWER_RESPONSE)

    endpoint: RawEndpoint = raw_endpoint(behave)
    topics = TopicSet.fresh(broker.bootstrap, partitions=2)
    env = {"AEM_JUDGE_URL": endpoint.url, "AEM_JUDGE_TIMEOUT": "3", "AEM_METRICS_HOST": "127.0.0.1"}
    monitor = MonitorProcess(topics.run_args(broker.bootstrap, "--idle-timeout", "60"), env=env).start()
    before = ordinary_events("before")
    judged = [e for i in range(JUDGED) for e in judged_events(f"dripped-{i}", i)]
    try:
        monitor.wait_for("partitions_assigned")
        assert monitor.metrics_port is not None
        healthz = f"http://127.0.0.1:{monitor.metrics_port}/healthz"
        send(broker.bootstrap, topics.traces, amid(before, judged), rate=100)
        want = scored_turns(before) | {(f"dripped-{i}", 3) for i in range(JUDGED)}
        records = wait_turns(broker.bootstrap, topics.verdicts, want)
        with urllib.request.urlopen(healthz, timeout=5) as response:
            assert response.status == 200
        late = worst_lateness(broker.bootstrap, topics.traces, records, "before-")
        dripped = turn_verdicts(records, "dripped-")
        print(f"ordinary verdicts at most {late:.2f} s late; {len(connections)} judge connections")
        assert late <= MAX_LATE_S, f"ordinary verdicts up to {late:.2f} s late"
        assert len(dripped) == JUDGED and all(v["failure_reason"] == "unscored" for v in dripped.values()), dripped

        mode["drip"] = False  # the endpoint recovers: the next judged reply is judged, not refused as busy
        time.sleep(12)  # 3 attempts x 3 s + backoff: every dripped request has ended by now
        send(broker.bootstrap, topics.traces, judged_events("recovered", JUDGED), rate=100)
        records = wait_turns(broker.bootstrap, topics.verdicts, {("recovered", 3)})
        recovered = turn_verdicts(records, "recovered")["recovered"]
        assert recovered["success"] is True, recovered

        mode["drip"] = True  # every worker held by the drip again, then SIGTERM
        held = len(connections)
        send(broker.bootstrap, topics.traces, [e for i in range(4) for e in judged_events(f"held-{i}", JUDGED + 1 + i)])
        deadline = time.monotonic() + 30
        while len(connections) < held + 4 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(connections) >= held + 4, "the judged replies never reached the endpoint"
        started = time.monotonic()
        assert monitor.stop(timeout=30) == 0, "".join(monitor.lines[-20:])
        stopped_in = time.monotonic() - started
        print(f"SIGTERM with four workers held: exited in {stopped_in:.2f} s")
        assert stopped_in < SIGTERM_S, f"SIGTERM took {stopped_in:.1f} s with the judge dripping"
    finally:
        monitor.stop()


ANSWER_RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
    len(ANSWER),
    ANSWER,
)
