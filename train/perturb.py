"""Meaning-changing and fact-dropping edits of English sentences, for training pairs.

Each edit returns the edited text or ``None`` when it does not apply. They are deliberately generic (word
classes, not examples): a swapped pair of participants, a negation added or removed, a number, day, month or
pronoun changed, a word replaced by its WordNet antonym or by another verb of the same transactional family, a
name replaced by another, a common noun by another of its kind (WordNet co-hyponyms); and for omissions, a
conjunct removed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from functools import lru_cache

from monitor.equivalence.reference_data import wordnet

Edit = Callable[[str, random.Random], str | None]

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:[.,:]\d+)*")
_DETERMINERS = {"a", "an", "the", "his", "her", "their", "my", "your", "our", "this", "that"}
_OPENERS = {
    "there",
    "it",
    "this",
    "that",
    "these",
    "those",
    "what",
    "which",
    "who",
    "how",
    "when",
    "where",
    "why",
    "yes",
    "no",
    "sure",
    "ok",
    "okay",
    "please",
    "your",
    "my",
    "our",
    "their",
    "a",
    "an",
    "the",
    "if",
    "do",
    "does",
    "did",
    "is",
    "are",
    "can",
    "would",
    "could",
    "should",
    "will",
    "i",
    "we",
    "you",
    "they",
    "he",
    "she",
}
_NEGATABLE = {
    "is": "is not",
    "are": "are not",
    "was": "was not",
    "were": "were not",
    "can": "cannot",
    "will": "will not",
    "has": "has not",
    "have": "have not",
    "does": "does not",
    "did": "did not",
    "should": "should not",
    "could": "could not",
    "would": "would not",
}
_UNNEGATE = [
    (re.compile(r"\b(is|are|was|were|will|has|have|does|did|should|could|would) not\b", re.I), r"\1"),
    (re.compile(r"\bcannot\b", re.I), "can"),
    (re.compile(r"\b(\w+)n't\b", re.I), r"\1"),
    (re.compile(r"\bno longer\b", re.I), "still"),
]
_PRONOUNS = {
    "he": "she",
    "she": "he",
    "him": "her",
    "his": "her",
    "her": "his",
    "himself": "herself",
    "herself": "himself",
    "we": "they",
    "they": "we",
    "i": "you",
    "you": "I",
}
_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
# Verbs of one transactional family: one done instead of another is a different outcome for the user.
_ACTION_FAMILIES = [
    ["booked", "cancelled", "moved", "rescheduled", "confirmed", "declined", "changed", "held"],
    ["approved", "rejected", "refunded", "charged", "denied", "paid", "sent", "received", "transferred"],
    [
        "opened",
        "closed",
        "started",
        "stopped",
        "paused",
        "resumed",
        "played",
        "deleted",
        "saved",
        "added",
        "removed",
        "created",
        "updated",
    ],
    ["increased", "decreased", "raised", "lowered", "rose", "fell", "gained", "lost", "won"],
    ["bought", "sold", "rented", "returned", "ordered", "shipped", "delivered"],
]
_ACTION_OF = {verb: family for family in _ACTION_FAMILIES for verb in family}


def _tokens(text: str) -> list[re.Match[str]]:
    return list(_WORD.finditer(text))


def _replace(text: str, match: re.Match[str], new: str) -> str:
    return text[: match.start()] + new + text[match.end() :]


def _case_like(word: str, model: str) -> str:
    return word[:1].upper() + word[1:] if model[:1].isupper() else word


def swap_participants(text: str, rng: random.Random, opening_names: bool = False) -> str | None:
    """Two noun phrases trade places: 'Alice paid Bob' / 'Bob paid Alice', 'a man feeds a dog' / 'a dog feeds a man'.
    ``opening_names``: a capitalised first word counts as a name unless it is a common opener ("There", "Your");
    off, it counts only when WordNet calls it a name (the first training stage)."""
    toks = _tokens(text)
    slots: list[re.Match[str]] = []
    for i, tok in enumerate(toks):
        word = tok.group()
        after_det = i > 0 and toks[i - 1].group().lower() in _DETERMINERS
        opening = opening_names and i == 0 and word.lower() not in _OPENERS  # "Alice paid Bob"
        named = (
            word[:1].isupper()
            and (i > 0 or opening or _is_name(word))
            and word.lower() not in _PRONOUNS
            and word not in _WEEKDAYS + _MONTHS
        )
        if (after_det and word.isalpha() and word.lower() not in _DETERMINERS) or named:
            slots.append(tok)
    distinct = [(a, b) for k, a in enumerate(slots) for b in slots[k + 1 :] if a.group().lower() != b.group().lower()]
    if not distinct:
        return None
    a, b = rng.choice(distinct)
    return text[: a.start()] + b.group() + text[a.end() : b.start()] + a.group() + text[b.end() :]


def toggle_negation(text: str, rng: random.Random) -> str | None:
    """A statement negated, or a negation removed."""
    for pattern, repl in _UNNEGATE:
        if pattern.search(text):
            return pattern.sub(repl, text, count=1)
    toks = [t for t in _tokens(text) if t.group().lower() in _NEGATABLE]
    if not toks:
        return None
    tok = rng.choice(toks)
    return _replace(text, tok, _case_like(_NEGATABLE[tok.group().lower()], tok.group()))


def change_number(text: str, rng: random.Random) -> str | None:
    """One number replaced by another."""
    toks = [t for t in _tokens(text) if t.group()[0].isdigit()]
    if not toks:
        return None
    tok = rng.choice(toks)
    digits = tok.group()
    head = re.match(r"\d+", digits)
    assert head is not None
    value = int(head.group())
    new = value + rng.choice([-3, -2, -1, 1, 2, 3, 5, 10]) if value > 3 else value + rng.choice([1, 2, 3])
    return _replace(text, tok, str(max(new, 0)) + digits[head.end() :])


def change_calendar_word(text: str, rng: random.Random) -> str | None:
    """A weekday or month replaced by another."""
    for names in (_WEEKDAYS, _MONTHS):
        toks = [t for t in _tokens(text) if t.group().capitalize() in names]
        if toks:
            tok = rng.choice(toks)
            other = rng.choice([n for n in names if n != tok.group().capitalize()])
            return _replace(text, tok, other)
    return None


def change_pronoun(text: str, rng: random.Random) -> str | None:
    """A pronoun replaced by one with another referent."""
    toks = [t for t in _tokens(text) if t.group().lower() in _PRONOUNS]
    if not toks:
        return None
    tok = rng.choice(toks)
    return _replace(text, tok, _case_like(_PRONOUNS[tok.group().lower()], tok.group()))


def change_action(text: str, rng: random.Random) -> str | None:
    """A transactional verb replaced by another of its family ('cancelled' / 'moved')."""
    toks = [t for t in _tokens(text) if t.group().lower() in _ACTION_OF]
    if not toks:
        return None
    tok = rng.choice(toks)
    family = _ACTION_OF[tok.group().lower()]
    return _replace(text, tok, _case_like(rng.choice([v for v in family if v != tok.group().lower()]), tok.group()))


# Outcomes an agent reports, each with its opposite: the reply says the thing was done where gold says it was not,
# or the other way round ("booked" / "cancelled", "approved" / "rejected").
_OPPOSITES = {
    "booked": "cancelled", "reserved": "cancelled", "confirmed": "cancelled", "scheduled": "cancelled",
    "approved": "rejected", "accepted": "declined", "successful": "unsuccessful", "successfully": "unsuccessfully",
    "succeeded": "failed", "available": "unavailable", "able": "unable", "completed": "cancelled",
    "added": "removed", "enabled": "disabled", "open": "closed", "started": "stopped", "paid": "unpaid",
}  # fmt: skip
_OPPOSITE_OF: dict[str, list[str]] = {}
for _word, _opposite in _OPPOSITES.items():
    _OPPOSITE_OF.setdefault(_word, []).append(_opposite)
    _OPPOSITE_OF.setdefault(_opposite, []).append(_word)


def outcome_words(text: str) -> int:
    """How many outcome words ``reverse_outcome`` could reverse ``text`` has."""
    return sum(t.group().lower() in _OPPOSITE_OF for t in _tokens(text))


def reports_outcome(text: str) -> bool:
    """Whether ``text`` has an outcome word ``reverse_outcome`` could reverse."""
    return outcome_words(text) > 0


def reverse_outcome(text: str, rng: random.Random) -> str | None:
    """An outcome word replaced by its opposite ('booked' / 'cancelled', 'approved' / 'rejected')."""
    toks = [t for t in _tokens(text) if t.group().lower() in _OPPOSITE_OF]
    if not toks:
        return None
    tok = rng.choice(toks)
    return _replace(text, tok, _case_like(rng.choice(sorted(_OPPOSITE_OF[tok.group().lower()])), tok.group()))


def antonym(text: str, rng: random.Random) -> str | None:
    """An adjective replaced by a WordNet antonym ('open' / 'closed', 'late' / 'early'); verbs are left to
    ``change_action``, since an antonym verb would need inflecting."""
    toks = _tokens(text)
    rng.shuffle(toks)
    for tok in toks:
        word = tok.group()
        if not word.isalpha() or len(word) < 3:
            continue
        options = sorted(wordnet.antonyms(word.lower()))
        if options:
            return _replace(text, tok, _case_like(rng.choice(options), word))
    return None


def replace_name(text: str, rng: random.Random, names: list[str]) -> str | None:
    """A capitalised name (not the first word) replaced by another name from the corpus."""
    toks = [t for i, t in enumerate(_tokens(text)) if i > 0 and t.group()[:1].isupper() and t.group().isalpha()]
    toks = [t for t in toks if t.group() not in _WEEKDAYS + _MONTHS and t.group().lower() not in _PRONOUNS]
    if not toks or not names:
        return None
    tok = rng.choice(toks)
    other = rng.choice(names)
    return None if other == tok.group() else _replace(text, tok, other)


def _is_name(word: str) -> bool:
    """Is the commonest noun sense of ``word`` a proper noun in WordNet ("China"; not "cat", whose CAT scan comes
    later)? False without WordNet."""
    wn = wordnet.reader()
    key = word.lower()
    first = wn.synsets(key, "n")[:1] if wn is not None else []
    return any(n[:1].isupper() and n.lower() == key for s in first for n in s.lemma_names())


def is_base_noun(word: str) -> bool:
    """Is ``word`` a WordNet noun in its base form and not also a verb ('have', 'want' are not nouns here)?"""
    wn = wordnet.reader()
    key = word.lower()
    if wn is None or wn.lemmas(key, "v"):
        return False
    return any(lemma.name().lower() == key for lemma in wn.lemmas(key, "n"))


def _is_noun(word: str) -> bool:
    """Is ``word`` itself (not an inflection of it) a WordNet noun?"""
    wn = wordnet.reader()
    return wn is not None and bool(wn.lemmas(word.lower(), "n"))


@lru_cache(maxsize=16384)
def noun_siblings(noun: str) -> tuple[str, ...]:
    """Other single-word common nouns of the same kind as ``noun``'s commonest sense (the other hyponyms of its
    hypernyms: 'revenue' / 'profit', 'breakfast' / 'dinner'), in WordNet's order (by synset offset)."""
    wn = wordnet.reader()
    first = wn.synsets(noun, "n")[:1] if wn is not None else []
    if not first:
        return ()
    own = set(first[0].lemma_names())
    out: list[str] = []
    for parent in sorted(first[0].hypernyms() + first[0].instance_hypernyms(), key=lambda s: s.offset()):
        for child in sorted(parent.hyponyms(), key=lambda s: s.offset()):
            word = child.lemma_names()[0]
            if child != first[0] and word.isalpha() and word.islower() and word not in own:
                out.append(word)
    return tuple(dict.fromkeys(out))


