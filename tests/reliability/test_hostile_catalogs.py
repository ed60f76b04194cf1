"""Tool catalogs carried by trace events, on a real broker: a `$ref` to a URL is never fetched, and a
catastrophic `pattern` does not stall the loop (RE2 matches in linear time)."""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

import pytest

from monitor.cluster import make_producer
from monitor.tools.replay import publish
from tests.reliability.test_crash_loops import (
    MAX_LATE_S,
    ordinary_events,
    scored_turns,
    send_and_check_after,
    start,
    wait_turns,
    worst_lateness,
)
from tests.support.kafka import TopicSet

pytestmark = pytest.mark.integration


class HoldingServer:
    """Accepts connections, counts them, and never answers (a fetch would hang on it)."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.held: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            self.held.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


def tool_event(cid: str, parameters: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """A judge-only tool turn whose event brings its own catalog."""
    return {
        "schema_version": 1,
        "conversation_id": cid,
        "release": "r-hostile",
        "turn_no": 1,
        "turn": "Tool",
        "timestamp": "2026-01-01T00:00:00Z",
        "tools": [{"tool_id": "t", "action": "call", "parameters": parameters}],
        "predict_turn": {"tool_id": "t", "action": "call", "args": args},
        "final": True,
    }


def test_event_catalogs_fetch_nothing_and_do_not_backtrack(broker):
    server = HoldingServer()
    url = f"http://127.0.0.1:{server.port}/schema.json"
    hostile = [
        tool_event("hostile-ref", {"type": "object", "properties": {"n": {"$ref": url}}}, {"n": 1}),
        tool_event(
            "hostile-pattern",
            {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}},
            {"s": "a" * 31 + "b"},
        ),
    ]
    topics = TopicSet.fresh(broker.bootstrap, partitions=2)
    group, state = f"{topics.traces}-g", f"{topics.traces}.state"
    before = ordinary_events("before")
    monitor = start(topics, broker.bootstrap, group, state)
    try:
        producer = make_producer(broker.bootstrap, client_id="hostile-catalogs")
        try:
            third = len(before) // 3
            mixed = [*before[:third], hostile[0], *before[third : 2 * third], hostile[1], *before[2 * third :]]
            publish(producer, topics.traces, mixed, rate=100)
        finally:
            producer.close(timeout=30)
        want = scored_turns(before) | {("hostile-ref", 1), ("hostile-pattern", 1)}
        records = wait_turns(broker.bootstrap, topics.verdicts, want)
        values = {(v["conversation_id"], v.get("turn_no")): v for v in (json.loads(r.value) for r in records)
                  if v["kind"] == "turn"}  # fmt: skip
        ref, pattern = values[("hostile-ref", 1)], values[("hostile-pattern", 1)]
        assert ref["failure_reason"] == "unscored" and "$ref" in ref["detail"]
        assert (pattern["failure_reason"], pattern["field"]) == ("inconsistent_parameter_values", "s")
        assert server.accepted == 0, "the monitor connected to the URL of a $ref"
        late = worst_lateness(broker.bootstrap, topics.traces, records, "before-")
        assert late <= MAX_LATE_S, f"ordinary verdicts up to {late:.2f} s late"
        assert monitor.stop() == 0
        monitor = start(topics, broker.bootstrap, group, state)
        send_and_check_after(broker.bootstrap, topics, ordinary_events("after"), monitor)
        assert monitor.stop() == 0
    finally:
        monitor.stop()
        server.close()
