"""A piece of gold said the opposite way: with the opposite polarity ("It does not have wifi." / "Yes, it has
wifi.", "The apartment is unfurnished." / "The apartment is furnished.", "… couldn't be prosecuted" / "… could be
prosecuted"), or with one word replaced by its opposite ("sits outside alone" / "sits inside alone").

A cross-encoder reads a negation toggled in an otherwise identical clause as a rewording often enough ("Yes it has
wifi." for "It does not have wifi.": P(same) 0.87). A reply piece whose content words are exactly those of a gold
piece, said with the other polarity (an odd number of negation cues, ``opposites.negated``, or a word negated by a
prefix whose bare form the other side uses), is a change whatever the verifier reads; so is one with the same
polarity whose content words are gold's but for one word replaced by its opposite (``opposites.opposite``: a curated
pair or WordNet antonyms). The pieces are those the value comparators read polarity in (``opposites.polarity_pieces``:
split at sentence marks, commas and contrasting conjunctions); for a toggled polarity the two texts' polarity must
differ as a whole too, so that a negation that only moved to another piece ("all the issues that we support, he
doesn't" / "… we support he doesn't") is no change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from monitor.equivalence.normalize import STOPWORDS, fold, lemma
from monitor.equivalence.values.opposites import (
    negated,
    negated_by_prefix,
    negation_cue,
    opposite,
    polarity_pieces,
)
from monitor.verifier.transposed import as_written

_WORD = re.compile(r"[a-z0-9][a-z0-9'’-]*")
_NON = re.compile(r"\bnon\s+(?=[a-z])")  # "non refundable": "non-refundable"
_ANSWER = re.compile(r"^\s*(?:no|nope)\b")  # "No they don't have live music": an answer, not a second negation


@dataclass(frozen=True)
class Negation:
    """Gold's ``piece``, said the opposite way as the reply's ``said``: with the other polarity, or with gold's word
    ``words[0]`` replaced by its opposite ``words[1]``."""

    piece: str
    said: str
    words: tuple[str, str] | None = None

    def __str__(self) -> str:
        if self.words is not None:
            word, opposite_word = self.words
            return f"says '{opposite_word}' for '{word}' in gold's '{self.piece}': the reply says '{self.said}'"
        return f"negates gold's '{self.piece}': the reply says '{self.said}'"

    @property
    def how(self) -> str:
        """What the reply changed, for ``detail``."""
        return "one word, its opposite" if self.words is not None else "the same words, the opposite polarity"


@dataclass(frozen=True)
class _Piece:
    text: str
    content: frozenset[str]
    negated: bool


def negated_piece(gold: str, pred: str) -> Negation | None:
    """The first piece of ``gold`` that ``pred`` says the opposite way: with the same content words and the opposite
    polarity (when the two texts' polarity differs as a whole), or with the same polarity and one content word
    replaced by its opposite; None otherwise."""
    g, p = _NON.sub("non-", fold(gold)), _NON.sub("non-", fold(pred))
    g_words, p_words = frozenset(_WORD.findall(g)), frozenset(_WORD.findall(p))
    g_pieces, p_pieces = _pieces(g, p_words), _pieces(p, g_words)
    toggled = sum(x.negated for x in g_pieces) % 2 != sum(x.negated for x in p_pieces) % 2
    for gp in g_pieces:
        for pp in p_pieces:
            if not gp.content:
                continue
            if toggled and gp.content == pp.content and gp.negated != pp.negated:
                return Negation(as_written(gold, _WORD.findall(gp.text)), as_written(pred, _WORD.findall(pp.text)))
            words = _one_opposite(gp, pp)
            if words is not None:
                return Negation(as_written(gold, _WORD.findall(gp.text)), as_written(pred, _WORD.findall(pp.text)),
                                words)  # fmt: skip
    return None


def _one_opposite(gp: _Piece, pp: _Piece) -> tuple[str, str] | None:
    """Gold's word and the reply's, when two pieces of one polarity and at least two content words differ only in
    that word, and the two are opposites."""
    if gp.negated != pp.negated or len(gp.content) < 2:
        return None
    g_only, p_only = gp.content - pp.content, pp.content - gp.content
    if len(g_only) != 1 or len(p_only) != 1:
        return None
    (a,), (b,) = g_only, p_only
    return (a, b) if opposite(a, b) else None


def _pieces(text: str, other_words: frozenset[str]) -> list[_Piece]:
    """``text``'s (folded, "non " joined) polarity pieces: their content words (a word negated by a prefix as its
    bare form where the other text uses that), and whether each is negated."""
    out = []
    for piece in polarity_pieces(text):
        body = _ANSWER.sub("", piece)
        if body != piece and negated(body):
            piece = body  # the answer agrees with the negation that follows it
        flipped, content = negated(piece), set()
        for word in _WORD.findall(piece):
            bare = negated_by_prefix(word)
            if word in STOPWORDS or (negation_cue(word) and bare is None):
                continue  # a cue carries the piece's polarity, not its content; "unable" is "able" negated
            if bare is not None and bare in other_words:
                # "unfurnished" is "furnished" negated; "unavailable" and "unable" are negation cues already
                flipped ^= not negated(word)
                word = bare
            content.add(lemma(word))
        out.append(_Piece(piece.strip(), frozenset(content), flipped))
    return out
