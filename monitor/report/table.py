"""`--format table`: a plain-text report for people.

A failed turn shows why (`detail`: predicted vs gold). A cascading turn is drawn as a consequence of its
root cause — `↳ caused by turn 2: metric 'profit' vs gold 'revenue'` — with its own field marked
inherited and no score of its own, so it never reads like a second, separate error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from monitor.models.verdict import DialogResult, TurnVerdict
from monitor.models.vocabulary import UNKNOWN_RELEASE


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 dialog`, `2 dialogs` (``many`` for an irregular plural)."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def grid(headers: list[str], rows: list[list[Any]]) -> list[str]:
    cells = [[fmt(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    out = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    out.append("  ".join("-" * w for w in widths))
    out += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    return out


def explain(verdict: TurnVerdict) -> str:
    """`metric 'profit' vs gold 'revenue'` from a detail such as `metric: 'profit' vs gold 'revenue'`."""
    detail = verdict.detail or verdict.failure_reason or ""
    if verdict.field and detail.startswith(f"{verdict.field}: "):
        return f"{verdict.field} {detail[len(verdict.field) + 2 :]}"
    return detail


def verdict_word(verdict: TurnVerdict) -> str:
    if verdict.success is None:
        return "unscored"
    return "pass" if verdict.success else "FAIL"


def turn_rows(turns: Sequence[TurnVerdict]) -> list[list[Any]]:
    by_turn = {t.turn_no: t for t in turns if t.turn_no is not None}
    rows: list[list[Any]] = []
    for t in turns:
        cascading = t.attribution == "cascading" and t.success is False
        detail: str | None
        if cascading:
            root = by_turn.get(t.caused_by) if t.caused_by is not None else None
            cause = explain(root) if root is not None else (t.symptom or "")
            detail = f"↳ caused by turn {t.caused_by}: {cause}".rstrip(": ")
            field: str | None = f"{t.field} (inherited)" if t.field else None
            score = None
        else:
            detail = explain(t) if t.success is False else (t.detail if t.success is None else None)
            field, score = t.field, t.score
        rows.append(
            [
                t.turn_no if t.turn_no is not None else f"gold#{t.gold_index}",
                t.turn,
                verdict_word(t),
                t.failure_reason if t.success is not True else None,  # an unscored turn's reason too
                t.sub_metric,
                field,
                score,
                t.chain_length,
                detail,
            ]
        )
    return rows


TURN_HEADERS = ["turn", "type", "verdict", "reason", "sub_metric", "field", "score", "chain", "detail"]


def dialog_header(result: DialogResult) -> str:
    return (
        f"dialog {result.dialog_id}  agent={result.agent}  release={fmt(result.release)}  mode={result.mode}  "
        f"success_rate={fmt(result.success_rate)}  test_pass={fmt(result.test_pass)}  "
        f"root_cause={fmt(result.root_cause)}  root_causes={result.root_cause_count}  "
        f"cascading={result.cascading_count}"
    )


def render_turns(turns: Sequence[TurnVerdict]) -> list[str]:
    return ["  " + row for row in grid(TURN_HEADERS, turn_rows(turns))]


def render_dialog(result: DialogResult) -> list[str]:
    return [dialog_header(result), *render_turns(result.turns)]


def render_summary(summary: dict[str, Any]) -> list[str]:
    overall = summary["overall"]
    lines = [
        f"overall: {plural(overall['dialogs'], 'dialog')} ({overall['dialogs_passed']} passed), "
        f"{plural(overall['scored_turns'], 'scored turn')}, success_rate={fmt(overall['success_rate'])}"
    ]
    if len(summary["by_release"]) > 1 or UNKNOWN_RELEASE not in summary["by_release"]:
        rel_rows = [
            [name, t["dialogs"], t["scored_turns"], t["success_rate"], t["dialogs_passed"]]
            for name, t in summary["by_release"].items()
        ]
        lines += grid(["release", "dialogs", "turns", "success_rate", "dialogs_passed"], rel_rows)
    if summary["by_failure_reason"]:
        lines.append("failures by reason: " + ", ".join(f"{k}={v}" for k, v in summary["by_failure_reason"].items()))
        lines.append("failures by attribution: " + ", ".join(f"{k}={v}" for k, v in summary["by_attribution"].items()))
    return lines


def render_table(results: Sequence[DialogResult], summary: dict[str, Any]) -> str:
    lines: list[str] = []
    for result in results:
        lines += [*render_dialog(result), ""]
    lines += render_summary(summary)
    return "\n".join(lines)
