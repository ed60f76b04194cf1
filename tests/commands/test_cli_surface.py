"""The command line itself: --version, help with defaults and exit codes, option ranges, fail-fast errors."""

from __future__ import annotations

import argparse
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from monitor.cli import COMMANDS, build_parser, main

pytestmark = pytest.mark.integration  # runs `aem` processes (CONTRIBUTING.md)

AEM = str(Path(sys.executable).with_name("aem"))
NAMES = ["score", "review", "calibrate", "run", "replay", "demo", "broker", "tail", "inspect", "redrive", "compare"]
UNREACHABLE = "127.0.0.1:1"


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("aem 0.")


def test_every_command_is_registered():
    assert len(COMMANDS) == len(NAMES)
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    choices = sub.choices
    assert sorted(choices) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_help_shows_defaults_and_exit_codes(name, capsys):
    with pytest.raises(SystemExit):
        main([name, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "exit codes:" in text
    assert "0 " in text.split("exit codes:")[1]
    assert "default" in text


def test_run_help_names_the_default_bootstrap(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "127.0.0.1:9092" in text and "AEM_BOOTSTRAP_SERVERS" in text and "--connect-timeout" in text


@pytest.mark.parametrize(
    "option", [["--fail-under", "1.5"], ["--fail-under", "-0.1"], ["--threshold", "2"], ["--pass-bar", "x"]]
)
def test_score_rejects_out_of_range_values(option, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["score", "examples/sales_report.json", *option])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert option[0] in err and ("0..1" in err or "not a number" in err)


def _one_line_exit_2(args: list[str], timeout: float = 60) -> tuple[str, float]:
    started = time.monotonic()
    proc = subprocess.run([AEM, *args], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    elapsed = time.monotonic() - started
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0], elapsed


@pytest.mark.parametrize(
    "args",
    [
        ["replay", "examples/sales_report.json"],
        ["tail", "aem.verdicts"],
        ["inspect", "some-conversation"],
        ["redrive"],
        ["review", "--from-topic", "aem.verdicts"],
        ["calibrate", "--from-topic", "aem.labels"],
        ["compare", "2026.11.1", "2026.11.2"],
    ],
    ids=lambda a: a[0],
)
def test_unreachable_broker_is_one_line_and_exit_2(args):
    line, _ = _one_line_exit_2([*args, "--bootstrap-servers", UNREACHABLE, "--connect-timeout", "3"])
    assert UNREACHABLE in line and f"aem {args[0]}: error:" in line


def test_run_gives_up_on_a_silent_broker_within_the_default_timeout():
    # the default --connect-timeout is 10 s; the process must end well before kafka-python's 30-60 s retries.
    # A listener that never answers is silence (a refused connection fails at once: tests/commands/test_error_lines.py)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = f"127.0.0.1:{silent.getsockname()[1]}"
        line, elapsed = _one_line_exit_2(["run", "--bootstrap-servers", address, "--metrics-port", "0"], timeout=40)
    assert address in line and "aem run: error:" in line and "within 10 s" in line and elapsed >= 10


def test_broker_port_clash_is_one_line_and_exit_2():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line, _ = _one_line_exit_2(["broker", "--port", str(port)])
    assert f"127.0.0.1:{port}" in line and "aem broker: error:" in line


@pytest.mark.parametrize("name", NAMES)
def test_help_names_each_default_once(name, capsys):
    with pytest.raises(SystemExit):
        main([name, "--help"])
    options = capsys.readouterr().out.split("\n\n")
    for entry in re.split(r"\n  (?=-)", "\n\n".join(options)):
        assert " ".join(entry.split()).count("(default") <= 1, entry


def test_a_mistyped_flag_prints_that_commands_usage(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["score", "examples/sales_report.json", "--formt", "table"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert err.startswith("usage: aem score") and "unrecognized arguments: --formt" in err
