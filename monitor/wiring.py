"""The composition root: builds the scoring engine, the reference-free judge, the tool catalog, the parts of the
stream pipeline and the monitor from settings.

Every other layer receives its collaborators ready-made; only this module (and the commands above it)
knows how the parts fit together. Layer order, lowest first — a module imports only from its own
layer or lower ones (``tests/test_layers.py`` checks it on the import graph):

    models → equivalence → scoring → judge → sources → stream → wiring → demo/commands/cli
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import structlog
from prometheus_client import CollectorRegistry

from monitor.cache import CacheCollector, LruCache
from monitor.calibration.cuts import LOW_CONFIDENCE_MARGIN
from monitor.cluster import ensure_topics, group_timeouts, make_consumer, make_producer
from monitor.embeddings import EmbeddingScorer, SemanticScorer
from monitor.equivalence import ValueComparator
from monitor.equivalence.types import ReplyComparing
from monitor.judge import (
    CatalogError,
    GroundingChecker,
    JudgeMetrics,
    JudgeSettings,
    LLMJudge,
    LLMReplyComparator,
    ToolCatalog,
    judge_settings_from_env,
    load_catalog,
)
from monitor.models.dialog import ToolSpec
from monitor.scoring import ReferenceTurn, ScoringConfig, ScoringEngine, reference_of
from monitor.scoring.bounds import WorkLimits
from monitor.scoring.checks import ReferenceChecker
from monitor.scoring.session import BoundedPool
from monitor.sources.files import InputError, read_dialogs
from monitor.sources.otlp import AssemblyLimits, Encoding
from monitor.stream.calibration import CalibrationMetrics, ConfidenceSink
from monitor.stream.checkpoint import Checkpoint
from monitor.stream.dlq import DeadLetterSink
from monitor.stream.health import Watch
from monitor.stream.kafka_io import ResendingProducer, ensure_partitions
from monitor.stream.labels import LabelGuard
from monitor.stream.metrics import VerdictMetrics
from monitor.stream.otlp import OtlpInput
from monitor.stream.partitions import PartitionState
from monitor.stream.pipeline import Connection, Pipeline
from monitor.stream.processor import ProcessorLimits, TurnProcessor
from monitor.stream.progress import ProgressLog
from monitor.stream.runner import Monitor
from monitor.stream.settings import MonitorSettings
from monitor.stream.sinks import PrometheusSink, RunStats, StatsSink, VerdictTopicSink
from monitor.stream.sources import NativeSource, Source
from monitor.stream.state import STATE_TOPIC_CONFIG, KafkaStateStore, StateStore
from monitor.stream.stream_clock import StreamClock
from monitor.stream.telemetry import PipelineTelemetry
from monitor.verifier import VerifierConfig, VerifierReplyComparator
from monitor.verifier.embedding import EmbeddingReplyComparator
from monitor.verifier.evidence import TypedValueEvidence
from monitor.verifier.fusion import load_fusion
from monitor.verifier.head import Head
from monitor.verifier.model import LazyVerifier

log = structlog.get_logger(__name__)


def read_catalog(path: str | Path | None) -> ToolCatalog | tuple[ToolSpec, ...]:
    """A `--tools` catalog, validated (a bad JSON Schema is an input error), or an empty one."""
    if path is None:
        return ()
    try:
        return load_catalog(path)
    except CatalogError as exc:
        raise InputError(str(path), str(exc).removeprefix(f"{path}: ")) from None


def default_semantic(config: ScoringConfig) -> SemanticScorer:
    """The sentence-embedding scorer the config names (all-MiniLM-L6-v2 by default, fp32, onnx or int8 per
    `encoder` / `AEM_ENCODER`; loaded lazily, offline)."""
    return EmbeddingScorer(
        model=config.embedding_model,
        encoder=config.encoder,
        cache_size=config.embedding_cache_size,
        reference_cache_size=config.reference_cache_size,
    )


def build_engine(
    config: ScoringConfig | None = None,
    *,
    semantic: SemanticScorer | None = None,
    embed: bool = True,
    catalog: ToolCatalog | Sequence[ToolSpec] = (),
    judge: JudgeSettings | None = None,
    registry: CollectorRegistry | None = None,
) -> ScoringEngine:
    """The engine `aem score` and `aem run` share.

    `semantic` is the fallback scorer for values and replies; when None, the default embedding scorer is
    built unless `embed` is False (typed comparison only). Turns without a reference go to a grounding
    checker over `catalog`, with the LLM judge `judge` when one is configured (its metrics, and the embedding
    caches' hit/miss counts, on `registry`).
    """
    config = config or ScoringConfig()
    if semantic is None and embed:
        semantic = default_semantic(config)
    values = ValueComparator(semantic=semantic, threshold=config.threshold)
    llm = LLMJudge(judge, metrics=JudgeMetrics(registry)) if judge is not None and judge.enabled else None
    replies = reply_comparator(config, values, semantic, llm)
    grounding = GroundingChecker(values=values, replies=replies, llm=llm, catalog=catalog)
    caches: list[LruCache[str, Any]] = list(semantic.caches) if isinstance(semantic, EmbeddingScorer) else []
    caches += [llm.cache] if llm is not None and llm.cache is not None else []
    if registry is not None and caches:
        registry.register(CacheCollector(lambda: caches))
    specs = [e.spec for e in catalog.entries.values()] if isinstance(catalog, ToolCatalog) else list(catalog)
    return ScoringEngine(
        config=config,
        checker=ReferenceChecker(values, replies),
        judge=grounding,
        semantic=semantic,
        catalog=specs,
        closers=(llm.close,) if llm is not None else (),
    )


def reply_comparator(
    config: ScoringConfig, values: ValueComparator, semantic: SemanticScorer | None, llm: LLMJudge | None
) -> ReplyComparing:
    """The reply scorer ``config.reply_scorer`` names: the trained verifier (default), an LLM judge comparing
    with gold, or bare embedding cosine (the baseline)."""
    if config.reply_scorer == "embedding":
        if semantic is None:
            raise InputError("scoring.reply_scorer", "the embedding reply scorer needs the embedding model")
        return EmbeddingReplyComparator(semantic, values, config.threshold)
    if config.reply_scorer == "llm":
        if llm is None:
            raise InputError("scoring.reply_scorer", "'llm' needs an LLM judge: set AEM_JUDGE_URL (docs/verifier.md)")
        return LLMReplyComparator(llm, values)
    v = config.verifier
    head = Head.of(v.head.model_dump()) if v.head is not None else None
    cuts = VerifierConfig(
        v.pass_threshold, v.grounding_threshold, v.typed_values, v.confirm_omissions, v.fused_threshold, head,
        v.unrelated_cosine,
    )  # fmt: skip
    if v.fusion and semantic is None:
        log.warning("fusion_off", reason="no embedding model", decides="verifier alone")
    fusion = load_fusion(v.model) if v.fusion and semantic is not None else None
    return VerifierReplyComparator(LazyVerifier(v.model), cuts, TypedValueEvidence(values), semantic, fusion)


def judge_from_env(env: Mapping[str, str] | None = None) -> JudgeSettings:
    """The LLM judge settings of `AEM_JUDGE_*` (for `aem score`, which has no settings file)."""
    return judge_settings_from_env(env)


def load_references(paths: Sequence[str]) -> dict[str, list[ReferenceTurn]]:
    """Golden dialogs by dialog_id, as reference steps (any `aem score` shape); InputError when two dialogs
    share an id (which one a `reference_id` means would be a guess)."""
    out: dict[str, list[ReferenceTurn]] = {}
    seen: dict[str, str] = {}
    for path in paths:
        for dialog in read_dialogs(path):
            if (first := seen.get(dialog.dialog_id)) is not None:
                where = "earlier in the same file" if first == path else f"also in {first}"
                raise InputError(path, f"a second reference dialog with this id ({where}); ids must be unique",
                                 dialog=dialog.dialog_id)  # fmt: skip
            seen[dialog.dialog_id] = path
            steps = reference_of(dialog)
            if steps:
                out[dialog.dialog_id] = steps
    return out


def processor_limits(s: MonitorSettings) -> ProcessorLimits:
    """The processor's bounds on open conversations and on one event's work, from the settings."""
    work = WorkLimits(
        s.max_arg_leaves,
        s.max_text_chars,
        s.max_numbers,
        s.max_reply_chars,
        s.max_reply_sentences,
        s.max_number_pairs,
        s.max_grounding_pairs,
    )
    return ProcessorLimits(
        max_open=s.max_open_dialogs,
        idle_timeout_s=s.idle_timeout_s,
        gap_timeout_s=s.gap_timeout_s,
        max_held=s.max_held_turns,
        max_open_bytes=s.max_open_dialog_bytes,
        max_dialog_bytes=s.max_dialog_bytes,
        max_dialog_turns=s.max_dialog_turns,
        work=work,
    )


def build_pipeline(
    settings: MonitorSettings,
    engine: ScoringEngine,
    registry: CollectorRegistry,
    clock: Callable[[], float] = time.monotonic,
    *,
    consumer: Any = None,
    producer: Any = None,
    store: StateStore | None = None,
) -> Pipeline:
    """Source → processor → sinks for `aem run`, with the verdict metrics and the pipeline's telemetry apart,
    and the factory of its broker parts (`connect_pipeline`; `consumer`, `producer`, `store`: ones to use instead
    of making them). The reference set (``settings.reference``) is loaded and its gold texts embedded here."""
    s = settings
    metrics = VerdictMetrics(  # bounded labels (monitor/stream/labels.py)
        registry, release_ttl_seconds=s.release_ttl_s, labels=LabelGuard(s.max_label_chars, s.max_release_pairs)
    )
    telemetry = PipelineTelemetry(registry)
    judge = engine.judge  # an LLM judge runs on a bounded pool with a turn budget
    telemetry.judge_configured.set(int(isinstance(judge, BoundedPool) and judge.turn_budget_s is not None))
    references = load_references(s.reference)
    engine.embed_references(step for steps in references.values() for step in steps)
    stream_clock = StreamClock(clock)
    processor = TurnProcessor(engine, references, processor_limits(s), clock=stream_clock)
    telemetry.open_dialogs.set_function(lambda: len(processor.open))
    telemetry.open_dialog_bytes.set_function(lambda: processor.open_bytes)
    partitions = PartitionState(processor, None, s.finished_retention_s)
    partitions.on_skipped = lambda reason: telemetry.state_skipped.labels(reason).inc()
    stats = RunStats()
    prometheus = PrometheusSink(metrics)
    calibration = s.calibration
    confidence = ConfidenceSink(
        CalibrationMetrics(registry, calibration),
        {"scoring": s.scoring.model_dump(mode="json")},
        calibration.low_confidence_margin if calibration is not None else LOW_CONFIDENCE_MARGIN,
    )
    stats_labels = LabelGuard(s.max_label_chars, s.max_release_pairs)  # bounded like the metric labels
    pipeline = Pipeline(
        source=make_source(s, registry, processor),  # native events or OTLP batches
        processor=processor,
        partitions=partitions,
        sinks=[prometheus, StatsSink(stats, stats_labels), confidence],
        prometheus=prometheus,
        stats=stats,
        metrics=metrics,
        telemetry=telemetry,
        stream_clock=stream_clock,
        watch=Watch(s, registry),
        progress=ProgressLog(),
        connect=lambda: connect_pipeline(s, pipeline, consumer, producer, store, clock),
    )
    return pipeline


def connect_pipeline(
    settings: MonitorSettings,
    pipeline: Pipeline,
    consumer: Any = None,
    producer: Any = None,
    store: StateStore | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Connection:
    """The broker's parts of a pipeline: topics, producer, state store and consumer (those not given: tests pass
    in-memory ones), the verdict-topic sink (first of the sinks), the DLQ and the checkpoint."""
    s, kafka = settings, settings.cluster
    if producer is None:
        if s.create_topics:
            ensure_topics(kafka, [s.topic, s.verdict_topic, s.dlq_topic], s.topic_partitions)
        # A send waiting on metadata fails after 10 s instead of 60: ResendingProducer then resends.
        producer = ResendingProducer(lambda: make_producer(kafka, max_block_ms=10000), [s.verdict_topic, s.dlq_topic])
    if store is None and s.resolved_state_topic and isinstance(producer, ResendingProducer):
        store = state_store(s, producer)
    pipeline.partitions.store = store
    pipeline.processor.changelog = store is not None
    if consumer is None:
        session = group_timeouts(s.session_timeout_ms)
        consumer = make_consumer(
            kafka, [], s.group_id, max_poll_records=s.max_poll_records,
            session_timeout_ms=session["session_timeout_ms"], heartbeat_interval_ms=session["heartbeat_interval_ms"],
        )  # fmt: skip
    calibration_id = s.calibration.id if s.calibration else None
    pipeline.sinks.insert(0, VerdictTopicSink(producer, s.verdict_topic, calibration_id))
    dlq = DeadLetterSink(  # hardening hook: the DLQ payload policy (monitor/stream/dlq_policy.py)
        producer, s.dlq_topic, pipeline.telemetry, s.dlq_max_bytes, policy=s.dlq_policy
    )
    checkpoint = Checkpoint(
        consumer,
        producer,
        pipeline.sinks,
        pipeline.partitions,
        s.commit_interval_s,
        clock=clock,
        holding=pipeline.source.holding,
    )
    return Connection(consumer, producer, dlq, checkpoint)


def state_store(settings: MonitorSettings, producer: ResendingProducer) -> KafkaStateStore:
    """The compacted state topic, with at least as many partitions as the trace topic (created or grown)."""
    s, kafka, topic = settings, settings.cluster, settings.resolved_state_topic
    partitions = len(producer.partitions_for(s.topic) or ())
    ensure_topics(kafka, [topic], partitions, configs=STATE_TOPIC_CONFIG)
    have = len(producer.partitions_for(topic) or ())
    if have < partitions:
        ensure_partitions(kafka, topic, partitions, have)
        producer.refresh()  # a fresh client: the old one's metadata lacks the new partitions
    mac_key = s.state_mac_key.get_secret_value().encode("utf-8") if s.state_mac_key else None
    store = KafkaStateStore(kafka, topic, producer, mac_key=mac_key)
    producer.partitions_for(topic)
    return store


def make_source(settings: MonitorSettings, registry: CollectorRegistry, processor: TurnProcessor) -> Source:
    """The source for `settings.input_format`: native events, or OTLP JSON/proto batches (traces wait
    `gap_timeout_s` for their root; a conversation the assembler lost resumes where the processor has it)."""
    s = settings
    if s.input_format == "aem":
        return NativeSource(s.event_limits, s.clock_skew_s)
    return OtlpInput(
        Encoding(s.input_format),
        s.otlp,
        AssemblyLimits(hold_s=s.gap_timeout_s),
        s.max_event_bytes,
        registry,
        resume=processor.resume_point,
        clock_skew_s=s.clock_skew_s,
    )


def build_monitor(
    settings: MonitorSettings,
    registry: CollectorRegistry | None = None,
    semantic: SemanticScorer | None = None,
    *,
    engine: ScoringEngine | None = None,
    consumer: Any = None,
    producer: Any = None,
    store: StateStore | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Monitor:
    """An `aem run` consumer-group member wired from its settings (engine, catalog, judge, metrics, pipeline).

    `engine`: one already built (tests and benchmarks share a loaded model); `consumer`, `producer`, `store`:
    connections to use instead of the ones `Monitor.start` makes (tests pass in-memory fakes)."""
    registry = registry if registry is not None else CollectorRegistry()
    if engine is None:
        engine = build_engine(
            settings.scoring,
            semantic=semantic,
            catalog=read_catalog(settings.tools or None),
            judge=settings.judge,
            registry=registry,
        )
    pipeline = build_pipeline(settings, engine, registry, clock, consumer=consumer, producer=producer, store=store)
    return Monitor(settings, engine, pipeline, clock=clock)
