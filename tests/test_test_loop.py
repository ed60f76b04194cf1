"""The test loop itself: the ONNX export outlives a test session, and CI runs the README's test command."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import REPO


def test_the_onnx_export_is_kept_across_sessions_in_pytests_cache(request: pytest.FixtureRequest, export_cache: Path):
    cache = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    if cache is None or os.environ.get("AEM_CACHE_DIR") != str(export_cache):
        pytest.skip("the cache plugin is off or AEM_CACHE_DIR was given")
    assert export_cache == cache.mkdir("aem-exports")  # not a per-session temporary folder
    assert list(export_cache.glob("model-fp32-*.onnx")), "the session's export is in the cache folder"


def test_ci_runs_the_readme_test_command():
    readme = (REPO / "README.md").read_text()
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    assert "```bash\n.venv/bin/pytest\n```" in readme
    assert ".venv/bin/pytest" in [line.strip() for line in ci]
