"""A small reader of the Princeton WordNet 3.0 database files (Debian's ``wordnet-base``).

What it answers: the direct antonyms of an adjective or verb (``antonyms``: "open" / "closed", read from
``data.adj`` / ``data.verb``), the verb base forms of a word (``verb_bases``), and whether a word's commonest
noun sense is a proper noun (``is_name``: "China").

The files read (format: wndb(5WN), morphy(7WN)): ``index.noun`` (lemma -> synset offsets), ``data.noun``
(synsets, read by byte offset on demand), ``data.adj`` / ``data.verb``, ``index.*`` and
``noun.exc`` / ``verb.exc`` (irregular forms). The directory is ``AEM_WORDNET_DIR`` or ``/usr/share/wordnet``; loaded
once, lazily, on the first question (about 9 MB: the sorted files are kept as bytes and searched by bisection).
Without it every answer is None (unknown) and one warning ``wordnet_missing`` is logged.
"""

from __future__ import annotations

import os
import re
from array import array
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import structlog

log = structlog.get_logger(__name__)

DEFAULT_DIR = "/usr/share/wordnet"
_FILES = ("index.noun", "index.verb", "index.adj", "index.adv", "data.noun", "data.verb", "data.adj", "noun.exc",
          "verb.exc")
# morphy(7WN): suffix detachment rules for nouns and verbs.
_NOUN_RULES = (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
               ("men", "man"), ("ies", "y"))
_VERB_RULES = (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"),
               ("ing", ""))


class _Sorted:
    """A WordNet file sorted by its first field (every index file), kept as bytes and searched
    by bisection, as the WordNet library does: no per-line objects (a dict of index.noun would take ~60 MB)."""

    def __init__(self, path: Path) -> None:
        self.data = path.read_bytes()
        starts = [0, *(m.end() for m in re.finditer(b"\n", self.data))]
        self.starts = array("I", (i for i in starts if i < len(self.data) and self.data[i : i + 1] not in b" \n"))

    def _line(self, n: int) -> bytes:
        start = self.starts[n]
        end = self.data.find(b"\n", start)
        return self.data[start : end if end >= 0 else len(self.data)]

    def prefixed(self, prefix: str) -> list[str]:
        """The lines that start with ``prefix``."""
        key = prefix.encode("latin-1")
        n = bisect_left(range(len(self.starts)), key, key=lambda i: self._line(i)[: len(key)])
        out = []
        while n < len(self.starts) and (line := self._line(n)).startswith(key):
            out.append(line.decode("latin-1"))
            n += 1
        return out

    def __getitem__(self, lemma: str) -> str:
        found = self.prefixed(lemma + " ")
        if not found:
            raise KeyError(lemma)
        return found[0]

    def __contains__(self, lemma: object) -> bool:
        return isinstance(lemma, str) and bool(self.prefixed(lemma + " "))


@dataclass(frozen=True)
class _Db:
    directory: Path
    noun_index: _Sorted  # lemma -> its index.noun line (parsed on use)
    exceptions: dict[str, dict[str, tuple[str, ...]]]  # pos -> inflected form -> base forms
    lemmas: dict[str, _Sorted]  # pos -> the index file of that part of speech (which lemmas it lists)


def wordnet_dir() -> Path:
    return Path(os.environ.get("AEM_WORDNET_DIR") or DEFAULT_DIR)


def available() -> bool:
    """Whether the WordNet files are there (loads them on first call)."""
    return _database() is not None


def _database() -> _Db | None:
    return _open(str(wordnet_dir()))


@lru_cache(maxsize=4)
def _open(directory: str) -> _Db | None:
    """The database in ``directory``, read once; None (and one warning) when a file is missing."""
    path = Path(directory)
    missing = [f for f in _FILES if not (path / f).is_file()]
    if missing:
        log.warning("wordnet_missing", directory=directory, missing=missing, effect="antonyms off")
        return None
    return _load(path)


def reset() -> None:
    """Forget the loaded database and every cached answer (after ``AEM_WORDNET_DIR`` changes)."""
    for cached in (_open, _synset, senses, antonyms, _lexical_antonyms):
        cached.cache_clear()


def _load(directory: Path) -> _Db:
    index = _Sorted(directory / "index.noun")
    others = {pos: _Sorted(directory / f"index.{name}") for pos, name in (("v", "verb"), ("a", "adj"), ("r", "adv"))}
    exceptions = {pos: _exceptions(directory / f"{name}.exc") for pos, name in (("n", "noun"), ("v", "verb"))}
    return _Db(directory, index, exceptions, {"n": index, **others})


def _offsets(line: str) -> tuple[int, ...]:
    """The synset offsets of an index line: lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt
    offset..."""
    f = line.split()
    n_synsets, n_pointers = int(f[2]), int(f[3])
    return tuple(int(x) for x in f[6 + n_pointers : 6 + n_pointers + n_synsets])


def _exceptions(path: Path) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        f = line.split()
        if len(f) >= 2:
            out[f[0]] = tuple(f[1:])
    return out


def _key(word: str) -> str:
    return re.sub(r"[\s-]+", "_", word.strip().lower())


