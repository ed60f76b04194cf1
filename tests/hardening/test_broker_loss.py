"""A broker killed for good: /healthz fails, and `aem run` exits non-zero within the configured time.

Real parts: a Tansu broker of its own (killed by PID with SIGKILL), `aem run` as a process.
"""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from monitor.tools.broker import TansuBroker
from tests.support.kafka import MonitorProcess, TopicSet

pytestmark = pytest.mark.integration

EXIT_AFTER_S = 10.0
PROBE_S = 1.0
SILENCE_S = 3.0
SHUTDOWN_GRACE_S = 20.0  # the probe's own timeout, closing the clients, the process exit


def healthz(port: int) -> tuple[int, dict[str, object]]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def wait_for_status(port: int, status: int, timeout: float) -> dict[str, object]:
    deadline = time.monotonic() + timeout
    last: tuple[int, dict[str, object]] = (0, {})
    while time.monotonic() < deadline:
        last = healthz(port)
        if last[0] == status:
            return last[1]
        time.sleep(0.2)
    raise AssertionError(f"/healthz never answered {status}; last {last}")


def test_broker_killed_healthz_fails_and_aem_run_exits_non_zero(tmp_path: Path) -> None:
    broker = TansuBroker().start()
    monitor: MonitorProcess | None = None
    try:
        topics = TopicSet.fresh(broker.bootstrap)
        config = tmp_path / "monitor.yaml"
        config.write_text(
            "monitor:\n"
            f"  bootstrap_servers: {broker.bootstrap}\n"
            f"  topic: {topics.traces}\n  verdict_topic: {topics.verdicts}\n  dlq_topic: {topics.dlq}\n"
            "  group_id: broker-loss\n  metrics_host: 127.0.0.1\n  metrics_port: 0\n"
            f"  broker_unreachable_exit_s: {EXIT_AFTER_S}\n  broker_probe_interval_s: {PROBE_S}\n"
            f"  healthz_max_broker_silence_s: {SILENCE_S}\n"
        )
        monitor = MonitorProcess(["--config", str(config)]).start()
        monitor.wait_for("partitions_assigned")
        assert monitor.metrics_port is not None
        report = wait_for_status(monitor.metrics_port, 200, timeout=30)
        assert report["broker_reachable"] is True

        assert broker.process is not None
        os.kill(broker.process.pid, signal.SIGKILL)
        killed = time.monotonic()
        report = wait_for_status(monitor.metrics_port, 503, timeout=EXIT_AFTER_S)
        failing_after = time.monotonic() - killed
        assert report["broker_reachable"] is False

        assert monitor.process is not None
        code = monitor.process.wait(timeout=EXIT_AFTER_S + SHUTDOWN_GRACE_S + 30)
        exited_after = time.monotonic() - killed
        print(f"/healthz failing {failing_after:.1f}s and exit code {code} {exited_after:.1f}s after the kill")
        assert code != 0
        assert exited_after <= EXIT_AFTER_S + SHUTDOWN_GRACE_S, "".join(monitor.lines[-20:])
        assert any("broker" in line and "unreachable" in line for line in monitor.lines)
    finally:
        if monitor is not None:
            monitor.stop()
        broker.stop()
