"""`aem run` settings: defaults < config file < AEM_* environment < flags."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from monitor.stream.settings import load_settings


def test_precedence(tmp_path):
    config = tmp_path / "monitor.yaml"
    config.write_text(
        "monitor:\n  topic: from-file\n  group_id: file-group\n  metrics_port: 1111\n"
        "scoring:\n  threshold: 0.6\n  side_effect_free: [weather]\n"
    )
    env = {
        "AEM_GROUP_ID": "env-group",
        "AEM_METRICS_PORT": "2222",
        "AEM_REFERENCE": "a.json,b.json",
        "AEM_JUDGE_URL": "http://127.0.0.1:9/v1",
    }
    settings = load_settings(config, environ=env, overrides={"metrics_port": 3333, "topic": None})
    assert settings.topic == "from-file"
    assert settings.group_id == "env-group"
    assert settings.metrics_port == 3333
    assert settings.reference == ["a.json", "b.json"]
    assert settings.scoring.threshold == 0.6 and settings.scoring.side_effect_free == ["weather"]
    assert settings.judge.url == "http://127.0.0.1:9/v1" and settings.judge.enabled
    assert settings.resolved_state_topic == "aem.state.env-group"


def test_defaults_and_bad_values():
    settings = load_settings(environ={})
    assert (settings.topic, settings.verdict_topic, settings.dlq_topic) == (
        "aem.traces",
        "aem.verdicts",
        "aem.traces.dlq",
    )
    assert settings.metrics_port == 9464 and settings.group_id == "aem-monitor"
    with pytest.raises(ValidationError):
        load_settings(environ={"AEM_METRICS_PORT": "not-a-port"})
    assert load_settings(environ={"AEM_STATE_TOPIC": ""}).resolved_state_topic == ""
