"""The no-Docker Prometheus command of docs/operating.md (and of deploy/local/prometheus.yml's header), run as
written against a monitor's metrics: the alerts page it names answers on Debian's build, and the documented
exemplar query returns the failing turn's exemplar."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import time
from pathlib import Path

import httpx
import pytest
import yaml
from prometheus_client import start_http_server

from monitor.models.verdict import TurnVerdict
from monitor.stream.metrics import VerdictMetrics
from tests.support.prometheus import free_port, prometheus_binary

REPO = Path(__file__).resolve().parents[2]
LOCAL = REPO / "deploy" / "local" / "prometheus.yml"

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(prometheus_binary() is None, reason="needs Debian's prometheus"),
]


def documented_commands() -> tuple[str, str]:
    """The `prometheus` line of docs/operating.md and of the config's header comment (continuations joined)."""
    page = (REPO / "docs" / "operating.md").read_text()
    (in_docs,) = [ln for ln in page.splitlines() if ln.startswith("prometheus --config.file=deploy/local/")]
    header = "\n".join(ln.removeprefix("#").strip() for ln in LOCAL.read_text().splitlines() if ln.startswith("#"))
    (in_config,) = re.findall(r"^(prometheus --config\.file.*?)$", header.replace("\\\n", " "), flags=re.M)
    return in_docs, in_config


def test_the_config_header_and_the_page_give_one_command():
    in_docs, in_config = documented_commands()
    assert in_docs.split() == in_config.split()


def test_the_documented_prometheus_serves_its_alerts_page_and_the_exemplars(tmp_path):
    metrics = VerdictMetrics()
    failing = TurnVerdict(turn_no=2, turn="Tool", success=False, failure_reason="inconsistent_parameter_values",
                          sub_metric="truthfulness", field="metric", score=0.25, attribution="root_cause",
                          chain_length="1")  # fmt: skip
    metrics.record_turn(failing, "sales-assistant", "2026.11.2", "reference", "conv-a")
    server, thread = start_http_server(0, addr="127.0.0.1", registry=metrics.registry)
    clone = tmp_path / "clone"
    shutil.copytree(REPO / "deploy", clone / "deploy")
    config = yaml.safe_load(LOCAL.read_text())  # the shipped file, pointed at this monitor and scraped fast
    config["global"] = {"scrape_interval": "1s", "evaluation_interval": "1s"}
    config["scrape_configs"][0]["static_configs"] = [{"targets": [f"127.0.0.1:{server.server_port}"]}]
    (clone / "deploy" / "local" / "prometheus.yml").write_text(yaml.safe_dump(config))
    port = free_port()
    line, _ = documented_commands()
    line = line.replace("127.0.0.1:9090", f"127.0.0.1:{port}").replace("/tmp/aem-prometheus", str(tmp_path / "data"))
    words = shlex.split(line)
    proc = subprocess.Popen([str(prometheus_binary()), *words[1:]], cwd=clone, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        exemplars: list = []
        while time.monotonic() < deadline and not exemplars:
            time.sleep(1)
            try:
                answer = httpx.get(f"{url}/api/v1/query_exemplars", timeout=5, params={
                    "query": 'aem_turn_failures_total{agent="sales-assistant",release="2026.11.2"}',
                    "start": str(time.time() - 3600), "end": str(time.time())})  # fmt: skip
            except httpx.HTTPError:
                continue
            exemplars = answer.json().get("data") or []
        assert exemplars, "the documented command keeps no exemplars"
        labels = exemplars[0]["exemplars"][0]["labels"]
        assert labels == {"conversation_id": "conv-a", "turn_no": "2"}
        (page,) = set(re.findall(r"http://127\.0\.0\.1:9090(/\S*alerts)", LOCAL.read_text()))
        assert httpx.get(url + page, timeout=10).status_code == 200, page
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
