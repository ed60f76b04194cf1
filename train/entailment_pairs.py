"""Training pairs from the entailment and grounding files (work parts only, ``train/split.py``).

Labels as in ``train/build_pairs.py``: ``0`` same, ``1`` changed (the premise does not support it), ``2`` dropped
(supported, saying less than the premise). Sources:

* ``nli``: MultiNLI and FEVER pairs; entailment is supported (dropped), not-entailment is changed.
* ``breaking``: Breaking NLI's one-word swaps; a synonym swap is the same, every other swap (antonyms,
  co-hyponyms, numbers, countries…) and every contradiction is changed; other entailments are supported.
* ``summedits``: a summary against the sentences of its document that share most words with it (the claim
  against its evidence chunk, as the monitor reads long premises); consistent is supported, an edit is changed.
* ``citod``: an in-car assistant's last reply against the driver's last turn and the knowledge-base rows that
  share most words with it, rendered as ``field: value`` sentences; consistent with the table is supported,
  contradicting it is changed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from train import split

SAME, CHANGED, DROPPED = 0, 1, 2
TARGETS = {"nli_supported": 6000, "nli_unsupported": 6000, "breaking_changed": 4000}
SUMMEDITS_COPIES = 2
CITOD_COPIES = 3
CHUNK_SENTENCES = 3
_WORD = re.compile(r"[a-z0-9]+")
_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")


def _pair(premise: str, hypothesis: str, label: int, source: str) -> dict[str, Any]:
    return {"premise": premise, "hypothesis": hypothesis, "label": label, "source": source}


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def closest(sentences: list[str], claim: str, k: int = CHUNK_SENTENCES) -> list[str]:
    """The `k` sentences sharing most words with the claim, in their original order."""
    words = _words(claim)
    ranked = sorted(range(len(sentences)), key=lambda i: -len(words & _words(sentences[i])))[:k]
    return [sentences[i] for i in sorted(ranked)]


def nli_pairs(rows: list[dict[str, Any]], rng: random.Random) -> Iterator[dict[str, Any]]:
    supported = [r for r in rows if r["label"] == "entailment"]
    unsupported = [r for r in rows if r["label"] != "entailment"]
    for r in rng.sample(supported, min(len(supported), TARGETS["nli_supported"])):
        yield _pair(r["premise"], r["hypothesis"], DROPPED, "nli")
    for r in rng.sample(unsupported, min(len(unsupported), TARGETS["nli_unsupported"])):
        yield _pair(r["premise"], r["hypothesis"], CHANGED, "nli")


def breaking_pairs(rows: list[dict[str, Any]], rng: random.Random) -> Iterator[dict[str, Any]]:
    entailed = [r for r in rows if r["label"] == "entailment"]
    changed = [r for r in rows if r["label"] != "entailment"]
    for r in entailed:
        yield _pair(r["premise"], r["hypothesis"], SAME if r["category"] == "synonyms" else DROPPED, "breaking")
    for r in rng.sample(changed, min(len(changed), TARGETS["breaking_changed"])):
        yield _pair(r["premise"], r["hypothesis"], CHANGED, "breaking")


def summedits_pairs(rows: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for r in rows:
        sentences = [s.strip() for s in _SPLIT.split(r["doc"]) if s.strip()]
        chunk = " ".join(closest(sentences, r["summary"]))
        label = DROPPED if int(r["label"]) == 1 else CHANGED
        for _ in range(SUMMEDITS_COPIES):
            yield _pair(chunk, r["summary"], label, "summedits")


def kb_sentences(kb: dict[str, Any]) -> list[str]:
    """A knowledge-base table as one ``field: value`` sentence per row (``-`` cells left out)."""
    rows = []
    for item in kb.get("items") or []:
        cells = [f"{k.replace('_', ' ')}: {str(v).replace('_', ' ')}" for k, v in item.items() if v not in ("-", "")]
        if cells:
            rows.append("; ".join(cells) + ".")
    return rows


def citod_pairs(rows: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for r in rows:
        table = kb_sentences(r["kb"])
        turns = r["dialogue"]
        if not table or not turns or turns[-1]["turn"] != "assistant":
            continue
        if r["kb_inconsistent"]:
            label = CHANGED
        elif not (r["query_inconsistent"] or r["history_inconsistent"]):
            label = DROPPED
        else:
            continue
        reply = turns[-1]["utterance"].replace("_", " ")
        asked = next((t["utterance"] for t in reversed(turns[:-1]) if t["turn"] == "driver"), "").replace("_", " ")
        premise = f"User: {asked}\nTool result: " + " ".join(closest(table, asked + " " + reply))
        for _ in range(CITOD_COPIES):
            yield _pair(premise, reply, label, "citod")


def build(rng: random.Random, data: Path = split.DATA_DIR) -> list[dict[str, Any]]:
    pairs = list(nli_pairs(list(split.nli("work", data)), rng))
    pairs += breaking_pairs(list(split.breaking_nli("work", data)), rng)
    pairs += summedits_pairs(list(split.summedits("work", data)))
    pairs += citod_pairs(list(split.citod("work", data)))
    return pairs
