"""Fixtures of the equivalence tests: one real embedding model for the whole session (offline)."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def scorer(embedding_scorer):
    """The session's EmbeddingScorer (all-MiniLM-L6-v2), shared with the rest of the suite."""
    return embedding_scorer


@pytest.fixture(scope="session")
def values(scorer):
    from monitor.equivalence import ValueComparator

    return ValueComparator(semantic=scorer)


@pytest.fixture(scope="session")
def replies(scorer, values):
    """The reply comparator the engine uses by default (the trained verifier with typed-value evidence)."""
    from monitor.scoring import ScoringConfig
    from monitor.wiring import reply_comparator

    return reply_comparator(ScoringConfig(), values, scorer, None)


@pytest.fixture(scope="session")
def typed_values():
    from monitor.equivalence import ValueComparator

    return ValueComparator(semantic=None)
