"""Read dialog files (JSON or JSONL, DESIGN.md §3 shapes) into validated `Dialog` models."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from monitor.models.dialog import Dialog, error_path


class InputError(ValueError):
    """Bad input, with where it is: file, dialog and field."""

    def __init__(self, file: str, message: str, dialog: str | None = None, field: str | None = None) -> None:
        self.file, self.dialog, self.field, self.message = file, dialog, field, message
        where = [file]
        if dialog is not None:
            where.append(f"dialog {dialog!r}")
        if field:
            where.append(f"field {field}")
        super().__init__(f"{': '.join(where)}: {message}")


def validation_error(file: str, dialog: str | None, error: ValidationError, prefix: str = "") -> InputError:
    first = error.errors(include_url=False)[0]
    field, message = error_path(tuple(first["loc"])), first["msg"]
    if first["type"] == "payload":  # an error inside a gold/predict payload: extend the path
        ctx = first.get("ctx", {})
        field = ".".join(p for p in (field, ctx.get("path")) if p)
        message = ctx.get("message", message)
    if prefix:
        field = f"{prefix}.{field}" if field else prefix
    return InputError(file, message, dialog=dialog, field=field or None)


def _is_turn_list(data: list[Any]) -> bool:
    return (
        bool(data)
        and all(isinstance(x, dict) for x in data)
        and "dialog_id" not in data[0]
        and ("turn" in data[0] or "turn_no" in data[0])
    )


def parse_dialog(obj: Any, file: str, position: str, default_id: str | None = None) -> Dialog:
    """Validate one dialog object, naming file, dialog and field on failure."""
    if not isinstance(obj, dict):
        raise InputError(file, f"expected a dialog object, got {type(obj).__name__}", dialog=position)
    data = dict(obj)
    if "dialog_id" not in data:
        if default_id is None:
            raise InputError(file, "missing dialog_id", dialog=position, field="dialog_id")
        data["dialog_id"] = default_id
    name = str(data.get("dialog_id"))
    try:
        return Dialog.model_validate(data)
    except ValidationError as exc:
        raise validation_error(file, name, exc) from None


def parse_document(data: Any, file: str, stem: str) -> list[Dialog]:
    """The dialogs in one parsed JSON document (any accepted shape)."""
    if isinstance(data, list):
        if not data:
            raise InputError(file, "empty list: no turns and no dialogs")
        if _is_turn_list(data):
            return [parse_dialog({"dialog_id": stem, "turns": data}, file, stem)]
        return [parse_dialog(obj, file, f"#{i}") for i, obj in enumerate(data)]
    if isinstance(data, dict):
        return [parse_dialog(data, file, "#0", default_id=stem)]
    raise InputError(file, f"expected a list or an object at the top level, got {type(data).__name__}")


def read_dialogs(path: str | Path) -> list[Dialog]:
    """All dialogs in a JSON or JSONL file."""
    path = Path(path)
    file = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(file, exc.strerror or str(exc)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(file, f"not valid UTF-8 (byte {exc.start})") from None
    if path.suffix.lower() == ".jsonl":
        return list(_read_jsonl(text, file, path.stem))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(file, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InputError(file, "JSON nested too deeply") from None
    return parse_document(data, file, path.stem)


def _read_jsonl(text: str, file: str, stem: str) -> Iterator[Dialog]:
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{file}:{lineno}", f"invalid JSON: {exc.msg} (column {exc.colno})") from None
        except RecursionError:
            raise InputError(f"{file}:{lineno}", "JSON nested too deeply") from None
        yield parse_dialog(obj, f"{file}:{lineno}", f"line {lineno}", default_id=f"{stem}-{lineno}")
