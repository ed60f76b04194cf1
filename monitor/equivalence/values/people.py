"""People's names written with titles, credentials, initials, surname first or an organisation in front,
or with a nickname for the given name.

"Dr. Edward Lee", "Edward C Lee, MD", "Lee Edward" and "Bay Family Clinic: Lee Edward C MD" name one
person. A value reads as a person's name when it carries an honorific before the name ("Dr.", "Mrs.") or
a credential after it ("MD", "PhD"), from the short curated lists of ``data/people.json`` (nameparser's
lists were tried: they hold "uncle", "royal", "film", "am", "ing", which start or end restaurant and
movie names), and what is left is a few words. Two names are compared as sets of name words, without
honorifics, credentials and initials, in any order: equal sets, or one of at least two words inside the
other, are one person. Two marked names with other words are different people; a marked name against an
unmarked phrase that does not match is left to the other stages.
"""

from __future__ import annotations

import re
from functools import lru_cache

from nicknames import NickNamer

from monitor.equivalence.reference_data import data_table


@lru_cache(maxsize=1)
def _vocabulary() -> tuple[frozenset[str], frozenset[str]]:
    """(honorifics, credentials), lower case without dots, loaded once."""
    data = data_table("people.json")
    return (frozenset(w.replace(".", "") for w in data["honorifics"]),
            frozenset(w.replace(".", "") for w in data["credentials"]))


@lru_cache(maxsize=1)
def offices() -> frozenset[str]:
    """Titles of office that stand in for the holder's name ("the President", "the Foreign Minister")."""
    data = data_table("people.json")
    return frozenset(data.get("offices", ()))


def title_for_name(name: str, other: str) -> bool:
    """Whether ``other`` is ``name`` with its name words replaced by a title ("France's President" for
    "France's Francois Hollande", "the President" for "Obama"): every word of ``other`` that ``name`` lacks
    is a title of office or an honorific, and at least one such word is there."""
    def words(text: str) -> set[str]:
        return {w for w in re.findall(r"[a-z]+", text.lower().replace("'s", "")) if len(w) > 1}

    extra = words(other) - words(name)
    return bool(extra) and bool(words(name) - words(other)) and extra <= offices() | honorifics()


def honorifics() -> frozenset[str]:
    """Titles written before a person's name ("mr", "dr", "prof"), lower case without dots."""
    return _vocabulary()[0]


_WORD = re.compile(r"[a-z][a-z'\-]*\.?|(?:[a-z]\.)+[a-z]?\.?", re.I)


@lru_cache(maxsize=16384)
def person_words(text: str) -> tuple[frozenset[str], bool] | None:
    """(name words, marked as a person) of a short name-like value, or None."""
    body = text.split(":", 1)[1] if text.count(":") == 1 else text  # "Clinic: Name"
    raw = body.replace(",", " ").split()
    if not raw or len(raw) > 7 or any(not _WORD.fullmatch(w) for w in raw):
        return None
    titles, credentials = _vocabulary()
    words = [w.lower().replace(".", "") for w in raw]
    marked = False
    while words and words[0] in titles:
        words, marked = words[1:], True
    while words and words[-1] in credentials:
        words, marked = words[:-1], True
    names = frozenset(w for w in words if len(w) > 1)
    if not names or len(names) > 4:
        return None
    return names, marked


def same_person(a: str, b: str) -> bool | None:
    """Whether two values name one person; None unless one is marked as a name and both read as names."""
    pa, pb = person_words(a), person_words(b)
    if pa is None or pb is None or not (pa[1] or pb[1]):
        return None
    wa, wb = pa[0], pb[0]
    small, large = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    if wa == wb or (len(small) >= 2 and small <= large):
        return True
    return False if pa[1] and pb[1] else None


# Given names and their nicknames: the ``nicknames`` package (a hand-curated dataset of English given names,
# Apache-2.0: "robert" -> bob, rob, bobby...). Only a direct relation counts: "Bob" and "Bill" are both
# nicknames of some "Robert" in the data, yet two different people's names.
_NAME_WORDS = re.compile(r"[A-Za-z]+\.?(?:\s+[A-Za-z]+\.?){0,2}")


@lru_cache(maxsize=1)
def _namer() -> NickNamer:
    return NickNamer()


@lru_cache(maxsize=8192)
def _nicknames(name: str) -> frozenset[str]:
    return frozenset(_namer().nicknames_of(name))


@lru_cache(maxsize=8192)
def is_given_name(word: str) -> bool:
    """Whether the dataset knows ``word`` as a given name or a nickname."""
    return bool(_nicknames(word) or _namer().canonicals_of(word))


def _related(a: str, b: str) -> bool:
    return a != b and (b in _nicknames(a) or a in _nicknames(b))


def _initial_of(a: str, b: str) -> bool:
    return len(a) == 1 and len(b) > 1 and b.startswith(a)


def given_name_relation(a: str, b: str) -> bool | None:
    """Two names of one to three words that differ in the given name (the first word):

    * True when one given name is the other's nickname or initial and the other words are the same ("Bob
      Jones" / "Robert Jones", "Mike" / "Michael", "J. Smith" / "John Smith");
    * False when both are given names the dataset knows and neither stands for the other ("Robert" / "Roberta
      Smith", "Mike" / "Mark");
    * None otherwise, and when the two share a word ("Smith" / "John Smith"; "Annie" / "Annie Hall" may be a
      film).
    """
    if not (_NAME_WORDS.fullmatch(a.strip()) and _NAME_WORDS.fullmatch(b.strip())):
        return None
    wa = [w.rstrip(".").lower() for w in a.split()]
    wb = [w.rstrip(".").lower() for w in b.split()]
    fa, fb = wa[0], wb[0]
    if fa == fb:
        return None
    if _initial_of(fa, fb) or _initial_of(fb, fa):
        return True if len(wa) >= 2 and wa[1:] == wb[1:] else None
    if not (is_given_name(fa) and is_given_name(fb)):
        return None
    if _related(fa, fb):
        return wa[1:] == wb[1:] or None
    return None if set(wa) & set(wb) else False  # "Smith" / "John Smith": a surname alone
