"""The verifier model: a MiniLM-L6 cross-encoder with a three-way head, run on ONNX Runtime (int8).

``OnnxVerifier`` reads the file shipped in ``monitor/verifier/model/`` (or ``AEM_VERIFIER_MODEL``, a folder
with the same three files), checks its sha256 against ``verifier.json`` and refuses a file that differs. It
imports neither torch nor transformers: the tokenizer is the ``tokenizers`` library's. Probabilities are cached
per pair, so the same (gold, prediction) pair is scored once.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import structlog

from monitor.cache import LruCache
from monitor.embeddings.int8_export import file_sha256

log = structlog.get_logger(__name__)

LABELS = ("same", "changed", "dropped")
MODEL_ENV = "AEM_VERIFIER_MODEL"
MODEL_DIR = Path(__file__).resolve().parent / "model"
ONNX_FILE = "verifier-int8.onnx"
TOKENIZER_FILE = "tokenizer.json"
CARD_FILE = "verifier.json"
# One pair per run: the int8 graph quantises activations per tensor, so a pair's probabilities would depend on
# the other pairs of its batch (and their padding); scored alone, a pair gets the same answer in `aem score`, in
# `aem run` and after a restart. Throughput comes from running several single-pair runs at once, each on one
# core, instead of one run spread over the cores (a 40-token run is too small to share well).


class VerifierUnavailable(RuntimeError):
    """The verifier's model files are missing, corrupt or cannot run here."""


@dataclass(frozen=True)
class Probabilities:
    """What the verifier says of (premise, hypothesis): the hypothesis says the same, changes or contradicts a
    fact of the premise (or adds one it does not support), or leaves one out."""

    same: float
    changed: float
    dropped: float

    @property
    def label(self) -> str:
        values = (self.same, self.changed, self.dropped)
        return LABELS[values.index(max(values))]

    @property
    def supported(self) -> float:
        """The hypothesis says nothing the premise does not (it may say less)."""
        return self.same + self.dropped

    def as_dict(self) -> dict[str, float]:
        return {"same": round(self.same, 4), "changed": round(self.changed, 4), "dropped": round(self.dropped, 4)}


class PairScorer(Protocol):
    """Scores (premise, hypothesis) pairs; one ``Probabilities`` per pair, in order."""

    model_id: str

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> list[Probabilities]: ...


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


class CachedScorer:
    """Pair cache around a function from one pair to its logits; uncached pairs of one call run `runs` at a time
    (each alone, so a pair's answer never depends on the others)."""

    model_id: str

    def __init__(self, model_id: str, cache_size: int, runs: int = 1) -> None:
        self.model_id = model_id
        self.cache: LruCache[tuple[str, str], Probabilities] = LruCache("verifier_pairs", cache_size)
        self._runs = max(1, runs)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def _logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        raise NotImplementedError

    def _score(self, pair: tuple[str, str]) -> Probabilities:
        row = _softmax(self._logits([pair]).astype(np.float64))[0]
        return Probabilities(float(row[0]), float(row[1]), float(row[2]))

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._runs, thread_name_prefix="verifier")
            return self._pool

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> list[Probabilities]:
        found = {pair: self.cache.get(pair) for pair in pairs}
        todo = [p for p, v in found.items() if v is None]
        scored = self._executor().map(self._score, todo) if self._runs > 1 and len(todo) > 1 else map(self._score, todo)
        for pair, probs in zip(todo, scored, strict=True):
            found[pair] = probs
            self.cache.put(pair, probs)
        return [found[pair] or self.cache.get(pair) or Probabilities(0.0, 1.0, 0.0) for pair in pairs]


