"""E-mail addresses and URLs are identifiers: equal after normalisation, otherwise different."""

from __future__ import annotations

import pytest

from tests.equivalence.both_ways import assert_different_both_ways, assert_equal_both_ways

EQUIVALENT = [
    ("Bob@Example.com", "bob@example.com"),
    ("mailto:bob@example.com", "bob@example.com"),
    ("https://www.example.com/", "http://example.com"),
    ("https://github.com/org/repo.git", "https://github.com/org/repo"),
    ("git@github.com:org/repo.git", "https://github.com/org/repo.git"),  # one repo, two remotes
    ("ssh://git@github.com/org/repo.git", "https://github.com/org/repo"),
]
DIFFERENT = [
    ("bob@example.com", "alice@example.com"),
    ("bob@example.com", "bob@example.org"),
    ("https://github.com/org/repo", "https://github.com/org/other"),
    ("git@github.com:org/repo.git", "https://gitlab.com/org/repo.git"),
    ("https://example.com/a?x=1", "https://example.com/a?x=2"),
]


@pytest.mark.parametrize(("a", "b"), EQUIVALENT)
def test_equivalent_both_directions(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b)


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_different_both_directions(values, a, b):
    assert_different_both_ways(values, a, b, method=("email", "url"))  # decided by type
