"""Catalog checks in contract order: tool, action, missing, extra, value violations; schema validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monitor.judge.catalog import CatalogError, ToolCatalog, load_catalog, parse_catalog
from monitor.models.dialog import ToolCall, ToolSpec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

SEARCH = ToolSpec(
    tool_id="flights",
    action="search",
    parameters={
        "type": "object",
        "properties": {
            "origin": {"type": "string"},
            "destination": {"type": "string"},
            "date": {"type": "string", "format": "date"},
            "cabin": {"type": "string", "enum": ["economy", "business"], "default": "economy"},
            "passengers": {"type": "integer", "minimum": 1},
        },
        "required": ["origin", "destination", "date"],
    },
)
BOOK = ToolSpec(
    tool_id="flights",
    action="book",
    parameters={
        "type": "object",
        "properties": {
            "flight_id": {"type": "string"},
            "passenger": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "email": {"type": "string"}},
                "required": ["name"],
            },
        },
        "required": ["flight_id"],
        "additionalProperties": True,
    },
)
OPEN = ToolSpec(tool_id="notes", action="add")  # default schema {"type": "object"}: no properties declared


@pytest.fixture
def catalog() -> ToolCatalog:
    return ToolCatalog.from_specs([SEARCH, BOOK, OPEN])


def call(action: str = "search", tool_id: str = "flights", **args: object) -> ToolCall:
    return ToolCall(tool_id=tool_id, action=action, args=args)


GOOD = {"origin": "San Francisco", "destination": "New York", "date": "2024-08-01"}


def test_conforming_call_has_no_failure_and_resolves_entry(catalog: ToolCatalog) -> None:
    failure, entry = catalog.check(call(**GOOD, cabin="business", passengers=2))
    assert failure is None
    assert entry is not None and entry.spec.action == "search"


def test_unknown_tool_is_tool_mismatch(catalog: ToolCatalog) -> None:
    failure, entry = catalog.check(call(tool_id="hotels", **GOOD))
    assert failure is not None and entry is None
    assert (failure.success, failure.failure_reason, failure.sub_metric, failure.field) == (
        False,
        "tool_mismatch",
        "structural",
        "tool_id",
    )
    assert "hotels" in (failure.detail or "")


def test_unknown_action_of_known_tool_is_action_mismatch(catalog: ToolCatalog) -> None:
    failure, _ = catalog.check(call(action="refund", **GOOD))
    assert failure is not None
    assert (failure.failure_reason, failure.sub_metric, failure.field) == ("action_mismatch", "structural", "action")
    assert "book" in (failure.detail or "") and "search" in (failure.detail or "")


def test_missing_required_is_missing_parameters_with_field(catalog: ToolCatalog) -> None:
    failure, _ = catalog.check(call(origin="San Francisco", destination="New York"))
    assert failure is not None
    assert (failure.failure_reason, failure.sub_metric, failure.field) == (
        "missing_parameters",
        "completeness",
        "date",
    )
    assert failure.score == pytest.approx(2 / 3)


def test_missing_comes_before_extra_and_wrong_values(catalog: ToolCatalog) -> None:
    failure, _ = catalog.check(call(origin=5, destination="New York", seat="12A"))
    assert failure is not None and failure.failure_reason == "missing_parameters"


def test_key_outside_properties_is_extra_when_additional_properties_absent(catalog: ToolCatalog) -> None:
    failure, _ = catalog.check(call(**GOOD, loyalty_number="X1"))
    assert failure is not None
    assert (failure.failure_reason, failure.sub_metric, failure.field) == (
        "extra_parameters",
        "completeness",
        "loyalty_number",
    )


def test_extra_key_allowed_when_schema_says_so(catalog: ToolCatalog) -> None:
    failure, _ = catalog.check(call(action="book", flight_id="UA-100", note="window seat"))
    assert failure is None


def test_schema_without_properties_accepts_any_key(catalog: ToolCatalog) -> None:
    failure, _ = catalog.check(call(tool_id="notes", action="add", text="hello", pinned=True))
    assert failure is None


def test_explicit_additional_properties_false_is_extra() -> None:
    spec = ToolSpec(
        tool_id="t",
        action="a",
        parameters={"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": False},
    )
    failure, _ = ToolCatalog.from_specs([spec]).check(call(tool_id="t", action="a", x="1", y="2"))
    assert failure is not None and (failure.failure_reason, failure.field) == ("extra_parameters", "y")


def test_pattern_properties_allow_matching_keys() -> None:
    spec = ToolSpec(
        tool_id="t",
        action="a",
        parameters={"type": "object", "properties": {}, "patternProperties": {"^x_": {"type": "string"}}},
    )
    catalog = ToolCatalog.from_specs([spec])
    assert catalog.check(call(tool_id="t", action="a", x_1="ok"))[0] is None
    failure, _ = catalog.check(call(tool_id="t", action="a", y="no"))
    assert failure is not None and failure.failure_reason == "extra_parameters"


def test_wrong_enum_is_inconsistent_parameter_values(catalog: ToolCatalog) -> None:
    failure, _ = catalog.check(call(**GOOD, cabin="first"))
    assert failure is not None
    assert (failure.failure_reason, failure.sub_metric, failure.field) == (
        "inconsistent_parameter_values",
        "truthfulness",
        "cabin",
    )
    assert failure.mismatched == ("first",)


def test_wrong_type_and_range_name_the_key(catalog: ToolCatalog) -> None:
    failure, _ = catalog.check(call(**GOOD, passengers="two"))
    assert failure is not None and (failure.failure_reason, failure.field) == (
        "inconsistent_parameter_values",
        "passengers",
    )
    failure, _ = catalog.check(call(**GOOD, passengers=0))
    assert failure is not None and failure.field == "passengers"


def test_format_is_checked(catalog: ToolCatalog) -> None:
    failure, _ = catalog.check(call(origin="San Francisco", destination="New York", date="August 1st, 2024"))
    assert failure is not None
    assert (failure.failure_reason, failure.field) == ("inconsistent_parameter_values", "date")


def test_first_bad_value_in_argument_order_names_the_field(catalog: ToolCatalog) -> None:
    failure, _ = catalog.check(call(origin=1, destination=2, date="2024-08-01"))
    assert failure is not None and failure.field == "origin"
    assert failure.mismatched == (1, 2)
    assert failure.score == pytest.approx(1 / 3)


def test_nested_required_is_missing_parameters(catalog: ToolCatalog) -> None:
    failure, _ = catalog.check(call(action="book", flight_id="UA-100", passenger={"email": "m@x.org"}))
    assert failure is not None
    assert (failure.failure_reason, failure.sub_metric, failure.field) == (
        "missing_parameters",
        "completeness",
        "passenger",
    )


def test_invalid_schema_is_set_aside_and_reported() -> None:
    bad = ToolSpec(tool_id="t", action="a", parameters={"type": "objekt"})
    catalog = ToolCatalog.from_specs([bad, SEARCH])
    assert ("t", "a") in catalog.invalid and ("t", "a") not in catalog.entries
    failure, _ = catalog.check(call(tool_id="t", action="a", x=1))
    assert failure is not None and failure.success is None and failure.failure_reason == "unscored"
    assert "'t'" in (failure.detail or "") and "invalid parameters schema" in (failure.detail or "")
    with pytest.raises(CatalogError, match="tool 't' action 'a': invalid parameters schema"):
        ToolCatalog.from_specs([bad], strict=True)


def test_later_entries_override_and_merge_keeps_base() -> None:
    base = ToolCatalog.from_specs([SEARCH])
    strict_search = ToolSpec(
        tool_id="flights",
        action="search",
        parameters={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
    )
    merged = base.merged([strict_search, BOOK])
    assert merged.check(call(**GOOD))[0] is not None  # the override applies
    assert base.check(call(**GOOD))[0] is None  # the base is untouched
    assert merged.entry("flights", "book") is not None


def test_empty_catalog_is_falsy() -> None:
    assert not ToolCatalog()
    assert ToolCatalog.from_specs([SEARCH])


def test_load_catalog_accepts_list_and_tools_object(tmp_path: Path) -> None:
    entries = [SEARCH.model_dump(), BOOK.model_dump()]
    as_list = tmp_path / "list.json"
    as_list.write_text(json.dumps(entries))
    as_obj = tmp_path / "obj.json"
    as_obj.write_text(json.dumps({"tools": entries}))
    for path in (as_list, as_obj):
        catalog = load_catalog(path)
        assert set(catalog.entries) == {("flights", "search"), ("flights", "book")}


def test_load_catalog_errors_name_file_and_problem(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(CatalogError, match=r"broken\.json: invalid JSON at line 1"):
        load_catalog(broken)
    bad_schema = tmp_path / "bad_schema.json"
    bad_schema.write_text(json.dumps([{"tool_id": "t", "action": "a", "parameters": {"required": "x"}}]))
    with pytest.raises(CatalogError, match=r"bad_schema\.json: tool 't' action 'a': invalid parameters schema"):
        load_catalog(bad_schema)
    missing_field = tmp_path / "missing.json"
    missing_field.write_text(json.dumps([{"tool_id": "t"}]))
    with pytest.raises(CatalogError, match=r"missing\.json: tools\[0\.action\]"):
        load_catalog(missing_field)
    with pytest.raises(CatalogError, match="no_such_file"):
        load_catalog(tmp_path / "no_such_file.json")
    with pytest.raises(CatalogError, match="JSON list"):
        parse_catalog({"tool": []}, "x.json")


def test_example_catalog_is_valid() -> None:
    catalog = load_catalog(EXAMPLES / "catalogs" / "tools_catalog.json")
    assert ("payments", "charge") in catalog.entries
    assert not catalog.invalid


def _spec(action: str, parameters: dict) -> ToolSpec:
    return ToolSpec(tool_id="t", action=action, parameters=parameters)


def test_a_ref_outside_the_schema_is_never_fetched_and_the_call_is_unscored() -> None:
    import http.server
    import threading

    hits: list[str] = []

    class Recorder(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b'{"type": "integer"}')

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/schema.json"
        outside = _spec("remote", {"type": "object", "properties": {"n": {"$ref": url}}})
        inside = _spec(
            "local", {"type": "object", "$defs": {"n": {"type": "integer"}}, "properties": {"n": {"$ref": "#/$defs/n"}}}
        )
        catalog = ToolCatalog.from_specs([outside, inside])
        failure, _ = catalog.check(ToolCall(tool_id="t", action="remote", args={"n": "x"}))
        assert failure is not None and failure.failure_reason == "unscored" and "$ref" in (failure.detail or "")
        assert catalog.check(ToolCall(tool_id="t", action="local", args={"n": 3}))[0] is None
        failure, _ = catalog.check(ToolCall(tool_id="t", action="local", args={"n": "x"}))
        assert failure is not None and failure.failure_reason == "inconsistent_parameter_values"
    finally:
        server.shutdown()
    assert hits == []


def test_catastrophic_patterns_match_in_linear_time() -> None:
    nested = _spec("p", {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}})
    keys = _spec("k", {"type": "object", "properties": {}, "patternProperties": {"^(a+)+$": {"type": "integer"}}})
    catalog = ToolCatalog.from_specs([nested, keys])
    failure, _ = catalog.check(ToolCall(tool_id="t", action="p", args={"s": "a" * 5_000 + "b"}))
    assert failure is not None and failure.failure_reason == "inconsistent_parameter_values"
    assert catalog.check(ToolCall(tool_id="t", action="p", args={"s": "a" * 5_000}))[0] is None
    failure, _ = catalog.check(ToolCall(tool_id="t", action="k", args={"a" * 5_000 + "b": 1}))
    assert failure is not None and failure.failure_reason == "extra_parameters"
    failure, _ = catalog.check(ToolCall(tool_id="t", action="k", args={"a" * 5_000: "x"}))
    assert failure is not None and failure.failure_reason == "inconsistent_parameter_values"


def test_a_pattern_that_needs_backtracking_makes_the_schema_invalid() -> None:
    catalog = ToolCatalog.from_specs([_spec("b", {"type": "string", "pattern": "(a)\\1"})])
    failure, _ = catalog.check(ToolCall(tool_id="t", action="b", args={}))
    assert failure is not None and failure.failure_reason == "unscored" and "not supported" in (failure.detail or "")
    with pytest.raises(CatalogError, match="not supported"):
        ToolCatalog.from_specs([_spec("b", {"type": "string", "pattern": "(?=a)a"})], strict=True)
