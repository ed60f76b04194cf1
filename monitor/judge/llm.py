"""Optional LLM judge over any OpenAI-compatible chat-completions endpoint.

One request asks for a JSON verdict on one sub-metric (prompts in :mod:`monitor.judge.prompts`). The
client has bounded retries with exponential backoff (timeouts, transport errors, 429/5xx and
unparseable answers are retried; other 4xx are not), a concurrency limit, an LRU cache keyed by a hash
of (model, prompt version, sub-metric, messages) and Prometheus metrics on the registry it is given:

* ``aem_judge_requests_total{outcome}`` — one per HTTP attempt (``ok``/``error``/``timeout``/
  ``invalid``) and one per cache hit (``cached``);
* ``aem_judge_latency_seconds`` — latency of each HTTP attempt.

When every attempt failed :class:`JudgeUnavailable` is raised; the checker turns it into an
``unscored`` turn, never a pass.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal

import httpx
import structlog
from prometheus_client import CollectorRegistry, Counter, Histogram
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from monitor.judge.prompts import PROMPT_VERSION, build_messages

log = structlog.get_logger(__name__)

OUTCOMES = ("ok", "error", "timeout", "invalid", "cached")
_FENCE = re.compile(r"^\s*```(?:json|JSON)?\s*\n?(.*?)\n?\s*```\s*$", re.S)


class JudgeUnavailable(RuntimeError):
    """The judge gave no valid verdict after all attempts (unreachable, erroring or answering garbage)."""


class LLMJudgeConfig(BaseModel):
    """Where and how to reach the judge. ``base_url`` is the API root (``…/v1``) or the full
    ``…/chat/completions`` URL."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str
    model: str
    api_key: SecretStr | None = None
    timeout_s: float = Field(30.0, gt=0)
    max_attempts: int = Field(3, ge=1, le=10)
    backoff_s: float = Field(0.5, ge=0)
    backoff_max_s: float = Field(8.0, ge=0)
    max_concurrency: int = Field(4, ge=1)
    cache_size: int = Field(4096, ge=0)
    temperature: float = 0.0
    max_tokens: int = Field(512, ge=16)

    @property
    def endpoint(self) -> str:
        url = self.base_url.rstrip("/")
        return url if url.endswith("/chat/completions") else f"{url}/chat/completions"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LLMJudgeConfig | None:
        """From ``AEM_JUDGE_URL``, ``AEM_JUDGE_MODEL``, ``AEM_JUDGE_API_KEY`` (and optional
        ``AEM_JUDGE_TIMEOUT``, ``AEM_JUDGE_MAX_ATTEMPTS``, ``AEM_JUDGE_CONCURRENCY``); None without a URL."""
        env = os.environ if env is None else env
        url = env.get("AEM_JUDGE_URL", "").strip()
        if not url:
            return None
        data: dict[str, Any] = {"base_url": url, "model": env.get("AEM_JUDGE_MODEL", "").strip() or "default"}
        if env.get("AEM_JUDGE_API_KEY"):
            data["api_key"] = env["AEM_JUDGE_API_KEY"]
        for var, key in (
            ("AEM_JUDGE_TIMEOUT", "timeout_s"),
            ("AEM_JUDGE_MAX_ATTEMPTS", "max_attempts"),
            ("AEM_JUDGE_CONCURRENCY", "max_concurrency"),
        ):
            if env.get(var):
                data[key] = env[var]
        return cls.model_validate(data)


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
    """Parse the model's answer: a JSON object, possibly inside a ```json fence or surrounded by prose."""
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            raise ValueError("no JSON object in the answer") from None
        data = json.loads(text[start : end + 1])
    if not isinstance(data, dict):
        raise ValueError("the answer is not a JSON object")
    return JudgeVerdict.model_validate(data)


class JudgeMetrics:
    """The judge's Prometheus metrics, registered on the given registry (a private one by default).

    Use :meth:`for_registry` to share one set between several judges on the same registry
    (registering the same metric names twice on one registry is an error).
    """

    _by_registry: ClassVar[weakref.WeakKeyDictionary[CollectorRegistry, JudgeMetrics]] = weakref.WeakKeyDictionary()
    _lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def for_registry(cls, registry: CollectorRegistry | None = None) -> JudgeMetrics:
        """The metrics on ``registry``, created on first use (a fresh private registry when None)."""
        if registry is None:
            return cls()
        with cls._lock:
            metrics = cls._by_registry.get(registry)
            if metrics is None:
                metrics = cls(registry)
                cls._by_registry[registry] = metrics
            return metrics

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


class _Retryable(Exception):
    def __init__(self, outcome: str, message: str) -> None:
        super().__init__(message)
        self.outcome = outcome


class _Fatal(Exception):
    pass


