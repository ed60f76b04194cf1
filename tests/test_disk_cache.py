"""Derived tables kept on disk: built once, read back while the key holds, rebuilt when it changes or is corrupt."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from monitor import disk_cache


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(disk_cache.CACHE_DIR_ENV, str(folder))
    return folder


class Table:
    """A table derived from one source file (its lines, counted), counting how often it is built."""

    def __init__(self, source: Path, version: int = 1) -> None:
        self.source = source
        self.version = version
        self.builds = 0

    def build(self) -> dict[str, int]:
        self.builds += 1
        lines = self.source.read_text().split()
        return {line: lines.count(line) for line in lines}

    def get(self) -> dict[str, int]:
        return disk_cache.cached_table(
            "lines", version=self.version, sources=[self.source], build=self.build, encode=dict, decode=dict,
        )


@pytest.fixture
def table(tmp_path: Path) -> Table:
    source = tmp_path / "source.txt"
    source.write_text("a\nb\na\n")
    return Table(source)


def _files(cache: Path) -> list[Path]:
    return sorted((cache / "tables").glob("lines-*.json"))


def test_the_second_start_reads_the_table_the_first_built(cache: Path, table: Table) -> None:
    before = disk_cache.LOADS["lines", "cached"]
    first = table.get()
    again = Table(table.source).get  # another process: nothing held in memory
    second = again()
    assert first == second == {"a": 2, "b": 1}
    assert table.builds == 1
    assert disk_cache.LOADS["lines", "cached"] == before + 1
    assert len(_files(cache)) == 1 and not list((cache / "tables").glob(".*.tmp"))  # renamed into place


def test_a_changed_source_or_version_is_another_key_and_rebuilt(cache: Path, table: Table) -> None:
    assert table.get() == {"a": 2, "b": 1}
    table.source.write_text("a\nc\n")
    assert table.get() == {"a": 1, "c": 1}
    table.version = 2
    assert table.get() == {"a": 1, "c": 1}
    assert table.builds == 3
    assert len(_files(cache)) == 3  # each key its own file: two checkouts side by side do not undo each other
    assert table.get() == {"a": 1, "c": 1} and table.builds == 3


def test_files_under_old_keys_are_deleted_once_a_month_unwritten(cache: Path, table: Table) -> None:
    table.get()
    [old] = _files(cache)
    table.source.write_text("a\nc\n")
    table.get()  # another key; the old file was written just now: kept (another installation may still read it)
    assert old in _files(cache) and len(_files(cache)) == 2
    month_ago = old.stat().st_mtime - disk_cache.STALE_AFTER_S - 60
    os.utime(old, (month_ago, month_ago))
    table.version = 2
    table.get()  # the next build prunes it; the other recent key stays
    assert old not in _files(cache) and len(_files(cache)) == 2


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],  # cut short
        lambda text: "",
        lambda text: "\x00\xff garbage",
        lambda text: json.dumps({"key": "another", "table": {}}),  # another key's content under this name
        lambda text: json.dumps([1, 2]),
    ],
    ids=["truncated", "empty", "garbage", "wrong-key", "wrong-shape"],
)
def test_a_corrupt_file_is_rebuilt_with_a_warning(cache: Path, table: Table, damage: Any) -> None:
    table.get()
    (path,) = _files(cache)
    path.write_text(damage(path.read_text()))
    with capture_logs() as logs:
        assert table.get() == {"a": 2, "b": 1}
    warnings = [e for e in logs if e["event"] == "derived_table_unreadable"]
    assert len(warnings) == 1 and warnings[0]["log_level"] == "warning" and warnings[0]["table"] == "lines"
    assert table.builds == 2
    assert json.loads(path.read_text())["table"] == {"a": 2, "b": 1}  # written anew
    Table(table.source).get()
    assert table.builds == 2


def test_a_decode_that_fails_is_a_corrupt_file(cache: Path, table: Table) -> None:
    table.get()

    def refuse(data: Any) -> dict[str, int]:
        raise KeyError("rows")

    with capture_logs() as logs:
        value = disk_cache.cached_table("lines", version=1, sources=[table.source], build=table.build, encode=dict,
                                        decode=refuse)
    assert value == {"a": 2, "b": 1}
    assert [e["event"] for e in logs if e["log_level"] == "warning"] == ["derived_table_unreadable"]


def test_a_cache_folder_that_cannot_be_written_leaves_the_table_in_memory(
        tmp_path: Path, table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv(disk_cache.CACHE_DIR_ENV, str(blocker))
    with capture_logs() as logs:
        assert table.get() == {"a": 2, "b": 1}
    assert [e["event"] for e in logs if e["log_level"] == "warning"] == ["derived_table_not_saved"]


def test_the_cache_folder_is_the_users_unless_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(disk_cache.CACHE_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert disk_cache.cache_dir() == tmp_path / "aem-monitor"
    monkeypatch.setenv(disk_cache.CACHE_DIR_ENV, str(tmp_path / "elsewhere"))
    assert disk_cache.cache_dir() == tmp_path / "elsewhere"
    assert disk_cache.table_path("wordnet", "k1").parent == tmp_path / "elsewhere" / "tables"
