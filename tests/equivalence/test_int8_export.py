"""The int8 export: really quantised, built once and cached, rebuilt when stale or corrupt, fp32 on failure."""

from __future__ import annotations

import shutil
from collections import Counter

import pytest
from structlog.testing import capture_logs

from monitor.embeddings import int8_export
from monitor.embeddings.encoders import EncoderKind, OnnxEncoder, int8_model, load_encoder
from monitor.embeddings.int8_export import CACHE_DIR_ENV, RECIPE, Recipe, export_key


@pytest.fixture(scope="module")
def exported():
    """The session's int8 export (built here if no test built it before)."""
    return int8_model()


def _boom(*_args, **_kwargs):
    raise RuntimeError("export not allowed here")


def test_export_is_dynamically_quantised(exported):
    import onnx  # here, not at collection: importing onnx costs about a second of CPU

    ops = Counter(node.op_type for node in onnx.load(str(exported.path)).graph.node)
    # In each of the 6 layers, the query, key, value, attention-output and FFN-input weight MatMuls run as
    # MatMulInteger on activations quantised at run time; the FFN output and attention's two
    # activation-by-activation products stay fp32 MatMuls.
    assert ops["MatMulInteger"] == 5 * 6
    assert ops["DynamicQuantizeLinear"] > 0
    assert ops["MatMul"] == 3 * 6
    assert exported.sha256 is not None


def test_second_load_reuses_the_cached_file(exported, monkeypatch):
    monkeypatch.setattr(int8_export, "export_fp32", _boom)
    monkeypatch.setattr(int8_export, "quantise", _boom)
    written = exported.path.stat().st_mtime_ns
    assert int8_model() == exported
    assert exported.path.stat().st_mtime_ns == written


@pytest.mark.parametrize("damage", ["truncated", "no_checksum"])
def test_corrupt_or_unfinished_cache_file_is_rebuilt(exported, monkeypatch, tmp_path, damage):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    target = tmp_path / exported.path.name
    shutil.copy(exported.path, target)
    shutil.copy(exported.path.with_suffix(".sha256"), target.with_suffix(".sha256"))
    if damage == "truncated":
        target.write_bytes(target.read_bytes()[:1000])
    else:
        target.with_suffix(".sha256").unlink()
    calls = []

    def fake_export(model_dir, out):
        calls.append("export")
        out.write_bytes(b"fp32 graph")

    def fake_quantise(fp32, out, recipe=RECIPE):
        calls.append("quantise")
        shutil.copy(exported.path, out)

    monkeypatch.setattr(int8_export, "export_fp32", fake_export)
    monkeypatch.setattr(int8_export, "quantise", fake_quantise)
    rebuilt = int8_model()
    assert calls == ["export", "quantise"]
    assert rebuilt == type(exported)(target, exported.sha256)
    assert OnnxEncoder.load(rebuilt).encode(["a table for two"]).shape == (1, 384)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, target.with_suffix(".sha256").name])


def test_key_changes_with_the_model_files_and_the_recipe(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "model.safetensors").write_bytes(b"weights")
    key = export_key(tmp_path)
    assert export_key(tmp_path) == key
    assert export_key(tmp_path, Recipe(per_channel=not RECIPE.per_channel)) != key
    (tmp_path / "model.safetensors").write_bytes(b"other weights")
    assert export_key(tmp_path) != key


def test_failed_export_falls_back_to_fp32_and_leaves_nothing_behind(monkeypatch, tmp_path):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(int8_export, "export_fp32", lambda model_dir, out: out.write_bytes(b"fp32 graph"))
    monkeypatch.setattr(int8_export, "quantise", _boom)
    with capture_logs() as logs:
        encoder = load_encoder(EncoderKind.INT8)
    assert encoder.kind is EncoderKind.FP32
    warning = next(e for e in logs if e["event"] == "int8_encoder_unavailable")
    assert "RuntimeError: export not allowed here" in warning["reason"] and warning["fallback"] == "fp32"
    assert list(tmp_path.iterdir()) == []
