"""A slow judge holds scoring no longer than the per-turn budget; a full pool refuses at once.

The judge endpoint is real HTTP and sleeps 30 s per request; its HTTP timeout is 60 s, so only the
turn budget (1 s) stands between it and the scoring of everything else.
"""

from __future__ import annotations

import json
import time
from typing import Any

from monitor.judge.config import JudgeSettings
from monitor.judge.grounding import GroundingChecker
from monitor.judge.llm import JudgeMetrics, LLMJudge
from monitor.models.dialog import Reply, ToolCall, UserMessage
from monitor.scoring.checks import ReferenceChecker
from monitor.scoring.config import ScoringConfig
from monitor.scoring.engine import ScoringEngine
from monitor.scoring.types import ObservedTurn

from .conftest import ChatServer, completion, verdict_json
from .conftest import Reply as Scripted

SLEEP_S = 30.0
BUDGET_S = 1.0


def slow_engine(comparators: Any, server: ChatServer, registry: Any, **settings: Any) -> ScoringEngine:
    server.answer(Scripted(200, json.dumps(completion(verdict_json("pass", 1.0))), delay=SLEEP_S))
    judge = LLMJudge(
        JudgeSettings(url=server.url, timeout=60.0, max_attempts=1, turn_budget_s=BUDGET_S, **settings),
        metrics=JudgeMetrics(registry),
    )
    checker = GroundingChecker(comparators.values, comparators.replies, llm=judge)
    reference = ReferenceChecker(comparators.values, comparators.replies)
    return ScoringEngine(config=ScoringConfig(), checker=reference, judge=checker)


def user(no: int, text: str) -> ObservedTurn:
    return ObservedTurn(turn_no=no, turn="User", predict=UserMessage(content=text))


def tool(no: int, flight: str) -> ObservedTurn:
    call = ToolCall(tool_id="flights", action="book", args={"flight_id": flight}, output={"status": "confirmed"})
    return ObservedTurn(turn_no=no, turn="Tool", predict=call)


def test_a_sleeping_judge_does_not_hold_other_conversations(
    chat_server: ChatServer, comparators: Any, registry: Any
) -> None:
    engine = slow_engine(comparators, chat_server, registry)
    started = time.monotonic()
    slow = engine.session("needs-the-judge")
    for turn in (user(1, "Book UA-100."), tool(2, "UA-100")):
        slow.add(turn)
    judged = slow.add(ObservedTurn(turn_no=3, turn="Agent", predict=Reply(response="UA-100 is booked.")))
    other = engine.session("actions-only")
    other.add(user(1, "Book UA-200 please."))
    other.add(tool(2, "UA-200"))
    verdicts, _ = other.finish()
    elapsed = time.monotonic() - started
    reply_verdicts = [v for v in judged if v.turn_no == 3] + [v for v in slow.finish()[0] if v.turn_no == 3]
    assert reply_verdicts and reply_verdicts[0].success is None  # unscored: no verdict within the budget
    assert "budget" in (reply_verdicts[0].detail or "")
    assert [v.success for v in verdicts if v.turn_no == 2] == [True]
    assert elapsed < SLEEP_S / 2, f"the other conversation waited {elapsed:.1f}s behind the judge"
    assert registry.get_sample_value("aem_judge_requests_total", {"outcome": "over_budget"}) == 1


def test_a_full_pool_refuses_at_once(chat_server: ChatServer, comparators: Any, registry: Any) -> None:
    engine = slow_engine(comparators, chat_server, registry, concurrency=1, queue_limit=0)
    assert engine.judge is not None
    history = [user(1, "Book UA-100."), tool(2, "UA-100")]
    reply = ObservedTurn(turn_no=3, turn="Agent", predict=Reply(response="UA-100 is booked."))
    first = engine.judge.check(reply, history, ())  # takes the only worker, waits out its budget
    started = time.monotonic()
    results = [engine.judge.check(reply, history, ()) for _ in range(5)]
    refused_in = time.monotonic() - started
    assert first.success is None and all(r.success is None for r in results)
    assert all("busy" in (r.detail or "") for r in results)
    assert refused_in < BUDGET_S * 5  # not one budget each: refused without waiting
    assert registry.get_sample_value("aem_judge_requests_total", {"outcome": "busy"}) == 5
    assert len(chat_server.requests) == 1
