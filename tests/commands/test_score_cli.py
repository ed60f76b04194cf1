"""`aem score`: formats, the CI gate, and one clear line for bad input (never a traceback)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from monitor.cli import main
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.integration  # runs `aem` processes (CONTRIBUTING.md)

AEM = str(Path(sys.executable).with_name("aem"))


def test_json_format_has_dialogs_and_summary(capsys):
    assert (
        main(
            [
                "score",
                str(EXAMPLES / "sales_report.json"),
                str(EXAMPLES / "sales_report_depends_on.json"),
                "--format",
                "json",
            ]
        )
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["dialogs"]) == 2
    summary = doc["summary"]
    assert summary["overall"]["success_rate"] == 0.2
    assert set(summary["by_release"]) == {"agent-v2", "unknown"}
    assert summary["by_failure_reason"] == {"prior_action_failed": 6, "inconsistent_parameter_values": 2}
    assert summary["by_attribution"] == {"cascading": 6, "root_cause": 2}
    assert summary["by_sub_metric"] == {"truthfulness": 8}
    assert summary["by_chain_length"]["3+"] == {"turns": 6, "passed": 0, "success_rate": 0.0}


def test_table_format_is_readable(capsys):
    assert main(["score", str(EXAMPLES / "sales_report.json"), "--format", "table"]) == 0
    out = capsys.readouterr().out
    assert "dialog sales_report" in out and "prior_action_failed" in out and "overall:" in out


def test_fail_under_gates(capsys):
    assert main(["score", str(EXAMPLES / "sales_report.json"), "--fail-under", "0.5"]) == 1
    assert main(["score", str(EXAMPLES / "sales_report.json"), "--fail-under", "0.2"]) == 0


def test_jsonl_input_and_release(tmp_path, capsys):
    turns = json.loads((EXAMPLES / "sales_report.json").read_text())
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(json.dumps({"dialog_id": f"d{i}", "release": "r9", "turns": turns}) for i in range(3)))
    assert main(["score", str(path)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["dialog_id"] for x in lines] == ["d0", "d1", "d2"] and {x["release"] for x in lines} == {"r9"}


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", ["bad.json", "invalid JSON", "line 1"]),
        (
            '{"dialog_id": "x1", "turns": [{"turn_no": 1, "turn": "Tool", "predict_turn": {"tool_id": "a"}}]}',
            ["bad.json", "dialog 'x1'", "turns[0].predict_turn.action", "Field required"],
        ),
        (
            '{"dialog_id": "x2", "turns": [{"turn_no": "one", "turn": "Agent", "predict_turn": {"response": "hi"}}]}',
            ["dialog 'x2'", "turns[0].turn_no"],
        ),
        (
            '{"dialog_id": "x3", "turns": [{"turn_no": 1, "turn": "Robot", "predict_turn": {"response": "hi"}}]}',
            ["dialog 'x3'", "turns[0].turn"],
        ),
        ("[]", ["bad.json", "empty"]),
        ('{"dialog_id": "x4"}', ["dialog 'x4'", "needs turns"]),
    ],
)
def test_bad_input_is_one_clear_line(tmp_path, content, expected):
    path = tmp_path / "bad.json"
    path.write_text(content)
    proc = subprocess.run([AEM, "score", str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    error = proc.stderr.strip().splitlines()[-1]
    for part in expected:
        assert part in error, error


def test_missing_file_is_a_clear_error(tmp_path, capsys):
    assert main(["score", str(tmp_path / "nope.json")]) == 2
    assert "nope.json" in capsys.readouterr().err


def test_table_explains_failures_and_draws_the_cascade(capsys):
    assert main(["score", str(EXAMPLES / "sales_report.json"), "--format", "table"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.startswith("  ")}
    assert "metric 'profit' vs gold 'revenue'" in rows["2"] and "inconsistent_parameter_values" in rows["2"]
    for turn in ("3", "4", "5"):
        assert "↳ caused by turn 2: metric 'profit' vs gold 'revenue'" in rows[turn], rows[turn]
        assert "prior_action_failed" in rows[turn]
    assert "dataset_id (inherited)" in rows["3"] and "report_id (inherited)" in rows["4"]
    assert " 0.00 " not in rows["3"]  # a cascade has no score of its own to misread


@pytest.mark.parametrize("name", ["empty.json", "empty.jsonl"])
@pytest.mark.parametrize("content", ["", "\n  \n"])
def test_empty_files_are_the_same_error_whatever_the_suffix(tmp_path, capsys, name, content):
    path = tmp_path / name
    path.write_text(content)
    assert main(["score", str(path)]) == 2
    assert capsys.readouterr().err.strip() == f"aem score: error: {path}: empty file: no dialogs"


def test_a_tool_catalog_is_recognised(capsys):
    assert main(["score", str(EXAMPLES / "catalogs" / "tools_catalog.json")]) == 2
    assert "tool catalog" in capsys.readouterr().err


def test_every_example_dialog_file_scores():
    proc = subprocess.run(
        [AEM, "score", *sorted(str(p) for p in EXAMPLES.glob("*.json")), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["dialogs"]) == len(list(EXAMPLES.glob("*.json")))


def test_messages_carry_no_library_prefix(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"dialog_id": "x4"}')
    proc = subprocess.run([AEM, "score", str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Value error" not in proc.stderr and "needs turns" in proc.stderr


def test_fail_under_without_scored_turns_says_so(tmp_path, capsys):
    path = tmp_path / "users.json"
    path.write_text(
        json.dumps({"dialog_id": "u", "turns": [{"turn_no": 1, "turn": "User", "predict_turn": {"content": "hi"}}]})
    )
    assert main(["score", str(path), "--fail-under", "0.5"]) == 1
    err = capsys.readouterr().err
    assert "no scored turns" in err and "None" not in err


def test_jsonl_streams_the_same_results_as_json(tmp_path, capsys):
    turns = json.loads((EXAMPLES / "sales_report.json").read_text())
    path = tmp_path / "many.jsonl"
    path.write_text("".join(json.dumps({"dialog_id": f"d{i}", "turns": turns}) + "\n" for i in range(600)))
    assert main(["score", str(path)]) == 0  # 600 dialogs: three chunks of at most 256
    streamed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert main(["score", str(path), "--format", "json"]) == 0
    whole = json.loads(capsys.readouterr().out)["dialogs"]
    assert streamed == whole and len(streamed) == 600


def test_a_dialog_without_a_release_is_unknown_everywhere(capsys):
    """examples/sales_report.json names no release: `unknown` in the JSON dialog, the summary and the table."""
    assert main(["score", str(EXAMPLES / "sales_report.json"), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["dialogs"][0]["release"] == "unknown" and list(doc["summary"]["by_release"]) == ["unknown"]
    assert main(["score", str(EXAMPLES / "sales_report.json"), "--format", "table"]) == 0
    table = capsys.readouterr().out
    assert "release=unknown" in table
    assert "overall: 1 dialog (0 passed), 5 scored turns" in table


def test_an_integer_too_large_for_a_float_is_scored_not_a_traceback(tmp_path):
    huge = "7" * 400
    dialog = (
        '{"dialog_id": "big", "turns": [{"turn_no": 1, "turn": "Tool",'
        f' "gold_turn": {{"tool_id": "pay", "action": "Transfer", "args": {{"amount": {huge}}}}},'
        f' "predict_turn": {{"tool_id": "pay", "action": "Transfer", "args": {{"amount": {huge}8}}}}}}]}}'
    )
    path = tmp_path / "big.json"
    path.write_text(dialog)
    proc = subprocess.run([AEM, "score", str(path)], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 0, proc.stderr
    [line] = proc.stdout.splitlines()
    [turn] = json.loads(line)["turns"]
    assert (turn["success"], turn["failure_reason"]) == (False, "inconsistent_parameter_values")
    assert turn["field"] == "amount"


@pytest.mark.parametrize(
    ("turn", "field"),
    [
        ({"turn_no": 1, "turn": "Tool", "predict_turn": {"tool_id": "a", "action": "b"}, "gold": {}}, "turns[0].gold"),
        (
            {"turn_no": 1, "turn": "Tool", "predict_turn": {"tool_id": "a", "action": "b", "arguments": {"x": 1}}},
            "turns[0].predict_turn.arguments",
        ),
    ],
)
def test_an_unknown_field_is_one_line_naming_file_dialog_and_field(tmp_path, turn, field):
    path = tmp_path / "typo.json"
    path.write_text(json.dumps({"dialog_id": "t1", "turns": [turn]}))
    proc = subprocess.run([AEM, "score", str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert f"typo.json: dialog 't1': field {field}: unknown field" in lines[0], lines[0]


def test_user_metadata_in_extra_is_accepted_and_not_scored(tmp_path, capsys):
    dialog = json.loads((EXAMPLES / "sales_report.json").read_text())
    tagged = {
        "dialog_id": "m1",
        "extra": {"ticket": "T-1"},
        "turns": [{**t, "extra": {"n": i}} for i, t in enumerate(dialog)],
    }
    plain = {"dialog_id": "m1", "turns": dialog}
    (tmp_path / "tagged.json").write_text(json.dumps(tagged))
    (tmp_path / "plain.json").write_text(json.dumps(plain))
    assert main(["score", str(tmp_path / "tagged.json")]) == 0
    with_meta = json.loads(capsys.readouterr().out)
    assert main(["score", str(tmp_path / "plain.json")]) == 0
    assert with_meta == json.loads(capsys.readouterr().out)


def test_a_read_only_action_in_the_tools_catalog_file_is_excused(tmp_path, capsys):
    """An extra `flights.status` lookup before the booking: `read_only` in the `--tools` file excuses it, as it
    does inline (the same engine serves `aem run --tools`)."""

    def call(action: str) -> dict:
        return {"tool_id": "flights", "action": action, "args": {"flight_id": "UA-100"}}

    dialog = {
        "dialog_id": "status-then-change",
        "gold_turns": [{"turn": "Tool", "gold_turn": call("change")}],
        "predict_turns": [
            {"turn": "Tool", "turn_no": 1, "predict_turn": call("status")},
            {"turn": "Tool", "turn_no": 2, "predict_turn": call("change")},
        ],
    }
    (tmp_path / "d.json").write_text(json.dumps(dialog))
    (tmp_path / "cat.json").write_text(
        json.dumps([
            {"tool_id": "flights", "action": "status", "read_only": True},
            {"tool_id": "flights", "action": "change"},
        ])
    )  # fmt: skip
    argv = ["score", str(tmp_path / "d.json"), "--format", "json"]
    main(argv)
    without = json.loads(capsys.readouterr().out)["dialogs"][0]
    assert without["total_failures"] == 2  # nothing says the lookup is harmless
    main([*argv, "--tools", str(tmp_path / "cat.json")])
    scored = json.loads(capsys.readouterr().out)["dialogs"][0]
    assert scored["total_failures"] == 0 and [t["success"] for t in scored["turns"]] == [True, True]



DUPLICATE_TURN = {
    "dialog_id": "dup",
    "turns": [
        {"turn_no": 1, "turn": "User", "predict_turn": {"content": "Cancel my booking."}},
        {"turn_no": 2, "turn": "Agent", "gold_turn": {"response": "Done."}, "predict_turn": {"response": "Done."}},
        {"turn_no": 2, "turn": "Agent", "gold_turn": {"response": "Bye."}, "predict_turn": {"response": "Bye."}},
    ],
}


@pytest.mark.parametrize("shape", ["aligned", "unaligned"])
@pytest.mark.parametrize("command", ["score", "replay"])
def test_a_duplicate_turn_number_is_one_error_line_in_score_and_replay(tmp_path, capsys, command, shape):
    """The stream would keep the first turn 2 and drop the second: neither command scores or sends such a file."""
    dialog = DUPLICATE_TURN
    if shape == "unaligned":
        turns = DUPLICATE_TURN["turns"]
        dialog = {
            "dialog_id": "dup",
            "gold_turns": [{"turn": "Agent", "gold_turn": {"response": "Done."}}],
            "predict_turns": [{k: v for k, v in t.items() if k != "gold_turn"} for t in turns],
        }
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(dialog))
    extra = ["--bootstrap-servers", "127.0.0.1:1"] if command == "replay" else []
    assert main([command, str(path), *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    message = "turn_no 2 appears twice: each turn needs its own number"
    assert captured.err.strip() == f"aem {command}: error: {path}: dialog 'dup': {message}"


def test_a_dialog_whose_turns_are_all_unscored_has_no_test_pass_and_the_table_says_why(tmp_path, capsys):
    huge = "word " * 3_000  # past the verifier's reply bound: unscored `too_large`, never judged
    dialog = {
        "dialog_id": "too-big",
        "turns": [
            {"turn_no": 1, "turn": "User", "predict_turn": {"content": "Summarise the contract."}},
            {"turn_no": 2, "turn": "Agent", "gold_turn": {"response": "Short."}, "predict_turn": {"response": huge}},
        ],
    }
    path = tmp_path / "big.json"
    path.write_text(json.dumps(dialog))
    main(["score", str(path), "--format", "json"])
    result = json.loads(capsys.readouterr().out)["dialogs"][0]
    assert (result["success_rate"], result["test_pass"], result["unscored_count"]) == (None, None, 1)
    assert [t["failure_reason"] for t in result["turns"]] == ["too_large"]
    main(["score", str(path), "--format", "table"])
    table = capsys.readouterr().out
    row = next(line.split() for line in table.splitlines() if "Agent" in line)
    assert row[:4] == ["2", "Agent", "unscored", "too_large"]
    assert "test_pass=-" in table