def _bases(db: _Db, word: str, pos: str) -> tuple[str, ...]:
    """morphy: the base forms of ``word`` that WordNet lists for ``pos`` ("eyes" -> "eye", "men" -> "man")."""
    known = db.lemmas[pos]
    out = [b for b in db.exceptions[pos].get(word, ()) if b in known]
    if word in known:
        out.append(word)
    for suffix, ending in _NOUN_RULES if pos == "n" else _VERB_RULES:
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            base = word[: len(word) - len(suffix)] + ending
            if base in known:
                out.append(base)
    return tuple(dict.fromkeys(out))


def noun_bases(word: str) -> tuple[str, ...]:
    """WordNet noun lemmas of ``word`` (empty when WordNet is absent or has none)."""
    db = _database()
    if db is None:
        return ()
    key = _key(word)
    return _bases(db, key, "n") or _bases(db, key.replace("_", ""), "n")


def is_name(word: str) -> bool:
    """Is the commonest noun sense of ``word`` a proper noun in WordNet ("China"; not "cat", whose CAT scan
    comes later)? A capitalised word at the start of a sentence is then taken for a name."""
    first = senses(word)[:1]
    return any(w[:1].isupper() and w.lower() == _key(word) for o in first for w in _synset(o))


@lru_cache(maxsize=65536)
def _synset(offset: int) -> frozenset[str]:
    """The words (as written: names capitalised) of the noun synset at byte ``offset`` of data.noun."""
    db = _database()
    assert db is not None
    with (db.directory / "data.noun").open("rb") as fh:
        fh.seek(offset)
        f = fh.readline().decode("latin-1").split(" | ")[0].split()
    return frozenset(re.sub(r"\(.*\)$", "", f[4 + 2 * i]) for i in range(int(f[3], 16)))


@lru_cache(maxsize=16384)
def senses(word: str) -> tuple[int, ...]:
    """Noun synset offsets of every WordNet noun lemma of ``word``."""
    db = _database()
    if db is None:
        return ()
    return tuple(dict.fromkeys(o for b in noun_bases(word) for o in _offsets(db.noun_index[b])))


def verb_bases(word: str) -> tuple[str, ...]:
    """WordNet verb lemmas of ``word`` ("jumps" -> "jump", "stirred" -> "stir")."""
    db = _database()
    return () if db is None else _bases(db, _key(word), "v")


# Antonyms: adjectives and verbs whose commonest senses WordNet sets against each other ("open" / "closed",
# "open" / "close", "arrive" / "leave", "cheap" / "expensive"). Only direct (lexical) antonym pointers of the
# word itself; the looser "similar to" neighbours of an antonym are left out.
_ANTONYM_SENSES = 3
_DATA_FILE = {"a": "data.adj", "v": "data.verb"}


@lru_cache(maxsize=16384)
def antonyms(word: str, parts: str = "av") -> frozenset[str]:
    """Direct WordNet antonyms of ``word`` as an adjective (``a`` in ``parts``) or a verb (``v``, any
    inflection), in their commonest senses."""
    db = _database()
    if db is None:
        return frozenset()
    key = _key(word)
    out: set[str] = set()
    readings = {"a": (key,) if key in db.lemmas["a"] else (), "v": _bases(db, key, "v")}
    for pos, bases in readings.items():
        if pos not in parts:
            continue
        for base in bases:
            for offset in _offsets(db.lemmas[pos][base])[:_ANTONYM_SENSES]:
                out |= _lexical_antonyms(pos, offset, base)
    return frozenset(w.replace("_", " ") for w in out)


@lru_cache(maxsize=16384)
def _lexical_antonyms(pos: str, offset: int, lemma: str) -> frozenset[str]:
    """The antonyms that the synset at ``offset`` of data.adj / data.verb gives its word ``lemma``."""
    words, pointers = _pointers(pos, offset)
    own = [i + 1 for i, w in enumerate(words) if w.lower() == lemma]
    out = set()
    for symbol, target, target_pos, source_target in pointers:
        source, goal = int(source_target[:2], 16), int(source_target[2:], 16)
        if symbol == "!" and source in own and goal > 0 and target_pos in _DATA_FILE:
            out.add(_pointers(target_pos, target)[0][goal - 1].lower())
    return frozenset(out)


def _pointers(pos: str, offset: int) -> tuple[list[str], list[tuple[str, int, str, str]]]:
    """The words and pointers (symbol, target offset, target pos, source/target word numbers) of a synset."""
    db = _database()
    assert db is not None
    with (db.directory / _DATA_FILE[pos]).open("rb") as fh:
        fh.seek(offset)
        f = fh.readline().decode("latin-1").split(" | ")[0].split()
    n_words = int(f[3], 16)
    words = [re.sub(r"\(.*\)$", "", f[4 + 2 * i]) for i in range(n_words)]
    at = 4 + 2 * n_words
    ptrs = [f[at + 1 + 4 * i : at + 5 + 4 * i] for i in range(int(f[at]))]
    return words, [(p[0], int(p[1]), "a" if p[2] in ("a", "s") else p[2], p[3]) for p in ptrs]