class OnnxVerifier(CachedScorer):
    """The shipped int8 ONNX cross-encoder."""

    def __init__(self, session: Any, tokenizer: Any, model_id: str, cache_size: int = 50_000, runs: int = 1) -> None:
        super().__init__(model_id, cache_size, runs)
        self._session = session
        self._tokenizer = tokenizer
        self._inputs = {i.name for i in session.get_inputs()}

    @classmethod
    def load(cls, folder: Path | None = None, threads: int | None = None, cache_size: int = 50_000) -> OnnxVerifier:
        folder = folder or Path(os.environ.get(MODEL_ENV) or MODEL_DIR)
        card, sha = checked_card(folder)
        onnx_path = folder / ONNX_FILE
        import onnxruntime as ort
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        tokenizer.enable_truncation(max_length=int(card.get("max_length", 128)), strategy="longest_first")
        tokenizer.enable_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # one core per run; `runs` runs at once (a session is thread-safe)
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
        runs = threads or min(os.cpu_count() or 1, 4)
        log.info("verifier_loaded", model=str(onnx_path), model_id=card.get("model_id"), sha256=sha[:12], runs=runs)
        return cls(session, tokenizer, str(card.get("model_id", sha[:12])), cache_size, runs)

    def _logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        encoded = self._tokenizer.encode_batch(list(pairs))
        feed = {
            "input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64),
        }
        return np.asarray(self._session.run(["logits"], {k: v for k, v in feed.items() if k in self._inputs})[0])


def checked_card(folder: Path) -> tuple[dict[str, Any], str]:
    """The model card of ``folder`` and the ONNX file's sha256, which must be the card's; a clear error else.

    The digest is remembered per file state (path, size, modification time), so the start-up check and the
    load at the first reply read the 23 MB file once."""
    card_path, onnx_path = folder / CARD_FILE, folder / ONNX_FILE
    try:
        card = json.loads(card_path.read_text(encoding="utf-8"))
        stat = onnx_path.stat()
        sha = _file_sha256(str(onnx_path.resolve()), stat.st_size, stat.st_mtime_ns)
    except (OSError, ValueError) as exc:
        raise VerifierUnavailable(f"verifier model in {folder}: {exc}") from None
    if sha != card.get("sha256"):
        raise VerifierUnavailable(f"{onnx_path}: sha256 {sha[:12]}… differs from {card_path.name}; reinstall")
    return card, sha


@functools.lru_cache(maxsize=8)
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    return file_sha256(Path(path))


class LazyVerifier:
    """The verifier of a model folder, checked now (card and sha256: a bad file is a start-up error) and loaded
    at its first question, so a process that scores no reply never imports ONNX Runtime for it."""

    def __init__(self, folder: str | None = None) -> None:
        self._folder = folder
        path = Path(folder or os.environ.get(MODEL_ENV) or MODEL_DIR)
        if not ((path / "config.json").is_file() and not (path / ONNX_FILE).is_file()):
            card, sha = checked_card(path)
            self.model_id = str(card.get("model_id", sha[:12]))
        else:
            self.model_id = f"torch:{path.name}"

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> list[Probabilities]:
        return load_verifier(self._folder).probabilities(pairs) if pairs else []


class TorchVerifier(CachedScorer):
    """A trained checkpoint folder on torch (for training-time evaluation; the product runs ``OnnxVerifier``)."""

    def __init__(self, folder: Path, max_length: int = 128, cache_size: int = 50_000) -> None:
        super().__init__(f"torch:{folder.name}", cache_size)
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self._model = AutoModelForSequenceClassification.from_pretrained(str(folder)).eval()
        self._tokenizer = AutoTokenizer.from_pretrained(str(folder))
        self._max_length = max_length

    def _logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        import torch

        inputs = self._tokenizer(
            [a for a, _ in pairs], [b for _, b in pairs], padding=True, truncation="longest_first",
            max_length=self._max_length, return_tensors="pt",
        )
        with torch.no_grad():
            return self._model(**inputs).logits.numpy()


_loaded: dict[str, PairScorer] = {}
_loaded_lock = threading.Lock()


def load_verifier(folder: str | None = None) -> PairScorer:
    """The verifier of ``folder`` (an ONNX model folder; a training checkpoint when it has ``config.json`` and no
    ONNX file), else of ``AEM_VERIFIER_MODEL``, else the shipped one; loaded once per process."""
    key = folder or os.environ.get(MODEL_ENV) or str(MODEL_DIR)
    with _loaded_lock:
        if key not in _loaded:
            path = Path(key)
            if (path / "config.json").is_file() and not (path / ONNX_FILE).is_file():
                _loaded[key] = TorchVerifier(path)
            else:
                _loaded[key] = OnnxVerifier.load(path)
        return _loaded[key]
