"""A local Prometheus for `aem demo --with-prometheus`: Debian's `prometheus` scraping the demo's monitor.

It runs as a child process on a free loopback port with its storage in a temporary directory, loads the
project's rule files (or their fast variant, monitor.demo.fast_rules) and scrapes `/metrics` every 5 s
as job `aem-monitor`, the job the alert rules expect.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import yaml

from monitor.demo.fast_rules import write_fast_rules
from monitor.tools.broker import free_port
from monitor.tools.children import start_child

RULES_DIR = Path(__file__).resolve().parents[2] / "deploy" / "prometheus" / "rules"  # in a clone of the repo
INTERVAL = "5s"


class PrometheusUnavailable(RuntimeError):
    """No prometheus binary, no rule files, or Prometheus did not become ready."""


def prometheus_binary() -> str:
    found = os.environ.get("PROMETHEUS_BIN") or shutil.which("prometheus")
    if not found:
        raise PrometheusUnavailable("no prometheus binary: install Debian's `prometheus` or set PROMETHEUS_BIN")
    return found


@dataclass(frozen=True)
class PrometheusOptions:
    rules_dir: Path = RULES_DIR
    fast_alerts: bool = False
    port: int = 0  # 0: a free port


def _answers(url: str) -> bool:
    """True when ``url`` answers 200."""
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return bool(resp.status == 200)
    except (urllib.error.URLError, OSError):
        return False


class LocalPrometheus:
    """Start with `start()` (or `with`); `url` and `alerts_url` while it runs; `stop()` ends it."""

    def __init__(self, target: str, options: PrometheusOptions) -> None:
        self.target, self.options = target, options
        self.port = options.port or free_port()
        self._tmp = tempfile.TemporaryDirectory(prefix="aem-demo-prometheus-")
        self.workdir = Path(self._tmp.name)
        self._proc: subprocess.Popen[bytes] | None = None
        self._alerts_path = "/alerts"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def alerts_url(self) -> str:
        """The alerts page: `/alerts`, or `/classic/alerts` where the build ships only the classic UI (Debian)."""
        return f"{self.url}{self._alerts_path}"

    def rule_files(self) -> list[Path]:
        rules_dir = self.options.rules_dir
        if not rules_dir.is_dir():
            raise PrometheusUnavailable(f"no rule directory {rules_dir} (run from a clone, or pass --rules DIR)")
        if self.options.fast_alerts:
            return write_fast_rules(rules_dir, self.workdir / "rules")
        found = sorted(rules_dir.glob("*.yml"))
        if not found:
            raise PrometheusUnavailable(f"no *.yml rule files in {rules_dir}")
        return found

    def config(self) -> dict[str, object]:
        return {
            "global": {"scrape_interval": INTERVAL, "evaluation_interval": INTERVAL},
            "rule_files": [str(path) for path in self.rule_files()],
            "scrape_configs": [{"job_name": "aem-monitor", "static_configs": [{"targets": [self.target]}]}],
        }

    def start(self, timeout: float = 30.0) -> LocalPrometheus:
        config = self.workdir / "prometheus.yml"
        config.write_text(yaml.safe_dump(self.config(), sort_keys=False), encoding="utf-8")
        log = (self.workdir / "prometheus.log").open("wb")
        command = [
            prometheus_binary(),
            f"--config.file={config}",
            f"--storage.tsdb.path={self.workdir / 'data'}",
            f"--web.listen-address=127.0.0.1:{self.port}",
            "--log.level=warn",
        ]
        with log:
            self._proc = start_child(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self._wait_ready(timeout)
        if not _answers(f"{self.url}/alerts"):
            self._alerts_path = "/classic/alerts"
        return self

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc is None or self._proc.poll() is not None:
                break
            if _answers(f"{self.url}/-/ready"):
                return
            time.sleep(0.2)
        tail = (self.workdir / "prometheus.log").read_text(errors="replace")[-1000:]
        self.stop()
        raise PrometheusUnavailable(f"prometheus did not become ready on port {self.port}: {tail.strip()}")

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=10)
        self._proc = None
        self._tmp.cleanup()

    def __enter__(self) -> LocalPrometheus:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
