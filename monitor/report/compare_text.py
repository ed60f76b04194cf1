"""A release comparison for people: a terminal table or Markdown (for a release ticket)."""

from __future__ import annotations

from monitor.report.compare import Comparison, Dimension, Estimate, ReleaseSummary, Row


def percent(estimate: Estimate) -> str:
    """`90.8% [87.1, 93.5]`, or `-` when undefined."""
    if estimate.value is None or estimate.low is None or estimate.high is None:
        return "-"
    return f"{estimate.value * 100:.1f}% [{estimate.low * 100:.1f}, {estimate.high * 100:.1f}]"


def points(estimate: Estimate) -> str:
    """`-43.1 pts [-48.0, -37.9]`, or `-`."""
    if estimate.value is None or estimate.low is None or estimate.high is None:
        return "-"
    return f"{estimate.value * 100:+.1f} pts [{estimate.low * 100:+.1f}, {estimate.high * 100:+.1f}]"


def number(x: float | None) -> str:
    return "-" if x is None else f"{x:.2g}"


def verdict(row: Row) -> str:
    if row.worse:
        return "WORSE"
    if row.significant:
        return "better"
    return ""


def _summary_rows(c: Comparison) -> list[list[str]]:
    def one(s: ReleaseSummary) -> list[str]:
        row = [s.release, str(s.dialogs), str(s.scored_turns), str(s.unscored_turns), percent(s.correctness)]
        if c.calibration_id is not None:
            row.append(
                percent(s.corrected) if s.corrected is not None and s.corrected.value is not None else "undefined"
            )
        return row

    return [one(c.base), one(c.new)]


def _summary_head(c: Comparison) -> list[str]:
    if c.calibration_id is None:
        return SUMMARY_HEAD
    return [*SUMMARY_HEAD, f"corrected ({c.calibration_id})"]


def _change_rows(c: Comparison) -> list[list[str]]:
    return [
        [
            row.dimension.value,
            row.key,
            f"{row.base.k}/{row.base.n}",
            percent(row.base.rate),
            f"{row.new.k}/{row.new.n}",
            percent(row.new.rate),
            points(row.difference),
            number(row.p_value),
            number(row.q_value),
            verdict(row),
        ]
        for row in c.rows
    ]


def _change_head(c: Comparison) -> list[str]:
    return ["slice", "value", c.base.release, "rate", c.new.release, "rate", "change", "p", "q (BH)", ""]


SUMMARY_HEAD = ["release", "dialogs", "scored turns", "unscored", "correctness (95% CI)"]


def _aligned(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in [head, *rows]]


def _worse_examples(c: Comparison) -> list[tuple[Row, list[str]]]:
    return [(row, row.new.examples) for row in c.rows if row.worse and row.new.examples]


def _root_cause_lines(c: Comparison) -> list[str]:
    """The worse root causes (where to fix; most other worse rows are their cascades), with ids to open."""
    rows = {row.key: row for row in c.rows if row.dimension == Dimension.ROOT_CAUSE}
    out = []
    for key in c.worse_root_causes:
        row = rows[key]
        out.append(
            f"  {key}: {percent(row.base.rate)} -> {percent(row.new.rate)} of turns, "
            f"{points(row.difference)}, q {number(row.q_value)}; open: {' '.join(row.new.examples)}"
        )
    return out


def render_table(c: Comparison) -> str:
    lines = [f"release comparison: {c.base.release} -> {c.new.release}", ""]
    lines += _aligned(_summary_head(c), _summary_rows(c))
    lines.append(f"difference  {points(c.difference)}  z {number(c.z)}  p {number(c.p_value)}")
    worse = _root_cause_lines(c)
    lines += [
        "",
        f"root causes that got worse in {c.new.release}:" if worse else "no root cause got significantly worse",
    ]
    lines += worse
    lines += ["", f"changes, most significant first (q: Benjamini-Hochberg across {len(c.rows)} rows)"]
    lines += _aligned(_change_head(c), _change_rows(c))
    if c.new_root_causes:
        lines += ["", f"root causes new in {c.new.release}:"] + [f"  {cause}" for cause in c.new_root_causes]
    examples = _worse_examples(c)
    if examples:
        lines += ["", "conversations to open with `aem inspect ID` (worse slices):"]
        lines += [f"  {row.dimension.value} {row.key}: {' '.join(ids)}" for row, ids in examples]
    lines += ["", f"gate: {'FAIL' if c.gate.failed else 'pass'}: {c.gate.reason}"]
    return "\n".join(lines)


def _md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"

    return [line(head), "|" + "---|" * len(head), *(line(r) for r in rows)]


def render_markdown(c: Comparison) -> str:
    lines = [f"## Release comparison: `{c.base.release}` → `{c.new.release}`", ""]
    lines += _md_table(_summary_head(c), _summary_rows(c))
    lines += ["", f"**Difference:** {points(c.difference)} (z {number(c.z)}, p {number(c.p_value)})", ""]
    worse = _root_cause_lines(c)
    lines += [
        f"### Root causes that got worse in `{c.new.release}`" if worse else "No root cause got significantly worse."
    ]
    lines += ["", *(f"-{line[1:]}" for line in worse), ""] if worse else [""]
    lines += [f"### Changes, most significant first (q: Benjamini–Hochberg across {len(c.rows)} rows)", ""]
    lines += _md_table(_change_head(c), _change_rows(c))
    if c.new_root_causes:
        lines += ["", f"### Root causes new in `{c.new.release}`", ""]
        lines += [f"- `{cause}`" for cause in c.new_root_causes]
    examples = _worse_examples(c)
    if examples:
        lines += ["", "### Conversations to open (`aem inspect ID`)", ""]
        lines += [f"- {row.dimension.value} `{row.key}`: " + ", ".join(f"`{i}`" for i in ids) for row, ids in examples]
    lines += ["", f"**Gate:** {'FAIL' if c.gate.failed else 'pass'}: {c.gate.reason}"]
    return "\n".join(lines)