def change_noun(text: str, rng: random.Random) -> str | None:
    """A common noun (in its base form) replaced by another of the same kind: 'Revenue was up' / 'Profit was
    up', 'a table for breakfast' / 'a table for dinner'."""
    all_toks = _tokens(text)
    after_number = {i for i, t in enumerate(all_toks) if i > 0 and all_toks[i - 1].group()[:1].isdigit()}
    toks = [t for i, t in enumerate(all_toks) if i not in after_number]  # '1.2 million': a number, not a noun
    rng.shuffle(toks)
    for tok in toks:
        word = tok.group()
        if not word.isalpha() or len(word) < 4 or word.lower() in _PRONOUNS or word in _WEEKDAYS + _MONTHS:
            continue
        if not _is_noun(word):  # plural or not a noun: would need inflecting
            continue
        options = noun_siblings(word.lower())
        if options:
            return _replace(text, tok, _case_like(rng.choice(options), word))
    return None


def drop_conjunct(text: str, rng: random.Random) -> str | None:
    """'open late on Friday and closed on Sunday' / 'open late on Friday': the part after an 'and' removed."""
    spots = [m for m in re.finditer(r",? (?:and|but|while|as well as) ", text)]
    if not spots:
        return None
    spot = rng.choice(spots)
    rest = text[spot.end() :]
    stop = re.search(r"[.;!?]", rest)
    tail = rest[stop.start() :] if stop else ""
    head = text[: spot.start()]
    return head + tail if len(_tokens(head)) >= 3 else None


CHANGES: tuple[Edit, ...] = (
    swap_participants,
    toggle_negation,
    change_number,
    change_calendar_word,
    change_pronoun,
    change_action,
    antonym,
)
# Only a whole conjunct counts as a dropped fact: a trailing phrase left out ("... on his back") is a detail that
# people still read as the same meaning (STS-B scores such pairs 3.8-4.4), so it is not a training omission.
DROPS: tuple[Edit, ...] = (drop_conjunct,)


def first_applicable(edits: tuple[Edit, ...], text: str, rng: random.Random) -> tuple[str, str] | None:
    """The first edit (in a random order) that applies and changes the text: (edit name, edited text)."""
    order = list(edits)
    rng.shuffle(order)
    for edit in order:
        edited = edit(text, rng)
        if edited and edited.strip() and edited != text:
            return edit.__name__, edited
    return None
