"""CPU that `aem run` spends on response turns outside the encoder.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/response_overhead.py [--data DIR] --cache FILE [--turns 1000]

The turns of `stream_throughput.py`'s response section (gold from a fixed set of 200 replies, then all
unique) are scored by `aem run`'s Monitor on the embedded broker, with an encoder that only looks vectors
up in ``--cache`` (a pickle of text -> fp32 vector, filled first by scoring the same turns with the real
encoder): what is left of this process's CPU time is the stream, the reply analysis and the Kafka clients'
threads. Each case runs in a fresh process, so no module cache is warm. On a shared machine this is steadier
than a ratio to the encoder; it says nothing of the encoder's own cost.
"""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np
from encoder import reply_texts, turns
from score_throughput import response_dialogs

from monitor.embeddings import EmbeddingScorer
from monitor.embeddings.encoders import EncoderKind, TextEncoder, load_encoder
from monitor.logs import configure_logging
from monitor.models.dialog import Reply
from monitor.scoring import ScoringConfig
from monitor.wiring import build_engine

DATA_DIR = Path(__file__).resolve().parent / "data"  # the evaluation data shipped with the repo

CASES = ("fixed", "unique")


class DiskCachedEncoder:
    """The fp32 encoder behind a pickle of text -> vector, loaded lazily."""

    kind = EncoderKind.FP32

    def __init__(self, path: Path) -> None:
        self.path = path
        self.vectors: dict[str, np.ndarray] = pickle.loads(path.read_bytes()) if path.is_file() else {}
        self._inner: TextEncoder | None = None
        self.added = 0

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            if self._inner is None:
                self._inner = load_encoder(EncoderKind.FP32, None, "cpu")
            for t, v in zip(missing, self._inner.encode(missing, batch_size=batch_size), strict=True):
                self.vectors[t] = v
            self.added += len(missing)
        return np.vstack([self.vectors[t] for t in texts])

    def save(self) -> None:
        if self.added:
            self.path.write_bytes(pickle.dumps(self.vectors))


class LookupEncoder:
    """Vectors from the cache only: a text missing from it is an error, not an encode."""

    kind = EncoderKind.FP32

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        return np.vstack([self.vectors[t] for t in texts])


def case_pairs(data: Path, n: int, case: str) -> list[tuple[str, str]]:
    return turns(reply_texts(data), n, fixed=case == "fixed")


def fill(data: Path, n: int, cache: Path) -> None:
    """Score every case once with the real encoder behind the disk cache, so the runs find every vector."""
    encoder = DiskCachedEncoder(cache)
    for case in CASES:
        engine = build_engine(ScoringConfig(), semantic=EmbeddingScorer(encoder=encoder))
        pairs = [(Reply(response=g), Reply(response=p)) for g, p in case_pairs(data, n, case)]
        for start in range(0, len(pairs), 500):
            engine.decide(pairs[start : start + 500])
            for gold, pred in pairs[start : start + 500]:
                engine.checker.check(gold, pred)
    if encoder.added:
        encoder.save()


def run_case(data: Path, n: int, cache: Path, case: str) -> None:
    from stream_throughput import monitor_for, published, timed_monitor_until

    from monitor.tools.broker import TansuBroker

    vectors = pickle.loads(cache.read_bytes())
    with TansuBroker() as broker:
        names, count = published(broker.bootstrap, response_dialogs(case_pairs(data, n, case)))
        engine = build_engine(ScoringConfig(), semantic=EmbeddingScorer(encoder=LookupEncoder(vectors)))
        wall, cpu = timed_monitor_until(monitor_for(broker.bootstrap, names, engine), count)
    per_1000 = 1000 * cpu / count
    print(f"{case:<7} {count} turns: {per_1000:6.2f} CPU-s outside the encoder per 1000 turns ({wall:.1f} s wall)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA_DIR, help="the evaluation data (default: benchmarks/data)")
    ap.add_argument("--cache", type=Path, required=True, help="pickle of sentence embeddings (filled if needed)")
    ap.add_argument("--turns", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--case", choices=CASES, help=argparse.SUPPRESS)  # one timed run (the child process)
    args = ap.parse_args()
    configure_logging("error")
    if args.case:
        run_case(args.data, args.turns, args.cache, args.case)
        return
    fill(args.data, args.turns, args.cache)
    for _ in range(args.repeat):
        for case in CASES:
            cmd = [sys.executable, __file__, "--data", str(args.data), "--cache", str(args.cache)]
            subprocess.run([*cmd, "--turns", str(args.turns), "--case", case], check=True)


if __name__ == "__main__":
    main()
