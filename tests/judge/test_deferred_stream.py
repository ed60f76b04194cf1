"""The stream's processor does not wait for the judge: judged turns finish in `tick`, other turns at once.

A real chat-completions endpoint answers after 1.5 s; the judge has one worker and no queue, so a
second judged conversation finds the pool full and waits for a slot (it is not refused as busy).
"""

from __future__ import annotations

import json
import time
from typing import Any

from monitor.judge.config import JudgeSettings
from monitor.judge.grounding import GroundingChecker
from monitor.judge.llm import JudgeMetrics, LLMJudge
from monitor.models.dialog import Dialog
from monitor.scoring.checks import ReferenceChecker
from monitor.scoring.config import ScoringConfig
from monitor.scoring.engine import ScoringEngine
from monitor.stream.changelog import event_key
from monitor.stream.emissions import Outcome
from monitor.stream.processor import TurnProcessor
from tests.conftest import EXAMPLES
from tests.stream.helpers import events_of

from .conftest import ChatServer, completion, verdict_json
from .conftest import Reply as Scripted

DELAY_S = 1.5
BOOKING = json.loads((EXAMPLES / "judge_only_booking.json").read_text())


def engine_for(comparators: Any, server: ChatServer, registry: Any) -> ScoringEngine:
    server.answer(Scripted(200, json.dumps(completion(verdict_json("pass", 0.9))), delay=DELAY_S))
    settings = JudgeSettings(url=server.url, max_attempts=1, concurrency=1, queue_limit=0, turn_budget_s=30.0)
    judge = LLMJudge(settings, metrics=JudgeMetrics(registry))
    checker = GroundingChecker(comparators.values, comparators.replies, llm=judge)
    return ScoringEngine(ScoringConfig(), ReferenceChecker(comparators.values, comparators.replies), judge=checker)


def turns_of(out: Outcome) -> dict[tuple[str, int | None], Any]:
    return {(e.conversation_id, e.verdict.turn_no): e.verdict for e in out.emissions if e.verdict is not None}


def test_judged_turns_complete_in_tick_and_a_full_pool_means_waiting(
    chat_server: ChatServer, comparators: Any, registry: Any
) -> None:
    processor = TurnProcessor(engine_for(comparators, chat_server, registry))
    dialog = {**BOOKING, "turns": BOOKING["turns"][:3]}  # user, search, reply (judged)
    a = events_of(Dialog.model_validate({**BOOKING, "dialog_id": "a", "turns": BOOKING["turns"][:5]}))
    b = events_of(Dialog.model_validate({**dialog, "dialog_id": "b"}))
    b[0] = b[0].model_copy(update={"predict_turn": b[0].predict_turn.model_copy(update={"content": "Same, for b."})})
    actions = events_of(Dialog.model_validate({**BOOKING, "dialog_id": "c", "turns": BOOKING["turns"][:2]}))
    out = Outcome()
    started = time.monotonic()
    for event in [*a, *b, *actions]:
        out.extend(processor.process(event))
    returned_in = time.monotonic() - started
    now = turns_of(out)
    assert ("a", 3) not in now and ("b", 3) not in now  # judged in the background
    assert ("c", 2) in now and ("a", 2) in now  # action turns need no judge: verdicts at once
    assert ("a", 5) not in now  # a later turn of a judged conversation waits for it
    assert processor.judging == {"a", "b"} and processor.judge_saturated()  # b waits for a's slot
    # waiting for the judge, they are on the changelog: their offsets may be committed, a restore judges them
    assert {event_key("a", 3), event_key("b", 3)} <= {record.key for record in processor.checkpoint()}
    deadline = time.monotonic() + 30
    while processor.judging and time.monotonic() < deadline:
        out.extend(processor.tick())
        time.sleep(0.05)
    done = turns_of(out)
    print(f"process() returned in {returned_in:.2f}s; judge answers in {DELAY_S}s each, one at a time")
    assert done[("a", 3)].success is True and done[("b", 3)].success is True  # b was not refused as busy
    order = [e.verdict.turn_no for e in out.emissions if e.conversation_id == "a" and e.kind == "turn"]
    assert order == [2, 3, 5] and any(e.kind == "dialog" and e.conversation_id == "a" for e in out.emissions)
    assert registry.get_sample_value("aem_judge_requests_total", {"outcome": "busy"}) == 0
    assert len(chat_server.requests) == 4  # completeness and truthfulness, for a and for b


def test_a_judged_turn_that_never_gets_a_worker_is_unscored_within_its_budget(
    chat_server: ChatServer, comparators: Any, registry: Any
) -> None:
    chat_server.answer(Scripted(200, json.dumps(completion(verdict_json("pass", 0.9))), delay=6.0))
    settings = JudgeSettings(url=chat_server.url, max_attempts=1, concurrency=1, queue_limit=0, turn_budget_s=2.0)
    judge = LLMJudge(settings, metrics=JudgeMetrics(registry))
    checker = GroundingChecker(comparators.values, comparators.replies, llm=judge)
    engine = ScoringEngine(ScoringConfig(), ReferenceChecker(comparators.values, comparators.replies), judge=checker)
    processor = TurnProcessor(engine)
    dialog = {**BOOKING, "turns": BOOKING["turns"][:3]}
    a = events_of(Dialog.model_validate({**dialog, "dialog_id": "a"}))
    b = events_of(Dialog.model_validate({**dialog, "dialog_id": "b"}))
    b[0] = b[0].model_copy(update={"predict_turn": b[0].predict_turn.model_copy(update={"content": "Same, for b."})})
    out = Outcome()
    for event in [*a, *b]:
        out.extend(processor.process(event))
    started = time.monotonic()
    while ("b", 3) not in turns_of(out) and time.monotonic() - started < 10:
        out.extend(processor.tick())
        time.sleep(0.05)
    waited = time.monotonic() - started
    verdict = turns_of(out)[("b", 3)]
    assert verdict.success is None and "busy" in (verdict.detail or "")  # unscored, never a pass
    assert waited < 4.0  # its own budget (2 s), not the 6 s the worker is taken for
