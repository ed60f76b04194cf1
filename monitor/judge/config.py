"""The one settings class of the LLM judge, and how commands without a settings file read it.

The same :class:`JudgeSettings` is the ``judge`` section of the `aem run` settings (file, ``AEM_JUDGE_*``
environment, flags) and what `aem score` reads from ``AEM_JUDGE_*`` alone. Field names are the names
of the config-file keys and of the environment variables (``AEM_JUDGE_<FIELD>``).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, SecretStr
from pydantic_settings import SettingsConfigDict

from monitor.settings_sources import LayeredSettings, settings_context


class ResponseFormat(StrEnum):
    """How the judge is asked for structured output (`json_schema` falls back when the endpoint refuses it)."""

    JSON_SCHEMA = "json_schema"
    JSON_OBJECT = "json_object"
    NONE = "none"


class JudgeSettings(BaseModel):
    """Where and how to reach an OpenAI-compatible chat-completions judge; disabled without a ``url``.

    ``url`` is the API root (``…/v1``) or the full ``…/chat/completions`` URL.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str | None = None
    model: str = "default"
    api_key: SecretStr | None = None
    timeout: float = Field(30.0, gt=0, description="seconds for the whole of one HTTP attempt (head and body)")
    max_response_bytes: int = Field(1_000_000, ge=1024, description="a longer response is refused (retried)")
    max_attempts: int = Field(3, ge=1, le=10)
    backoff_s: float = Field(0.5, ge=0)
    backoff_max_s: float = Field(8.0, ge=0)
    concurrency: int = Field(4, ge=1, description="judge requests in flight at once (worker threads)")
    queue_limit: int = Field(4, ge=0, description="requests waiting for a worker; beyond it a turn is unscored")
    turn_budget_s: float = Field(5.0, gt=0, description="how long scoring waits for a turn's verdicts")
    cache_size: int = Field(4096, ge=0)
    temperature: float = 0.0
    max_tokens: int = Field(512, ge=16)
    response_format: ResponseFormat = ResponseFormat.JSON_SCHEMA
    max_reply_chars: int = Field(4000, ge=100, description="the judged reply is clipped to this")
    max_turn_chars: int = Field(2000, ge=100, description="each earlier turn of the transcript is clipped to this")
    max_transcript_chars: int = Field(16000, ge=500, description="oldest turns are dropped beyond this")

    @property
    def enabled(self) -> bool:
        return bool(self.url and self.url.strip())

    @property
    def endpoint(self) -> str:
        if not self.url:
            raise ValueError("the judge has no url")
        url = self.url.strip().rstrip("/")
        return url if url.endswith("/chat/completions") else f"{url}/chat/completions"


class _JudgeEnvironment(LayeredSettings):
    """``AEM_JUDGE_*`` read through the same sources as the `aem run` settings."""

    model_config = SettingsConfigDict(
        env_prefix="AEM_", env_nested_delimiter="_", env_nested_max_split=1, extra="ignore"
    )

    judge: JudgeSettings = Field(default_factory=JudgeSettings)


def judge_settings_from_env(environ: Mapping[str, str] | None = None) -> JudgeSettings:
    """The judge settings of ``AEM_JUDGE_*`` (``environ`` defaults to the process environment)."""
    with settings_context(environ=environ):
        return _JudgeEnvironment().judge
