"""WordNet 3.0 (Debian's ``wordnet-base`` files): the comparators' questions answered from a derived table,
nltk's ``WordNetCorpusReader`` for the rest.

What the comparators ask: the direct antonyms of an adjective (``antonyms``: "open" / "closed") and the verb base
form of a word (``verb_base``: "arriving" -> "arrive", nltk's morphy). Both are answered from a table derived once
from the database through nltk's reader (every adjective's antonyms; the verb lemmas, the verb exception list and
morphy's verb suffix rules) and kept in the cache folder (``monitor/disk_cache.py``), keyed by the sha256 of the
files it is derived from and of this module, the table's version and nltk's: a process that finds the table
loads it in some 15 ms and imports no nltk; building it (the first start, or a changed key) loads the database,
a few seconds (docs/design/wordnet-nltk.md). ``reader`` gives the nltk reader itself (the training pair builders
read noun senses through it).

The directory is ``AEM_WORDNET_DIR`` or ``/usr/share/wordnet``. The table is loaded lazily, once, on the first
question: a run whose values never reach the opposites stage never loads it; ``aem run`` asks at start-up
(``monitor/scoring/warmup.py``). Without the files every answer is empty (unknown) and one warning
``wordnet_missing`` is logged.
"""

from __future__ import annotations

import io
import os
import re
import threading
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from monitor.disk_cache import cached_table

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

log = structlog.get_logger(__name__)

DEFAULT_DIR = "/usr/share/wordnet"
# What nltk's reader opens on load (the data files are read by offset on demand).
_FILES = ("index.noun", "index.verb", "index.adj", "index.adv", "data.noun", "data.verb", "data.adj", "data.adv",
          "noun.exc", "verb.exc", "adj.exc", "adv.exc")
# lexnames(5WN): the lexicographer files, by number. nltk reads them from a ``lexnames`` file that the WordNet
# distribution ships and Debian's wordnet-base does not.
_LEXNAMES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body noun.cognition "
    "noun.communication noun.event noun.feeling noun.food noun.group noun.location noun.motive noun.object "
    "noun.person noun.phenomenon noun.plant noun.possession noun.process noun.quantity noun.relation noun.shape "
    "noun.state noun.substance noun.time verb.body verb.change verb.cognition verb.communication verb.competition "
    "verb.consumption verb.contact verb.creation verb.emotion verb.motion verb.perception verb.possession "
    "verb.social verb.stative verb.weather adj.ppl"
)
_SYNTACTIC_CATEGORY = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}
# The files nltk's reader reads from start to end on load (the lemma index, the exception lists).
_READ_THROUGH = frozenset(_FILES) - {"data.noun", "data.verb", "data.adj", "data.adv"}
# Antonyms of an adjective's commonest senses only: rarer senses set it against words a paraphrase may use.
_ANTONYM_SENSES = 3

# nltk's reader keeps one open handle per data file (seek, then read): questions are asked one at a time.
_LOCK = threading.RLock()


def wordnet_dir() -> Path:
    return Path(os.environ.get("AEM_WORDNET_DIR") or DEFAULT_DIR)


def reader() -> WordNetCorpusReader | None:
    """nltk's reader over the WordNet files (loaded on the first call); None, with one warning, when absent."""
    with _LOCK:  # one load, whichever thread asks first
        return _open(str(wordnet_dir()))


def available() -> bool:
    """Whether the WordNet files are there (nothing is loaded)."""
    return not _missing(wordnet_dir())


@dataclass(frozen=True)
class Table:
    """What the comparators ask of WordNet, derived from the database once: ``antonyms`` of every word that
    names an adjective sense (only words that have some), and what nltk's verb morphy reads: the verb lemmas,
    the verb exception list and the verb suffix rules."""

    antonyms: dict[str, frozenset[str]]
    verbs: frozenset[str]
    verb_exceptions: dict[str, tuple[str, ...]]
    verb_suffixes: tuple[tuple[str, str], ...]


# Raise when what the table holds changes shape (an edit of this module is a new key already).
TABLE_VERSION = 1
# The files the table is derived from (its cache key); the reader opens the others too, so all must be there.
_TABLE_SOURCES = ("index.adj", "data.adj", "adj.exc", "index.verb", "verb.exc")


def table() -> Table | None:
    """The comparators' table (read from the cache, else derived and cached, on the first call); None, with one
    warning, when the WordNet files are absent."""
    with _LOCK:
        return _table(str(wordnet_dir()))


def _table_sources(directory: Path) -> list[Path]:
    """What the table is derived from: the database files it reads and this module (the deriving code)."""
    return [*(directory / f for f in _TABLE_SOURCES), Path(__file__)]


def _missing(path: Path) -> list[str]:
    return [f for f in _FILES if not (path / f).is_file()]


def _present(directory: str) -> Path | None:
    """The database folder, or None with one warning when files are missing."""
    path = Path(directory)
    missing = _missing(path)
    if missing:
        _warn_missing(directory, tuple(missing))
        return None
    return path


@lru_cache(maxsize=4)
def _table(directory: str) -> Table | None:
    path = _present(directory)
    if path is None:
        return None
    return cached_table(
        "wordnet", version=TABLE_VERSION, sources=_table_sources(path), packages=("nltk",),
        build=lambda: derive_table(_reader_at(directory)), encode=_encode, decode=_decode,
    )


@lru_cache(maxsize=4)
def _warn_missing(directory: str, missing: tuple[str, ...]) -> None:
    """One warning per directory, whether the table or the reader asked first."""
    log.warning("wordnet_missing", directory=directory, missing=list(missing), effect="antonyms off")


