"""The int8 ONNX encoder against the fp32 reference: same meaning, same verdicts on clear pairs."""

from __future__ import annotations

import numpy as np
import pytest

from monitor.embeddings import EmbeddingScorer
from monitor.embeddings.encoders import (
    INT8_MODEL_ENV,
    EncoderKind,
    EncoderUnavailable,
    Int8Model,
    OnnxEncoder,
    int8_model,
    load_encoder,
)

PARAPHRASES = [
    ("A man is playing a guitar.", "A man plays the guitar."),
    ("Your table for two is booked for 7 pm tonight.", "I reserved a table for two people at 7 this evening."),
    ("The flight to Boston leaves at 9 am.", "Your Boston flight departs at nine in the morning."),
    ("The report is ready to download.", "You can download the report now."),
]
UNRELATED = [
    ("A man is playing a guitar.", "The stock market fell sharply today."),
    ("Your table for two is booked for 7 pm tonight.", "The weather in Oslo will be rainy."),
    ("The flight to Boston leaves at 9 am.", "Please reset your password first."),
    ("The report is ready to download.", "A cat is sleeping on the sofa."),
]


@pytest.fixture(scope="module")
def int8():
    encoder = load_encoder(EncoderKind.INT8)
    assert encoder.kind is EncoderKind.INT8  # no silent fallback to fp32 here
    return encoder


def _cosines(encoder, pairs):
    gold = encoder.encode([g for g, _ in pairs])
    pred = encoder.encode([p for _, p in pairs])
    return np.sum(gold * pred, axis=1)


def test_int8_vectors_are_normalised_and_close_to_fp32(int8, scorer):
    texts = [t for pair in PARAPHRASES + UNRELATED for t in pair]
    q = int8.encode(texts)
    f = scorer.encoder.encode(texts)
    assert q.shape == f.shape == (len(texts), 384) and q.dtype == np.float32
    assert np.allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-4)
    assert np.min(np.sum(q * f, axis=1)) > 0.99


def test_int8_and_fp32_agree_on_clear_pairs(int8, scorer):
    for encoder in (int8, scorer.encoder):
        assert np.all(_cosines(encoder, PARAPHRASES) > 0.6)
        assert np.all(_cosines(encoder, UNRELATED) < 0.3)
    fp32 = EmbeddingScorer(encoder=scorer.encoder)
    q8 = EmbeddingScorer(encoder=int8)
    pairs = PARAPHRASES + UNRELATED
    assert [s >= 0.5 for s in q8.similarity(pairs)] == [s >= 0.5 for s in fp32.similarity(pairs)]


def test_int8_order_of_texts_and_batches_does_not_matter(int8):
    texts = ["short", "a much longer sentence about a table for two at seven", "mid length text"]
    whole = int8.encode(texts, batch_size=64)
    one_by_one = np.vstack([int8.encode([t], batch_size=1) for t in texts])
    # Activations are quantised with one scale per batch, so a text's vector moves a little with its batch
    # (dev reply texts: cosine 0.98 at worst), but each row stays its own text's.
    similarity = whole @ one_by_one.T
    assert np.min(np.diag(similarity)) > 0.97
    assert list(np.argmax(similarity, axis=1)) == [0, 1, 2]


def test_missing_int8_file_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv(INT8_MODEL_ENV, str(tmp_path / "nope.onnx"))
    with pytest.raises(EncoderUnavailable, match=r"AEM_INT8_MODEL: no ONNX file at .*nope\.onnx"):
        int8_model()


def test_int8_file_with_wrong_checksum_is_refused(tmp_path):
    bogus = tmp_path / "model.onnx"
    bogus.write_bytes(b"not a model")
    with pytest.raises(EncoderUnavailable, match="sha256 differs"):
        OnnxEncoder.load(Int8Model(bogus, "0" * 64))
