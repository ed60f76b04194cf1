"""`--format table`: a plain-text report for people."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from monitor.models.verdict import DialogResult


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _grid(headers: list[str], rows: list[list[Any]]) -> list[str]:
    cells = [[_fmt(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells]
    return out


def render_table(results: Sequence[DialogResult], summary: dict[str, Any]) -> str:
    lines: list[str] = []
    for result in results:
        lines.append(
            f"dialog {result.dialog_id}  release={_fmt(result.release)}  mode={result.mode}  "
            f"success_rate={_fmt(result.success_rate)}  test_pass={_fmt(result.test_pass)}  "
            f"root_cause={_fmt(result.root_cause)}  root_causes={result.root_cause_count}  "
            f"cascading={result.cascading_count}"
        )
        rows = [
            [
                t.turn_no if t.turn_no is not None else f"gold#{t.gold_index}",
                t.turn,
                "pass" if t.success else ("unscored" if t.success is None else "FAIL"),
                t.failure_reason,
                t.sub_metric,
                t.field,
                t.score,
                t.caused_by,
                t.chain_length,
            ]
            for t in result.turns
        ]
        headers = ["turn", "type", "verdict", "reason", "sub_metric", "field", "score", "caused_by", "chain"]
        lines += ["  " + row for row in _grid(headers, rows)]
        lines.append("")
    overall = summary["overall"]
    lines.append(
        f"overall: {overall['dialogs']} dialogs ({overall['dialogs_passed']} passed), "
        f"{overall['scored_turns']} scored turns, success_rate={_fmt(overall['success_rate'])}"
    )
    if len(summary["by_release"]) > 1 or "unknown" not in summary["by_release"]:
        rel_rows = [
            [name, t["dialogs"], t["scored_turns"], t["success_rate"], t["dialogs_passed"]]
            for name, t in summary["by_release"].items()
        ]
        lines += _grid(["release", "dialogs", "turns", "success_rate", "dialogs_passed"], rel_rows)
    if summary["by_failure_reason"]:
        lines.append("failures by reason: " + ", ".join(f"{k}={v}" for k, v in summary["by_failure_reason"].items()))
        lines.append("failures by attribution: " + ", ".join(f"{k}={v}" for k, v in summary["by_attribution"].items()))
    return "\n".join(lines)