def _reader_at(directory: str) -> WordNetCorpusReader:
    wn = _open(directory)  # the process's reader: held, as ``reader`` holds it, once a table was derived
    assert wn is not None  # the files were there a moment ago
    return wn


@lru_cache(maxsize=4)
def _open(directory: str) -> WordNetCorpusReader | None:
    path = _present(directory)
    return None if path is None else _load(path)


def derive_table(wn: WordNetCorpusReader) -> Table:
    """The table from nltk's reader: each adjective word's antonyms as ``reader_antonyms`` gives them."""
    from nltk.corpus.reader.wordnet import VERB, WordNetCorpusReader

    lemmas = wn._lemma_pos_offset_map
    # ``reader_antonyms`` of a word is not empty only when an adjective sense lists the word (lower-cased) as a
    # lemma that has antonyms (the senses of ``synsets(word, "a")`` are all adjective senses): those words are
    # asked, and every other word's antonyms are empty
    words = {lemma.name().lower() for synset in wn.all_synsets("a") for lemma in synset.lemmas() if lemma.antonyms()}
    antonyms = {w: found for w in sorted(words) if (found := reader_antonyms(wn, w))}
    return Table(
        antonyms=antonyms,
        verbs=frozenset(w for w, by_pos in lemmas.items() if VERB in by_pos),
        verb_exceptions={form: tuple(bases) for form, bases in wn._exception_map[VERB].items()},
        verb_suffixes=tuple((old, new) for old, new in WordNetCorpusReader.MORPHOLOGICAL_SUBSTITUTIONS[VERB]),
    )


def _encode(t: Table) -> dict[str, Any]:
    return {
        "antonyms": {w: sorted(a) for w, a in t.antonyms.items()},
        "verbs": sorted(t.verbs),
        "verb_exceptions": t.verb_exceptions,
        "verb_suffixes": t.verb_suffixes,
    }


def _decode(data: dict[str, Any]) -> Table:
    return Table(
        antonyms={w: frozenset(a) for w, a in data["antonyms"].items()},
        verbs=frozenset(data["verbs"]),
        verb_exceptions={form: tuple(bases) for form, bases in data["verb_exceptions"].items()},
        verb_suffixes=tuple((old, new) for old, new in data["verb_suffixes"]),
    )


def _load(directory: Path) -> WordNetCorpusReader:
    import nltk.data
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class _DebianWordNet(WordNetCorpusReader):
        """The reader over the bare WordNet 3.0 database: the lexicographer file names given here, and no
        mapping to another WordNet version (the multilingual data is not read)."""

        def open(self, fileid: str) -> Any:
            if fileid == "lexnames":
                names = enumerate(_LEXNAMES.split())
                return io.StringIO("".join(f"{i:02d}\t{n}\t{_SYNTACTIC_CATEGORY[n.split('.')[0]]}\n" for i, n in names))
            if fileid in _READ_THROUGH:
                # read once, line by line, on load: a plain file (nltk's seekable reader costs about 0.5 s of
                # CPU more over the 147,000 index lines); the data files, read by offset, stay nltk's
                return open(directory / fileid, encoding="utf-8")  # nltk reads it in a `with` block
            return super().open(fileid)

        def map_wn(self, version: str = "wordnet") -> None:
            return None

    if str(directory) not in nltk.data.path:
        nltk.data.path.append(str(directory))  # nltk reads only the directories it is told are data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "The multilingual functions are not available": none are used
        return _DebianWordNet(str(directory), None)


def reset(keep_reader: bool = False) -> None:
    """Forget the loaded table, the loaded database (unless ``keep_reader``) and every cached answer (after
    ``AEM_WORDNET_DIR`` or ``AEM_CACHE_DIR`` changes)."""
    for cached in (_table, _warn_missing, antonyms, verb_base):
        cached.cache_clear()
    if not keep_reader:
        _open.cache_clear()


def _key(word: str) -> str:
    return re.sub(r"[\s-]+", "_", word.strip().lower())


@lru_cache(maxsize=16384)
def antonyms(word: str) -> frozenset[str]:
    """The direct WordNet antonyms of ``word`` as an adjective, in its commonest senses ("open" -> "closed",
    "shut"); empty when WordNet is absent or lists none. The word is looked up as written (no inflection)."""
    t = table()
    if t is None:
        return frozenset()
    return t.antonyms.get(_key(word), frozenset())


def reader_antonyms(wn: WordNetCorpusReader, key: str) -> frozenset[str]:
    """``antonyms`` of a looked-up ``key`` asked of nltk's reader (what the table holds)."""
    with _LOCK:
        own = [s for s in dict.fromkeys(wn.synsets(key, "a")) if any(n.lower() == key for n in s.lemma_names())]
        found = {a.name().lower() for s in own[:_ANTONYM_SENSES] for lemma in s.lemmas() if lemma.name().lower() == key
                 for a in lemma.antonyms()}
    return frozenset(w.replace("_", " ") for w in found)


@lru_cache(maxsize=16384)
def verb_base(word: str) -> str | None:
    """The verb base form WordNet lists for ``word`` ("arriving" -> "arrive", "left" -> "leave"); None when it
    lists none or WordNet is absent. nltk's ``morphy(word, "v")`` over the table: the word itself if it is a
    verb, else the first verb among its listed exceptional bases, else among its forms by the suffix rules."""
    t = table()
    if t is None:
        return None
    form = _key(word)
    if form in t.verb_exceptions:
        forms = t.verb_exceptions[form]
    else:
        forms = tuple(form[: -len(old)] + new for old, new in t.verb_suffixes if form.endswith(old))
    return next((f for f in (form, *forms) if f in t.verbs), None)
