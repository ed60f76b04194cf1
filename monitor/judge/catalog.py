"""The tool catalog of judge-only mode: JSON Schema per tool action, and the structural/completeness checks.

A catalog entry is ``{"tool_id", "action", "parameters": <JSON Schema of the arguments object>}``. Schemas
are checked with the Draft 2020-12 meta-schema when the catalog is built; an entry with a bad schema is
kept aside (:attr:`ToolCatalog.invalid`) so that a call to it is reported as unscored with the schema
error, rather than judged against a schema that means nothing.

Checks on a tool call, in contract order (docs/taxonomy.md), the first failing one names the failure:

1. unknown ``tool_id`` → ``tool_mismatch`` (structural, field ``tool_id``);
2. known tool, unknown ``action`` → ``action_mismatch`` (structural, field ``action``);
3. a ``required`` key absent → ``missing_parameters`` (completeness, field = the key);
4. a key outside ``properties`` → ``extra_parameters`` (completeness, field = the key). A schema that
   declares ``properties`` is treated as *closed* unless it says otherwise (``additionalProperties``
   true or a schema, or a matching ``patternProperties``): tool-calling catalogs (OpenAI functions, MCP)
   routinely omit ``additionalProperties`` while the tool ignores or rejects unknown keys, so an
   undeclared key is a fabricated parameter. A schema with no ``properties`` at all describes no
   arguments and allows any key;
5. any other schema violation on a value (type, enum, const, format, range, pattern, nested
   structure) → ``inconsistent_parameter_values`` (truthfulness, field = the top-level key).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError
from jsonschema.protocols import Validator
from pydantic import TypeAdapter
from pydantic import ValidationError as PydanticValidationError
from referencing.exceptions import Unresolvable

from monitor.judge.schema_regex import SchemaProblem, safe_validator, search
from monitor.models.dialog import ToolCall, ToolSpec, error_message, first_error
from monitor.models.vocabulary import FailureReason
from monitor.scoring.types import COMPLETENESS, STRUCTURAL, TRUTHFULNESS, CheckResult

_FORMAT_CHECKER = Draft202012Validator.FORMAT_CHECKER
# Violations of these keywords are reported as missing/extra keys by the catalog itself.
_KEY_KEYWORDS = frozenset({"required", "additionalProperties", "unevaluatedProperties"})


class CatalogError(ValueError):
    """A catalog that cannot be used: unreadable file, bad JSON, a bad entry or a bad JSON Schema."""


@dataclass(frozen=True)
class CatalogEntry:
    """One tool action with its compiled argument validator."""

    spec: ToolSpec
    validator: Validator  # never fetches a `$ref`, never backtracks on a pattern (schema_regex.py)

    @property
    def schema(self) -> Mapping[str, Any]:
        return self.spec.parameters

    def property_schema(self, key: str) -> Mapping[str, Any] | None:
        """The sub-schema of a top-level argument, when the schema declares one."""
        props = self.schema.get("properties")
        if isinstance(props, Mapping):
            sub = props.get(key)
            if isinstance(sub, Mapping):
                return sub
        return None

    def allows_key(self, key: str) -> bool:
        props = self.schema.get("properties")
        if not isinstance(props, Mapping):
            return True  # the schema describes no arguments: nothing to call extra
        if key in props:
            return True
        patterns = self.schema.get("patternProperties")
        if isinstance(patterns, Mapping) and any(search(p, key) for p in patterns):
            return True
        additional = self.schema.get("additionalProperties", False)  # absent → closed (see module doc)
        return additional is not False


@dataclass(frozen=True)
class CatalogProblem:
    """A catalog entry whose JSON Schema is not a valid Draft 2020-12 schema."""

    tool_id: str
    action: str
    error: str

    def __str__(self) -> str:
        return f"tool {self.tool_id!r} action {self.action!r}: invalid parameters schema: {self.error}"


def _schema_error_text(exc: SchemaError) -> str:
    where = "/".join(str(p) for p in exc.path)
    return f"{exc.message} (at parameters/{where})" if where else exc.message


@dataclass
class ToolCatalog:
    """Tool actions by ``(tool_id, action)``; later entries override earlier ones."""

    entries: dict[tuple[str, str], CatalogEntry] = field(default_factory=dict)
    invalid: dict[tuple[str, str], CatalogProblem] = field(default_factory=dict)

    @classmethod
    def from_specs(cls, specs: Iterable[ToolSpec], strict: bool = False) -> ToolCatalog:
        """Build a catalog; with ``strict`` a bad schema raises :class:`CatalogError`, else it is set aside."""
        catalog = cls()
        for spec in specs:
            catalog.add(spec, strict=strict)
        return catalog

    def add(self, spec: ToolSpec, strict: bool = False) -> None:
        key = (spec.tool_id, spec.action)
        try:
            Draft202012Validator.check_schema(spec.parameters)
            validator = safe_validator(spec.parameters, _FORMAT_CHECKER)
        except (SchemaError, SchemaProblem) as exc:
            text = _schema_error_text(exc) if isinstance(exc, SchemaError) else str(exc)
            problem = CatalogProblem(spec.tool_id, spec.action, text)
            if strict:
                raise CatalogError(str(problem)) from None
            self.entries.pop(key, None)
            self.invalid[key] = problem
            return
        self.invalid.pop(key, None)
        self.entries[key] = CatalogEntry(spec, validator)

    def merged(self, specs: Iterable[ToolSpec]) -> ToolCatalog:
        """A copy of this catalog with ``specs`` added on top (an event's tools override the configured file)."""
        out = ToolCatalog(dict(self.entries), dict(self.invalid))
        for spec in specs:
            out.add(spec)
        return out

    def __bool__(self) -> bool:
        return bool(self.entries) or bool(self.invalid)

    @property
    def tools(self) -> set[str]:
        return {tool for tool, _ in self.entries} | {tool for tool, _ in self.invalid}

    def actions(self, tool_id: str) -> set[str]:
        return {a for t, a in self.entries if t == tool_id} | {a for t, a in self.invalid if t == tool_id}

    def entry(self, tool_id: str, action: str) -> CatalogEntry | None:
        return self.entries.get((tool_id, action))

    def check(self, call: ToolCall) -> tuple[CheckResult | None, CatalogEntry | None]:
        """Structural and completeness checks, and schema validation of the values.

        Returns ``(failure, entry)``: ``failure`` is None when the call conforms to its schema;
        ``entry`` is the catalog entry the call resolved to (None when it resolved to none).
        """
        if call.tool_id not in self.tools:
            return (
                CheckResult.failed(
                    FailureReason.TOOL_MISMATCH,
                    STRUCTURAL,
                    "tool_id",
                    detail=f"unknown tool {call.tool_id!r}; catalog has {sorted(self.tools)}",
                ),
                None,
            )
        if call.action not in self.actions(call.tool_id):
            return (
                CheckResult.failed(
                    FailureReason.ACTION_MISMATCH,
                    STRUCTURAL,
                    "action",
                    detail=f"tool {call.tool_id!r} has no action {call.action!r}; "
                    f"it has {sorted(self.actions(call.tool_id))}",
                ),
                None,
            )
        problem = self.invalid.get((call.tool_id, call.action))
        if problem is not None:
            return CheckResult.unscored(str(problem)), None
        entry = self.entries[(call.tool_id, call.action)]
        return _check_against(entry, call.args), entry


def _check_against(entry: CatalogEntry, args: Mapping[str, Any]) -> CheckResult | None:
    schema = entry.schema
    required = schema.get("required")
    if isinstance(required, list) and required:
        missing = [k for k in required if isinstance(k, str) and k not in args]
        if missing:
            return CheckResult.failed(
                FailureReason.MISSING_PARAMETERS,
                COMPLETENESS,
                missing[0],
                score=1 - len(missing) / len(required),
                detail=f"missing required {missing}",
            )
    extra = [k for k in args if not entry.allows_key(k)]
    if extra:
        return CheckResult.failed(
            FailureReason.EXTRA_PARAMETERS,
            COMPLETENESS,
            extra[0],
            score=(len(args) - len(extra)) / len(args),
            detail=f"keys not in the schema {extra}",
        )
    try:
        errors = [e for e in entry.validator.iter_errors(dict(args)) if not _is_key_error(e)]
    except Unresolvable as exc:  # only references inside the schema are followed: nothing is fetched
        reason = f"parameters schema: $ref {str(exc)[:200]} (only references within the schema resolve)"
        return CheckResult.unscored(reason)
    nested_missing = [e for e in errors if e.validator == "required"]
    if nested_missing:
        first = nested_missing[0]
        return CheckResult.failed(
            FailureReason.MISSING_PARAMETERS,
            COMPLETENESS,
            _field_of(first, args),
            score=0.0,
            detail=f"{_path_of(first)}: {first.message}",
        )
    if not errors:
        return None
    order = {k: i for i, k in enumerate(args)}
    errors.sort(key=lambda e: order.get(_field_of(e, args) or "", len(order)))
    bad_fields = list(dict.fromkeys(_field_of(e, args) for e in errors))
    first = errors[0]
    key = _field_of(first, args)
    total = max(len(args), 1)
    return CheckResult.failed(
        FailureReason.INCONSISTENT_PARAMETER_VALUES,
        TRUTHFULNESS,
        key,
        score=max(0.0, 1 - len(bad_fields) / total),
        mismatched=tuple(args[k] for k in bad_fields if k is not None and k in args),
        detail=f"{_path_of(first)}: {first.message}",
    )


def _is_key_error(error: ValidationError) -> bool:
    """Top-level missing/extra key violations: the catalog reports those itself, in contract order."""
    return error.validator in _KEY_KEYWORDS and not error.absolute_path


def _field_of(error: ValidationError, args: Mapping[str, Any]) -> str | None:
    path = list(error.absolute_path)
    if path:
        return str(path[0])
    return None


def _path_of(error: ValidationError) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    return path or "(arguments)"


def parse_catalog(raw: Any, source: str = "tools") -> list[ToolSpec]:
    """Catalog entries from a decoded JSON value: a list of entries or ``{"tools": [...]}``."""
    entries = raw.get("tools") if isinstance(raw, Mapping) else raw
    if not isinstance(entries, list):
        raise CatalogError(f'{source}: a tool catalog is a JSON list of entries or {{"tools": [...]}}')
    try:
        return TypeAdapter(list[ToolSpec]).validate_python(entries)
    except PydanticValidationError as exc:
        first = first_error(exc)
        where = ".".join(str(p) for p in first["loc"])
        raise CatalogError(f"{source}: tools[{where}]: {error_message(first)}") from None


def load_catalog(path: str | Path, strict: bool = True) -> ToolCatalog:
    """Read and validate a catalog file (``--tools PATH``); errors name the file, entry and schema problem."""
    source = str(path)
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise CatalogError(f"{source}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise CatalogError(f"{source}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    specs = parse_catalog(raw, source)
    try:
        return ToolCatalog.from_specs(specs, strict=strict)
    except CatalogError as exc:
        raise CatalogError(f"{source}: {exc}") from None
