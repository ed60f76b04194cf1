"""`input_format` and the `otlp` mapping keys: flag, environment and config file, and their errors."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from monitor.stream.settings import load_settings


def test_input_format_and_mapping_from_file_environment_and_flags(tmp_path):
    config = tmp_path / "monitor.yaml"
    config.write_text("monitor:\n  input_format: otlp_proto\n  otlp:\n    tool_id_attribute: mcp.server.name\n")
    from_file = load_settings(config, environ={})
    assert from_file.input_format == "otlp_proto" and from_file.otlp.tool_id_attribute == "mcp.server.name"
    assert from_file.otlp.reference_attribute == "aem.reference_id"
    from_env = load_settings(config, environ={"AEM_INPUT_FORMAT": "otlp_json"})
    assert from_env.input_format == "otlp_json"
    assert load_settings(config, environ={}, overrides={"input_format": "aem"}).input_format == "aem"
    assert load_settings(environ={}).input_format == "aem"


def test_unknown_input_format_or_mapping_key_is_an_error(tmp_path):
    with pytest.raises(ValidationError, match="input_format"):
        load_settings(environ={"AEM_INPUT_FORMAT": "zipkin"})
    config = tmp_path / "monitor.yaml"
    config.write_text("monitor:\n  otlp:\n    reference_attr: x\n")
    with pytest.raises(ValidationError, match="reference_attr"):
        load_settings(config, environ={})
