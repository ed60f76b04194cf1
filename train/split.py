"""The sealed split: every data file is cut into a *work* part and a *sealed* part by a hash, before anyone
reads an example.

A record is sealed when the first 8 hex digits of ``sha256("aem-sealed-v1:" + key)`` fall in the lowest 20 %.
The key is the record's identity: the dialogue id for Schema-Guided Dialogue turns (so one dialogue never sits on
both sides), the text pair for the pair files. Design, training and tuning read the work part only; the
sealed part is scored once, in aggregate, by ``benchmarks/accuracy_replies.py``.

The two dev pair files (the SGD reply pairs, STS-B dev) have their work part cut again, by
``sha256("aem-tune-v1:" + key)``, into a *fit* half (trained on) and a *tune* half (chooses the reply cut), so
that the reply cut is not chosen on pairs the model learnt. BEGIN dev is not halved: its 624 graded work rows
are the only grounding labels, and a model trained on half of them read the other half at 0.60-0.69 balanced;
its work part is trained on whole, so the grounding cut is chosen on pairs the model learnt (docs/verifier.md).
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

SALT = "aem-sealed-v1:"
SEALED_SHARE = 0.20
DATA_DIR = Path(__file__).resolve().parents[1] / "benchmarks" / "data"


def is_sealed(key: str) -> bool:
    """Whether the record with this identity belongs to the sealed part."""
    digest = hashlib.sha256((SALT + key).encode("utf-8")).hexdigest()
    return int(digest[:8], 16) < SEALED_SHARE * 0x1_0000_0000


def pair_key(first: str, second: str) -> str:
    """The identity of a text pair (order kept: the files are directional)."""
    return f"{first}\x1f{second}"


TUNE_SALT = "aem-tune-v1:"
PARTS = ("work", "sealed", "fit", "tune")


def is_tune(key: str) -> bool:
    """Whether a work-part record of a file that is both trained on and tuned on belongs to its *tune* half."""
    digest = hashlib.sha256((TUNE_SALT + key).encode("utf-8")).hexdigest()
    return int(digest[:8], 16) < 0x8000_0000


def _keep(sealed: bool, part: str, key: str | None = None) -> bool:
    """Whether a record is in `part`: ``work`` / ``sealed``, or a half of the work part, ``fit`` (trained on) /
    ``tune`` (chooses the cuts), for files that are cut again (`key` given)."""
    if part not in PARTS:
        raise ValueError(f"part must be one of {', '.join(PARTS)}, not {part!r}")
    if part in ("work", "sealed") or sealed:
        return sealed == (part == "sealed")
    return key is None or is_tune(key) == (part == "tune")


def sgd_turns(part: str, data: Path = DATA_DIR) -> Iterator[dict[str, Any]]:
    """SGD train-split system turns of one part, split by dialogue id."""
    with gzip.open(data / "sgd_system_turns_train.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            turn = json.loads(line)
            if _keep(is_sealed(turn["dialogue_id"]), part):
                yield turn


def sgd_reply_pairs(part: str, data: Path = DATA_DIR) -> Iterator[dict[str, Any]]:
    """The SGD reply pairs file (same / changed / dropped), one part."""
    with (data / "sgd_reply_pairs_dev.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            pair = json.loads(line)
            key = pair_key(pair["gold"], pair["predicted"])
            if _keep(is_sealed(key), part, key):
                yield pair


def stsb(part: str, file: str, data: Path = DATA_DIR) -> Iterator[tuple[str, str, float]]:
    """STS-B pairs (``stsb_en_train.csv`` or ``stsb_en_dev.csv``), one part: (sentence1, sentence2, score)."""
    with (data / file).open(encoding="utf-8", newline="") as handle:
        for a, b, score in csv.reader(handle):  # no header row: sentence1, sentence2, score
            key = pair_key(a, b)
            if _keep(is_sealed(key), part, key):
                yield a, b, float(score)


def begin(part: str, data: Path = DATA_DIR) -> Iterator[dict[str, str]]:
    """BEGIN dev rows, one part: source, knowledge, message, response, label."""
    with (data / "begin_dev.tsv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            if _keep(is_sealed(pair_key(row["knowledge"], row["response"])), part):
                yield row


# The entailment and grounding files. Keys group what must not straddle the cut: a premise (MultiNLI pairs
# several hypotheses with one premise; Breaking NLI edits one premise many ways), a document (SummEdits writes
# several summaries of one document), a dialogue (CI-ToD).


def _jsonl_part(name: str, key: Callable[[dict[str, Any]], str], part: str, data: Path) -> Iterator[dict[str, Any]]:
    """The records of one gzipped JSON-lines file in ``part``, each cut by ``key(record)``."""
    with gzip.open(data / name, "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if _keep(is_sealed(key(row)), part):
                yield row


def nli(part: str, data: Path = DATA_DIR) -> Iterator[dict[str, Any]]:
    """MultiNLI + FEVER binary entailment pairs, one part, split by premise."""
    return _jsonl_part("nli_mnli_fever_binary.jsonl.gz", lambda r: "nli:" + r["premise"], part, data)


def breaking_nli(part: str, data: Path = DATA_DIR) -> Iterator[dict[str, Any]]:
    """Breaking NLI one-word-swap pairs, one part, split by premise."""
    return _jsonl_part("breaking_nli.jsonl.gz", lambda r: "breaking:" + r["premise"], part, data)


def summedits(part: str, data: Path = DATA_DIR) -> Iterator[dict[str, Any]]:
    """SummEdits document / summary pairs, one part, split by document."""
    return _jsonl_part("summedits.jsonl.gz", lambda r: "summedits:" + r["doc"], part, data)


def citod(part: str, data: Path = DATA_DIR) -> Iterator[dict[str, Any]]:
    """CI-ToD in-car dialogues with their knowledge-base tables, one part, split by file and dialogue id."""
    return _jsonl_part("citod_train_dev.jsonl.gz", lambda r: f"citod:{r['file']}:{r['id']}", part, data)
