"""The checks a session obtained, in the order it asked for them: recorded while a conversation is scored,
played back when it is restored, so a restored conversation continues from the verdicts that were sent.

Everything else a session does (alignment, set matching, attribution, chain buckets, composition) is a
function of these results and the turns, so playing them back in order rebuilds exactly the session that
produced them, without asking the verifier or the judge again. A model, a calibration file or a judge that
answers differently after the restart changes only the turns scored after it.

A tape that no longer fits the calls (another version of the scoring code asks in another order) is
abandoned at the first mismatch: the rest of the conversation is scored again, and a warning says so.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import structlog

from monitor.models.vocabulary import FailureReason, SubMetric
from monitor.scoring.types import CheckResult

log = structlog.get_logger(__name__)


class CheckKind(StrEnum):
    CHECK = "check"  # a verifier call: a predicted payload against a gold one
    JUDGE = "judge"  # a reference-free (LLM judge) check


@dataclass(frozen=True, slots=True)
class TapeEntry:
    kind: CheckKind
    result: CheckResult


@dataclass
class CheckTape:
    """`obtain` answers from the playback while it lasts, else computes; every answer is recorded."""

    recorded: list[TapeEntry] = field(default_factory=list)
    playback: deque[TapeEntry] = field(default_factory=deque)
    conversation: str = ""

    def obtain(self, kind: CheckKind, compute: Callable[[], CheckResult]) -> CheckResult:
        result = self._played(kind)
        if result is None:
            result = compute()
        self.recorded.append(TapeEntry(kind, result))
        return result

    def play(self, entries: Iterable[TapeEntry]) -> None:
        """Answer the next calls from `entries` (a turn's recorded checks), in order."""
        self.playback.extend(entries)

    def take(self) -> list[TapeEntry]:
        """What was recorded since the last call; a playback not used up is dropped (its turn is over)."""
        out, self.recorded = self.recorded, []
        self.playback.clear()
        return out

    def _played(self, kind: CheckKind) -> CheckResult | None:
        if not self.playback:
            return None
        entry = self.playback.popleft()
        if entry.kind == kind:
            return entry.result
        log.warning("restore_checks_mismatch", conversation=self.conversation, expected=kind, recorded=entry.kind)
        self.playback.clear()
        return None


# -- wire form (a changelog record's "checks": a list of compact objects) --------------------------------


def dump_entries(entries: Iterable[TapeEntry]) -> list[dict[str, Any]]:
    return [_dump(e) for e in entries]


def load_entries(docs: Any) -> list[TapeEntry]:
    """The entries of a changelog record; raises ValueError when they are not that shape."""
    if not isinstance(docs, list):
        raise ValueError("checks must be a list")
    return [_load(d) for d in docs]


def _dump(entry: TapeEntry) -> dict[str, Any]:
    r = entry.result
    doc: dict[str, Any] = {"k": entry.kind.value, "s": r.success}
    optional = {
        "r": r.failure_reason.value if r.failure_reason is not None else None,
        "m": r.sub_metric.value if r.sub_metric is not None else None,
        "f": r.field,
        "sc": r.score,
        "x": list(r.mismatched) if r.mismatched else None,
        "d": r.detail,
        "dc": r.decision,
    }
    doc.update({k: v for k, v in optional.items() if v is not None})
    return doc


def _load(doc: Any) -> TapeEntry:
    if not isinstance(doc, dict) or doc.get("s") not in (True, False, None):
        raise ValueError("a recorded check is an object with a success of true, false or null")
    reason, metric, decision = doc.get("r"), doc.get("m"), doc.get("dc")
    if decision is not None and not isinstance(decision, dict):
        raise ValueError("a recorded decision is an object")
    score = doc.get("sc")
    result = CheckResult(
        success=doc["s"],
        failure_reason=FailureReason(reason) if reason is not None else None,
        sub_metric=SubMetric(metric) if metric is not None else None,
        field=_text(doc.get("f")),
        score=float(score) if score is not None else None,
        mismatched=tuple(doc.get("x") or ()),
        detail=_text(doc.get("d")),
        decision=decision,
    )
    return TapeEntry(CheckKind(str(doc.get("k"))), result)


def _text(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ValueError("a recorded field or detail is a string")
    return value
