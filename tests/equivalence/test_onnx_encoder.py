"""The ``onnx`` encoder: the packaged fp32 weights exported to ONNX Runtime, not quantised, same vectors as torch."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from monitor.embeddings import int8_export
from monitor.embeddings.encoders import EncoderKind, int8_model, load_encoder

TEXTS = [
    "The museum is open on weekends.",
    "Your table for four is booked at 7 pm.",
    "A man is playing a guitar.",
    "hello",
]


@pytest.fixture(scope="module")
def onnx_encoder():
    encoder = load_encoder(EncoderKind.ONNX)
    assert encoder.kind is EncoderKind.ONNX  # the export worked here: no fallback to torch
    return encoder


def test_the_fp32_export_is_not_quantised_and_cached_apart_from_int8(onnx_encoder):
    import onnx  # here, not at collection: importing onnx costs about a second of CPU

    fp32 = int8_model(quantised=False)
    ops = Counter(node.op_type for node in onnx.load(str(fp32.path)).graph.node)
    assert ops["MatMulInteger"] == 0 and ops["DynamicQuantizeLinear"] == 0
    assert ops["MatMul"] >= 6 * 6
    assert "-fp32-" in fp32.path.name
    assert fp32.path != int8_model().path


def test_onnx_vectors_are_torch_vectors_to_float_rounding(onnx_encoder):
    torch_encoder = load_encoder(EncoderKind.FP32)
    assert torch_encoder.kind is EncoderKind.FP32
    torch_vectors = torch_encoder.encode(TEXTS)
    onnx_vectors = onnx_encoder.encode(TEXTS)
    assert onnx_vectors.shape == torch_vectors.shape
    assert np.allclose(onnx_vectors, torch_vectors, atol=1e-5)


def test_second_load_reuses_the_cached_export(onnx_encoder, monkeypatch):
    def boom(*_args, **_kwargs):
        raise RuntimeError("export not allowed here")

    monkeypatch.setattr(int8_export, "export_fp32", boom)
    assert load_encoder(EncoderKind.ONNX).kind is EncoderKind.ONNX


def test_the_setting_names_it(monkeypatch):
    monkeypatch.delenv("AEM_ENCODER", raising=False)
    assert EncoderKind.resolve(None) is EncoderKind.ONNX  # the default
    assert EncoderKind.resolve("onnx") is EncoderKind.ONNX
    with pytest.raises(ValueError, match="choose fp32, onnx or int8"):
        EncoderKind.resolve("fp16")


def test_another_model_runs_on_torch(tmp_path):
    from structlog.testing import capture_logs

    from monitor.embeddings.encoders import default_model_path

    with capture_logs() as logs:
        encoder = load_encoder(EncoderKind.ONNX, model_path=default_model_path())
    assert encoder.kind is EncoderKind.FP32
    assert any(e["event"] == "onnx_encoder_unavailable" and e["fallback"] == "fp32" for e in logs)


def test_the_engine_prepares_the_export_at_start_up_without_loading_it(monkeypatch, tmp_path):
    from monitor.embeddings import EmbeddingScorer
    from monitor.scoring import ScoringConfig
    from monitor.wiring import build_engine

    monkeypatch.setenv("AEM_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("AEM_ENCODER", raising=False)
    scorer = EmbeddingScorer()
    build_engine(ScoringConfig(), semantic=scorer).prepare_encoder()
    assert [p.name for p in tmp_path.glob("*-fp32-*.onnx")]  # built here, in the cache folder
    assert scorer._model is None  # nothing loaded: the first reply that needs it loads it
