"""SIGTERM while `aem run` scores one long poll: a released OTLP trace of 800 judge-only tool calls, each failing
with a different output (about half a minute of scoring). The monitor stops between two turns, within 5 s, and
leaves the turns it did not score uncommitted; a restart reads their batch again and scores them: every turn has
one verdict (without the check between events the stop waited for the rest of the poll: 49.5 s)."""

from __future__ import annotations

import json
import re
import time

import pytest

from tests.otlp.builders import batch, span
from tests.reliability.test_failing_turn_cost import ROOT, TRACE, distinct, trace
from tests.support.kafka import MonitorProcess, TopicSet, read_all, send

pytestmark = pytest.mark.integration

TURNS = 800
STOP_WITHIN_S = 5.0


def turn_verdicts(bootstrap: str, topic: str, expect: int = 0, timeout: float = 60.0) -> list[dict]:
    """The topic's turn verdicts, once there are `expect` of them (or the time is up); chain messages aside."""
    deadline = time.monotonic() + timeout
    while True:
        records = read_all(bootstrap, topic, timeout=10)
        turns = [v for v in (json.loads(r.value) for r in records) if v.get("kind") == "turn"]
        if len(turns) >= expect or time.monotonic() > deadline:
            return turns
        time.sleep(2.0)


def test_sigterm_mid_poll_stops_within_5_s_and_a_restart_scores_the_rest(broker):
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    env = {"AEM_STATE_TOPIC": f"{topics.traces}.state", "AEM_METRICS_HOST": "127.0.0.1"}
    args = topics.run_args(broker.bootstrap, "--input-format", "otlp_json")
    first = MonitorProcess(args, env=env).start()
    try:
        first.wait_for("state_restored", timeout=180)
        spans = trace(TURNS, distinct)
        root = span(TRACE, ROOT, "", 0, TURNS + 10, **{"gen_ai.operation.name": "invoke_agent"})
        batches = [batch(*spans[k : k + 400]) for k in range(0, TURNS, 400)]
        send(broker.bootstrap, topics.traces, [*batches, batch(root)])
        time.sleep(6.0)  # the root's poll releases every turn: the monitor is scoring them
        assert first.process is not None
        asked = time.monotonic()
        first.process.terminate()
        code = first.process.wait(timeout=60)
        took = time.monotonic() - asked
    finally:
        first.stop()
    assert code == 0, "".join(first.lines[-20:])
    assert took < STOP_WITHIN_S, f"SIGTERM took {took:.1f}s"
    cut = [line for line in first.lines if "poll_cut_short" in line]
    assert cut, "the stop came after the poll, not in it:\n" + "".join(first.lines[-20:])
    found = re.search(r"left=(\d+)", cut[0])
    assert found is not None
    left = int(found.group(1))
    before = turn_verdicts(broker.bootstrap, topics.verdicts)
    assert left > 0 and len(before) <= TURNS - left
    second = MonitorProcess(args, env=env).start()
    try:
        after = turn_verdicts(broker.bootstrap, topics.verdicts, expect=TURNS, timeout=300)
    finally:
        assert second.stop() == 0
    print("\n" + cut[0].strip())
    numbers = [v["turn_no"] for v in after]
    assert sorted(numbers) == list(range(1, TURNS + 1)), "every turn once: none lost, none sent twice"
    assert all(v["success"] is False for v in after)
    print(f"SIGTERM mid-poll: stopped in {took:.2f}s with {left} of {TURNS} turns left for the restart")
