"""One 20,000-argument event among 1,000 ordinary ones, on a real broker: the others are not held up.

Two runs in one test, each an in-process monitor on fresh topics fed at a steady rate: a control run
of the 1,000 ordinary events, then the same events with the pathological one in the middle. The
latency of an ordinary verdict is its record's timestamp minus its trace event's (both set by
clients on this host). Both runs use the same warmed engine, and the ordinary conversations are
scored once beforehand so neither run pays for embeddings the other got from the cache.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest

from monitor.models.dialog import Dialog
from monitor.tools.replay import dialog_events
from tests.conftest import EXAMPLES
from tests.support.kafka import MonitorThread, TopicSet, read_all, send, settings_for

pytestmark = pytest.mark.integration

SALES = json.loads((EXAMPLES / "sales_report.json").read_text())  # five scored turns
CONVERSATIONS = 200  # x 5 = 1,000 ordinary events
RATE = 100.0  # events per second: the monitor keeps up, so latency is per-event work, not a queue
HUGE_ARGS = 20_000
SLACK_S = 5.0  # generous: the issue asks for "about a second"; scheduling noise on a shared box is larger


def ordinary(tag: str) -> list[dict[str, Any]]:
    dialogs = [
        Dialog.model_validate({"dialog_id": f"{tag}-{i}", "release": "r", "turns": SALES}) for i in range(CONVERSATIONS)
    ]
    per_dialog = [list(dialog_events(d)) for d in dialogs]
    return [event for turn in zip(*per_dialog, strict=True) for event in turn]  # conversations interleaved


def pathological(tag: str) -> list[dict[str, Any]]:
    turns = json.loads(json.dumps(SALES))
    turns[1]["predict_turn"]["args"] = {f"k{i}": f"differing text value number {i}" for i in range(HUGE_ARGS)}
    return list(dialog_events(Dialog.model_validate({"dialog_id": f"{tag}-huge", "release": "r", "turns": turns})))


Found = dict[tuple[str, int], tuple[float, str | None]]


def latencies(bootstrap: str, topics: TopicSet, expect: int) -> Found:
    """Seconds from each trace event to its turn verdict, and the verdict's failure reason, by (conversation, turn)."""
    sent = {
        (e["conversation_id"], e["turn_no"]): r.timestamp
        for r in read_all(bootstrap, topics.traces, timeout=30)
        for e in [json.loads(r.value)]
    }
    deadline = time.monotonic() + 120
    out: Found = {}
    while time.monotonic() < deadline and len(out) < expect:
        for r in read_all(bootstrap, topics.verdicts, expect=expect, timeout=10):
            v = json.loads(r.value)
            key = (v["conversation_id"], v.get("turn_no"))
            if v["kind"] == "turn" and key in sent:
                out[key] = ((r.timestamp - sent[key]) / 1000, v.get("failure_reason"))
    return out


def run(broker: Any, engine: Any, events: list[dict[str, Any]], expect: int) -> Found:
    topics = TopicSet.fresh(broker.bootstrap)
    monitor = MonitorThread(settings_for(broker.bootstrap, topics), engine=engine).start()
    try:
        send(broker.bootstrap, topics.traces, events, rate=RATE)
        return latencies(broker.bootstrap, topics, expect)
    finally:
        monitor.stop()


def test_a_20000_argument_event_does_not_hold_up_the_ordinary_verdicts(broker, engine):
    tag = uuid.uuid4().hex[:6]
    engine.score_dialogs([Dialog.model_validate({"dialog_id": "warm", "release": "r", "turns": SALES})])
    control_events, mixed_events = ordinary(f"{tag}-c"), ordinary(f"{tag}-m")
    huge = pathological(tag)
    middle = len(mixed_events) // 2
    mixed_events[middle:middle] = huge
    expected = len(control_events)

    control = run(broker, engine, control_events, expected)
    mixed = run(broker, engine, mixed_events, expected + len(huge))

    with_huge = sorted(s for k, (s, _) in mixed.items() if not k[0].endswith("-huge"))
    without = sorted(s for s, _ in control.values())
    assert len(without) == expected and len(with_huge) == expected
    print(
        f"ordinary verdict latency: control worst {without[-1]:.2f}s median {without[expected // 2]:.2f}s; "
        f"with a {HUGE_ARGS}-argument event worst {with_huge[-1]:.2f}s median {with_huge[expected // 2]:.2f}s"
    )
    assert with_huge[-1] <= without[-1] + SLACK_S, "the pathological event held up the ordinary verdicts"
    reasons = {k[1]: reason for k, (_, reason) in mixed.items() if k[0].endswith("-huge")}
    assert len(reasons) == len(huge) and reasons[2] == "too_large"  # its conversation carries on
