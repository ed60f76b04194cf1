"""Bounded work per event: how much scoring an event may ask for before it is left unscored.

Scoring cost grows with an event's argument leaves (each compared, free text embedded), the length
of the text embedded, the numbers scanned in replies (and the pairs of a gold and a predicted number, each
a typed comparison when they disagree), and a reply's length and sentences (a long reply pair is
read by the verifier sentence by sentence: one model run per gold sentence, each matched against the other
side's sentences). A judge-only turn (no reference) is grounded instead: each of its argument values or reply
facts is compared with every leaf and fact of its candidate sources, a bounded number of the sources so far, and
each of a reply's sentences ranked against their lines (monitor/scoring/sources.py), so its work is the sum of
those, known before any of it is done (`grounding_oversize`), whatever then decides the reply. One pathological
event must not stall every partition (or `aem score` on one file), so past any of these limits the turn is
`unscored` with reason `too_large` (counted in `aem_turns_too_large_total{limit}`) instead of being scored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from monitor.models.dialog import Payload, Reply, ToolCall
from monitor.verifier.sentences import sentences

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


@dataclass(frozen=True)
class WorkLimits:
    max_arg_leaves: int = 2_000  # leaves of predicted + gold args (and outputs)
    max_text_chars: int = 50_000  # characters of one text (reply or string leaf) that would be embedded
    max_numbers: int = 2_000  # numbers in the replies' text, each a candidate fact to check
    max_reply_chars: int = 10_000  # characters of one reply (gold or predicted) read by the verifier
    max_reply_sentences: int = 24  # sentences of one reply, as the verifier splits them: each a question
    max_number_pairs: int = 2_500  # numbers in the gold reply x numbers in the predicted one (typed comparisons)
    # judge-only: values to ground (argument leaves, reply facts) x their candidate sources' leaves and facts,
    # plus a reply's sentences x their candidate sources' lines
    max_grounding_pairs: int = 10_000


@dataclass(frozen=True)
class Oversize:
    limit: str  # "arg_leaves" | "text_chars" | "numbers" | "reply_chars" | "reply_sentences" | "number_pairs"
    # | "grounding_pairs"
    detail: str


def _walk(value: Any, counts: list[int]) -> None:
    """Leaves and the longest string of a JSON value, without recursion: counts = [leaves, longest]."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        else:
            counts[0] += 1
            if isinstance(item, str):
                counts[1] = max(counts[1], len(item))


def fits(size: int, limits: WorkLimits) -> bool:
    """Whether an event of `size` JSON bytes is too small to pass any limit but the sentence count, unread.

    A leaf or a number takes at least one byte plus a separator, and a decoded string is never longer
    than its JSON text: the common small event needs no walk.

    A reply's sentences and number pairs are not bounded this way (a short text holds many): `oversize`
    counts them apart, for replies only.
    """
    least = min(limits.max_arg_leaves, limits.max_numbers)
    return size < 2 * least and size <= min(limits.max_text_chars, limits.max_reply_chars)


def _reply_work(pred: Payload | None, gold: Payload | None, limits: WorkLimits) -> Oversize | None:
    """A reply pair's sentences (verifier questions) and number pairs (typed comparisons)."""
    replies = [p.response for p in (pred, gold) if isinstance(p, Reply)]
    if not replies:
        return None
    most = max(len(sentences(r)) for r in replies)  # as the verifier splits them
    if most > limits.max_reply_sentences:
        detail = f"a reply of {most} sentences, above the limit of {limits.max_reply_sentences}"
        return Oversize("reply_sentences", detail)
    if isinstance(pred, Reply) and isinstance(gold, Reply):
        pairs = _numbers(gold.response) * _numbers(pred.response)
        if pairs > limits.max_number_pairs:
            detail = f"{pairs} pairs of gold and predicted numbers, above the limit of {limits.max_number_pairs}"
            return Oversize("number_pairs", detail)
    return None


def _numbers(text: str) -> int:
    return sum(1 for _ in _NUMBER.finditer(text))


def work_oversize(
    pred: Payload | None, gold: Payload | None, limits: WorkLimits, size: int | None = None
) -> Oversize | None:
    """Which limit (if any) scoring a turn (its predicted and gold payloads) would exceed; `size`: the JSON
    bytes of the event that carried it, when known."""
    if size is not None and fits(size, limits):
        return _reply_work(pred, gold, limits)  # the common small event: no walk of its arguments
    payloads = [p for p in (pred, gold) if p is not None]
    counts = [0, 0]
    numbers, reply_chars = 0, 0
    for payload in payloads:
        if isinstance(payload, ToolCall):
            _walk(payload.args, counts)
            _walk(payload.output, counts)
        elif isinstance(payload, Reply):
            counts[1] = max(counts[1], len(payload.response))
            numbers += _numbers(payload.response)
            reply_chars = max(reply_chars, len(payload.response))
    if counts[0] > limits.max_arg_leaves:
        return Oversize("arg_leaves", f"{counts[0]} argument leaves, above the limit of {limits.max_arg_leaves}")
    if counts[1] > limits.max_text_chars:
        return Oversize("text_chars", f"a text of {counts[1]} characters, above the limit of {limits.max_text_chars}")
    if numbers > limits.max_numbers:
        return Oversize("numbers", f"{numbers} numbers in the reply text, above the limit of {limits.max_numbers}")
    if reply_chars > limits.max_reply_chars:
        detail = f"a reply of {reply_chars} characters, above the limit of {limits.max_reply_chars}"
        return Oversize("reply_chars", detail)
    return _reply_work(pred, gold, limits)


def grounding_oversize(
    values: int, units: int, limits: WorkLimits, sentences: int = 0, lines: int = 0, least: bool = False
) -> Oversize | None:
    """Whether grounding `values` (argument leaves or reply facts no source states word for word), each compared
    with the leaves and facts of its candidate sources (`units` comparisons in all), and `sentences` of a reply,
    each ranked against the lines of its candidate sources (`lines` in all), would pass `max_grounding_pairs`
    (`least`: the counts are what the work holds at least, the candidates not chosen yet)."""
    pairs = units + lines
    if pairs <= limits.max_grounding_pairs:
        return None
    read = f" + {sentences} sentences x their sources' lines ({lines})" if sentences else ""
    detail = (
        f"{values} values to ground x their sources' leaves and facts ({units}){read} = "
        f"{'at least ' if least else ''}{pairs} comparisons, above the limit of {limits.max_grounding_pairs}"
    )
    return Oversize("grounding_pairs", detail)
