"""Names in a headline-style text ("Obama, Hollande Hail Transformed US-French Relationship").

Title case capitalises every word, so capitals mark no names there (``reply_facts._title_cased``). Two kinds
of capitalised word are still names, whatever the case of the words around them: a word the English lexicon
does not have (WordNet lists it in no part of speech: "Obama", "Hollande", "Krasnoyarsk"), and a word that
names a country or its people (``demonyms.countries_of``: "US", "French", "Palestinians"). Consecutive such
words make one name ("Sylvester Stallone"); a possessive ends one ("Stallone's Son"). The common words of a
headline ("Hail", "Transformed", "Relationship", "Opens", "Tallest") and honorifics ("Dr") are wording, as
before; so is a given name that is also a common word ("Anne", "Sly").

Without WordNet only countries and peoples are read as names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from monitor.equivalence import wordnet
from monitor.equivalence.demonyms import countries_of
from monitor.equivalence.facts import Fact
from monitor.equivalence.normalize import STOPWORDS, fold, lemma
from monitor.equivalence.people import honorifics

# A capitalised word, or one part of a hyphenated pair ("US-French"); an apostrophe-s is not part of the word.
_CAPITAL = re.compile(r"(?<![A-Za-z0-9'’])[A-Z][A-Za-z]*(?:['’][A-Za-z]+)?(?![A-Za-z0-9])")
_GAP = re.compile(r"\s+")
_POSSESSIVE = re.compile(r"['’]s$")


def _name_word(word: str, generic: frozenset[str]) -> bool:
    key = fold(_POSSESSIVE.sub("", word))
    if countries_of(word) or countries_of(lemma(key)):  # "Palestinians" names a people as "Palestinian" does
        return True
    if len(key) < 2 or key in STOPWORDS or key in generic or key in honorifics():
        return False
    return wordnet.known(key) is False  # None (no WordNet): not a name


def headline_names(norm: str, taken: Sequence[tuple[int, int]], generic: frozenset[str]) -> tuple[Fact, ...]:
    """The name facts of the title-case text ``norm``: runs of name words (``_name_word``) joined by spaces,
    outside the spans of its other facts (``taken``); ``generic`` are capitalised words that name no value."""
    words = [m for m in _CAPITAL.finditer(norm)
             if _name_word(m.group(0), generic) and not any(s < m.end() and m.start() < e for s, e in taken)]
    runs: list[list[re.Match[str]]] = []
    for m in words:
        last = runs[-1][-1] if runs else None
        if last is not None and _GAP.fullmatch(norm[last.end() : m.start()]) and not _POSSESSIVE.search(last.group(0)):
            runs[-1].append(m)
        else:
            runs.append([m])
    out = []
    for run in runs:
        s, e = run[0].start(), run[-1].end()
        surface = _POSSESSIVE.sub("", norm[s:e])
        out.append(Fact("entity", surface, fold(surface), (s, s + len(surface))))
    return tuple(out)
