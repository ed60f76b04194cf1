"""Pluggable semantic scorers: the embedding scorer (default) and the interface an LLM judge can implement."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np
import structlog

from monitor.cache import LruCache
from monitor.embeddings.encoders import (
    EncoderKind,
    EncoderUnavailable,
    TextEncoder,
    TorchEncoder,
    int8_model,
    load_encoder,
)

log = structlog.get_logger(__name__)

DEFAULT_CACHE_SIZE = 200_000
DEFAULT_REFERENCE_CACHE_SIZE = 50_000


class SemanticScorer(ABC):
    """Scores how close two texts are in meaning."""

    def prefetch_references(self, texts: Sequence[str]) -> None:  # noqa: B027 - optional hook
        """Batch-encode / cache gold texts that will be compared again and again. No-op by default."""

    @abstractmethod
    def similarity(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """Raw similarity of each (gold, pred) pair, in [0, 1] or [-1, 1] (cosine)."""


class EmbeddingScorer(SemanticScorer):
    """Cosine similarity of all-MiniLM-L6-v2 embeddings, each distinct text encoded once.

    Two bounded LRU caches keyed by text: ``references`` holds gold texts (the first text of every pair, and
    what ``prefetch_references`` loads), which a fixed reference set asks for again and again; ``texts`` holds
    the rest (predicted texts). Only texts in neither reach the encoder, in one batch per call (a poll's
    decisions ask for their similarities together, ``monitor.asking``).

    The encoder (``fp32`` torch or ``int8`` ONNX Runtime; None reads ``AEM_ENCODER``) loads lazily, offline,
    the first time a text needs encoding: scoring that never gets past typed checks imports neither torch nor
    sentence-transformers. ``encoder`` may also be an already loaded :class:`TextEncoder` to share.
    """

    def __init__(
        self,
        model: str | None = None,
        batch_size: int = 64,
        cache_size: int = DEFAULT_CACHE_SIZE,
        device: str = "cpu",
        encoder: EncoderKind | str | TextEncoder | None = None,
        reference_cache_size: int = DEFAULT_REFERENCE_CACHE_SIZE,
    ) -> None:
        self.model_name = model
        self.batch_size = batch_size
        self.device = device
        self._encoder: TextEncoder | None = None
        if encoder is None or isinstance(encoder, str):
            self.encoder_kind = EncoderKind.resolve(encoder)
        else:
            self._encoder = encoder
            self.encoder_kind = encoder.kind
        self.texts: LruCache[str, np.ndarray] = LruCache("embeddings", cache_size)
        self.references: LruCache[str, np.ndarray] = LruCache("embeddings_reference", reference_cache_size)
        self._lock = threading.RLock()
        self.encoded_texts = 0  # texts actually sent to the encoder

    # -- the encoder, loaded on first need --------------------------------------------------------

    @property
    def encoder(self) -> TextEncoder:
        with self._lock:
            if self._encoder is None:
                self._encoder = load_encoder(self.encoder_kind, self.model_name, self.device)
                self.encoder_kind = self._encoder.kind
            return self._encoder

    def prepare(self) -> None:
        """Build the ONNX export this scorer's encoder will run, if it is not cached yet (``aem run`` calls this
        at start-up: a first export takes 15-35 s and needs torch, not to be paid mid-poll). Loads nothing."""
        if self._encoder is not None or self.encoder_kind is EncoderKind.FP32:
            return
        if self.encoder_kind is EncoderKind.ONNX and self.model_name is not None:
            return  # another model runs on torch (``load_encoder``)
        try:
            int8_model(self.model_name, quantised=self.encoder_kind is EncoderKind.INT8)
        except EncoderUnavailable as exc:  # the encoder falls back when it loads, and says so then
            log.debug("onnx_export_not_prepared", reason=str(exc))

    @property
    def model(self) -> Any:
        """The loaded model object (a SentenceTransformer for fp32, an ONNX Runtime session for int8)."""
        return getattr(self.encoder, "model", self.encoder)

    @property
    def _model(self) -> Any:
        """The model if loaded, else None; assigning a SentenceTransformer or a TextEncoder shares it."""
        return None if self._encoder is None else getattr(self._encoder, "model", self._encoder)

    @_model.setter
    def _model(self, model: Any) -> None:
        self._encoder = model if hasattr(model, "kind") else TorchEncoder(model)
        self.encoder_kind = self._encoder.kind

    @property
    def cached_texts(self) -> frozenset[str]:
        """Every text with a cached vector, in either cache."""
        return frozenset(self.texts.keys()) | frozenset(self.references.keys())

    _cache = cached_texts  # the name of the former single cache, read by older tests

    @property
    def caches(self) -> tuple[LruCache[str, np.ndarray], ...]:
        return (self.texts, self.references)

    # -- encoding ---------------------------------------------------------------------------------

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised embeddings of ``texts`` (one row per text); only uncached texts reach the encoder."""
        return self._rows(list(texts), reference=False)

    def prefetch_references(self, texts: Sequence[str]) -> None:
        """Encode gold texts in one batch (reference files at start-up) into the reference cache."""
        if texts:
            self._rows(list(texts), reference=True)
            log.info("references_embedded", texts=len(set(texts)), cached=len(self.references))

    def similarity(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        if not pairs:
            return []
        gold = self._rows([g for g, _ in pairs], reference=True)
        pred = self._rows([p for _, p in pairs], reference=False)
        sims = np.clip(np.sum(gold * pred, axis=1), -1.0, 1.0)
        return [float(s) for s in sims]

    def _rows(self, texts: list[str], reference: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        with self._lock:
            found: dict[str, np.ndarray] = {}
            for text in dict.fromkeys(texts):
                vec = self._lookup(text, reference)
                if vec is not None:
                    found[text] = vec
            missing = [t for t in dict.fromkeys(texts) if t not in found]
            if missing:
                vecs = self.encoder.encode(missing, batch_size=self.batch_size)
                self.encoded_texts += len(missing)
                store = self.references if reference else self.texts
                for text, vec in zip(missing, vecs, strict=True):
                    store.put(text, vec)
                    found[text] = vec
            return np.vstack([found[t] for t in texts])

    def _lookup(self, text: str, reference: bool) -> np.ndarray | None:
        """A cached vector, counted in the cache of the text's side; a gold text met first as a prediction
        moves into the reference cache."""
        if not reference:
            vec = self.texts.get(text)
            return vec if vec is not None else self.references.peek(text)
        vec = self.references.get(text)
        if vec is None:
            vec = self.texts.peek(text)
            if vec is not None:
                self.references.put(text, vec)
        return vec
