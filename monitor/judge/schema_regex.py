"""JSON Schema validation of tool arguments that is safe on schemas the traffic brings (a trace event's `tools`).

Two things a schema can make a validator do are bounded here:

* **no network**: `$ref` resolves only inside the schema itself (a `referencing` registry with no
  retrieval); any other reference is unresolvable, so the call is `unscored` with that reason;
* **no backtracking**: `pattern`, `patternProperties` and the keys `additionalProperties` lets through
  are matched with RE2 (`google-re2`), whose matching time is linear in the text. A pattern RE2 cannot
  compile (backreferences, lookaround) makes the schema invalid (`SchemaProblem`), so calls to that
  action are `unscored` with the reason. `unevaluatedProperties` next to `patternProperties` is refused
  the same way: jsonschema would match those patterns with Python's backtracking `re`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

import re2
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator
from referencing import Registry

_NO_RETRIEVAL: Registry[Any] = Registry()  # no `retrieve`: a reference outside the schema is unresolvable
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
_NOT_SCHEMAS = frozenset({"const", "enum", "default", "examples"})  # values, not sub-schemas: not walked


class SchemaProblem(ValueError):
    """A schema this validator will not run (a pattern RE2 cannot compile, ...)."""


@lru_cache(maxsize=4096)
def compiled(pattern: str) -> Any:
    """The RE2 program of a pattern; raises SchemaProblem when RE2 cannot compile it."""
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as exc:
        raise SchemaProblem(f"pattern {pattern[:80]!r} is not supported (RE2 syntax: {exc})") from None


def search(pattern: str, text: str) -> bool:
    return compiled(pattern).search(text) is not None


def check_patterns(schema: Any) -> None:
    """Compile every pattern of a schema now (raises SchemaProblem), so validation never meets a bad one."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, Mapping):
            continue
        if isinstance(node.get("pattern"), str):
            compiled(node["pattern"])
        props = node.get("patternProperties")
        if isinstance(props, Mapping):
            for key in props:
                compiled(str(key))
            if "unevaluatedProperties" in node:
                raise SchemaProblem("unevaluatedProperties with patternProperties is not supported")
        stack.extend(v for k, v in node.items() if k not in _NOT_SCHEMAS)


def _pattern(validator: Validator, patrn: str, instance: Any, schema: Mapping[str, Any]) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not search(patrn, instance):
        yield ValidationError(f"{instance[:200]!r} does not match {patrn[:200]!r}")


def _pattern_properties(
    validator: Validator, patterns: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for patrn, subschema in patterns.items():
        for key, value in instance.items():
            if search(patrn, key):
                yield from validator.descend(value, subschema, path=key, schema_path=patrn)


def _additional_properties(
    validator: Validator, allowed: Any, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    declared = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = sorted(
        (k for k in instance if k not in declared and not any(search(p, k) for p in patterns)), key=str
    )
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        yield ValidationError(f"Additional properties are not allowed ({', '.join(map(repr, extras))} unexpected)")


SafeValidator = validators.extend(
    Draft202012Validator,
    {"pattern": _pattern, "patternProperties": _pattern_properties, "additionalProperties": _additional_properties},
)


def safe_validator(schema: Mapping[str, Any], format_checker: Any) -> Validator:
    """A Draft 2020-12 validator that never fetches and never backtracks (raises SchemaProblem)."""
    check_patterns(schema)
    validator: Validator = SafeValidator(schema, registry=_NO_RETRIEVAL, format_checker=format_checker)
    return validator
