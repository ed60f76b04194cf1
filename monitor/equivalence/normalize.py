"""Text normalisation shared by the comparators: case, accents, quotes, tokens, light lemmatisation."""

from __future__ import annotations

import re
from functools import lru_cache

from monitor.equivalence.reference_data.abbreviations import (
    ALIASES,
    CATEGORIES,
    TZ_CITIES,
    UNIT_ALIASES,
    UNIT_SECONDARY,
)
from monitor.equivalence.values.base import fold, strip_wrapping

_WS = re.compile(r"\s+")
_TOKEN = re.compile(r"[a-z0-9]+(?:[.'&/][a-z0-9]+)*")

# The one stop list. Its core (articles, the commonest prepositions and conjunctions, forms of "be", "it" and
# "this") is what the reply verifier leaves out of a sentence's content words; the rest (pronouns, modals,
# courtesies, negations...) also carry no value of an argument.
CORE_STOPWORDS = frozenset(
    [
        "a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "for", "is", "are", "was", "were", "be", "it",
        "its", "this", "that", "with", "by", "as"
    ]
)
STOPWORDS = CORE_STOPWORDS | frozenset(
    [
        "from", "but", "been", "being", "am", "do", "does", "did", "has", "have", "had", "these", "those", "there",
        "here", "into", "onto", "than", "then", "so", "such", "very", "just", "also", "i", "you", "he", "she", "we",
        "they", "me", "him", "her", "us", "them", "my", "your", "his", "our", "their", "mine", "yours", "what",
        "which", "who", "whom", "whose", "will", "would", "shall", "should", "can", "could", "may", "might", "must",
        "please", "sure", "ok", "okay", "yes", "no", "not", "let", "lets", "like", "some", "any", "all", "each",
        "about", "over", "under", "up", "down", "out", "off", "again", "further", "once", "only", "own", "same",
        "too", "s", "t", "ll", "re", "ve", "d", "m", "o", "y"
    ]
)


def lemma(token: str) -> str:
    """A deliberately light singulariser (tigers -> tiger, boxes -> box, cities -> city)."""
    if len(token) <= 3 or not token.isalpha():
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith(("sses", "shes", "ches", "xes", "zes")):
        return token[:-2]
    if token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def tokens(text: str) -> list[str]:
    """Lower-case word tokens of folded text (possessive 's dropped)."""
    return [t[:-2] if t.endswith("'s") else t for t in _TOKEN.findall(fold(text))]


_DOTTED = re.compile(r"^(?:[a-z]\.){2,}[a-z]?\.?$")


def whole_key(text: str) -> str:
    """The lookup key of a whole value: folded, unwrapped, dotted abbreviations undotted ("U.S." -> "us")."""
    key = fold(strip_wrapping(text))
    if _DOTTED.match(key) or _DOTTED.match(key + "."):
        key = key.replace(".", "")
    return key


@lru_cache(maxsize=65536)
def categorize(text: str) -> dict[str, frozenset[str]]:
    """Closed classes (state, country, currency, unit, timezone) a whole value belongs to, with its readings."""
    out: dict[str, frozenset[str]] = {}
    raw = fold(strip_wrapping(text))
    keys = {raw, whole_key(text)}
    # unit spellings: "sq. meters" -> "square meters", "grams/mole" -> "grams per mole"
    keys.add(re.sub(r"^sq\.?\s*(?=[a-z]{2})", "square ", raw))
    if re.fullmatch(r"[a-z]{2,}/[a-z]{2,}", raw):
        keys.add(raw.replace("/", " per "))
    for key in keys:
        for cat, table in CATEGORIES.items():
            if key in table:
                out[cat] = out.get(cat, frozenset()) | {table[key]}
        if key in UNIT_SECONDARY:
            out["unit"] = out.get("unit", frozenset()) | set(UNIT_SECONDARY[key])
    return out


