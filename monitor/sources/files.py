"""Read dialog files (JSON or JSONL, the shapes of docs/dialog-files.md) into validated `Dialog` models."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from monitor.models.dialog import Dialog, error_message, error_path, first_error


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


_LIBRARY_PREFIXES = ("Value error, ", "Assertion failed, ")


def plain_message(message: str) -> str:
    """A validation message without pydantic's `Value error, ` style prefix."""
    for prefix in _LIBRARY_PREFIXES:
        if message.startswith(prefix):
            return message[len(prefix) :]
    return message


def validation_error(file: str, dialog: str | None, error: ValidationError, prefix: str = "") -> InputError:
    first = first_error(error)
    field, message = error_path(tuple(first["loc"])), plain_message(error_message(first))
    if first["type"] == "payload":  # an error inside a gold/predict payload: extend the path
        ctx = first.get("ctx", {})
        field = ".".join(p for p in (field, ctx.get("path")) if p)
        message = plain_message(ctx.get("message", message))
    if prefix:
        field = f"{prefix}.{field}" if field else prefix
    return InputError(file, message, dialog=dialog, field=field or None)


def settings_error(file: str, error: ValidationError, section: str | None = None) -> InputError:
    """A config file's (or the flags') validation error: the setting's path from the top of the file
    (`monitor.idle_timout_s` when the file has a `monitor` section), a misspelt key an unknown setting."""
    found = validation_error(file, None, error, prefix=section or "")
    if first_error(error)["type"] == "extra_forbidden":
        return InputError(file, "unknown setting", field=found.field)
    return found


def _is_turn_list(data: list[Any]) -> bool:
    return (
        bool(data)
        and all(isinstance(x, dict) for x in data)
        and "dialog_id" not in data[0]
        and ("turn" in data[0] or "turn_no" in data[0])
    )


CATALOG_NOT_DIALOGS = "this is a tool catalog, not dialogs: pass it with --tools"


def _is_catalog_object(data: dict[str, Any]) -> bool:
    """`{"tools": [...]}` and no turns: a catalog file, not a dialog."""
    return isinstance(data.get("tools"), list) and not ({"turns", "gold_turns", "predict_turns"} & data.keys())


def _is_catalog(data: list[Any]) -> bool:
    """A list of `{tool_id, action, parameters?}` entries: the shape of a `--tools` catalog."""
    return all(isinstance(x, dict) and {"tool_id", "action"} <= x.keys() and "turn" not in x for x in data)


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
        if _is_catalog(data):
            raise InputError(file, CATALOG_NOT_DIALOGS)
        return [parse_dialog(obj, file, f"#{i}") for i, obj in enumerate(data)]
    if isinstance(data, dict):
        if _is_catalog_object(data):
            raise InputError(file, CATALOG_NOT_DIALOGS)
        return [parse_dialog(data, file, "#0", default_id=stem)]
    raise InputError(file, f"expected a list or an object at the top level, got {type(data).__name__}")


def read_dialogs(path: str | Path) -> list[Dialog]:
    """All dialogs in a JSON or JSONL file."""
    return list(iter_dialogs(path))


EMPTY_FILE = "empty file: no dialogs"


def iter_dialogs(path: str | Path) -> Iterator[Dialog]:
    """The dialogs of a JSON or JSONL file, in order. JSONL is streamed line by line (bounded memory);
    a JSON document is read whole. A file without any dialog is an error, whatever its suffix."""
    path = Path(path)
    file = str(path)
    if path.suffix.lower() == ".jsonl":
        yield from _stream_jsonl(path, file)
        return
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(file, exc.strerror or str(exc)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(file, f"not valid UTF-8 (byte {exc.start})") from None
    if not text.strip():
        raise InputError(file, EMPTY_FILE)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(file, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InputError(file, "JSON nested too deeply") from None
    yield from parse_document(data, file, path.stem)


def _stream_jsonl(path: Path, file: str) -> Iterator[Dialog]:
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InputError(file, exc.strerror or str(exc)) from None
    found = 0
    with handle:
        for lineno, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"{file}:{lineno}", f"not valid UTF-8 (byte {exc.start})") from None
            dialog = _parse_jsonl_line(line, file, lineno, path.stem)
            if dialog is not None:
                found += 1
                yield dialog
    if not found:
        raise InputError(file, EMPTY_FILE)


def _parse_jsonl_line(line: str, file: str, lineno: int, stem: str) -> Dialog | None:
    if not line.strip():
        return None
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{file}:{lineno}", f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise InputError(f"{file}:{lineno}", "JSON nested too deeply") from None
    return parse_dialog(obj, f"{file}:{lineno}", f"line {lineno}", default_id=f"{stem}-{lineno}")
