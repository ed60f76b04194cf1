"""WordNet 3.0 (Debian's ``wordnet-base`` files) read by nltk's ``WordNetCorpusReader``.

What the comparators ask: the direct antonyms of an adjective (``antonyms``: "open" / "closed") and the verb base
form of a word (``verb_base``: "arriving" -> "arrive", nltk's morphy). ``reader`` gives the nltk reader itself
(the training pair builders read noun senses through it).

The directory is ``AEM_WORDNET_DIR`` or ``/usr/share/wordnet``. nltk and the database are loaded lazily, once, on
the first question (a few seconds and some 95 MB, docs/design/wordnet-nltk.md): a run whose values never reach the
opposites stage never loads them; ``aem run`` asks at start-up (``monitor/scoring/warmup.py``). Without the files
every answer is empty (unknown) and one warning ``wordnet_missing`` is logged.
"""

from __future__ import annotations

import io
import os
import re
import threading
import warnings
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

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
    """Whether the WordNet files are there (loads them on first call)."""
    return reader() is not None


@lru_cache(maxsize=4)
def _open(directory: str) -> WordNetCorpusReader | None:
    path = Path(directory)
    missing = [f for f in _FILES if not (path / f).is_file()]
    if missing:
        log.warning("wordnet_missing", directory=directory, missing=missing, effect="antonyms off")
        return None
    return _load(path)


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


def reset() -> None:
    """Forget the loaded database and every cached answer (after ``AEM_WORDNET_DIR`` changes)."""
    for cached in (_open, antonyms, verb_base):
        cached.cache_clear()


def _key(word: str) -> str:
    return re.sub(r"[\s-]+", "_", word.strip().lower())


@lru_cache(maxsize=16384)
def antonyms(word: str) -> frozenset[str]:
    """The direct WordNet antonyms of ``word`` as an adjective, in its commonest senses ("open" -> "closed",
    "shut"); empty when WordNet is absent or lists none. The word is looked up as written (no inflection)."""
    wn = reader()
    if wn is None:
        return frozenset()
    key = _key(word)
    with _LOCK:
        own = [s for s in dict.fromkeys(wn.synsets(key, "a")) if any(n.lower() == key for n in s.lemma_names())]
        found = {a.name().lower() for s in own[:_ANTONYM_SENSES] for lemma in s.lemmas() if lemma.name().lower() == key
                 for a in lemma.antonyms()}
    return frozenset(w.replace("_", " ") for w in found)


@lru_cache(maxsize=16384)
def verb_base(word: str) -> str | None:
    """The verb base form WordNet lists for ``word`` ("arriving" -> "arrive", "left" -> "leave"); None when it
    lists none or WordNet is absent."""
    wn = reader()
    if wn is None:
        return None
    with _LOCK:
        base: str | None = wn.morphy(_key(word), "v")
    return base