def timezone_city(text: str) -> str | None:
    return TZ_CITIES.get(whole_key(text))


@lru_cache(maxsize=65536)
def expand_aliases(text: str) -> str:
    """Rewrite well-known abbreviations to their canonical spelling ("NYC" -> "new york city").

    A whole value that is an alias is always expanded; inside a phrase, short codes that are also
    ordinary words ("in", "or", "me") are expanded only when written in capitals.
    """
    stripped = strip_wrapping(text)
    whole = fold(stripped)
    if whole in ALIASES:
        return sorted(ALIASES[whole])[0] if len(ALIASES[whole]) == 1 else _pick(ALIASES[whole], whole)
    if whole in UNIT_ALIASES and not whole.isalpha():
        return UNIT_ALIASES[whole]
    parts = re.split(r"(\s+|,|;|/|\(|\))", stripped)
    out: list[str] = []
    for i, p in enumerate(parts):
        if not p.strip():
            out.append(" ")
            continue
        key = fold(p).strip(".")
        if key + "." in ALIASES and "." in key:
            key = key + "."
        if not key or key not in ALIASES:
            out.append(fold(p))
            continue
        # inside a phrase only abbreviations written as such are expanded ("SF", "D.C."), never
        # ordinary lower-case words ("san", "or", "me")
        abbreviated = (p.isupper() and len(p.strip(".")) >= 2) or "." in p.strip(".") or (
            p.endswith(".") and len(key) >= 2
        )
        if not abbreviated:
            out.append(fold(p))
            continue
        if key == "st":  # "St. Louis" (saint) / "Main St." (street)
            following = "".join(parts[i + 1 :]).strip()
            out.append("saint" if following[:1].isupper() else "street")
            continue
        out.append(_pick(ALIASES[key], key))
    return _WS.sub(" ", "".join(out)).strip()


def alias_set(text: str) -> set[str]:
    """All canonical readings of a whole value (several for ambiguous codes such as "LA")."""
    whole = fold(strip_wrapping(text))
    readings = {whole}
    undotted = whole_key(text)
    if undotted != whole:
        readings.add(undotted)
        readings |= ALIASES.get(undotted, set())
    if whole in ALIASES:
        readings |= ALIASES[whole]
    if whole in UNIT_ALIASES:
        readings.add(UNIT_ALIASES[whole])
    readings.add(expand_aliases(text))
    return readings


_PREFERENCE = ("los angeles", "new york", "new york city", "san francisco", "united states", "street")


def _pick(options: set[str], key: str) -> str:
    for p in _PREFERENCE:
        if p in options:
            return p
    return sorted(options)[0]


_SPELLING = (
    (re.compile(r"(?<=[a-z])ae(?=[a-z]{2})"), "e"),  # orthopaedic, paediatric, anaesthesia
    (re.compile(r"(?<=[a-z]{2})oe(?=[a-z]{3})"), "e"),  # oesophagus, manoeuvre (not "shoes")
    (re.compile(r"(?<=[a-z]{3})our(?=s?$)"), "or"),  # colour, behaviour, neighbours
    (re.compile(r"(?<=[a-z]{2})tre(?=s?$)"), "ter"),  # centre, theatre, metres
    (re.compile(r"(?<=[a-z]{3})(is|ys)(?=(?:e|es|ed|ing|ation|ations|er|ers)$)"), lambda m: m.group(1)[0] + "z"),
    (re.compile(r"(?<=[a-z]{3})ogue(?=s?$)"), "og"),  # catalogue, dialogue
    (re.compile(r"(?<=[a-z]{3})ence(?=s?$)"), "ense"),  # defence, licence
)


@lru_cache(maxsize=65536)
def american(token: str) -> str:
    """One spelling for British / American variants of a word ("orthopaedic" -> "orthopedic")."""
    if len(token) < 5 or not token.isalpha():
        return token
    for pattern, repl in _SPELLING:
        token = pattern.sub(repl, token)
    return token
