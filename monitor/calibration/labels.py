"""Review files and label records: one row per turn to check, with the verdict, its deciding scores and the
label people give (``pass`` or a failure reason). JSONL or CSV; unknown fields are refused, and every problem is
reported as one line naming the file, the row and the field.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from monitor.models.vocabulary import FailureReason, TurnType

PASS = "pass"
LABELS = (PASS, *(r.value for r in FailureReason if r not in (FailureReason.UNSCORED, FailureReason.TOO_LARGE)))
JSON_COLUMNS = ("gold_turn", "predict_turn", "scores", "reading")  # CSV cells holding JSON
# A spreadsheet reads a cell starting with one of these as a formula (=HYPERLINK(...), @SUM(...), +cmd|...):
# such cells are written with a leading ' (and so is a cell starting with ' itself, so reading is exact).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "'")
_PLAIN_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")


def escape_cell(value: object) -> object:
    """``value`` as a CSV cell no spreadsheet runs: a text starting like a formula gets a leading '."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def unescape_cell(cell: str) -> str:
    """The value `escape_cell` wrote."""
    return cell[1:] if cell.startswith("'") else cell


COLUMNS = (
    "conversation_id",
    "turn_no",
    "turn",
    "agent",
    "release",
    "gold_turn",
    "predict_turn",
    "verdict",
    "failure_reason",
    "detail",
    "score",
    "scores",
    "reading",
    "margin",
    "calibration_id",
    "label",
    "note",
)


class LabelError(ValueError):
    """A bad row: ``file: row N: field: message``."""

    def __init__(self, file: str, row: int | None, field: str | None, message: str) -> None:
        where = [file] + ([f"row {row}"] if row is not None else []) + ([field] if field else [])
        super().__init__(f"{': '.join(where)}: {message}")


class ReviewRow(BaseModel):
    """A turn to review (``aem review`` writes these) or a labelled one (people fill ``label``)."""

    model_config = ConfigDict(extra="forbid")

    conversation_id: str = Field(min_length=1)
    turn_no: int | None
    turn: TurnType
    agent: str = "default"
    release: str | None = None
    gold_turn: Any = None
    predict_turn: Any = None
    verdict: str  # pass / fail / unscored
    failure_reason: str | None = None
    detail: str | None = None
    score: float | None = None
    scores: dict[str, Annotated[float, Field(ge=0.0, le=1.0)]] = Field(default_factory=dict)  # by cut
    # the verifier's probabilities where it decided a reply (same / changed / dropped): a refit decision reads them
    reading: dict[Literal["same", "changed", "dropped"], Annotated[float, Field(ge=0.0, le=1.0)]] = Field(
        default_factory=dict
    )
    margin: float | None = None
    calibration_id: str | None = None
    label: str | None = None
    note: str | None = None

    @field_validator("label", mode="before")
    @classmethod
    def _known_label(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip() or None
        if value is not None and value not in LABELS:
            raise ValueError(f"unknown label {value!r}: use pass or a failure reason ({', '.join(LABELS[1:])})")
        return value

    @property
    def key(self) -> tuple[str, int | None]:
        return (self.conversation_id, self.turn_no)

    @property
    def people_fail(self) -> bool:
        return self.label != PASS

    @property
    def monitor_fail(self) -> bool:
        return self.verdict == "fail"

    @property
    def turn_type(self) -> str:
        return "action" if self.turn == TurnType.TOOL else "response"


class LabelRecord(BaseModel):
    """One labelled turn on the ``aem.labels`` topic (docs/label-records.md): the review row's fields, with
    ``label`` required and who gave it."""

    model_config = ConfigDict(extra="forbid")

    kind: str = Field("label", pattern="^label$")
    labelled_by: str | None = None
    labelled_at: str | None = None
    row: ReviewRow

    @field_validator("row")
    @classmethod
    def _labelled(cls, row: ReviewRow) -> ReviewRow:
        if row.label is None:
            raise ValueError("a label record needs a label")
        return row


def _field_of(error: ValidationError) -> tuple[str, str]:
    first = error.errors(include_url=False)[0]
    field = ".".join(str(p) for p in first["loc"]) or None
    message = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        message = "unknown field"
    return field or "-", message


def parse_row(data: Any, file: str, row: int) -> ReviewRow:
    if not isinstance(data, dict):
        raise LabelError(file, row, None, "a row must be a JSON object")
    try:
        return ReviewRow.model_validate(data)
    except ValidationError as exc:
        raise LabelError(file, row, *_field_of(exc)) from None


def _csv_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(newline="", encoding="utf-8") as fh:
        for n, raw in enumerate(csv.DictReader(fh), start=2):  # row 1 is the header
            data: dict[str, Any] = {}
            for key, cell in raw.items():
                if key is None:
                    raise LabelError(str(path), n, None, "more cells than columns")
                if cell is None or cell == "":
                    continue
                cell = unescape_cell(cell)
                if key in JSON_COLUMNS:
                    try:
                        cell = json.loads(cell)
                    except ValueError:
                        raise LabelError(str(path), n, key, "not JSON") from None
                data[key] = cell
            yield n, data


def _jsonl_rows(path: Path) -> Iterator[tuple[int, Any]]:
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                yield n, json.loads(line)
            except json.JSONDecodeError as exc:
                raise LabelError(str(path), n, None, f"not JSON ({exc.msg})") from None


def read_rows(path: str | Path) -> list[tuple[int, ReviewRow]]:
    """Every row of a review file with its row number (JSONL lines from 1; CSV data rows from 2)."""
    p = Path(path)
    if not p.is_file():
        raise LabelError(str(p), None, None, "no such file")
    rows = _csv_rows(p) if p.suffix.lower() == ".csv" else _jsonl_rows(p)
    return [(n, parse_row(data, str(p), n)) for n, data in rows]


def labelled(sources: Iterable[tuple[str, Sequence[tuple[int, ReviewRow]]]]) -> list[ReviewRow]:
    """The labelled rows of every source, refusing the same turn labelled twice."""
    seen: dict[tuple[str, int | None], str] = {}
    out: list[ReviewRow] = []
    for file, rows in sources:
        for n, row in rows:
            if row.label is None:
                continue
            if row.key in seen:
                raise LabelError(
                    file,
                    n,
                    "turn_no",
                    f"turn {row.turn_no} of {row.conversation_id!r} is labelled twice (also {seen[row.key]})",
                )
            seen[row.key] = f"{file} row {n}"
            out.append(row)
    return out


def write_jsonl(rows: Iterable[ReviewRow], path: Path) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(row.model_dump_json() + "\n")


def write_csv(rows: Iterable[ReviewRow], path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        for row in rows:
            data = row.model_dump(mode="json")
            for key in JSON_COLUMNS:
                data[key] = json.dumps(data[key], ensure_ascii=False) if data[key] not in (None, {}) else ""
            writer.writerow({k: "" if v is None else escape_cell(v) for k, v in data.items()})
