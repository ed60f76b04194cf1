"""WordNet over Debian's files: the comparators' table derived through nltk's reader once and cached on disk
(answers identical to the reader's), loaded on the first question; absent -> one warning."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from monitor import disk_cache
from monitor.equivalence.reference_data import wordnet
from tests.conftest import REPO

needs_wordnet = pytest.mark.skipif(not wordnet.available(), reason="needs Debian's wordnet-base")


@pytest.fixture
def absent(tmp_path, monkeypatch) -> Iterator[None]:
    (tmp_path / "index.noun").write_text("")  # a partial copy is absent too
    monkeypatch.setenv("AEM_WORDNET_DIR", str(tmp_path))
    wordnet.reset()
    yield
    monkeypatch.delenv("AEM_WORDNET_DIR")
    wordnet.reset()


@needs_wordnet
def test_the_reader_is_nltks_over_the_debian_files() -> None:
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    assert isinstance(wordnet.reader(), WordNetCorpusReader)
    assert {"closed", "shut"} <= wordnet.antonyms("open")
    assert wordnet.antonyms("expensive") == {"cheap"}
    assert wordnet.antonyms("opened") == frozenset()  # looked up as written: a verb form is no adjective
    assert (wordnet.verb_base("arriving"), wordnet.verb_base("left"), wordnet.verb_base("stirred")) == (
        "arrive", "leave", "stir")
    assert wordnet.verb_base("xyzzy") is None


def test_absent_files_turn_antonyms_off_with_one_warning(absent: None) -> None:
    with capture_logs() as logs:
        assert wordnet.antonyms("open") == frozenset()
        assert wordnet.verb_base("arriving") is None
        assert not wordnet.available()
    warnings = [e for e in logs if e["event"] == "wordnet_missing"]
    assert len(warnings) == 1 and warnings[0]["log_level"] == "warning"
    assert "data.noun" in warnings[0]["missing"]


_START = textwrap.dedent(
    """
    import sys
    import monitor.wiring
    from monitor import disk_cache
    from monitor.equivalence.reference_data import wordnet
    before = "nltk" in sys.modules
    answers = sorted(wordnet.antonyms("open")), wordnet.verb_base("arriving")
    print(before, "nltk" in sys.modules, disk_cache.LOADS["wordnet", "built"], disk_cache.LOADS["wordnet", "cached"],
          answers)
    """
)


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cache folder of the test's own holding the table this session's cache holds (built here if absent)."""
    wordnet.table()
    own = tmp_path / "cache"
    (own / "tables").mkdir(parents=True)
    key = disk_cache.table_key(
        "wordnet", wordnet.TABLE_VERSION, wordnet._table_sources(wordnet.wordnet_dir()), ("nltk",)
    )  # this build's table only: tables of earlier builds stay in the shared folder
    current = disk_cache.table_path("wordnet", key)
    shutil.copy(current, own / "tables" / current.name)
    monkeypatch.setenv("AEM_CACHE_DIR", str(own))
    wordnet.reset(keep_reader=True)
    yield own
    monkeypatch.undo()
    wordnet.reset(keep_reader=True)


@needs_wordnet
def test_a_start_that_finds_the_table_answers_from_it_without_nltk(own_cache: Path) -> None:
    env = {**os.environ, "AEM_CACHE_DIR": str(own_cache)}
    out = subprocess.run([sys.executable, "-c", _START], capture_output=True, text=True, check=True, cwd=REPO, env=env)
    # nothing loaded by the import; the first question read the table (built 0 times, read once), no nltk
    answers = "(['closed', 'shut'], 'arrive')"
    assert out.stdout.strip().splitlines()[-1].split(" ", 4) == ["False", "False", "0", "1", answers]


@needs_wordnet
def test_the_tables_answers_are_the_readers() -> None:
    table, wn = wordnet.table(), wordnet.reader()
    assert table is not None and wn is not None
    words = sorted(wn._lemma_pos_offset_map)
    sample = random.Random(7).sample(words, 2000) + sorted(table.antonyms)[:: 5]
    forms = {f"{w}{end}" for w in sample + sorted(table.verbs)[:: 7] for end in ("", "s", "es", "ed", "d", "ing")}
    forms |= set(sorted(table.verb_exceptions)[:: 3]) | {"Open", "well-known", "non-refundable", "xyzzy", ""}
    assert [w for w in sample if wordnet.antonyms(w) != wordnet.reader_antonyms(wn, wordnet._key(w))] == []
    assert [f for f in forms if wordnet.verb_base(f) != wn.morphy(wordnet._key(f), "v")] == []
    assert len(table.antonyms) > 3000 and len(table.verbs) > 11000


@needs_wordnet
def test_a_corrupt_table_is_rebuilt_with_the_same_answers(own_cache: Path) -> None:
    answers = (wordnet.antonyms("expensive"), wordnet.verb_base("left"))
    (path,) = (own_cache / "tables").glob("wordnet-*.json")
    path.write_text(path.read_text()[:1000])
    wordnet.reset(keep_reader=True)
    built = disk_cache.LOADS["wordnet", "built"]
    with capture_logs() as logs:
        assert (wordnet.antonyms("expensive"), wordnet.verb_base("left")) == answers == ({"cheap"}, "leave")
    assert [e["event"] for e in logs if e["log_level"] == "warning"] == ["derived_table_unreadable"]
    assert disk_cache.LOADS["wordnet", "built"] == built + 1
    assert json.loads(path.read_text())["table"]["antonyms"]["expensive"] == ["cheap"]  # written anew


@needs_wordnet
def test_the_key_covers_the_database_files_the_version_and_nltk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    def key(directory: Path, version: int = wordnet.TABLE_VERSION) -> str:
        return disk_cache.table_key("wordnet", version, wordnet._table_sources(directory), ("nltk",))

    original = wordnet.wordnet_dir()
    copy = tmp_path / "wordnet"
    copy.mkdir()
    for f in wordnet._TABLE_SOURCES:
        shutil.copy(original / f, copy / f)
    assert key(copy) == key(original)
    with (copy / "verb.exc").open("a") as exc:
        exc.write("frobbed walk\n")
    assert len({key(original), key(copy), key(original, wordnet.TABLE_VERSION + 1)}) == 3
    before = key(original)
    monkeypatch.setattr(disk_cache, "package_version", lambda name: "0.0")  # another nltk
    assert key(original) != before
