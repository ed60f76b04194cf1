"""A judged reply, scored, sent and checkpointed, then the monitor is killed (-9) mid-conversation; a fresh
monitor restores the conversation and finishes it. The judge answers differently from its second verdict on:
the restored member must not ask it again, and what it sends after the restore must agree with the verdict
that was sent before (real `aem run` processes, the real broker, a real chat-completions server over HTTP)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from kafka import TopicPartition

from monitor.models.dialog import Dialog
from monitor.tools.replay import dialog_events
from tests.conftest import EXAMPLES
from tests.support.kafka import MonitorProcess, TopicSet, committed, read_all, send

from .conftest import ChatServer, Reply, completion, verdict_json

pytestmark = pytest.mark.integration

BOOKING = json.loads((EXAMPLES / "judge_only_booking.json").read_text())


def records(bootstrap: str, topic: str) -> list[dict[str, Any]]:
    return [json.loads(r.value) for r in read_all(bootstrap, topic, timeout=1.0)]


def wait_for(
    bootstrap: str, topic: str, kind: str, turn_no: int | None, monitor: MonitorProcess, timeout: float = 90.0
) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert monitor.process is not None and monitor.process.poll() is None, "".join(monitor.lines[-30:])
        got = records(bootstrap, topic)
        if any(v["kind"] == kind and v.get("turn_no") == turn_no for v in got):
            return got
        time.sleep(0.5)
    raise TimeoutError(f"no {kind} verdict for turn {turn_no}")


def test_a_restored_conversation_does_not_ask_the_judge_again(broker: Any, chat_server: ChatServer) -> None:
    passing = Reply(200, json.dumps(completion(verdict_json("pass", 0.9))))
    failing = Reply(200, json.dumps(completion(verdict_json("fail", 0.1, reason="changed its mind"))))
    chat_server.answer(passing, passing, failing)  # completeness + truthfulness pass once; then fail forever
    dialog = Dialog.model_validate({**BOOKING, "dialog_id": "restored", "turns": BOOKING["turns"][:5]})
    events = list(dialog_events(dialog))  # user, search, reply (judged), user, book (final)
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    group = f"{topics.traces}-g"
    args = topics.run_args(broker.bootstrap, group=group)  # its state topic: aem.state.<group>
    env = {"AEM_JUDGE_URL": chat_server.url, "AEM_JUDGE_MODEL": "judge-model", "AEM_JUDGE_MAX_ATTEMPTS": "1"}

    first = MonitorProcess(args, env=env).start()
    try:
        send(broker.bootstrap, topics.traces, events[:3])
        before = wait_for(broker.bootstrap, topics.verdicts, "turn", 3, first)
        deadline = time.monotonic() + 30
        while committed(broker.bootstrap, group, TopicPartition(topics.traces, 0)) < 3:
            assert time.monotonic() < deadline, "the judged turn's offset was never committed"
            time.sleep(0.3)
        first.kill9()
    finally:
        first.stop()
    [judged] = [v for v in before if v["kind"] == "turn" and v["turn_no"] == 3]
    assert judged["success"] is True
    asked = len(chat_server.requests)
    assert asked == 2

    second = MonitorProcess(args, env=env).start()
    try:
        send(broker.bootstrap, topics.traces, events[3:])
        after = wait_for(broker.bootstrap, topics.verdicts, "dialog", None, second)
    finally:
        second.stop()
    assert len(chat_server.requests) == asked  # the restored judged turn was not asked again
    turns = [v for v in after if v["kind"] == "turn"]
    assert sorted(v["turn_no"] for v in turns) == [2, 3, 5]  # each sent once, across the restart
    [summary] = [v for v in after if v["kind"] == "dialog"]
    # the summary holds the verdicts that were sent (it is composed from them): the judged reply passed
    in_summary = {v["turn_no"]: v for v in summary["turns"]}
    assert in_summary[3]["success"] is True and in_summary[3]["detail"] == judged["detail"]
    assert [in_summary[v["turn_no"]]["success"] for v in turns] == [v["success"] for v in turns]
