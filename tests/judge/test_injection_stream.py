"""Prompt injection on the stream: a judged reply that tells the judge "this turn is correct", sent to a real
`aem run` amid ordinary traffic at 100 events/s, with an instruction-following fake judge over real HTTP.
The wrong reply must fail, and ordinary verdicts must not be late."""

from __future__ import annotations

import json
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

from .conftest import ChatServer
from .test_injection import INJECTION, WRONG, instruction_follower, obeys_anywhere

pytestmark = pytest.mark.integration


def booking_events(cid: str, reply: str) -> list[dict[str, Any]]:
    base = {"schema_version": 1, "conversation_id": cid, "release": "r-injection", "timestamp": "2026-01-01T00:00:00Z"}
    return [
        {**base, "turn_no": 1, "turn": "User", "predict_turn": {"content": "Book UA-100 for Maria Lopez, please."}},
        {
            **base,
            "turn_no": 2,
            "turn": "Tool",
            "predict_turn": {
                "tool_id": "flights",
                "action": "book",
                "args": {"flight_id": "UA-100", "passenger_name": "Maria Lopez"},
                "output": {"status": "confirmed", "booking_id": "BK-48213"},
            },
        },
        {**base, "turn_no": 3, "turn": "Agent", "predict_turn": {"response": reply}, "final": True},
    ]


def test_an_injected_instruction_does_not_pass_a_wrong_reply_on_the_stream(
    broker: Any, chat_server: ChatServer
) -> None:
    chat_server.respond = instruction_follower
    topics = TopicSet.fresh(broker.bootstrap, partitions=2)
    env = {"AEM_JUDGE_URL": chat_server.url, "AEM_JUDGE_MODEL": "follower", "AEM_METRICS_HOST": "127.0.0.1"}
    monitor = MonitorProcess(topics.run_args(broker.bootstrap, "--idle-timeout", "30"), env=env).start()
    before = ordinary_events("before")
    injected = booking_events("injected", f"{WRONG} {INJECTION}")
    try:
        monitor.wait_for("partitions_assigned")
        send(broker.bootstrap, topics.traces, amid(before, injected), rate=100)
        records = wait_turns(broker.bootstrap, topics.verdicts, scored_turns(before) | {("injected", 3)})
        assert monitor.process is not None and monitor.process.poll() is None, "".join(monitor.lines[-20:])
        [reply] = [
            v
            for v in map(json.loads, (r.value for r in records))
            if v["conversation_id"] == "injected" and v["kind"] == "turn" and v["turn_no"] == 3
        ]
        assert reply["success"] is False, reply
        assert reply["mode"] == "judge"
        late = worst_lateness(broker.bootstrap, topics.traces, records, "before-")
        assert late <= MAX_LATE_S, f"ordinary verdicts up to {late:.2f} s late"
        assert monitor.stop() == 0
    finally:
        monitor.stop()


def test_a_judge_obeying_an_injection_in_a_tool_output_is_not_taken_on_the_stream(
    broker: Any, chat_server: ChatServer
) -> None:
    """A model that ignores its system prompt obeys "this turn is correct" in a tool output: the control question
    shows it, the reply is `unscored` (not a pass), ordinary verdicts are not late, /healthz is 200 and SIGTERM
    exits promptly."""
    chat_server.respond = obeys_anywhere
    chat_server.control = obeys_anywhere
    topics = TopicSet.fresh(broker.bootstrap, partitions=2)
    env = {"AEM_JUDGE_URL": chat_server.url, "AEM_JUDGE_MODEL": "obeys", "AEM_METRICS_HOST": "127.0.0.1"}
    monitor = MonitorProcess(topics.run_args(broker.bootstrap, "--idle-timeout", "30"), env=env).start()
    before = ordinary_events("before")
    injected = booking_events("injected", "Done: UA-100 is booked, BK-48213.")
    injected[1]["predict_turn"]["output"]["note"] = INJECTION
    try:
        monitor.wait_for("partitions_assigned")
        send(broker.bootstrap, topics.traces, amid(before, injected), rate=100)
        records = wait_turns(broker.bootstrap, topics.verdicts, scored_turns(before) | {("injected", 3)})
        assert monitor.metrics_port is not None
        with urllib.request.urlopen(f"http://127.0.0.1:{monitor.metrics_port}/healthz", timeout=5) as response:
            assert response.status == 200
        [reply] = [
            v
            for v in map(json.loads, (r.value for r in records))
            if v["conversation_id"] == "injected" and v["kind"] == "turn" and v["turn_no"] == 3
        ]
        assert reply["success"] is None and reply["failure_reason"] == "unscored", reply
        late = worst_lateness(broker.bootstrap, topics.traces, records, "before-")
        print(f"ordinary verdicts at most {late:.2f} s late")
        assert late <= MAX_LATE_S, f"ordinary verdicts up to {late:.2f} s late"
        started = time.monotonic()
        assert monitor.stop() == 0
        assert time.monotonic() - started < 5.0
    finally:
        monitor.stop()
