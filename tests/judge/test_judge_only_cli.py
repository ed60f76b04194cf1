"""End to end: the `aem` console script scores the judge-only example dialog (shape 4) through the real engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration  # runs `aem` processes (CONTRIBUTING.md)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "judge_only_booking.json"
CATALOG = ROOT / "examples" / "catalogs" / "tools_catalog.json"
AEM = Path(sys.executable).with_name("aem")


def aem(*argv: str) -> str:
    """Run `aem` in a subprocess (its own logging set-up, offline model) and return stdout."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("AEM_JUDGE_URL", None)
    done = subprocess.run([str(AEM), *argv], capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def jsonl(*argv: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in aem("score", *argv, "--format", "jsonl").splitlines() if line.strip()]


def by_turn(result: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {t["turn_no"]: t for t in result["turns"]}


@pytest.fixture(scope="module")
def edited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example without its own catalog, with an unknown action (turn 2) and an undeclared key (turn 9)."""
    dialog = json.loads(EXAMPLE.read_text())
    dialog.pop("tools")
    dialog["dialog_id"] = "edited"
    dialog["turns"][1]["predict_turn"]["action"] = "lookup"
    dialog["turns"][8]["predict_turn"]["args"]["tip"] = 412
    path = tmp_path_factory.mktemp("judge") / "edited.json"
    path.write_text(json.dumps(dialog))
    return path


def test_example_and_tools_flag(edited: Path) -> None:
    example, with_catalog = jsonl(str(EXAMPLE), str(edited), "--tools", str(CATALOG))

    assert example["dialog_id"] == "judge_only_booking"
    assert example["mode"] == "judge"
    assert example["first_failure_turn"] == 5
    assert example["root_cause"] == "inconsistent_parameter_values"
    turns = by_turn(example)
    assert sorted(turns) == [2, 3, 5, 6, 8, 9, 10, 12]  # user turns are never scored
    invented = turns[5]
    assert (invented["success"], invented["failure_reason"], invented["sub_metric"], invented["field"]) == (
        False,
        "inconsistent_parameter_values",
        "truthfulness",
        "flight_id",
    )
    assert invented["attribution"] == "root_cause"
    cascade = turns[6]
    assert (cascade["failure_reason"], cascade["caused_by"], cascade["attribution"], cascade["symptom"]) == (
        "prior_action_failed",
        5,
        "cascading",
        "inconsistent_response",
    )
    fee = turns[12]
    assert (fee["failure_reason"], fee["attribution"]) == ("inconsistent_response", "root_cause")
    assert "$35" in fee["detail"]
    assert all(turns[n]["success"] is True for n in (2, 3, 8, 9, 10))
    assert (turns[8]["chain_length"], turns[9]["chain_length"]) == ("2", "2")
    assert (example["root_cause_count"], example["cascading_count"], example["total_failures"]) == (2, 1, 3)
    assert example["success_rate"] == pytest.approx(5 / 8)
    assert example["test_pass"] is False

    # the same conversation with the catalog given by --tools: structure and completeness are checked
    turns = by_turn(with_catalog)
    assert with_catalog["mode"] == "judge"
    assert (turns[2]["failure_reason"], turns[2]["sub_metric"], turns[2]["field"]) == (
        "action_mismatch",
        "structural",
        "action",
    )
    assert (turns[9]["failure_reason"], turns[9]["sub_metric"], turns[9]["field"]) == (
        "extra_parameters",
        "completeness",
        "tip",
    )


def test_without_any_catalog_grounding_only(edited: Path) -> None:
    [result] = jsonl(str(edited))
    turns = by_turn(result)
    assert result["mode"] == "judge"
    assert turns[2]["success"] is True and "no tool catalog" in turns[2]["detail"]
    assert turns[9]["success"] is True  # 412 is grounded; without a schema "tip" is no extra key
    assert turns[5]["failure_reason"] == "inconsistent_parameter_values"


def test_table_output_names_judge_mode() -> None:
    out = aem("score", str(EXAMPLE), "--format", "table")
    assert "mode=judge" in out and "prior_action_failed" in out and "flight_id" in out
