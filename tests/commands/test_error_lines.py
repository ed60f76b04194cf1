"""Bad input and bad options end in one line that says what is wrong and where, at once: a taken or impossible
metrics port, a malformed or empty bootstrap address, a refused connection (no wait; silence keeps the
timeout), a misspelt key in a dialog or a config file, a dialog file given where scores are expected,
two reference dialogs with one id."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

AEM = str(Path(sys.executable).with_name("aem"))
REPO = Path(__file__).resolve().parents[2]


def one_line(args: list[str], cwd: Path = REPO, timeout: float = 120) -> tuple[str, float]:
    """The one stderr line of a command that exits 2, and how long it took."""
    started = time.monotonic()
    proc = subprocess.run(
        [AEM, *args], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, cwd=cwd
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert proc.returncode == 2, proc.stdout + proc.stderr
    # `aem run` logs its start (broker_connected) before it reads the reference set: the error is one line
    lines = [line for line in proc.stderr.splitlines() if line.strip() and "[info " not in line]
    assert len(lines) == 1, proc.stderr
    return lines[0], elapsed


def _startup() -> float:
    """How long the command line takes to start on this machine (it varies with its load)."""
    started = time.monotonic()
    subprocess.run([AEM, "tail", "--help"], capture_output=True, check=True, timeout=120)
    return time.monotonic() - started


def test_a_metrics_port_in_use_names_the_port(tmp_path):
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line, _ = one_line(["demo", "--metrics-port", str(port), "--duration", "1", "--log-file", str(tmp_path / "l")])
    assert line.startswith("aem demo: error:") and f":{port}" in line and "--metrics-port" in line, line
    assert "[Errno" not in line


@pytest.mark.parametrize("command", [["demo"], ["run"]])
def test_an_impossible_metrics_port_is_one_option_error(command):
    proc = subprocess.run([AEM, *command, "--metrics-port", "99999"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.startswith(f"usage: aem {command[0]}")  # argparse's usage, then
    line = proc.stderr.strip().splitlines()[-1]  # one line of error
    assert line == f"aem {command[0]}: error: argument --metrics-port: 99999 is outside 0..65535", proc.stderr


@pytest.mark.parametrize("address", ["127.0.0.1:abc", "", "127.0.0.1:70000"])
def test_a_malformed_bootstrap_address_fails_at_once(address):
    line, elapsed = one_line(["tail", "aem.verdicts", "--bootstrap-servers", address, "--connect-timeout", "60"])
    assert line.startswith("aem tail: error:") and "bootstrap" in line and "int()" not in line, line
    assert ("no bootstrap address" in line) if not address else (repr(address) in line)
    assert elapsed < _startup() + 20  # not the 60 s timeout


def test_a_refused_connection_fails_at_once_and_silence_waits_the_timeout():
    line, elapsed = one_line(["tail", "aem.verdicts", "--bootstrap-servers", "127.0.0.1:1", "--connect-timeout", "60"])
    assert "127.0.0.1:1" in line and "connection refused" in line, line
    assert elapsed < _startup() + 20
    with socket.socket() as silent:  # accepts the TCP connection, never answers Kafka
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = f"127.0.0.1:{silent.getsockname()[1]}"
        line, elapsed = one_line(["tail", "aem.verdicts", "--bootstrap-servers", address, "--connect-timeout", "4"])
    assert address in line and "within 4 s" in line and elapsed >= 4, line


def test_a_misspelt_dialog_key_is_named(tmp_path):
    turn = {"turn_no": 1, "turn": "Agent", "gold_turn": {"respone": "hi"}, "predict_turn": {"response": "hi"}}
    dialog = {"dialog_id": "t1", "release": "v1", "turns": [turn]}
    (tmp_path / "typo.json").write_text(json.dumps(dialog))
    line, _ = one_line(["score", "typo.json"], cwd=tmp_path)
    assert "respone" in line and "gold_turn" in line, line


@pytest.mark.parametrize(
    ("command", "text", "path"),
    [
        (["run", "--bootstrap-servers", "127.0.0.1:1"], "monitor:\n  idle_timout_s: 5\n", "monitor.idle_timout_s"),
        (["run", "--bootstrap-servers", "127.0.0.1:1"], "monitor: {}\nscoring:\n  treshold: 0.2\n", "scoring.treshold"),
        (["run", "--bootstrap-servers", "127.0.0.1:1"], "idle_timout_s: 5\n", "idle_timout_s"),
        (["score", str(REPO / "examples/sales_report.json")], "scoring:\n  treshold: 0.2\n", "scoring.treshold"),
    ],
)
def test_a_misspelt_setting_is_named_by_its_path_in_the_file(tmp_path, command, text, path):
    (tmp_path / "cfg.yaml").write_text(text)
    line, _ = one_line([*command, "--config", "cfg.yaml"], cwd=tmp_path)
    assert f"cfg.yaml: field {path}: unknown setting" in line, line
    assert "extra" not in line  # the dialog files' metadata hint is not for config files


def test_review_of_a_dialog_file_says_it_expects_scores(tmp_path):
    dialog = json.loads((REPO / "examples/sales_report.json").read_text())
    (tmp_path / "dialogs.jsonl").write_text(json.dumps(dialog) + "\n" + json.dumps(dialog) + "\n")
    line, _ = one_line(["review", "dialogs.jsonl"], cwd=tmp_path)
    assert "expects `aem score --format json` output" in line and "--dialogs" in line, line


@pytest.mark.integration
def test_two_reference_dialogs_with_one_id_are_an_error(broker, tmp_path):
    (tmp_path / "copy.json").write_text((REPO / "examples/booking_reference.json").read_text())
    line, _ = one_line(
        ["run", "--bootstrap-servers", broker.bootstrap, "--metrics-port", "0", "--group-id", "dup-refs",
         "--reference", "copy.json", "--reference", str(REPO / "examples/booking_reference.json")],
        cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert "'booking'" in line and "also in copy.json" in line and "unique" in line, line
