"""`aem score` loads the embedding model only when a text needs it: action turns decided by typed checks don't."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.integration  # runs `aem` processes (CONTRIBUTING.md)

PROBE = """
import sys
from monitor.cli import main
code = main(sys.argv[1:])
heavy = sorted(m for m in ("torch", "sentence_transformers", "transformers", "onnxruntime") if m in sys.modules)
print("HEAVY=" + ",".join(heavy), file=sys.stderr)
sys.exit(code)
"""


def _action_dialog(path, metric: str, title: str) -> None:
    gold = {"tool_id": "reports", "action": "Filter", "args": {"metric": "revenue", "limit": 5, "date": "2024-03-01"}}
    pred = {"tool_id": "reports", "action": "Filter", "args": {"metric": metric, "limit": "5", "date": "March 1, 2024"}}
    mail = {"tool_id": "mail", "action": "Send", "args": {"subject": "EU revenue report"}}
    sent = {"tool_id": "mail", "action": "Send", "args": {"subject": title}}
    turns = [
        {"turn_no": 1, "turn": "Tool", "gold_turn": gold, "predict_turn": pred},
        {"turn_no": 2, "turn": "Tool", "gold_turn": mail, "predict_turn": sent},
    ]
    path.write_text(json.dumps({"dialog_id": "actions", "turns": turns}))


def _score(path, encoder: str = "fp32") -> tuple[int, str, str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, "score", str(path)],
        capture_output=True, text=True, cwd=REPO, timeout=300,
        env=dict(os.environ, HF_HUB_OFFLINE="1", AEM_ENCODER=encoder),
    )
    heavy = next(line for line in proc.stderr.splitlines() if line.startswith("HEAVY="))
    return proc.returncode, proc.stdout, heavy.removeprefix("HEAVY=")


def test_action_turns_decided_by_typed_checks_import_no_model(tmp_path):
    path = tmp_path / "actions.json"
    _action_dialog(path, metric="profit", title="EU revenue report")
    code, out, heavy = _score(path)
    assert code == 0, out
    verdicts = json.loads(out)["turns"]
    assert [t["success"] for t in verdicts] == [False, True]  # profit != revenue; the same subject
    assert heavy == ""


def test_free_text_argument_loads_the_model(tmp_path):
    path = tmp_path / "actions.json"
    _action_dialog(path, metric="revenue", title="Report on EU revenue")
    code, out, heavy = _score(path)
    assert code == 0, out
    assert "sentence_transformers" in heavy.split(",")  # the subject line needs the semantic stage


def test_int8_encoder_runs_without_torch_once_its_export_is_cached(tmp_path):
    path = tmp_path / "actions.json"
    _action_dialog(path, metric="revenue", title="Report on EU revenue")
    first = _score(path, encoder="int8")  # builds the export (torch) unless an earlier test did
    code, out, heavy = _score(path, encoder="int8")
    assert first[0] == code == 0, out
    assert json.loads(out) == json.loads(first[1])
    assert heavy == "onnxruntime"
