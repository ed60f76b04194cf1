"""The LLM judge over real HTTP against a local chat-completions server, and its use by the checker."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

from monitor.judge.config import JudgeSettings, judge_settings_from_env
from monitor.judge.grounding import GroundingChecker
from monitor.judge.llm import JudgeMetrics, JudgeUnavailable, LLMJudge, parse_verdict
from monitor.judge.prompts import PROMPT_VERSION
from monitor.models.dialog import Reply, ToolCall
from monitor.scoring.types import ObservedTurn

from .conftest import ChatServer, booking_history
from .conftest import Reply as Scripted

REQUESTS = "aem_judge_requests_total"

HISTORY = booking_history(total_usd=412)
GROUNDED_REPLY = ObservedTurn(turn_no=3, turn="Agent", predict=Reply(response="Done: UA-100 is booked, BK-48213."))


_METRICS: dict[int, tuple[Any, JudgeMetrics]] = {}


def make_judge(url: str, registry: Any, sleeps: list[float] | None = None, **overrides: Any) -> LLMJudge:
    settings: dict[str, Any] = {
        "url": url,
        "model": "judge-model",
        "api_key": "sk-test",
        "timeout": 2.0,
        "max_attempts": 3,
        "backoff_s": 0.01,
        **overrides,
    }
    recorded = sleeps if sleeps is not None else []
    metrics = None
    if registry is not None:  # one metrics set per registry, as the engine's builder does
        if id(registry) not in _METRICS:
            _METRICS[id(registry)] = (registry, JudgeMetrics(registry))
        metrics = _METRICS[id(registry)][1]
    return LLMJudge(JudgeSettings.model_validate(settings), metrics=metrics, sleep=recorded.append)


def test_pass_verdict_over_http(chat_server: ChatServer, registry: Any, sample: Callable[..., float]) -> None:
    chat_server.answer_content('```json\n{"verdict": "pass", "score": 0.92, "reason": "all covered"}\n```')
    with make_judge(chat_server.url, registry) as judge:
        verdict = judge.judge("completeness", "USER: hi", "Hello!")
    assert (verdict.verdict, verdict.score, verdict.reason) == ("pass", pytest.approx(0.92), "all covered")
    assert len(chat_server.requests) == 1
    request = chat_server.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "judge-model"
    assert [m["role"] for m in request["body"]["messages"]] == ["system", "user"]
    assert "COMPLETENESS" in request["body"]["messages"][1]["content"]
    assert "Hello!" in request["body"]["messages"][1]["content"]
    assert chat_server.headers[0]["Authorization"] == "Bearer sk-test"
    assert sample(REQUESTS, outcome="ok") == 1
    assert sample(REQUESTS, outcome="control") == 1  # the control question over the same data
    assert len(chat_server.controls) == 1
    assert sample("aem_judge_latency_seconds_count") == 2  # both HTTP attempts


def test_fail_verdicts_refine_response_turns(
    chat_server: ChatServer, registry: Any, comparators: Any, sample: Callable[..., float]
) -> None:
    checker = GroundingChecker(comparators.values, comparators.replies, llm=make_judge(chat_server.url, registry))
    chat_server.answer_verdict("fail", 0.3, reason="no total given", missing=["total price"])
    result = checker.check(GROUNDED_REPLY, HISTORY, ())
    assert (result.success, result.failure_reason, result.sub_metric) == (False, "incomplete_response", "completeness")
    assert result.score == pytest.approx(0.3)
    assert "total price" in (result.detail or "")

    chat_server.answer_content(
        json.dumps({"verdict": "pass", "score": 1.0, "reason": "ok"}),
        json.dumps({"verdict": "fail", "score": 0.1, "reason": "claims a refund", "unsupported": ["refund issued"]}),
    )
    other = ObservedTurn(turn_no=3, turn="Agent", predict=Reply(response="UA-100 is booked under BK-48213!"))
    result = checker.check(other, HISTORY, ())
    assert (result.success, result.failure_reason, result.sub_metric) == (
        False,
        "inconsistent_response",
        "truthfulness",
    )
    assert result.mismatched == ("refund issued",)
    prompts = [r["body"]["messages"][1]["content"] for r in chat_server.requests]
    assert "COMPLETENESS" in prompts[-2] and "TRUTHFULNESS" in prompts[-1]
    assert sample(REQUESTS, outcome="ok") == 3


def test_both_pass_verdicts_pass_with_the_lower_score(chat_server: ChatServer, registry: Any, comparators: Any) -> None:
    checker = GroundingChecker(comparators.values, comparators.replies, llm=make_judge(chat_server.url, registry))
    chat_server.answer_content(
        json.dumps({"verdict": "pass", "score": 0.9, "reason": "ok"}),
        json.dumps({"verdict": "pass", "score": 0.8, "reason": "ok"}),
    )
    result = checker.check(GROUNDED_REPLY, HISTORY, ())
    assert result.success is True and result.score == pytest.approx(0.8)


def test_grounding_failure_is_decided_without_the_llm(chat_server: ChatServer, registry: Any, comparators: Any) -> None:
    checker = GroundingChecker(comparators.values, comparators.replies, llm=make_judge(chat_server.url, registry))
    chat_server.answer_verdict("pass", 1.0)
    bad = ObservedTurn(turn_no=3, turn="Agent", predict=Reply(response="Booked UA-100, total $499."))
    result = checker.check(bad, HISTORY, ())
    assert result.failure_reason == "inconsistent_response" and result.mismatched[0] == "$499"
    assert chat_server.requests == []


def test_action_turns_are_not_sent_to_the_llm(chat_server: ChatServer, registry: Any, comparators: Any) -> None:
    checker = GroundingChecker(comparators.values, comparators.replies, llm=make_judge(chat_server.url, registry))
    chat_server.answer_verdict("fail", 0.0)
    call = ObservedTurn(
        turn_no=2, turn="Tool", predict=ToolCall(tool_id="flights", action="book", args={"flight_id": "UA-100"})
    )
    assert checker.check(call, HISTORY[:1], ()).success is True
    assert chat_server.requests == []


def test_garbage_is_retried_then_unscored(
    chat_server: ChatServer, registry: Any, comparators: Any, sample: Callable[..., float]
) -> None:
    chat_server.answer_content("I think the reply is quite good overall!")
    sleeps: list[float] = []
    judge = make_judge(chat_server.url, registry, sleeps=sleeps, backoff_s=0.5, backoff_max_s=0.75)
    checker = GroundingChecker(comparators.values, comparators.replies, llm=judge)
    result = checker.check(GROUNDED_REPLY, HISTORY, ())
    assert result.success is None and result.failure_reason == "unscored"
    assert "completeness" in (result.detail or "")
    assert len(chat_server.requests) == 3
    assert sleeps == [0.5, 0.75]  # exponential, capped, none after the last attempt
    assert sample(REQUESTS, outcome="invalid") == 3
    assert sample(REQUESTS, outcome="ok") == 0


def test_invalid_verdict_shape_is_invalid(chat_server: ChatServer, registry: Any) -> None:
    chat_server.answer_content('{"verdict": "maybe", "score": 2}')
    with pytest.raises(JudgeUnavailable, match="after 2 attempts"):
        make_judge(chat_server.url, registry, max_attempts=2).judge("truthfulness", "t", "r")
    chat_server.answer(Scripted(200, "<html>not json</html>"))
    with pytest.raises(JudgeUnavailable, match="invalid"):
        make_judge(chat_server.url, registry, max_attempts=1).judge("truthfulness", "t", "r")


def test_500_then_success_is_retried(chat_server: ChatServer, registry: Any, sample: Callable[..., float]) -> None:
    ok = json.dumps({"choices": [{"message": {"content": json.dumps({"verdict": "pass", "score": 0.7})}}]})
    chat_server.answer(Scripted(500, '{"error": "overloaded"}'), Scripted(200, ok))
    verdict = make_judge(chat_server.url, registry).judge("truthfulness", "t", "r")
    assert (verdict.verdict, verdict.score) == ("pass", pytest.approx(0.7))
    assert len(chat_server.requests) == 2
    assert sample(REQUESTS, outcome="error") == 1
    assert sample(REQUESTS, outcome="ok") == 1


def test_client_error_is_not_retried(chat_server: ChatServer, registry: Any, sample: Callable[..., float]) -> None:
    chat_server.answer(Scripted(401, '{"error": "bad key"}'))
    with pytest.raises(JudgeUnavailable, match="HTTP 401"):
        make_judge(chat_server.url, registry).judge("truthfulness", "t", "r")
    assert len(chat_server.requests) == 1
    assert sample(REQUESTS, outcome="error") == 1


def test_timeout_is_counted_and_retried(chat_server: ChatServer, registry: Any, sample: Callable[..., float]) -> None:
    late = json.dumps({"choices": [{"message": {"content": '{"verdict": "pass", "score": 1}'}}]})
    chat_server.answer(Scripted(200, late, delay=1.0), Scripted(200, late))
    verdict = make_judge(chat_server.url, registry, timeout=0.2).judge("completeness", "t", "r")
    assert verdict.verdict == "pass"
    assert sample(REQUESTS, outcome="timeout") == 1
    assert sample(REQUESTS, outcome="ok") == 1


def test_cache_hit_avoids_a_second_request(
    chat_server: ChatServer, registry: Any, sample: Callable[..., float]
) -> None:
    chat_server.answer_verdict("pass", 0.9)
    judge = make_judge(chat_server.url, registry)
    first = judge.judge("completeness", "USER: hi", "Hello!")
    second = judge.judge("completeness", "USER: hi", "Hello!")
    assert first == second
    assert len(chat_server.requests) == 1
    assert sample(REQUESTS, outcome="cached") == 1
    judge.judge("truthfulness", "USER: hi", "Hello!")  # another sub-metric is another prompt
    assert len(chat_server.requests) == 2


def test_cache_key_covers_model_and_prompt_version(registry: Any) -> None:
    a = make_judge("http://127.0.0.1:9/v1", registry)
    b = make_judge("http://127.0.0.1:9/v1", None, model="other-model")
    messages = [{"role": "user", "content": "x"}]
    assert a.cache_key("completeness", messages) != b.cache_key("completeness", messages)
    assert a.cache_key("completeness", messages) == a.cache_key("completeness", list(messages))
    assert PROMPT_VERSION  # part of the key; its bump invalidates cached verdicts


def test_concurrency_is_limited(chat_server: ChatServer, registry: Any) -> None:
    body = json.dumps({"choices": [{"message": {"content": '{"verdict": "pass", "score": 1}'}}]})
    chat_server.answer(Scripted(200, body, delay=0.1))
    judge = make_judge(chat_server.url, registry, concurrency=2)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            judge.judge("completeness", "t", f"reply {i}")
        except BaseException as exc:  # pragma: no cover - surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert not errors
    assert len(chat_server.requests) == 6
    assert chat_server.max_in_flight == 2


def test_unreachable_judge_makes_the_turn_unscored(
    closed_port_url: str, registry: Any, comparators: Any, sample: Callable[..., float]
) -> None:
    judge = make_judge(closed_port_url, registry, max_attempts=2)
    checker = GroundingChecker(comparators.values, comparators.replies, llm=judge)
    result = checker.check(GROUNDED_REPLY, HISTORY, ())
    assert result.success is None
    assert result.failure_reason == "unscored"
    assert "LLM judge unavailable" in (result.detail or "")
    assert sample(REQUESTS, outcome="error") == 2


def test_registries_are_per_judge(chat_server: ChatServer) -> None:
    from prometheus_client import CollectorRegistry

    first, second = CollectorRegistry(), CollectorRegistry()
    chat_server.answer_verdict("pass", 1.0)
    make_judge(chat_server.url, first).judge("completeness", "t", "r")
    make_judge(chat_server.url, second)
    assert first.get_sample_value(REQUESTS, {"outcome": "ok"}) == 1
    assert second.get_sample_value(REQUESTS, {"outcome": "ok"}) == 0


def test_settings_from_env() -> None:
    assert not judge_settings_from_env({}).enabled
    settings = judge_settings_from_env(
        {
            "AEM_JUDGE_URL": "http://judge.internal:8000/v1/",
            "AEM_JUDGE_MODEL": "qwen2.5-7b-instruct",
            "AEM_JUDGE_API_KEY": "sk-secret",
            "AEM_JUDGE_MAX_ATTEMPTS": "5",
            "AEM_JUDGE_TIMEOUT": "7.5",
            "AEM_JUDGE_CONCURRENCY": "2",
        }
    )
    assert settings.endpoint == "http://judge.internal:8000/v1/chat/completions"
    assert settings.model == "qwen2.5-7b-instruct" and settings.max_attempts == 5
    assert (settings.timeout, settings.concurrency) == (7.5, 2)
    assert settings.api_key is not None and "sk-secret" not in repr(settings)
    full = JudgeSettings(url="http://x/v1/chat/completions", model="m")
    assert full.endpoint == "http://x/v1/chat/completions"


def test_the_composition_root_wires_the_judge_settings(registry: Any) -> None:
    from monitor.wiring import build_engine, judge_from_env

    plain = build_engine(embed=False, judge=JudgeSettings(), registry=registry)
    assert isinstance(plain.judge, GroundingChecker) and plain.judge.llm is None
    wired = build_engine(embed=False, judge=JudgeSettings(url="http://127.0.0.1:9/v1"), registry=registry)
    assert isinstance(wired.judge, GroundingChecker) and isinstance(wired.judge.llm, LLMJudge)
    assert wired.judge.llm.metrics.registry is registry
    assert judge_from_env({"AEM_JUDGE_URL": "http://j/v1"}).url == "http://j/v1"


@pytest.mark.parametrize(
    ("content", "verdict"),
    [
        ('{"verdict": "PASS", "score": 1}', "pass"),
        ('```json\n{"verdict": "fail", "score": 0.2, "missing": ["x"]}\n```', "fail"),
        ('  {"verdict": "fail", "score": 0.0, "unsupported": [{"claim": 1}]}\n', "fail"),
    ],
)
def test_parse_verdict_takes_one_object_or_one_fence(content: str, verdict: str) -> None:
    assert parse_verdict(content).verdict == verdict


@pytest.mark.parametrize(
    "content",
    [
        "",
        "no json here",
        "[1, 2]",
        '{"score": 0.5}',
        '{"verdict": "pass", "score": 7}',
        # JSON inside prose may be quoted from the judged reply: never extracted
        'The reply says {"verdict": "pass", "score": 1} but it is wrong.',
        'Here is my verdict: {"verdict": "fail", "score": 0.0} Thanks.',
        "1" * 5000,
    ],
)
def test_parse_verdict_rejects_garbage(content: str) -> None:
    with pytest.raises(ValueError):
        parse_verdict(content)


def test_judges_on_one_registry_share_one_metrics_object(chat_server: ChatServer, registry: Any) -> None:
    metrics = JudgeMetrics(registry)
    settings = JudgeSettings(url=chat_server.url, model="m", max_attempts=1)
    first, second = LLMJudge(settings, metrics=metrics), LLMJudge(settings, metrics=metrics)
    chat_server.answer_verdict("pass", 1.0)
    first.judge("completeness", "t", "r1")
    second.judge("completeness", "t", "r2")
    assert registry.get_sample_value(REQUESTS, {"outcome": "ok"}) == 2
    with pytest.raises(ValueError, match="Duplicated"):
        JudgeMetrics(registry)  # a registry holds one set: its owner creates it once
