"""The city gazetteer's table: derived once, kept in the cache folder, read back with the same answers."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from monitor import disk_cache
from monitor.equivalence.reference_data import gazetteer

NAMES = ("CDMX", "Ciudad de Mexico", "NOLA", "New York City", "Manhattan", "Paris", "Springfield", "Mexico", "xyzzy")


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[], gazetteer.Table]:
    """A new process's gazetteer over a cache folder of the test's own: ``fresh()`` forgets what was loaded,
    loads it again and gives the table it holds."""
    monkeypatch.setenv("AEM_CACHE_DIR", str(tmp_path / "cache"))

    def start() -> gazetteer.Table:
        monkeypatch.setattr(gazetteer, "_INDEX", None)
        monkeypatch.setattr(gazetteer, "_ALTERNATES", {})
        gazetteer.lookup("Paris")
        assert gazetteer._INDEX is not None
        return gazetteer._INDEX, gazetteer._ALTERNATES

    return start


def _answers() -> list[object]:
    found = [gazetteer.lookup(name) for name in NAMES]
    return found + [gazetteer.alternate_names(city) for city in found if city is not None]


def test_the_second_start_reads_the_table_with_the_same_answers(fresh: Callable[[], gazetteer.Table]) -> None:
    built, cached = disk_cache.LOADS["gazetteer", "built"], disk_cache.LOADS["gazetteer", "cached"]
    first = fresh()
    answers = _answers()
    second = fresh()
    assert (disk_cache.LOADS["gazetteer", "built"], disk_cache.LOADS["gazetteer", "cached"]) == (built + 1, cached + 1)
    assert second[0] == first[0] and second[1] == first[1]  # every name, every city's alternate names
    assert _answers() == answers
    assert answers[0] == answers[1] and answers[0] is not None and answers[0].name == "mexico city"
    assert "nola" in gazetteer.alternate_names(gazetteer.lookup("New Orleans"))  # type: ignore[arg-type]


def test_a_corrupt_table_is_rebuilt_with_a_warning(fresh: Callable[[], gazetteer.Table], tmp_path: Path) -> None:
    first = fresh()
    (path,) = (tmp_path / "cache" / "tables").glob("gazetteer-*.json")
    shutil.copy(path, tmp_path / "good.json")
    path.write_text('{"key": "' + path.stem.split("-", 1)[1] + '", "table": {"cities": [["x"]]}}')
    with capture_logs() as logs:
        again = fresh()
    assert [e["event"] for e in logs if e["log_level"] == "warning"] == ["derived_table_unreadable"]
    assert again == first
    assert path.read_bytes() == (tmp_path / "good.json").read_bytes()  # written anew, the same
