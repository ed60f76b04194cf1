"""The composition root: builds the scoring engine, the reference-free judge, the tool catalog and the
stream monitor from settings.

Every other layer receives its collaborators ready-made; only this module (and the commands above it)
knows how the parts fit together. Layer order, lowest first — a module imports only from its own
layer or lower ones (``tests/test_layers.py`` checks it on the import graph):

    models → equivalence → scoring → judge → sources → stream → wiring → demo/commands/cli
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry

from monitor.cache import CacheCollector, LruCache
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
from monitor.scoring import ScoringConfig, ScoringEngine
from monitor.scoring.checks import ReferenceChecker
from monitor.sources.files import InputError
from monitor.stream.runner import Monitor
from monitor.stream.settings import MonitorSettings
from monitor.verifier import VerifierConfig, VerifierReplyComparator
from monitor.verifier.embedding import EmbeddingReplyComparator
from monitor.verifier.evidence import TypedValueEvidence
from monitor.verifier.model import LazyVerifier


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
    return ScoringEngine(
        config=config, checker=ReferenceChecker(values, replies), judge=grounding, semantic=semantic
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
    cuts = VerifierConfig(v.pass_threshold, v.grounding_threshold, v.typed_values, v.confirm_omissions)
    return VerifierReplyComparator(LazyVerifier(v.model), cuts, TypedValueEvidence(values))


def judge_from_env(env: Mapping[str, str] | None = None) -> JudgeSettings:
    """The LLM judge settings of `AEM_JUDGE_*` (for `aem score`, which has no settings file)."""
    return judge_settings_from_env(env)


def build_monitor(
    settings: MonitorSettings,
    registry: CollectorRegistry | None = None,
    semantic: SemanticScorer | None = None,
) -> Monitor:
    """An `aem run` consumer-group member wired from its settings (engine, catalog, judge, metrics)."""
    registry = registry if registry is not None else CollectorRegistry()
    engine = build_engine(
        settings.scoring,
        semantic=semantic,
        catalog=read_catalog(settings.tools or None),
        judge=settings.judge,
        registry=registry,
    )
    return Monitor(settings, engine=engine, registry=registry)
