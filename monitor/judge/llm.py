"""Optional LLM judge over any OpenAI-compatible chat-completions endpoint.

One request asks for a JSON verdict on one sub-metric (prompts in :mod:`monitor.judge.prompts`, the
conversation and reply passed as delimited data). The answer must be exactly one JSON object (a
```json fence around the whole answer is tolerated); JSON embedded in prose is refused, since it could
be quoted from the judged reply. Structured output is requested with a JSON-schema ``response_format``;
an endpoint that refuses it (HTTP 400/422) is asked again with ``json_object``, then with none.

Each HTTP attempt has one deadline for the whole exchange (``timeout``: connect, head and body, however
slowly the endpoint drips them) and a maximum response size (``max_response_bytes``), both enforced by
:mod:`monitor.judge.exchange`; :meth:`LLMJudge.close` cuts off the requests in flight.

Every verdict is checked by a control question over the same data blocks (:func:`build_control`: repeat a
random code and ignore the data), asked once per (conversation, reply) while its answer is remembered. A
model that obeys text inside the data answers that text instead of the code: its verdicts on that data are
not taken (:class:`JudgeUnavailable`, ``outcome="injected"``), so the turn is ``unscored``.

The client has bounded retries with exponential backoff (timeouts, transport errors, 429/5xx and
unparseable answers are retried; other 4xx are not), an LRU cache keyed by a hash of (model, prompt
version, sub-metric, messages), and a bounded worker pool: :meth:`LLMJudge.submit` returns a future at
once, and :meth:`LLMJudge.verdict_within` waits for it no longer than a deadline. Metrics
(:class:`JudgeMetrics`, created once by whoever owns the registry):

* ``aem_judge_requests_total{outcome}`` — one per HTTP attempt (``ok``/``error``/``timeout``/
  ``invalid``), one per cache hit (``cached``), one per request refused by a full pool (``busy``) and
  one per request not answered within the turn's budget (``over_budget``); control questions answered
  (``control``, one per HTTP attempt) and answered with something else than their code (``injected``);
* ``aem_judge_latency_seconds`` — latency of each HTTP attempt.

When no verdict is obtained :class:`JudgeUnavailable` is raised; the checker turns it into an
``unscored`` turn, never a pass.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

import httpx
import structlog
from prometheus_client import CollectorRegistry, Counter, Histogram
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from monitor.cache import LruCache
from monitor.judge.config import JudgeSettings, ResponseFormat
from monitor.judge.exchange import Aborted, DeadlinePassed, Exchanges, TooLarge, client_without_idle_connections
from monitor.judge.pool import BoundedPool, OverBudget, PoolFull, wait_for
from monitor.judge.prompts import (
    CONTROL_SCHEMA,
    PROMPT_VERSION,
    VERDICT_SCHEMA,
    ClipLimits,
    Transcript,
    build_control,
    build_messages,
)

log = structlog.get_logger(__name__)
T = TypeVar("T")

OUTCOMES = ("ok", "error", "timeout", "invalid", "cached", "busy", "over_budget", "control", "injected")
_FENCE = re.compile(r"^```(?:json|JSON)?\s*(.*?)\s*```$", re.S)
_FALLBACK = {ResponseFormat.JSON_SCHEMA: ResponseFormat.JSON_OBJECT, ResponseFormat.JSON_OBJECT: ResponseFormat.NONE}


class JudgeUnavailable(RuntimeError):
    """The judge gave no valid verdict (unreachable, erroring, answering garbage, busy or too slow)."""


class JudgeVerdict(BaseModel):
    """The JSON verdict the prompts ask for."""

    model_config = ConfigDict(extra="ignore")

    verdict: Literal["pass", "fail"]
    score: float = Field(ge=0.0, le=1.0)
    reason: str = ""
    missing: list[str] = Field(default_factory=list)
    unsupported: list[str] = Field(default_factory=list)

    @field_validator("verdict", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("missing", "unsupported", mode="before")
    @classmethod
    def _strings(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, list):
            return [v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in value]
        return value


def parse_verdict(content: str) -> JudgeVerdict:
    """The model's answer as a verdict: exactly one JSON object, optionally inside one ```json fence.

    No JSON is searched for inside prose: an object quoted from the judged reply must not count.
    """
    return JudgeVerdict.model_validate(_one_object(content))


def parse_echo(content: str) -> str:
    """The answer to the control question: the code it repeats ("" when it answered something else)."""
    try:
        echo = _one_object(content).get("echo")
    except ValueError:
        return ""
    return echo if isinstance(echo, str) else ""


def _one_object(content: str) -> dict[str, Any]:
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise ValueError("the answer is not one JSON object") from None
    if not isinstance(data, dict):
        raise ValueError("the answer is not a JSON object")
    return data


class JudgeMetrics:
    """The judge's Prometheus metrics on ``registry`` (a private one by default).

    Registering the same names twice on one registry is an error: the owner of a registry (the
    engine's builder) creates one set and hands it to every judge it builds.
    """

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        self.requests = Counter(
            "aem_judge_requests",
            "LLM judge requests by outcome (per HTTP attempt; cached = served from the cache)",
            ["outcome"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "aem_judge_latency_seconds",
            "Latency of LLM judge HTTP attempts",
            buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
            registry=self.registry,
        )
        for outcome in OUTCOMES:
            self.requests.labels(outcome=outcome)


@dataclass(frozen=True)
class _Question(Generic[T]):
    """What one kind of request asks for: the JSON schema of its answer, how to read it, its metric outcome."""

    name: str
    schema: dict[str, Any]
    parse: Callable[[str], T]
    outcome: str


CONTROL = "control"
_VERDICT = _Question("aem_verdict", VERDICT_SCHEMA, parse_verdict, "ok")
_CONTROL = _Question("aem_control", CONTROL_SCHEMA, parse_echo, CONTROL)


class _Retryable(Exception):
    def __init__(self, outcome: str, message: str) -> None:
        super().__init__(message)
        self.outcome = outcome


class _Fatal(Exception):
    pass


class _FormatRefused(Exception):
    """The endpoint rejected the requested ``response_format``."""


class LLMJudge:
    """A thread-safe client for verdicts of one judge model (``settings.url`` must be set)."""

    def __init__(
        self,
        settings: JudgeSettings,
        metrics: JudgeMetrics | None = None,
        client: httpx.Client | None = None,
        sleep: Callable[[float], object] | None = None,
    ) -> None:
        if not settings.enabled:
            raise ValueError("the LLM judge needs a url")
        self.settings = settings
        self.metrics = metrics if metrics is not None else JudgeMetrics()
        self.limits = ClipLimits(settings.max_reply_chars, settings.max_turn_chars, settings.max_transcript_chars)
        self._client = client or client_without_idle_connections(settings.timeout)
        self._owns_client = client is None
        self._exchanges = Exchanges(self._client, settings.max_response_bytes)
        self._closed = threading.Event()
        self._sleep = sleep if sleep is not None else self._closed.wait  # a backoff ends when the judge closes
        self._slots = threading.BoundedSemaphore(settings.concurrency)
        self._pool = BoundedPool(settings.concurrency, settings.queue_limit)
        self._format = settings.response_format
        # cache_size 0 turns caching off; LruCache needs room for at least one entry
        self.cache: LruCache[str, JudgeVerdict] | None = (
            LruCache("judge_verdicts", settings.cache_size) if settings.cache_size > 0 else None
        )
        self._clean: LruCache[str, bool] = LruCache("judge_controls", max(1, settings.cache_size))

    def close(self) -> None:
        """Stop: requests in flight are cut off (their turns stay open, a restart asks again), none is retried."""
        self._closed.set()
        self._exchanges.abort_all()
        self._pool.close()
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> LLMJudge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- public ----------------------------------------------------------------------------------

    def judge(self, sub_metric: str, transcript: Transcript | str, reply: str) -> JudgeVerdict:
        """The verdict on ``reply`` for ``sub_metric`` (blocking); :class:`JudgeUnavailable` when none is obtained."""
        messages = build_messages(sub_metric, transcript, reply, self.limits)
        key = self.cache_key(sub_metric, messages)
        cached = self.cache.get(key) if self.cache is not None else None
        if cached is not None:
            self.metrics.requests.labels(outcome="cached").inc()
            return cached
        verdict = self._request_with_retries(messages, sub_metric, _VERDICT)
        self._keeps_to_its_instructions(transcript, reply)
        if self.cache is not None:
            self.cache.put(key, verdict)
        return verdict

    def _keeps_to_its_instructions(self, transcript: Transcript | str, reply: str) -> None:
        """Ask the control question over the same data; :class:`JudgeUnavailable` when the answer obeyed the data.

        Asked once per (conversation, reply) while the answer is remembered: the verdicts of every sub-metric
        on that data share it.
        """
        code = secrets.token_hex(8)
        messages = build_control(transcript, reply, code, self.limits)
        key = self.cache_key(CONTROL, build_control(transcript, reply, "", self.limits))
        if self._clean.get(key):
            return
        echo = self._request_with_retries(messages, CONTROL, _CONTROL)
        if echo != code:
            self.metrics.requests.labels(outcome="injected").inc()
            log.warning("judge_obeyed_the_data", answer=echo[:200])
            raise JudgeUnavailable(
                "the judge followed text inside the data: its answer to the control question was not the code "
                "it was given, so its verdicts on this conversation are not taken"
            )
        self._clean.put(key, True)

    def submit(self, sub_metric: str, transcript: Transcript | str, reply: str) -> Future[JudgeVerdict]:
        """Start judging on the worker pool and return at once; a full pool gives a failed future."""
        future = self._pool.submit(lambda: self.judge(sub_metric, transcript, reply))
        if future.done() and isinstance(future.exception(), PoolFull):
            self.metrics.requests.labels(outcome="busy").inc()
        return future

    def run(self, job: Callable[[], T]) -> Future[T]:
        """Run ``job`` (e.g. several `judge` calls) on the worker pool; a full pool gives a failed future."""
        future = self._pool.submit(job)
        if future.done() and isinstance(future.exception(), PoolFull):
            self.metrics.requests.labels(outcome="busy").inc()
        return future

    @property
    def saturated(self) -> bool:
        """No worker or queue slot is free: a new request would be refused."""
        return self._pool.full

    def verdict_within(self, future: Future[JudgeVerdict], deadline: float) -> JudgeVerdict:
        """The submitted request's verdict by ``deadline`` (monotonic); :class:`JudgeUnavailable` otherwise.

        A request still running at the deadline goes on in the background and fills the cache.
        """
        try:
            return wait_for(future, deadline)
        except OverBudget:
            self.metrics.requests.labels(outcome="over_budget").inc()
            raise JudgeUnavailable(f"no verdict within the turn budget of {self.settings.turn_budget_s:g}s") from None
        except PoolFull as exc:
            raise JudgeUnavailable(f"judge busy: {exc}") from None

    def cache_key(self, sub_metric: str, messages: list[dict[str, str]]) -> str:
        blob = json.dumps(
            {
                "model": self.settings.model,
                "prompt_version": PROMPT_VERSION,
                "sub_metric": sub_metric,
                "messages": messages,
            },
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    # -- internals -------------------------------------------------------------------------------

    def _request_with_retries(self, messages: list[dict[str, str]], sub_metric: str, question: _Question[T]) -> T:
        last = "no attempt made"
        attempt = 1
        while attempt <= self.settings.max_attempts:
            if self._closed.is_set():
                raise JudgeUnavailable("the judge client is closed")
            try:
                return self._attempt(messages, question)
            except _FormatRefused as exc:
                self._downgrade_format(str(exc))
                continue  # asked again in another format; not an attempt of its own
            except _Fatal as exc:
                log.warning("judge_request_failed", sub_metric=sub_metric, attempt=attempt, error=str(exc))
                raise JudgeUnavailable(str(exc)) from None
            except _Retryable as exc:
                last = f"{exc.outcome}: {exc}"
                log.info(
                    "judge_request_retry", sub_metric=sub_metric, attempt=attempt, outcome=exc.outcome, error=str(exc)
                )
            if attempt < self.settings.max_attempts:
                self._sleep(min(self.settings.backoff_max_s, self.settings.backoff_s * 2 ** (attempt - 1)))
            attempt += 1
        raise JudgeUnavailable(f"no valid verdict after {self.settings.max_attempts} attempts ({last})")

    def _downgrade_format(self, error: str) -> None:
        current = self._format
        self._format = _FALLBACK.get(current, ResponseFormat.NONE)
        log.warning("judge_response_format_refused", refused=current.value, now=self._format.value, error=error)

    def _body(self, messages: list[dict[str, str]], question: _Question[Any]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": messages,
            "temperature": self.settings.temperature,
            "max_tokens": self.settings.max_tokens,
        }
        if self._format is ResponseFormat.JSON_SCHEMA:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": question.name, "strict": True, "schema": question.schema},
            }
        elif self._format is ResponseFormat.JSON_OBJECT:
            body["response_format"] = {"type": "json_object"}
        return body

    def _attempt(self, messages: list[dict[str, str]], question: _Question[T]) -> T:
        fmt = self._format
        headers = {"Content-Type": "application/json"}
        if self.settings.api_key is not None:
            headers["Authorization"] = f"Bearer {self.settings.api_key.get_secret_value()}"
        with self._slots:
            started = time.perf_counter()
            try:
                status, raw = self._exchanges.post(
                    self.settings.endpoint, self._body(messages, question), headers, self.settings.timeout
                )
            except (httpx.TimeoutException, DeadlinePassed) as exc:
                self._observe("timeout", started)
                message = f"no complete answer within {self.settings.timeout:g}s ({type(exc).__name__})"
                raise _Retryable("timeout", message) from None
            except TooLarge as exc:
                self._observe("invalid", started)
                raise _Retryable("invalid", f"response too large: {exc}") from None
            except Aborted as exc:
                self._observe("error", started)
                raise _Fatal(str(exc)) from None
            except httpx.HTTPError as exc:
                self._observe("error", started)
                raise _Retryable("error", f"{type(exc).__name__}: {exc}") from None
        text = raw.decode("utf-8", errors="replace")
        if status >= 500 or status == 429:
            self._observe("error", started)
            raise _Retryable("error", f"HTTP {status}")
        if status in (400, 422) and fmt is not ResponseFormat.NONE:
            self._observe("error", started)
            raise _FormatRefused(f"HTTP {status}: {text[:200]}")
        if status >= 400:
            self._observe("error", started)
            raise _Fatal(f"HTTP {status}: {text[:200]}")
        try:
            content = json.loads(text)["choices"][0]["message"]["content"]
            if not isinstance(content, str):
                raise TypeError("message content is not a string")
            answer = question.parse(content)
        except (ValueError, KeyError, IndexError, TypeError, RecursionError, ValidationError) as exc:
            self._observe("invalid", started)
            raise _Retryable("invalid", f"unusable answer: {str(exc)[:200]}") from None
        self._observe(question.outcome, started)
        return answer

    def _observe(self, outcome: str, started: float) -> None:
        self.metrics.requests.labels(outcome=outcome).inc()
        self.metrics.latency.observe(time.perf_counter() - started)
