"""WordNet through nltk's reader over Debian's files: loaded on the first question, absent -> one warning."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest
from structlog.testing import capture_logs

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


@needs_wordnet
def test_nltk_is_loaded_by_the_first_question_not_by_the_import() -> None:
    code = textwrap.dedent(
        """
        import sys
        import monitor.wiring
        from monitor.equivalence.reference_data import wordnet
        before = "nltk" in sys.modules
        wordnet.antonyms("open")
        print(before, "nltk" in sys.modules)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.split() == ["False", "True"]
