"""`aem run` settings: defaults < config file < AEM_* environment < command-line flags (pydantic-settings).

Top-level fields read ``AEM_<FIELD>``; the nested sections read ``AEM_<SECTION>_<FIELD>``:
``AEM_JUDGE_URL``, ``AEM_KAFKA_SECURITY_PROTOCOL``, ``AEM_SCORING_THRESHOLD``. A config file holds either
the settings at its top level or a ``monitor`` section (with ``scoring`` beside it).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from monitor.calibration.overlay import Calibration
from monitor.cluster import SESSION_TIMEOUT_MS, BootstrapServers, KafkaClient, KafkaSecurity
from monitor.judge.config import JudgeSettings
from monitor.models.trace_event import EventLimits
from monitor.scoring.config import ScoringConfig, load_config_file
from monitor.settings_sources import LayeredSettings, settings_context
from monitor.sources.otlp.genai import OtlpMapping
from monitor.stream.dlq_policy import DlqPayloadPolicy, parse_dlq_policy


class MonitorSettings(LayeredSettings):
    model_config = SettingsConfigDict(
        env_prefix="AEM_", env_nested_delimiter="_", env_nested_max_split=1, extra="forbid"
    )

    bootstrap_servers: BootstrapServers = "127.0.0.1:9092"
    kafka: KafkaSecurity = Field(default_factory=KafkaSecurity)
    topic: str = "aem.traces"
    verdict_topic: str = "aem.verdicts"
    dlq_topic: str = "aem.traces.dlq"
    # What of a rejected event the DLQ keeps: "full", "truncate:N" (first N bytes) or "redact".
    dlq_payload: str = "full"
    # Compacted per-conversation checkpoints, one set per consumer group; None derives
    # "aem.state.<group_id>", "" disables recovery.
    state_topic: str | None = None
    # Authenticates the state topic's records (HMAC-SHA256) where its ACLs cannot keep other writers out.
    state_mac_key: SecretStr | None = None
    group_id: str = "aem-monitor"
    metrics_host: str = "127.0.0.1"  # the container and Kubernetes files set 0.0.0.0
    metrics_port: int = Field(9464, ge=0, le=65535)
    http_max_connections: int = Field(8, ge=1, le=256)  # /metrics and /healthz served at once; more wait
    # `aem run` exits non-zero after this long without any successful broker contact (0: never).
    broker_unreachable_exit_s: float = Field(300.0, ge=0)
    # /healthz fails when no poll succeeded for this long, or no broker contact for this long.
    healthz_max_poll_age_s: float = Field(60.0, gt=0)
    healthz_max_broker_silence_s: float = Field(15.0, gt=0)
    broker_probe_interval_s: float = Field(5.0, gt=0)
    reference: Annotated[list[str], NoDecode] = Field(default_factory=list)  # golden dialogs for reference_id
    tools: str | None = None  # tool catalog for judge-only turns
    idle_timeout_s: float = Field(300.0, gt=0)
    finished_retention_s: float = Field(24 * 3600, gt=0)  # how long finished conversations are remembered
    gap_timeout_s: float = Field(10.0, gt=0)
    max_open_dialogs: int = Field(100_000, ge=1)
    max_held_turns: int = Field(256, ge=1)
    # Bounded work (monitor/scoring/bounds.py): past these a turn is unscored with reason too_large.
    max_arg_leaves: int = Field(2_000, ge=1)
    max_text_chars: int = Field(50_000, ge=1)
    max_numbers: int = Field(2_000, ge=1)
    max_reply_chars: int = Field(10_000, ge=1)
    max_reply_sentences: int = Field(24, ge=1)
    max_number_pairs: int = Field(2_500, ge=1)
    max_grounding_pairs: int = Field(10_000, ge=1)  # judge-only: values x their candidate sources' leaves and facts
    max_open_dialog_bytes: int = Field(1 << 30, ge=1024)  # event bytes held by open conversations
    # One conversation past these finishes early as too_large (its neighbours are not evicted for it).
    max_dialog_bytes: int = Field(32 << 20, ge=1024)
    max_dialog_turns: int = Field(10_000, ge=1)
    max_event_bytes: int = Field(1_000_000, ge=256)
    max_event_depth: int = Field(32, ge=4)
    # DLQ records above this are cut to it (headers keep the original size and sha256).
    dlq_max_bytes: int = Field(512 * 1024, ge=1024)
    poll_timeout_ms: int = Field(200, ge=1)
    # The consumer group's session: a member silent this long is dropped and its partitions reassigned. Against
    # the embedded broker a first join also waits half of it for other members.
    session_timeout_ms: int = Field(SESSION_TIMEOUT_MS, ge=1000, le=300000)
    # Verdicts, checkpoints and commits are flushed together at most this often while events keep
    # arriving (and at once when a poll comes back empty): it bounds redelivered duplicates after a crash.
    commit_interval_s: float = Field(0.5, ge=0)
    max_poll_records: int = Field(500, ge=1)
    lag_interval_s: float = Field(5.0, gt=0)
    release_ttl_s: float = Field(7 * 24 * 3600, gt=0)
    # Label bounds (docs/reliability.md): longer or odd agent/release values are cleaned up, and
    # (agent, release) pairs beyond the cap are counted under release="other".
    max_label_chars: int = Field(64, ge=8, le=256)
    max_release_pairs: int = Field(100, ge=1)
    clock_skew_s: float = Field(300.0, gt=0)  # event timestamps further from now are clamped
    create_topics: bool = True
    topic_partitions: int = Field(3, ge=1)
    scoring: ScoringConfig = Field(default_factory=ScoringConfig)
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    # What the trace topic carries: native events, or OpenTelemetry GenAI spans (docs/otlp.md).
    input_format: Literal["aem", "otlp_json", "otlp_proto"] = "aem"
    otlp: OtlpMapping = Field(default_factory=OtlpMapping)
    # Written by `aem calibrate --write` (docs/trusting-verdicts.md): exported as metrics, its id on every verdict.
    calibration: Calibration | None = None

    @property
    def resolved_state_topic(self) -> str:
        return f"aem.state.{self.group_id}" if self.state_topic is None else self.state_topic

    @property
    def cluster(self) -> KafkaClient:
        return KafkaClient(bootstrap_servers=self.bootstrap_servers, security=self.kafka)

    @property
    def event_limits(self) -> EventLimits:
        return EventLimits(max_bytes=self.max_event_bytes, max_depth=self.max_event_depth)

    @property
    def dlq_policy(self) -> DlqPayloadPolicy:
        return parse_dlq_policy(self.dlq_payload)

    @field_validator("reference", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        return [v for v in value.split(",") if v] if isinstance(value, str) else value

    @field_validator("dlq_payload")
    @classmethod
    def _valid_dlq_payload(cls, value: str) -> str:
        parse_dlq_policy(value)
        return value


S = TypeVar("S", bound=LayeredSettings)


def _drop_none(values: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, Mapping):
            value = _drop_none(value)
            if not value:
                continue
        if value is not None:
            out[key] = value
    return out


def load_settings(
    config_file: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> MonitorSettings:
    """Settings from defaults, then the config file, then ``environ`` (the process's when None), then flags
    (those left unset, None, in ``overrides`` override nothing)."""
    return load_layered(MonitorSettings, config_file, environ, overrides)


def load_layered(
    kind: type[S],
    config_file: str | Path | None,
    environ: Mapping[str, str] | None,
    overrides: Mapping[str, Any] | None,
) -> S:
    """Settings of another kind read as `load_settings` reads the monitor's (the cluster alone, for the commands
    that talk to Kafka without scoring: commands/common.py)."""
    raw = load_config_file(config_file) if config_file is not None else {}
    data = dict(raw.get("monitor", raw))  # its ``monitor`` section (``scoring`` beside it), or its top level
    if "scoring" in raw and "monitor" in raw:
        data["scoring"] = raw["scoring"]
    with settings_context(environ=environ, file_data=data):
        return kind(**_drop_none(overrides or {}))
