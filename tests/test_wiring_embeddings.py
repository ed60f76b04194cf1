"""The composition root wires the embedding settings: reference set embedded at start-up, caches on /metrics."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from monitor.embeddings import EmbeddingScorer
from monitor.embeddings.encoders import EncoderKind
from monitor.scoring import ScoringConfig
from monitor.stream.settings import MonitorSettings
from monitor.wiring import build_monitor, default_semantic
from tests.conftest import EXAMPLES


def test_scoring_settings_reach_the_scorer():
    config = ScoringConfig(encoder="int8", embedding_cache_size=10, reference_cache_size=5)
    scorer = default_semantic(config)
    assert isinstance(scorer, EmbeddingScorer)
    assert scorer.encoder_kind is EncoderKind.INT8
    assert (scorer.texts.maxsize, scorer.references.maxsize) == (10, 5)
    assert scorer._model is None  # nothing loaded by building it


def test_monitor_embeds_its_reference_set_once_at_start_up(embedding_scorer):
    scorer = EmbeddingScorer(encoder=embedding_scorer.encoder)
    registry = CollectorRegistry()
    settings = MonitorSettings(reference=[str(EXAMPLES / "unaligned_trip.json")])
    build_monitor(settings, registry=registry, semantic=scorer)
    embedded = scorer.encoded_texts
    assert embedded > 0 and len(scorer.references) == embedded
    labels = {"cache": "embeddings_reference"}
    assert registry.get_sample_value("aem_cache_entries", labels) == embedded
    assert registry.get_sample_value("aem_cache_misses_total", labels) == embedded  # each encoded once
