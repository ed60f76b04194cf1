"""Run a real Prometheus server for tests, and run Grafana dashboard queries against it.

    with PrometheusProcess(targets=["127.0.0.1:9464"], rule_files=[...]) as prom:
        prom.wait_for("up == 1")
        prom.query('sum(aem_turns_total)')

Uses the `prometheus` binary on PATH (Debian package `prometheus`) or $PROMETHEUS_BIN.
Everything listens on 127.0.0.1 only; storage lives in a temporary directory removed on stop.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
RULES_DIR = REPO_ROOT / "deploy" / "prometheus" / "rules"
DASHBOARDS_DIR = REPO_ROOT / "grafana" / "dashboards"


class PrometheusError(RuntimeError):
    """Prometheus failed to start or answered a query with an error."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def prometheus_binary() -> str | None:
    return os.environ.get("PROMETHEUS_BIN") or shutil.which("prometheus")


class PrometheusProcess:
    """A `prometheus` child process on a free loopback port.

    targets: host:port strings scraped as job `job` (default "aem-monitor", the job the
    alert rules expect). rule_files: paths loaded as rule files (default: none).
    """

    def __init__(
        self,
        targets: Sequence[str],
        rule_files: Iterable[str | os.PathLike[str]] = (),
        *,
        job: str = "aem-monitor",
        scrape_interval: str = "1s",
        evaluation_interval: str = "1s",
        binary: str | None = None,
        startup_timeout: float = 30.0,
        extra_args: Sequence[str] = (),
    ) -> None:
        self.targets = list(targets)
        self.rule_files = [str(Path(p).resolve()) for p in rule_files]
        self.job = job
        self.scrape_interval = scrape_interval
        self.evaluation_interval = evaluation_interval
        self.binary = binary or prometheus_binary()
        self.startup_timeout = startup_timeout
        self.extra_args = list(extra_args)  # e.g. --enable-feature=exemplar-storage
        self.port: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._client = httpx.Client(timeout=10.0)

    # -- lifecycle -----------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self.port is None:
            raise PrometheusError("Prometheus is not running")
        return f"http://127.0.0.1:{self.port}"

    def config(self) -> dict[str, Any]:
        return {
            "global": {
                "scrape_interval": self.scrape_interval,
                "scrape_timeout": self.scrape_interval,
                "evaluation_interval": self.evaluation_interval,
            },
            "rule_files": self.rule_files,
            "scrape_configs": [
                {"job_name": self.job, "static_configs": [{"targets": self.targets}]},
            ],
        }

    def start(self) -> PrometheusProcess:
        if self.binary is None:
            raise PrometheusError("no prometheus binary: install Debian's `prometheus` or set PROMETHEUS_BIN")
        self._tmp = tempfile.TemporaryDirectory(prefix="aem-prometheus-")
        tmp = Path(self._tmp.name)
        config_path = tmp / "prometheus.yml"
        config_path.write_text(yaml.safe_dump(self.config(), sort_keys=False))
        last_error = ""
        for _attempt in range(3):  # a free port can be taken between picking and binding
            self.port = free_port()
            log = (tmp / "prometheus.log").open("wb")
            self._proc = subprocess.Popen(
                [
                    self.binary,
                    f"--config.file={config_path}",
                    f"--storage.tsdb.path={tmp / 'data'}",
                    f"--web.listen-address=127.0.0.1:{self.port}",
                    "--web.enable-lifecycle",
                    "--log.level=warn",
                    *self.extra_args,
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
            log.close()
            if self._wait_ready():
                return self
            last_error = (tmp / "prometheus.log").read_text(errors="replace")[-2000:]
            self._terminate()
        self.stop()
        raise PrometheusError(f"prometheus did not become ready: {last_error}")

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._proc is None or self._proc.poll() is not None:
                return False
            try:
                if self._client.get(f"{self.url}/-/ready").status_code == 200:
                    return True
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        return False

    def _terminate(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=10)
        self._proc = None

    def stop(self) -> None:
        self._terminate()
        self._client.close()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
        self.port = None

    def __enter__(self) -> PrometheusProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- API -----------------------------------------------------------------------------------

    def _api(self, path: str, params: Mapping[str, str] | None = None) -> Any:
        resp = self._client.get(f"{self.url}/api/v1/{path}", params=params)
        try:
            body = resp.json()
        except json.JSONDecodeError as e:
            raise PrometheusError(f"{path}: HTTP {resp.status_code}: {resp.text[:500]}") from e
        if body.get("status") != "success":
            raise PrometheusError(f"{path} {dict(params or {})}: {body.get('errorType')}: {body.get('error')}")
        return body["data"]

    def query(self, expr: str, time_: float | None = None) -> list[dict[str, Any]]:
        """Instant query; returns the result list (vector samples, or one scalar as a sample)."""
        params = {"query": expr}
        if time_ is not None:
            params["time"] = str(time_)
        data = self._api("query", params)
        if data["resultType"] in ("scalar", "string"):
            return [{"metric": {}, "value": data["result"]}]
        return list(data["result"])

    def query_exemplars(self, expr: str, start: float, end: float) -> list[dict[str, Any]]:
        """Exemplars of the series selected by `expr` between start and end (needs exemplar storage)."""
        return list(self._api("query_exemplars", {"query": expr, "start": str(start), "end": str(end)}))

    def targets_health(self) -> list[str]:
        return [t["health"] for t in self._api("targets")["activeTargets"]]

    def rule_groups(self) -> list[dict[str, Any]]:
        return list(self._api("rules")["groups"])

    def wait_for(self, expr: str, timeout: float = 30.0, interval: float = 0.5) -> list[dict[str, Any]]:
        """Poll until `expr` returns at least one finite sample; return the result."""
        deadline = time.monotonic() + timeout
        result: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            result = self.query(expr)
            if has_finite_value(result):
                return result
            time.sleep(interval)
        raise PrometheusError(f"timed out after {timeout}s waiting for data from {expr!r}: {result}")


def has_finite_value(result: Sequence[Mapping[str, Any]]) -> bool:
    """True when at least one sample of an instant-query result is a finite number."""
    for sample in result:
        try:
            if math.isfinite(float(sample["value"][1])):
                return True
        except (KeyError, IndexError, TypeError, ValueError):
            continue
    return False


# -- Grafana dashboards ---------------------------------------------------------------------------

# Grafana built-in interval variables, substituted with fixed windows for instant queries.
DEFAULT_BUILTINS = {"__rate_interval": "1m", "__interval": "15s", "__range": "1h"}


def dashboard_files(directory: Path = DASHBOARDS_DIR) -> list[Path]:
    return sorted(directory.glob("*.json"))


def iter_panels(dashboard: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """Every panel, including those nested in rows."""
    for panel in dashboard.get("panels", []):
        yield panel
        yield from panel.get("panels", [])


def panel_queries(dashboard: Mapping[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(panel title, refId, expr) for every Prometheus target of every panel."""
    for panel in iter_panels(dashboard):
        for target in panel.get("targets", []):
            if "expr" in target:
                yield panel["title"], target.get("refId", "A"), target["expr"]


def substitute(expr: str, variables: Mapping[str, str | Sequence[str]]) -> str:
    """Replace $var, ${var} and ${var:format} the way Grafana does for a Prometheus data source.

    A list value becomes a regex alternation `(a|b)`, as Grafana renders multi-value variables
    inside `=~` matchers. Unknown variables are left in place (and make the query fail).
    """
    values = {**DEFAULT_BUILTINS, **variables}

    def render(name: str) -> str | None:
        if name not in values:
            return None
        value = values[name]
        if isinstance(value, str):
            return value
        # regex metacharacters escaped with a doubled backslash, valid inside a PromQL string
        items = [re.sub(r"([\\^$.|?*+()\[\]{}])", r"\\\\\1", v) for v in value]
        return items[0] if len(items) == 1 else "(" + "|".join(items) + ")"

    def repl(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        rendered = render(name)
        return m.group(0) if rendered is None else rendered

    return re.sub(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)", repl, expr)


def run_dashboard_queries(
    prom: PrometheusProcess,
    variables: Mapping[str, str | Sequence[str]],
    dashboards: Iterable[Path] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Run every panel query of the dashboards against `prom`, variables substituted.

    Returns {panel title: result}; a panel with several targets gets the results of all its
    targets concatenated (each sample's metric gains `__refId__`). Titles are prefixed with the
    dashboard uid: "<uid>/<panel title>". A query Prometheus rejects raises PrometheusError.
    """
    results: dict[str, list[dict[str, Any]]] = {}
    for path in dashboards if dashboards is not None else dashboard_files():
        dashboard = json.loads(Path(path).read_text())
        for title, ref_id, expr in panel_queries(dashboard):
            samples = prom.query(substitute(expr, variables))
            for sample in samples:
                sample["metric"] = {**sample.get("metric", {}), "__refId__": ref_id}
            results.setdefault(f"{dashboard['uid']}/{title}", []).extend(samples)
    return results
