"""`aem run --tools cat.json`: a lookup the catalog declares `read_only` is excused in the stream as in
`aem score` (tests/commands/test_score_cli.py), on a real broker with the monitor built from its settings."""

from __future__ import annotations

import json

import pytest

from monitor.models.dialog import Dialog
from monitor.tools.replay import dialog_events
from tests.support.kafka import MonitorThread, TopicSet, read_all, send, settings_for, verdicts

pytestmark = pytest.mark.integration


def call(action: str) -> dict:
    return {"tool_id": "flights", "action": action, "args": {"flight_id": "UA-100"}}


DIALOG = {
    "dialog_id": "status-then-change",
    "gold_turns": [{"turn": "Tool", "gold_turn": call("change")}],
    "predict_turns": [
        {"turn": "Tool", "turn_no": 1, "predict_turn": call("status")},
        {"turn": "Tool", "turn_no": 2, "predict_turn": call("change")},
    ],
}
CATALOG = [
    {"tool_id": "flights", "action": "status", "read_only": True},
    {"tool_id": "flights", "action": "change"},
]


def test_aem_run_excuses_a_lookup_the_tools_catalog_declares_read_only(broker, tmp_path):
    reference, catalog = tmp_path / "d.json", tmp_path / "cat.json"
    reference.write_text(json.dumps(DIALOG))
    catalog.write_text(json.dumps(CATALOG))
    topics = TopicSet.fresh(broker.bootstrap)
    settings = settings_for(broker.bootstrap, topics, reference=[str(reference)], tools=str(catalog))
    monitor = MonitorThread(settings, engine=None).start()  # the engine `aem run` builds, catalog included
    try:
        send(broker.bootstrap, topics.traces, list(dialog_events(Dialog.model_validate(DIALOG), "conv-1")))
        out = verdicts(read_all(broker.bootstrap, topics.verdicts, expect=3, timeout=120))
    finally:
        monitor.stop()
    turns = {v["turn_no"]: v for v in out if v["kind"] == "turn"}
    (summary,) = [v for v in out if v["kind"] == "dialog"]
    assert [turns[n]["success"] for n in (1, 2)] == [True, True], turns
    assert summary["total_failures"] == 0
