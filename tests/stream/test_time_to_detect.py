"""Time to detect (issue 16): a failing turn reaches the metrics when it is scored, not when the next turn arrives."""

from __future__ import annotations

import time

import pytest

from monitor.models.trace_event import EventLimits, decode_event, encode_event
from tests.support.kafka import MonitorThread, TopicSet, read_all, send, settings_for, verdicts
from tests.support.polling import SkippingClock, wait_until

pytestmark = pytest.mark.integration

CID = "ttd-1"
SILENCE_S = 60.0  # the scenario: a failing Tool turn, then a minute with no next turn
STEP_S = 4.0  # below the stream clock's largest step across one poll


def event(turn_no: int, turn: str, predict: dict, gold: dict | None = None, final: bool = False) -> dict:
    out = {
        "schema_version": 1,
        "conversation_id": CID,
        "agent": "travel",
        "release": "r-ttd",
        "turn_no": turn_no,
        "turn": turn,
        "timestamp": "2026-11-30T12:00:00Z",
        "predict_turn": predict,
        "final": final,
    }
    return out | ({"gold_turn": gold} if gold is not None else {})


ASK = event(1, "User", {"content": "book me a hotel in Paris"})
WRONG_CALL = event(
    2,
    "Tool",
    {"tool_id": "hotels", "action": "search", "args": {"city": "Rome"}},
    {"tool_id": "hotels", "action": "search", "args": {"city": "Paris"}},
)
REPLY = event(3, "Agent", {"response": "Here are hotels."}, {"response": "Here are hotels."}, final=True)

FAILURE = {
    "agent": "travel",
    "release": "r-ttd",
    "mode": "reference",
    "turn_type": "action",
    "sub_metric": "truthfulness",
    "reason": "inconsistent_parameter_values",
    "attribution": "root_cause",
}


def test_a_failing_tool_turn_is_counted_within_2_s_and_its_chain_when_the_conversation_ends(broker, engine):
    for e in (ASK, WRONG_CALL, REPLY):
        decode_event(encode_event(e), EventLimits())  # the events are valid
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    clock = SkippingClock()
    monitor = MonitorThread(settings_for(broker.bootstrap, topics, idle_timeout_s=300), engine, clock=clock).start()
    try:
        send(broker.bootstrap, topics.traces, [ASK, WRONG_CALL])
        sent = time.monotonic()
        while monitor.value("aem_turn_failures_total", **FAILURE) < 1 and time.monotonic() - sent < 30:
            time.sleep(0.05)
        detected = time.monotonic() - sent
        assert monitor.value("aem_turn_failures_total", **FAILURE) == 1
        assert detected < 2.0, f"the failure took {detected:.1f} s to reach the metrics"
        assert monitor.value("aem_event_latency_seconds_count") == 1
        # 60 s of silence (think time) on the monitor's clock, skipped ahead a step per poll (the stream clock
        # advances by at most `max_step_s` across one poll): the conversation stays open, its chain bucket is not
        # known yet
        assert monitor.monitor is not None
        stream_clock = monitor.monitor.pipeline.stream_clock
        silent_until = stream_clock() + SILENCE_S
        while (now := stream_clock()) < silent_until:
            clock.skip(STEP_S)
            wait_until(lambda now=now: stream_clock() >= now + STEP_S, timeout=10, what="the monitor's clock moved")
        chain = {"agent": "travel", "release": "r-ttd", "chain_length": "1", "outcome": "fail"}
        assert monitor.value("aem_chain_turns_total", **chain) == 0
        [turn] = verdicts(read_all(broker.bootstrap, topics.verdicts, expect=1, timeout=10))
        assert (turn["kind"], turn["turn_no"], turn["success"], turn["chain_length"]) == ("turn", 2, False, None)

        send(broker.bootstrap, topics.traces, [REPLY])  # the conversation ends: the chain closes
        out = verdicts(read_all(broker.bootstrap, topics.verdicts, expect=4, timeout=30))
        assert [v["kind"] for v in out] == ["turn", "turn", "chain", "dialog"]
        assert (out[2]["turns"], out[2]["chain_length"]) == ([2], "1")
        assert monitor.value("aem_chain_turns_total", **chain) == 1
    finally:
        monitor.stop()
