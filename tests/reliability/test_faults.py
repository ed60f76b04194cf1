"""Fault scenarios against real `aem run` processes on the real broker (GitHub issue 5, item 2).

Each test streams paced sample traffic (with cascades in release 2026.11.2), injects one fault
mid-stream and then checks the whole verdict topic against the batch verdicts: no lost verdict, no
wrong verdict (a cascade stays a cascade across restarts), duplicates bounded by one poll batch,
every finished conversation's dialog summary present. Scenario code: tests/reliability/scenarios.py.
"""

from __future__ import annotations

import pytest

from tests.reliability import scenarios
from tests.reliability.scenarios import MAX_POLL_RECORDS, MAX_SCORE_DRIFT, ScenarioResult

pytestmark = pytest.mark.integration

PER_RELEASE = 30  # 60 conversations, 360 events, 300 scored turns


@pytest.fixture
def traffic(engine):
    t = scenarios.make_traffic(engine, per_release=PER_RELEASE)
    cascades = [v for v in t.expected_turns.values() if v["attribution"] == "cascading"]
    assert cascades, "the sample traffic should contain cascades"
    return t


def check(res: ScenarioResult, traffic: scenarios.Traffic) -> None:
    print("\n" + ScenarioResult.header() + "\n" + res.row(), res.exit_codes, res.notes)
    detail = "\n".join(res.examples)
    assert res.lost == 0, f"{res.lost} turn verdicts lost:\n{detail}"
    assert res.lost_dialogs == 0, f"{res.lost_dialogs} dialog summaries lost:\n{detail}"
    assert res.wrong == 0, f"{res.wrong} wrong turn verdicts:\n{detail}"
    assert res.wrong_dialogs == 0, f"{res.wrong_dialogs} wrong dialog summaries:\n{detail}"
    assert res.max_score_drift <= MAX_SCORE_DRIFT, f"stream score differs from batch by {res.max_score_drift}"
    assert res.duplicated <= MAX_POLL_RECORDS, f"{res.duplicated} duplicates: more than one poll batch"
    assert res.verdicts == traffic.expected_records + res.duplicated


def test_kill9_mid_stream_then_fresh_monitor(broker, traffic):
    res = scenarios.kill9_restart(broker.bootstrap, traffic)
    check(res, traffic)
    assert res.exit_codes == [-9, 0]


def test_instance_joins_and_another_leaves_mid_stream(broker, traffic):
    res = scenarios.join_and_leave(broker.bootstrap, traffic)
    check(res, traffic)
    assert res.exit_codes == [0, 0]


def test_broker_frozen_20s_mid_stream(traffic):
    res = scenarios.broker_freeze(traffic, freeze_s=20.0)
    check(res, traffic)
    assert res.exit_codes == [0]


def test_sigterm_drains_cleanly_and_a_restart_finishes(broker, traffic):
    res = scenarios.sigterm_restart(broker.bootstrap, traffic)
    check(res, traffic)
    assert res.exit_codes == [0, 0], "SIGTERM must drain and exit 0"
