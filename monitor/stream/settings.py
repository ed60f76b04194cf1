"""`aem run` settings: defaults < config file < AEM_* environment < command-line flags."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from monitor.scoring.config import ScoringConfig, load_config_file
from monitor.sources.otlp.genai import OtlpMapping


class JudgeSettings(BaseModel):
    """An optional OpenAI-compatible chat-completions endpoint for reference-free reply checks."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = None
    model: str | None = None
    api_key: str | None = None
    timeout: float | None = None
    max_attempts: int | None = None
    concurrency: int | None = None

    def as_env(self) -> dict[str, str]:
        """The AEM_JUDGE_* view the judge client reads."""
        return {f"AEM_JUDGE_{k.upper()}": str(v) for k, v in self.model_dump().items() if v is not None}


class MonitorSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    bootstrap_servers: str = "127.0.0.1:9092"
    topic: str = "aem.traces"
    verdict_topic: str = "aem.verdicts"
    dlq_topic: str = "aem.traces.dlq"
    # Compacted per-conversation checkpoints, one set per consumer group; None derives
    # "aem.state.<group_id>", "" disables recovery.
    state_topic: str | None = None

    @property
    def resolved_state_topic(self) -> str:
        return f"aem.state.{self.group_id}" if self.state_topic is None else self.state_topic
    group_id: str = "aem-monitor"
    metrics_host: str = "0.0.0.0"
    metrics_port: int = Field(9464, ge=0, le=65535)
    reference: list[str] = Field(default_factory=list)  # golden dialog files for reference_id lookups
    tools: str | None = None  # tool catalog for judge-only turns
    idle_timeout_s: float = Field(300.0, gt=0)
    finished_retention_s: float = Field(24 * 3600, gt=0)  # how long finished conversations are remembered
    gap_timeout_s: float = Field(10.0, gt=0)
    max_open_dialogs: int = Field(100_000, ge=1)
    max_held_turns: int = Field(256, ge=1)
    # Bounded work (monitor/stream/bounds.py): past these a turn is unscored with reason too_large.
    max_arg_leaves: int = Field(2_000, ge=1)
    max_text_chars: int = Field(50_000, ge=1)
    max_numbers: int = Field(2_000, ge=1)
    max_open_dialog_bytes: int = Field(1 << 30, ge=1024)  # event bytes held by open conversations
    max_event_bytes: int = Field(1_000_000, ge=256)
    max_event_depth: int = Field(32, ge=4)
    # DLQ records above this are cut to it (headers keep the original size and sha256).
    dlq_max_bytes: int = Field(512 * 1024, ge=1024)
    poll_timeout_ms: int = Field(200, ge=1)
    # Verdicts, checkpoints and commits are flushed together at most this often while events keep
    # arriving (and at once when a poll comes back empty): it bounds redelivered duplicates after a crash.
    commit_interval_s: float = Field(0.5, ge=0)
    max_poll_records: int = Field(500, ge=1)
    lag_interval_s: float = Field(5.0, gt=0)
    release_ttl_s: float = Field(7 * 24 * 3600, gt=0)
    create_topics: bool = True
    topic_partitions: int = Field(3, ge=1)
    scoring: ScoringConfig = Field(default_factory=ScoringConfig)
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    # What the trace topic carries: native events, or OpenTelemetry GenAI spans (docs/otlp.md).
    input_format: Literal["aem", "otlp_json", "otlp_proto"] = "aem"
    otlp: OtlpMapping = Field(default_factory=OtlpMapping)


_ENV_PREFIX = "AEM_"
_LIST_FIELDS = {"reference"}


def from_env(environ: Mapping[str, str]) -> dict[str, Any]:
    """AEM_<FIELD> for top-level fields, AEM_JUDGE_<FIELD> for the judge endpoint."""
    out: dict[str, Any] = {}
    for name in MonitorSettings.model_fields:
        if name in ("scoring", "judge"):
            continue
        value = environ.get(_ENV_PREFIX + name.upper())
        if value is not None:
            out[name] = [v for v in value.split(",") if v] if name in _LIST_FIELDS else value
    judge = {
        name: environ[f"{_ENV_PREFIX}JUDGE_{name.upper()}"]
        for name in JudgeSettings.model_fields
        if f"{_ENV_PREFIX}JUDGE_{name.upper()}" in environ
    }
    if judge:
        out["judge"] = judge
    return out


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge(dict(merged[key]), value)
        else:
            merged[key] = value
    return merged


def load_settings(
    config_file: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> MonitorSettings:
    data: dict[str, Any] = {}
    if config_file is not None:
        raw = load_config_file(config_file)
        data = dict(raw.get("monitor", raw))
        if "scoring" in raw and "monitor" in raw:
            data["scoring"] = raw["scoring"]
    data = _merge(data, from_env(os.environ if environ is None else environ))
    data = _merge(data, {k: v for k, v in (overrides or {}).items() if v is not None})
    return MonitorSettings.model_validate(data)
