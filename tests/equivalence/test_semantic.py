"""The embedding scorer: lazy offline model, LRU cache, batching only cache misses."""

from __future__ import annotations

import numpy as np

from monitor.equivalence import EmbeddingScorer, SemanticScorer


def test_is_a_semantic_scorer():
    assert issubclass(EmbeddingScorer, SemanticScorer)


def test_model_loads_lazily():
    s = EmbeddingScorer()
    assert s._model is None


def test_encode_normalised_and_cached(scorer):
    s = EmbeddingScorer(cache_size=3)
    s._model = scorer.model
    emb = s.encode(["a cat", "a dog", "a cat"])
    assert emb.shape == (3, 384)
    assert np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-4)
    assert np.allclose(emb[0], emb[2])
    assert s.encoded_texts == 2
    s.encode(["a cat"])
    assert s.encoded_texts == 2
    s.encode(["x", "y", "z"])  # evicts the least recently used entries
    assert len(s._cache) == 3
    s.encode(["a dog"])
    assert s.encoded_texts == 6


def test_similarity_orders_meaning(scorer):
    close, far = scorer.similarity([("A man is playing guitar.", "A man plays the guitar."),
                                    ("A man is playing guitar.", "The stock market fell today.")])
    assert close > 0.8 > far
    assert scorer.similarity([]) == []


class Constant(SemanticScorer):
    def similarity(self, pairs):
        return [1.0 for _ in pairs]


def test_custom_scorer_plugs_in():
    from monitor.equivalence import ValueComparator

    vc = ValueComparator(semantic=Constant())
    Constant().prefetch(["anything"])  # the default hook is a no-op
    assert vc.compare("alpha beta", "alpha beta gamma").method == "semantic"