class LLMJudge:
    """A thread-safe client for verdicts of one judge model."""

    def __init__(
        self,
        config: LLMJudgeConfig,
        registry: CollectorRegistry | None = None,
        client: httpx.Client | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.config = config
        self.metrics = JudgeMetrics.for_registry(registry)
        self._client = client or httpx.Client(timeout=httpx.Timeout(config.timeout_s))
        self._owns_client = client is None
        self._sleep = sleep
        self._slots = threading.BoundedSemaphore(config.max_concurrency)
        self._cache: OrderedDict[str, JudgeVerdict] = OrderedDict()
        self._cache_lock = threading.Lock()

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> LLMJudge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- public ----------------------------------------------------------------------------------

    def judge(self, sub_metric: str, transcript: str, reply: str) -> JudgeVerdict:
        """The verdict on ``reply`` for ``sub_metric``; raises :class:`JudgeUnavailable` when none is obtained."""
        messages = build_messages(sub_metric, transcript, reply)
        key = self.cache_key(sub_metric, messages)
        cached = self._cache_get(key)
        if cached is not None:
            self.metrics.requests.labels(outcome="cached").inc()
            return cached
        verdict = self._request_with_retries(messages, sub_metric)
        self._cache_put(key, verdict)
        return verdict

    def cache_key(self, sub_metric: str, messages: list[dict[str, str]]) -> str:
        blob = json.dumps(
            {
                "model": self.config.model,
                "prompt_version": PROMPT_VERSION,
                "sub_metric": sub_metric,
                "messages": messages,
            },
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    # -- internals -------------------------------------------------------------------------------

    def _cache_get(self, key: str) -> JudgeVerdict | None:
        with self._cache_lock:
            verdict = self._cache.get(key)
            if verdict is not None:
                self._cache.move_to_end(key)
            return verdict

    def _cache_put(self, key: str, verdict: JudgeVerdict) -> None:
        if self.config.cache_size == 0:
            return
        with self._cache_lock:
            self._cache[key] = verdict
            self._cache.move_to_end(key)
            while len(self._cache) > self.config.cache_size:
                self._cache.popitem(last=False)

    def _request_with_retries(self, messages: list[dict[str, str]], sub_metric: str) -> JudgeVerdict:
        last = "no attempt made"
        for attempt in range(1, self.config.max_attempts + 1):
            try:
                return self._attempt(messages)
            except _Fatal as exc:
                log.warning("judge.llm.failed", sub_metric=sub_metric, attempt=attempt, error=str(exc))
                raise JudgeUnavailable(str(exc)) from None
            except _Retryable as exc:
                last = f"{exc.outcome}: {exc}"
                log.info("judge.llm.retry", sub_metric=sub_metric, attempt=attempt, outcome=exc.outcome, error=str(exc))
            if attempt < self.config.max_attempts:
                self._sleep(min(self.config.backoff_max_s, self.config.backoff_s * 2 ** (attempt - 1)))
        raise JudgeUnavailable(f"no valid verdict after {self.config.max_attempts} attempts ({last})")

    def _attempt(self, messages: list[dict[str, str]]) -> JudgeVerdict:
        body = {
            "model": self.config.model,
            "messages": messages,
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
        }
        headers = {"Content-Type": "application/json"}
        if self.config.api_key is not None:
            headers["Authorization"] = f"Bearer {self.config.api_key.get_secret_value()}"
        with self._slots:
            started = time.perf_counter()
            try:
                response = self._client.post(self.config.endpoint, json=body, headers=headers)
            except httpx.TimeoutException as exc:
                self._observe("timeout", started)
                raise _Retryable(
                    "timeout", f"timed out after {self.config.timeout_s}s ({type(exc).__name__})"
                ) from None
            except httpx.HTTPError as exc:
                self._observe("error", started)
                raise _Retryable("error", f"{type(exc).__name__}: {exc}") from None
        if response.status_code >= 500 or response.status_code == 429:
            self._observe("error", started)
            raise _Retryable("error", f"HTTP {response.status_code}")
        if response.status_code >= 400:
            self._observe("error", started)
            raise _Fatal(f"HTTP {response.status_code}: {response.text[:200]}")
        try:
            content = response.json()["choices"][0]["message"]["content"]
            if not isinstance(content, str):
                raise TypeError("message content is not a string")
            verdict = parse_verdict(content)
        except (ValueError, KeyError, IndexError, TypeError, ValidationError) as exc:
            self._observe("invalid", started)
            raise _Retryable("invalid", f"unusable answer: {str(exc)[:200]}") from None
        self._observe("ok", started)
        return verdict

    def _observe(self, outcome: str, started: float) -> None:
        self.metrics.requests.labels(outcome=outcome).inc()
        self.metrics.latency.observe(time.perf_counter() - started)
