"""A judge that sleeps 30 s, on the real broker: other conversations' action verdicts do not wait for it.

`aem run`'s Monitor (in-process) over the embedded Tansu broker; the judge is a real HTTP endpoint
that answers after 30 s (HTTP timeout 60 s), with a turn budget of 15 s. The judged reply's verdict
(unscored, over budget) comes after every action verdict of the other conversations, and the
group's committed offset stays at or below the judged event until that verdict is published.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from kafka import TopicPartition
from prometheus_client import CollectorRegistry

from monitor.judge.config import JudgeSettings
from monitor.models.dialog import Dialog
from monitor.scoring import ScoringConfig
from monitor.tools.replay import dialog_events
from monitor.wiring import build_engine
from tests.judge.conftest import ChatServer, _handler, completion, verdict_json
from tests.judge.conftest import Reply as Scripted
from tests.support.kafka import MonitorThread, TopicSet, committed, read_all, send, settings_for
from tests.support.polling import wait_until

pytestmark = pytest.mark.integration

SLEEP_S = 30.0
BUDGET_S = 15.0  # far above what the other verdicts need: a loop that waited for it would show
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "judge_only_booking.json"


@contextlib.contextmanager
def judge_answering_after(delay_s: float) -> Iterator[ChatServer]:
    state = ChatServer(url="")
    state.answer(Scripted(200, json.dumps(completion(verdict_json("pass", 1.0))), delay=delay_s))
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


@pytest.fixture
def sleeping_judge() -> Iterator[ChatServer]:
    with judge_answering_after(SLEEP_S) as server:
        yield server


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
    settings = settings_for(broker.bootstrap, topics)
    monitor = MonitorThread(settings, engine=engine, registry=registry).start()
    try:
        judged, actions = dialogs()
        send(broker.bootstrap, topics.traces, dialog_events(judged))
        send(broker.bootstrap, topics.traces, [e for d in actions for e in dialog_events(d)])
        reply = ("needs-the-judge", 3)
        wanted = {reply, *((d.dialog_id, 2) for d in actions)}  # the judged reply, each action
        found: dict[tuple[str, int], Any] = {}
        held_back: list[int] = []  # the group's committed offset while the judge call ran
        reply_at = next(
            r for r in read_all(broker.bootstrap, topics.traces, expect=1, timeout=30)
            if json.loads(r.value)["conversation_id"] == reply[0] and json.loads(r.value)["turn_no"] == reply[1]
        )
        reply_tp = TopicPartition(topics.traces, reply_at.partition)
        deadline = time.monotonic() + SLEEP_S + 30
        while time.monotonic() < deadline and set(found) != wanted:
            for r in read_all(broker.bootstrap, topics.verdicts, expect=10_000, timeout=1.0):
                verdict = json.loads(r.value)
                key = (verdict["conversation_id"], verdict.get("turn_no"))
                if verdict["kind"] == "turn" and key in wanted:
                    found[key] = r
            if reply not in found:
                held_back.append(committed(broker.bootstrap, settings.group_id, reply_tp))
        committed_after = committed(broker.bootstrap, settings.group_id, reply_tp)
        deadline = time.monotonic() + 30
        while committed_after <= reply_at.offset and time.monotonic() < deadline:
            time.sleep(0.5)
            committed_after = committed(broker.bootstrap, settings.group_id, reply_tp)
    finally:
        monitor.stop()
    assert set(found) == wanted
    verdict = json.loads(found[reply].value)
    assert verdict["success"] is None and "budget" in verdict["detail"]  # over its budget: unscored
    actions_done = max(found[(d.dialog_id, 2)].timestamp for d in actions)
    print(
        f"action verdicts done {(actions_done - reply_at.timestamp) / 1000:.1f}s after the judged reply was sent; "
        f"its verdict {(found[reply].timestamp - reply_at.timestamp) / 1000:.1f}s (budget {BUDGET_S:g}s, "
        f"judge sleeping {SLEEP_S:.0f}s)"
    )
    assert all(json.loads(found[(d.dialog_id, 2)].value)["success"] is not None for d in actions)
    assert actions_done < found[reply].timestamp, "the other conversations waited for the judge"
    # the reply waiting for the judge is on the state changelog, so its offset does not hold the partition
    # back (a restart rebuilds it from the changelog: tests/reliability/test_restarts_with_gaps.py)
    assert held_back and committed_after > reply_at.offset
    assert registry.get_sample_value("aem_judge_requests_total", {"outcome": "over_budget"}) == 1


def test_a_full_judge_pool_holds_only_the_waiting_conversations(broker: Any, embedding_scorer: Any) -> None:
    """One worker, no queue, a judge answering in 2 s: four judged replies wait their turn, none is `busy`,
    and conversations that need no judge, sent while the pool is full, are scored without waiting for it."""
    embedding_scorer.similarity([("warm up", "the model")])
    registry = CollectorRegistry()
    with judge_answering_after(2.0) as server:
        judge = JudgeSettings(url=server.url, max_attempts=1, concurrency=1, queue_limit=0, turn_budget_s=30.0)
        engine = build_engine(ScoringConfig(), semantic=embedding_scorer, judge=judge, registry=registry)
        topics = TopicSet.fresh(broker.bootstrap)
        monitor = MonitorThread(settings_for(broker.bootstrap, topics), engine=engine, registry=registry).start()
        try:
            raw = json.loads(EXAMPLE.read_text())
            replies = [  # distinct transcripts: no answer comes from the judge's cache
                Dialog.model_validate({**raw, "dialog_id": f"judged-{i}", "turns": raw["turns"][:3]})
                for i in range(4)
            ]
            events = [e for d in replies for e in dialog_events(d)]
            for i, event in enumerate(events[::3]):
                event["predict_turn"]["content"] += f" (request {i})"
            send(broker.bootstrap, topics.traces, events)
            # the pool is full once the judge holds the first request (it answers after 2 s)
            wait_until(lambda: server.in_flight >= 1, timeout=30, interval=0.02, what="a judge request in flight")
            _, actions = dialogs()
            send(broker.bootstrap, topics.traces, [e for d in actions for e in dialog_events(d)])
            found: dict[tuple[str, int], Any] = {}
            wanted = {*((d.dialog_id, 3) for d in replies), *((d.dialog_id, 2) for d in actions)}
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and set(found) != wanted:
                for r in read_all(broker.bootstrap, topics.verdicts, expect=10_000, timeout=1.0):
                    verdict = json.loads(r.value)
                    key = (verdict["conversation_id"], verdict.get("turn_no"))
                    if verdict["kind"] == "turn" and key in wanted:
                        found[key] = r
        finally:
            monitor.stop()
    assert set(found) == wanted
    judged = [json.loads(found[(d.dialog_id, 3)].value) for d in replies]
    assert all(v["success"] is True for v in judged), [v.get("detail") for v in judged]
    assert registry.get_sample_value("aem_judge_requests_total", {"outcome": "busy"}) == 0
    last_judged = max(found[(d.dialog_id, 3)].timestamp for d in replies)
    actions_done = max(found[(d.dialog_id, 2)].timestamp for d in actions)
    print(f"judge-free verdicts done {(last_judged - actions_done) / 1000:.1f}s before the last judged one")
    assert actions_done < last_judged, "conversations that need no judge waited for the full pool"
