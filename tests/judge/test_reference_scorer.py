"""`scoring.reply_scorer: llm`: the LLM judge compares a reply with gold, over real HTTP; no answer is unscored."""

from __future__ import annotations

import pytest

from monitor.judge import JudgeSettings
from monitor.models.dialog import Dialog
from monitor.scoring import ScoringConfig
from monitor.sources.files import InputError
from monitor.wiring import build_engine

from .conftest import ChatServer

GOLD = "Your table for two is booked at 7 pm."
PRED = "I booked a table for two at 8 pm."


def dialog() -> Dialog:
    return Dialog.model_validate(
        {
            "dialog_id": "d1",
            "turns": [
                {"turn_no": 1, "turn": "User", "gold_turn": {"content": "A table for two at 7 pm, please."}},
                {"turn_no": 2, "turn": "Agent", "gold_turn": {"response": GOLD}, "predict_turn": {"response": PRED}},
            ],
        }
    )


def reply_verdict(chat_server: ChatServer):  # type: ignore[no-untyped-def]
    judge = JudgeSettings(url=chat_server.url, model="m", max_attempts=1, cache_size=0)
    engine = build_engine(ScoringConfig(reply_scorer="llm"), embed=False, judge=judge)
    return next(v for v in engine.score_dialog(dialog()).turns if v.turn_type == "response")


def test_the_judge_reads_gold_and_reply_and_its_fail_names_the_fact(chat_server: ChatServer) -> None:
    chat_server.answer_verdict("fail", 0.1, unsupported=["8 pm"], missing=[], reason="the time differs")
    verdict = reply_verdict(chat_server)
    assert verdict.success is False
    assert verdict.failure_reason == "inconsistent_response"
    assert verdict.decision is not None and verdict.decision.check == "llm"
    prompt = chat_server.requests[-1]["body"]["messages"][-1]["content"]
    assert "AGREEMENT WITH THE REFERENCE" in prompt and "7 pm" in prompt and "8 pm" in prompt


def test_a_judge_that_names_only_missing_facts_gives_an_omission(chat_server: ChatServer) -> None:
    chat_server.answer_verdict("fail", 0.3, unsupported=[], missing=["for two"], reason="party size left out")
    assert reply_verdict(chat_server).failure_reason == "incomplete_response"


def test_a_judge_pass_passes(chat_server: ChatServer) -> None:
    chat_server.answer_verdict("pass", 0.9, unsupported=[], missing=[])
    assert reply_verdict(chat_server).success is True


def test_no_answer_from_the_judge_is_unscored_never_a_pass(chat_server: ChatServer) -> None:
    chat_server.answer()  # every request gets HTTP 500
    verdict = reply_verdict(chat_server)
    assert verdict.success is None
    assert verdict.failure_reason == "unscored"
    assert "LLM judge unavailable" in (verdict.detail or "")


def test_the_llm_scorer_without_a_judge_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="AEM_JUDGE_URL"):
        build_engine(ScoringConfig(reply_scorer="llm"), embed=False)
