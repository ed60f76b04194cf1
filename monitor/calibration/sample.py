"""Which verdicts people should check first: a sample stratified by release, turn type and verdict, the least
certain (closest to a cut) first, repeatable with a seed."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from itertools import zip_longest
from typing import Any

from monitor.calibration.cuts import CUTS, Cut, deciding_scores, margin, verifier_reading
from monitor.calibration.labels import ReviewRow
from monitor.models.dialog import Dialog
from monitor.sources.replay_ids import dialog_id_candidates

Payloads = dict[tuple[str, int | None], tuple[Any, Any]]  # (conversation, turn_no) -> (gold, predicted) as JSON


def verdict_word(success: bool | None) -> str:
    return "unscored" if success is None else ("pass" if success else "fail")


def review_row(
    record: Mapping[str, Any],
    config: Mapping[str, Any] | None = None,
    payloads: Payloads | None = None,
    cuts: Sequence[Cut] = CUTS,
) -> ReviewRow:
    """A review row of one turn verdict record (its head: conversation_id, agent, release)."""
    scores = deciding_scores(record, cuts)
    gold, pred = payload_of(payloads or {}, str(record["conversation_id"]), record.get("turn_no")) or (None, None)
    return ReviewRow(
        conversation_id=str(record["conversation_id"]),
        turn_no=record.get("turn_no"),
        turn=record["turn"],
        agent=record.get("agent") or "default",
        release=record.get("release"),
        gold_turn=gold,
        predict_turn=pred,
        verdict=verdict_word(record.get("success")),
        failure_reason=record.get("failure_reason"),
        detail=record.get("detail"),
        score=record.get("score"),
        scores=scores,
        reading=verifier_reading(record),
        margin=margin(scores, config, cuts),
        calibration_id=record.get("calibration_id"),
    )


def turn_records(score_output: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The turn verdicts of `aem score --format json` output, each with its dialog's head."""
    out: list[dict[str, Any]] = []
    for dialog in score_output.get("dialogs", []):
        head = {"conversation_id": dialog["dialog_id"], "agent": dialog.get("agent"), "release": dialog.get("release")}
        out += [{**head, **turn} for turn in dialog.get("turns", [])]
    return out


def payloads_of(dialogs: Iterable[Dialog]) -> Payloads:
    """Gold and predicted turns (as JSON) by (dialog, turn_no), for the review rows' context."""
    found: Payloads = {}
    for d in dialogs:
        if d.turns is not None:
            for t in d.turns:
                found[(d.dialog_id, t.turn_no)] = (_json(t.gold_turn), _json(t.predict_turn))
        else:
            gold = [_json(g.gold_turn) for g in d.gold_turns or []]
            for i, p in enumerate(d.predict_turns or []):
                found[(d.dialog_id, p.turn_no)] = (gold[i] if i < len(gold) else None, _json(p.predict_turn))
    return found


def payload_of(payloads: Payloads, conversation_id: str, turn_no: int | None) -> tuple[Any, Any] | None:
    """The gold and predicted turn of a verdict's turn: by its conversation id, or by the dialog id an
    `aem replay` conversation id names (`<dialog_id>-<run tag>`); None when the dialogs have no such turn."""
    for dialog_id in dialog_id_candidates(conversation_id):
        if (found := payloads.get((dialog_id, turn_no))) is not None:
            return found
    return None


def _json(payload: Any) -> Any:
    return payload.model_dump(mode="json", exclude_none=True) if payload is not None else None


def _stratum(row: ReviewRow) -> tuple[str, str, str]:
    return (row.release or "-", row.turn_type, row.verdict)


def pick(rows: Iterable[ReviewRow], limit: int, seed: int = 0) -> list[ReviewRow]:
    """Up to ``limit`` rows, taken in turn from every (release, turn type, verdict) stratum, each stratum's
    least certain first; returned least certain first (rows no cut decided last). The same seed, the same pick."""
    rng = random.Random(seed)
    strata: dict[tuple[str, str, str], list[ReviewRow]] = {}
    unique = {row.key: row for row in rows if row.turn_no is not None and row.verdict != "unscored"}
    for row in unique.values():
        strata.setdefault(_stratum(row), []).append(row)
    queues = []
    for key in sorted(strata):
        members = strata[key]
        rng.shuffle(members)  # ties (and rows no cut decided) in a seeded order
        queues.append(sorted(members, key=_certainty))
    rng.shuffle(queues)
    chosen = [row for layer in zip_longest(*queues) for row in layer if row is not None][:limit]
    return sorted(chosen, key=_certainty)


def _certainty(row: ReviewRow) -> float:
    return row.margin if row.margin is not None else float("inf")
