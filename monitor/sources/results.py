"""Reading `aem score` output back: `--format json` (`{"dialogs": [...], "summary": ...}`) or `--format jsonl`
(one dialog result per line), validated as dialog results and kept in their JSON form."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from monitor.models.verdict import DialogResult
from monitor.sources.files import InputError, validation_error


def _documents(path: Path) -> list[Any] | None:
    """The dialog results the file holds, unvalidated, or None when it is not `aem score` output."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(path), str(getattr(exc, "strerror", None) or exc)) from None
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    except RecursionError:
        raise InputError(str(path), "JSON nested too deeply") from None
    if isinstance(data, dict) and isinstance(data.get("dialogs"), list) and "summary" in data:
        return list(data["dialogs"])
    if isinstance(data, dict) and "success_rate" in data and "dialog_id" in data:
        return [data]  # a JSONL output of one dialog
    if data is not None:
        return None
    lines = [line for line in text.splitlines() if line.strip()]
    try:
        first = json.loads(lines[0]) if lines else None
    except ValueError:
        return None
    if not (isinstance(first, dict) and "success_rate" in first and "turns" in first):
        return None
    out = []
    for number, line in enumerate(lines, 1):
        try:
            out.append(json.loads(line))
        except ValueError as exc:
            raise InputError(str(path), f"line {number} is not JSON: {exc}") from None
    return out


def is_score_output(path: str | Path) -> bool:
    """Whether the file is `aem score --format json|jsonl` output (else it may be a dialog file)."""
    return _documents(Path(path)) is not None


def read_results(path: str | Path) -> list[dict[str, Any]]:
    """The dialog results of an `aem score` output, each validated, in their JSON form."""
    path = Path(path)
    documents = _documents(path)
    if documents is None:
        raise InputError(str(path), "not `aem score --format json` or `--format jsonl` output")
    out = []
    for index, doc in enumerate(documents):
        dialog = doc.get("dialog_id") if isinstance(doc, dict) else None
        try:
            DialogResult.model_validate(doc)
        except ValidationError as exc:
            raise validation_error(str(path), str(dialog or f"#{index + 1}"), exc) from None
        out.append(doc)
    return out
