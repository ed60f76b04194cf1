"""Reference-free grounding with the verifier: is each sentence of a reply supported by what the conversation
has said (user turns, tool outputs)?

The premise of a sentence is the run of at most three source lines that shares most of its words (a source is
one user message, or one tool output rendered as ``key: value`` pairs); the hypothesis is the sentence. A
sentence the verifier reads as ``changed`` (saying something the premise does not support) with probability at
or above ``grounding_threshold`` is unsupported. Questions and sentences with fewer than two content words
("Anything else I can help with?") make no checkable claim and pass.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from monitor.verifier.model import PairScorer, Probabilities
from monitor.verifier.sentences import best_window, content_words, sentences

_COURTESY = frozenset(
    [
        "anything",
        "else",
        "help",
        "can",
        "i",
        "you",
        "happy",
        "glad",
        "welcome",
        "thanks",
        "thank",
        "please",
        "sure",
        "okay",
        "ok",
        "great",
        "sorry",
        "let",
        "me",
        "know",
        "there",
        "today",
        "do",
        "would",
        "like",
        "assist",
        "hello",
        "hi",
        "bye",
        "goodbye",
        "day",
        "nice",
        "have",
    ]
)


MAX_PAIR_CHARS = 440  # about 110 word pieces: premise and claim fit the verifier's 128 tokens untruncated


@dataclass(frozen=True)
class SourceLine:
    """One line of a rendered source: its ``key: value`` pairs (a key may be empty: a bare value) and whether it
    holds a tool output's top-level values, which speak of all its records."""

    pairs: tuple[tuple[str, str], ...]
    label: str = ""  # the list a record is in ("hotels"), as ``Tool result (hotels):`` shows it
    top: bool = False

    @property
    def text(self) -> str:
        shown = "; ".join(f"{k}: {v}" if k else v for k, v in self.pairs)
        head = f"Tool result ({self.label}):" if self.label else "Tool result:"
        return f"{head} {shown}" if shown else head


def source_lines(source: Any) -> list[SourceLine]:
    """A tool output as lines: one for its top-level values and one per record of a list inside it (so that a
    long result is compared record by record, never cut off by the model's input length)."""
    lines: list[SourceLine] = []
    top = _records(source, "", lines)
    if top:
        lines.insert(0, SourceLine(tuple(top), top=bool(lines)))
    return lines or [SourceLine(())]


def render_source(source: Any) -> list[str]:
    """One source as lines of text: a user message as one line; a tool output as ``key: value`` pairs
    (``source_lines``)."""
    if isinstance(source, str):
        return [f"User: {source.strip()}"]
    return [line.text for line in source_lines(source)]


def _records(value: Any, path: str, lines: list[SourceLine]) -> list[tuple[str, str]]:
    """The ``(key, value)`` pairs of ``value`` outside lists of records; each record goes to ``lines``."""
    if isinstance(value, Mapping):
        return [p for k, v in value.items() for p in _records(v, f"{path} {k}".strip().replace("_", " "), lines)]
    if isinstance(value, list | tuple):
        if any(isinstance(v, Mapping) for v in value):
            for v in value:
                pairs = _records(v, "", lines)
                if pairs:
                    lines.append(SourceLine(tuple(pairs), path))
            return []
        return [p for v in value for p in _records(v, path, lines)]
    shown = value if isinstance(value, str) else json.dumps(value)
    return [(path, shown)]


def checkable(sentence: str) -> bool:
    """Does the sentence make a claim worth checking (not a question, not a courtesy)?"""
    if sentence.rstrip().endswith("?"):
        return False
    return len(content_words(sentence) - _COURTESY) >= 2


