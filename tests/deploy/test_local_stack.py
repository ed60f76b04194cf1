"""The local stack without Docker: `aem demo --with-prometheus --fast-alerts` runs Debian's Prometheus with
the fast variant of the shipped rules, and the release-regression alert fires on the demo's traffic.

The clock starts at the regressed release's first event (the monitor's
`aem_release_first_seen_timestamp_seconds`, the event's own timestamp); the alert must be *firing* in the
real Prometheus within two minutes of it.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.support.prometheus import prometheus_binary

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(prometheus_binary() is None, reason="Debian's prometheus is not installed"),
]

AEM = Path(sys.executable).with_name("aem")
REGRESSED = "2026.11.2"
WITHIN_S = 120.0


def _drain(proc: subprocess.Popen[str], lines: list[str]) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.append(line)


def _wait_for_line(proc: subprocess.Popen[str], lines: list[str], pattern: str, timeout: float) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in list(lines):
            if found := re.search(pattern, line):
                return found
        assert proc.poll() is None, "".join(lines)
        time.sleep(0.2)
    raise AssertionError(f"{pattern!r} not printed:\n" + "".join(lines))


def _regression_alert(client: httpx.Client, url: str) -> dict | None:
    for alert in client.get(f"{url}/api/v1/alerts").json()["data"]["alerts"]:
        if alert["labels"]["alertname"] == "AemReleaseCorrectnessRegression":
            return alert
    return None


def _first_seen(client: httpx.Client, url: str) -> float | None:
    query = f'aem_release_first_seen_timestamp_seconds{{release="{REGRESSED}"}}'
    result = client.get(f"{url}/api/v1/query", params={"query": query}).json()["data"]["result"]
    return float(result[0]["value"][1]) if result else None


def test_the_fast_regression_alert_fires_within_two_minutes_of_the_regressed_release(tmp_path):
    command = [str(AEM), "demo", "--with-prometheus", "--fast-alerts", "--duration", "400", "--log-file",
               str(tmp_path / "demo.log")]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    lines: list[str] = []
    threading.Thread(target=_drain, args=(proc, lines), daemon=True).start()
    try:
        url = _wait_for_line(proc, lines, r"^prometheus: (http://127\.0\.0\.1:\d+)", 120).group(1)
        alerts_page = _wait_for_line(proc, lines, r"^alerts: (\S+)", 10).group(1)
        assert alerts_page in (f"{url}/alerts", f"{url}/classic/alerts")
        with httpx.Client(timeout=10) as client:
            assert client.get(alerts_page).status_code == 200
            first_seen = firing = None
            deadline = time.monotonic() + 360
            while firing is None and time.monotonic() < deadline:
                first_seen = first_seen or _first_seen(client, url)
                alert = _regression_alert(client, url)
                if alert and alert["state"] == "firing":
                    firing = time.time()
                    assert alert["labels"]["release"] == REGRESSED
                    assert alert["labels"]["previous_release"] == "2026.11.1"
                time.sleep(1)
        assert first_seen is not None, "Prometheus never scraped the regressed release:\n" + "".join(lines)
        assert firing is not None, "AemReleaseCorrectnessRegression never fired:\n" + "".join(lines[-10:])
        assert firing - first_seen <= WITHIN_S, f"fired {firing - first_seen:.0f}s after the release's first event"
    finally:
        proc.terminate()
        proc.wait(timeout=200)
    assert proc.returncode == 0, "".join(lines[-10:])
