"""`aem run` and `aem score` start-up errors are one line naming what to fix, exit 2, never a traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from monitor.cluster import ensure_topics
from tests.conftest import EXAMPLES
from tests.support.kafka import TopicSet

AEM = str(Path(sys.executable).with_name("aem"))
ENV = {**os.environ, "HF_HUB_OFFLINE": "1"}


def run_aem(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([AEM, *args], capture_output=True, text=True, timeout=timeout, env=ENV)


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, proc.stderr
    return errors[0]


@pytest.mark.parametrize("command", ["run", "score"])
def test_a_missing_config_file_is_one_line(tmp_path, command):
    missing = tmp_path / "missing.yaml"
    extra = [str(EXAMPLES / "sales_report.json")] if command == "score" else []
    line = one_line(run_aem(command, "--config", str(missing), *extra))
    assert f"{missing}: cannot read the config file: No such file or directory" in line


@pytest.mark.parametrize("command", ["run", "score"])
def test_a_yaml_syntax_error_is_one_line_naming_the_place(tmp_path, command):
    bad = tmp_path / "bad.yaml"
    bad.write_text("scoring:\n  threshold: [0.5\n  side_effect_free: x\n")
    extra = [str(EXAMPLES / "sales_report.json")] if command == "score" else []
    line = one_line(run_aem(command, "--config", str(bad), *extra))
    assert f"{bad}: invalid YAML at line" in line


def test_a_good_config_file_still_loads(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text("scoring:\n  threshold: 0.5\n")
    proc = run_aem("score", "--config", str(good), str(EXAMPLES / "sales_report.json"))
    assert proc.returncode == 0, proc.stderr


@pytest.mark.integration
def test_a_busy_metrics_port_is_one_line_naming_it(broker):
    topics = TopicSet.fresh(broker.bootstrap)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        proc = run_aem("run", *topics.run_args(broker.bootstrap, port=port), "--connect-timeout", "10")
    line = one_line(proc)
    assert f"127.0.0.1:{port}: Address already in use" in line and "--metrics-port" in line, line


@pytest.mark.integration
def test_a_state_topic_with_too_few_partitions_names_the_flag_that_fixes_it(broker):
    topics = TopicSet.fresh(broker.bootstrap, partitions=4)
    group = f"{topics.traces}-g"
    ensure_topics(broker.bootstrap, [f"aem.state.{group}"], partitions=3)
    proc = run_aem("run", *topics.run_args(broker.bootstrap, group=group))
    if proc.returncode == 0:  # the broker grew the state topic itself: nothing to fix
        pytest.skip("this broker added the partitions")
    line = one_line(proc)
    assert f"aem.state.{group} has 3 partitions but needs 4" in line and "--group-id" in line, line
