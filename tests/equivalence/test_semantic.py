"""The embedding scorer: lazy offline encoder, gold and prediction caches, batching only cache misses."""

from __future__ import annotations

import numpy as np
import pytest

from monitor.embeddings import EmbeddingScorer, SemanticScorer
from monitor.embeddings.encoders import ENCODER_ENV, EncoderKind


def test_is_a_semantic_scorer():
    assert issubclass(EmbeddingScorer, SemanticScorer)


def test_model_loads_lazily():
    s = EmbeddingScorer()
    assert s._model is None
    assert s.similarity([]) == []
    assert s._model is None


@pytest.fixture
def fresh(scorer):
    """A scorer sharing the session's loaded encoder, with empty caches and counters."""
    return EmbeddingScorer(encoder=scorer.encoder, cache_size=3)


def test_encode_normalised_and_cached(fresh):
    emb = fresh.encode(["a cat", "a dog", "a cat"])
    assert emb.shape == (3, 384)
    assert np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-4)
    assert np.array_equal(emb[0], emb[2])
    assert fresh.encoded_texts == 2
    again = fresh.encode(["a cat"])
    assert np.array_equal(again[0], emb[0])
    assert fresh.encoded_texts == 2
    fresh.encode(["x", "y", "z"])  # evicts the least recently used entries
    assert len(fresh.texts) == 3
    fresh.encode(["a dog"])
    assert fresh.encoded_texts == 6


def test_gold_texts_are_encoded_once_and_counted(fresh):
    gold = "Your table for two is booked for 7 pm."
    first = fresh.similarity([(gold, "I booked a table for two at 7 pm.")])
    before = fresh.references.stats()
    assert (before.hits, before.misses, before.size) == (0, 1, 1)
    second = fresh.similarity([(gold, "I booked a table for two at 7 pm.")])
    fresh.similarity([(gold, "Sorry, no table is free tonight.")])
    after = fresh.references.stats()
    assert (after.hits, after.misses) == (2, 1)
    assert first == second
    assert fresh.encoded_texts == 3  # the gold text once, each distinct prediction once
    assert np.array_equal(fresh.references.peek(gold), fresh.encode([gold])[0])


def test_many_predictions_do_not_evict_gold(fresh):
    gold = "The meeting moved to Thursday."
    fresh.similarity([(gold, "first")])
    for i in range(10):  # more predicted texts than the prediction cache holds
        fresh.similarity([(gold, f"prediction {i}")])
    assert fresh.references.stats().hits == 10
    assert fresh.encoded_texts == 12


def test_prefetch_references_one_batch(fresh):
    golds = ["Which region?", "The report is ready.", "Which region?"]
    fresh.prefetch_references(golds)
    assert fresh.encoded_texts == 2 and len(fresh.references) == 2
    fresh.similarity([("Which region?", "What region should it cover?")])
    assert fresh.encoded_texts == 3
    assert fresh.references.stats().hits == 1


def test_similarity_orders_meaning(scorer):
    close, far = scorer.similarity([("A man is playing guitar.", "A man plays the guitar."),
                                    ("A man is playing guitar.", "The stock market fell today.")])
    assert close > 0.8 > far
    assert scorer.similarity([]) == []


def test_encoder_setting_and_environment(monkeypatch):
    monkeypatch.delenv(ENCODER_ENV, raising=False)
    assert EmbeddingScorer().encoder_kind is EncoderKind.ONNX
    assert EmbeddingScorer(encoder="int8").encoder_kind is EncoderKind.INT8
    monkeypatch.setenv(ENCODER_ENV, "INT8")
    assert EmbeddingScorer().encoder_kind is EncoderKind.INT8
    assert EmbeddingScorer(encoder="fp32").encoder_kind is EncoderKind.FP32  # an explicit setting wins
    monkeypatch.setenv(ENCODER_ENV, "fp16")
    with pytest.raises(ValueError, match="AEM_ENCODER: unknown encoder 'fp16'; choose fp32, onnx or int8"):
        EmbeddingScorer()


class Constant(SemanticScorer):
    def similarity(self, pairs):
        return [1.0 for _ in pairs]


def test_custom_scorer_plugs_in():
    from monitor.equivalence import ValueComparator

    vc = ValueComparator(semantic=Constant())
    Constant().prefetch_references(["anything"])  # the default hook is a no-op
    assert vc.compare("alpha beta", "alpha beta gamma").method == "semantic"
