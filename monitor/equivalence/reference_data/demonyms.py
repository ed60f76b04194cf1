"""Countries and the words for their people: "Algerian" is of Algeria, "Tunisian" of Tunisia.

A country is read from ISO 3166 (pycountry: its name and common name, "Iran" for "Iran, Islamic Republic
of") and the curated country aliases (``abbreviations.COUNTRIES``: "US", "UK"). The word for its people is
made by the regular patterns of English ("Algeria" -> "Algerian", "Italy" -> "Italian", "Egypt" ->
"Egyptian", "Mexico" -> "Mexican", "Iraq" -> "Iraqi", "Japan" -> "Japanese", "Lebanon" -> "Lebanese"); the
irregular ones ("French", "Dutch", "Swiss", "Greek") come from ``data/demonyms.json``. A word several
countries could give ("Nigerian": Niger or Nigeria) reads as all of them.

``countries_of("Algerian")`` -> {"algeria"}; two names whose country sets are disjoint name different
countries ("Algerian" / "Tunisian", "US" / "EU"), whatever an embedding says of them.
"""

from __future__ import annotations

import re
from functools import lru_cache

from monitor.equivalence.normalize import fold
from monitor.equivalence.reference_data import data_table
from monitor.equivalence.reference_data.abbreviations import COUNTRIES

_SHORT = 3  # a country code this short counts only in capitals ("US", "UK", "EU")
_MIN_STEM = 3  # a generated form needs a stem this long ("Oman" -> "Omani", never "Om" -> ...)


def _forms(name: str) -> set[str]:
    """The regular words for the people of a country named ``name`` (folded), the name itself included."""
    head, _, last = name.rpartition(" ")
    lead = head + " " if head else ""
    out = {name}
    stems = {last}
    if last[-1] in "aeoy":
        stems.add(last[:-1])
    if last.endswith("on"):
        stems.add(last[:-2])  # Lebanon -> Lebanese
    for stem in stems:
        if len(stem) < _MIN_STEM:
            continue
        for suffix in ("n", "an", "ian", "i", "ese", "ish"):
            if suffix == "n" and not stem.endswith(("a", "e")):
                continue
            out.add(lead + stem + suffix)
    return out


@lru_cache(maxsize=1)
def _index() -> dict[str, frozenset[str]]:
    """Folded country name, alias or demonym -> the countries (canonical folded names) it may name."""
    import pycountry

    index: dict[str, set[str]] = {}

    def add(word: str, country: str) -> None:
        index.setdefault(word, set()).add(country)

    canon: dict[str, str] = {}
    for name, aliases in COUNTRIES.items():
        for a in (name, *aliases):
            canon[a] = name
    for c in pycountry.countries:
        names = [fold(n) for n in (getattr(c, "common_name", None), c.name) if n]
        names = [n for n in names if "," not in n and "(" not in n]
        if not names:
            continue
        country = next((canon[n] for n in names if n in canon), names[0])
        for n in names:
            for form in _forms(n):
                add(form, country)
    for name, aliases in COUNTRIES.items():
        for a in (name, *aliases):
            add(a, name)
        for form in _forms(name):
            add(form, name)
    data = data_table("demonyms.json")
    for country, words in data["irregular"].items():
        targets = index.get(fold(country)) or {canon.get(country, country)}
        for w in words:
            for target in set(targets):
                add(fold(w), target)
    return {k: frozenset(v) for k, v in index.items()}


def countries_of(text: str) -> frozenset[str]:
    """The countries a name or a word for a people names ("Algerian", "Algeria's", "the U.S."); empty when
    it names none."""
    raw = re.sub(r"['’]s?$", "", text.strip(" .")).removeprefix("the ").strip()
    key = fold(raw)
    if len(key.replace(".", "")) <= _SHORT and raw != raw.upper():
        return frozenset()  # "It", "In", "Us": words, not country codes
    return _index().get(key, frozenset())


def other_countries(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` both name countries (or their people) and no country is named by both
    ("Algerian" / "Tunisian", "Austria" / "Australian")."""
    ca, cb = countries_of(a), countries_of(b)
    return bool(ca) and bool(cb) and not (ca & cb)
