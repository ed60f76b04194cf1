"""A judge that sleeps 30 s, on the real broker: other conversations' action verdicts do not wait for it.

`aem run`'s Monitor (in-process) over the embedded Tansu broker; the judge is a real HTTP endpoint
that answers after 30 s (HTTP timeout 60 s), with a turn budget of 1 s.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from monitor.judge.config import JudgeSettings
from monitor.models.dialog import Dialog
from monitor.scoring import ScoringConfig
from monitor.stream.replay import dialog_events
from monitor.wiring import build_engine
from tests.judge.conftest import ChatServer, _handler, completion, verdict_json
from tests.judge.conftest import Reply as Scripted
from tests.support.kafka import MonitorThread, TopicSet, read_all, send, settings_for

pytestmark = pytest.mark.integration

SLEEP_S = 30.0
BUDGET_S = 1.0
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "judge_only_booking.json"


@pytest.fixture
def sleeping_judge() -> Iterator[ChatServer]:
    state = ChatServer(url="")
    state.answer(Scripted(200, json.dumps(completion(verdict_json("pass", 1.0))), delay=SLEEP_S))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


def dialogs() -> tuple[Dialog, list[Dialog]]:
    raw = json.loads(EXAMPLE.read_text())
    judged = Dialog.model_validate({**raw, "dialog_id": "needs-the-judge", "turns": raw["turns"][:3]})
    actions = [
        Dialog.model_validate({**raw, "dialog_id": f"actions-{i}", "turns": raw["turns"][:2]}) for i in range(20)
    ]
    return judged, actions


def test_a_sleeping_judge_does_not_delay_other_conversations(
    broker: Any, embedding_scorer: Any, sleeping_judge: ChatServer
) -> None:
    embedding_scorer.similarity([("warm up", "the model")])  # loading it is not what is measured
    registry = CollectorRegistry()
    judge = JudgeSettings(url=sleeping_judge.url, timeout=60.0, max_attempts=1, turn_budget_s=BUDGET_S)
    engine = build_engine(ScoringConfig(), semantic=embedding_scorer, judge=judge, registry=registry)
    topics = TopicSet.fresh(broker.bootstrap)
    monitor = MonitorThread(settings_for(broker.bootstrap, topics), engine=engine, registry=registry).start()
    try:
        judged, actions = dialogs()
        started = time.monotonic()
        send(broker.bootstrap, topics.traces, dialog_events(judged))
        send(broker.bootstrap, topics.traces, [e for d in actions for e in dialog_events(d)])
        wanted = {("needs-the-judge", 3), *((d.dialog_id, 2) for d in actions)}  # the reply, each action
        found: dict[tuple[str, int], dict[str, Any]] = {}
        deadline = time.monotonic() + SLEEP_S
        while time.monotonic() < deadline and set(found) != wanted:
            records = read_all(broker.bootstrap, topics.verdicts, expect=10_000, timeout=1.0)
            for verdict in (json.loads(r.value) for r in records):
                key = (verdict["conversation_id"], verdict.get("turn_no"))
                if verdict["kind"] == "turn" and key in wanted:
                    found[key] = verdict
        elapsed = time.monotonic() - started
    finally:
        monitor.stop()
    print(f"{len(found)} verdicts {elapsed:.1f}s after publishing, judge sleeping {SLEEP_S:.0f}s per request")
    assert set(found) == wanted
    assert found[("needs-the-judge", 3)]["success"] is None  # over its budget: unscored
    assert all(found[(d.dialog_id, 2)]["success"] is not None for d in actions)
    assert elapsed < SLEEP_S, "the other conversations waited for the judge"
    assert registry.get_sample_value("aem_judge_requests_total", {"outcome": "over_budget"}) == 1