def unsupported_sentences(
    scorer: PairScorer,
    reply: str,
    premises: Sequence[str],
    cut: float,
    skip: Callable[[str], bool] | None = None,
    similarity: Callable[[Sequence[tuple[str, str]]], list[float]] | None = None,
    premises_for: Callable[[str], Sequence[str]] | None = None,
) -> tuple[tuple[str, Probabilities], ...]:
    """The reply's sentences that the premise texts (rendered sources, or passages) do not support, in order,
    each with the verifier's probabilities. With ``similarity`` (the bi-encoder), each claim is read against
    the premise sentences most similar to it (``retrieve``); without, against the run of lines sharing most of
    its words. ``premises_for``: each claim's own premise texts (the lines of its candidate sources in a long
    conversation) instead of ``premises``; the claims with the same premise are ranked together."""
    claims = [s for s in sentences(reply) if checkable(s) and not (skip and skip(s))]
    if not claims:
        return ()
    groups: dict[tuple[str, ...], list[int]] = {}
    for c, claim in enumerate(claims):
        lines = tuple(premises if premises_for is None else premises_for(claim)) or ("",)
        groups.setdefault(lines, []).append(c)
    chunks = [""] * len(claims)
    for lines, members in groups.items():
        ranked = [claims[c] for c in members]
        found = retrieve(ranked, lines, similarity) if similarity is not None else [_premise(x, lines) for x in ranked]
        for c, chunk in zip(members, found, strict=True):
            chunks[c] = chunk
    probs = scorer.probabilities(list(zip(chunks, claims, strict=True)))
    return tuple((claim, p) for claim, p in zip(claims, probs, strict=True) if p.changed >= cut)


RETRIEVED = 3  # premise sentences read with each claim


def premise_sentences(lines: Sequence[str]) -> tuple[str, ...]:
    """The premise as sentences: each line (a user message, a tool record) split into its sentences, so that
    a long passage (an article, a knowledge paragraph) offers each sentence to retrieval."""
    return tuple(s for line in lines for s in (sentences(line) if len(line) > 200 else (line,)) if s.strip())


def retrieve(
    claims: Sequence[str], lines: Sequence[str], similarity: Callable[[Sequence[tuple[str, str]]], list[float]]
) -> list[str]:
    """Per claim, the ``RETRIEVED`` premise sentences most similar to it (bi-encoder cosine), in their order in
    the premise, as many as fit the verifier's input beside the claim (SummaC / MiniCheck style: each claim
    against its own evidence chunk, not against the first lines of a long premise)."""
    pieces = premise_sentences(lines) or ("",)
    scores = similarity([(claim, piece) for claim in claims for piece in pieces])
    chunks: list[str] = []
    for c, claim in enumerate(claims):
        row = scores[c * len(pieces) : (c + 1) * len(pieces)]
        ranked = sorted(range(len(pieces)), key=lambda i: -row[i])[:RETRIEVED]
        room = MAX_PAIR_CHARS - len(claim)
        taken: list[int] = []
        for i in ranked:
            if not taken or sum(len(pieces[j]) + 1 for j in taken) + len(pieces[i]) <= room:
                taken.append(i)
        chunks.append(" ".join(pieces[i] for i in sorted(taken)))
    return chunks


def _leading_lines(lines: tuple[str, ...], room: int) -> str:
    """The first lines, joined, as many as fit in ``room`` characters (at least the first)."""
    taken = [lines[0]]
    for line in lines[1:]:
        if sum(len(t) + 1 for t in taken) + len(line) > room:
            break
        taken.append(line)
    return " ".join(taken)


def _premise(claim: str, lines: tuple[str, ...]) -> str:
    """The widest run of at most three source lines sharing most of the claim's words that still fits the
    model's input beside the claim (a run cut off by truncation would lose the lines at its end); a single line
    longer than that (a passage) is read as far as the input goes, as in training. A claim that shares no word
    with any line has no run to prefer: it is read against as many lines as fit, from the first."""
    words = content_words(claim)
    if not any(words & content_words(line) for line in lines):
        return _leading_lines(lines, MAX_PAIR_CHARS - len(claim))
    for width in (3, 2):
        window = best_window(claim, lines, width=width)
        if len(window) + len(claim) <= MAX_PAIR_CHARS:
            return window
    return best_window(claim, lines, width=1)
