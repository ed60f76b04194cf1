"""Structure of docker-compose.yml, the Dockerfile, Alertmanager and Kubernetes manifests:
mounted paths exist, ports/topics/job names agree with the configs, images are pinned, and the
PrometheusRule embeds exactly the promtool-tested rule files."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import REPO_ROOT

COMPOSE = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
K8S = REPO_ROOT / "deploy" / "kubernetes"
PROM_CONFIG = yaml.safe_load((REPO_ROOT / "deploy" / "prometheus" / "prometheus.yml").read_text())
TOPICS = {"aem.traces", "aem.verdicts", "aem.traces.dlq"}
METRICS_PORT = 9464
PINNED = re.compile(r"^[\w./-]+:(v?\d+\.\d+\.\d+[\w.-]*)$")


def k8s_docs() -> dict[str, dict]:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    docs = {}
    for name in kustomization["resources"]:
        doc = yaml.safe_load((K8S / name).read_text())
        docs[doc["kind"]] = doc
    return docs


def env_of(container: dict) -> dict[str, str]:
    return {e["name"]: e["value"] for e in container.get("env", [])}


# ------------------------------------------------------------------ docker-compose


def test_compose_has_the_stack():
    assert set(SERVICES) == {"kafka", "kafka-init", "monitor", "traffic", "prometheus", "alertmanager", "grafana"}


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_compose_images_pinned(service: str):
    image = SERVICES[service]["image"]
    assert ":latest" not in image
    assert PINNED.match(image), f"{service}: image {image!r} is not pinned to an exact version"


def test_compose_uses_official_kafka_in_kraft_mode():
    kafka = SERVICES["kafka"]
    assert kafka["image"].startswith("apache/kafka:")
    env = kafka["environment"]
    assert env["KAFKA_PROCESS_ROLES"] == "broker,controller"
    assert "zookeeper" not in yaml.safe_dump(kafka).lower()
    assert SERVICES["kafka-init"]["image"] == kafka["image"]


def test_compose_bind_mounts_exist():
    mounts = 0
    for name, service in SERVICES.items():
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            if source.startswith("."):
                mounts += 1
                assert (REPO_ROOT / source).exists(), f"{name}: {source} does not exist"
            else:
                assert source in COMPOSE["volumes"], f"{name}: named volume {source} not declared"
    assert mounts >= 6


def test_compose_every_long_running_service_has_a_healthcheck():
    for name, service in SERVICES.items():
        if name in {"kafka-init", "traffic"}:
            continue
        assert "healthcheck" in service, name


def test_compose_creates_the_design_topics():
    script = "\n".join(SERVICES["kafka-init"]["command"])
    created = set(re.search(r"for t in ([^;]+);", script).group(1).split())
    assert created == TOPICS


def test_compose_monitor_and_traffic_agree_on_broker_topic_and_port():
    monitor = SERVICES["monitor"]
    env = monitor["environment"]
    assert env["AEM_TOPIC"] == "aem.traces"
    assert env["AEM_GROUP_ID"] == "aem-monitor"
    assert int(env["AEM_METRICS_PORT"]) == METRICS_PORT
    assert f"{METRICS_PORT}:{METRICS_PORT}" in monitor["ports"]
    assert str(METRICS_PORT) in " ".join(monitor["healthcheck"]["test"])
    broker = env["AEM_BOOTSTRAP_SERVERS"]
    assert broker.split(":")[0] == "kafka"
    assert f"PLAINTEXT://{broker}" in SERVICES["kafka"]["environment"]["KAFKA_ADVERTISED_LISTENERS"]
    traffic = SERVICES["traffic"]["command"]
    assert traffic[0] == "replay"
    assert traffic[traffic.index("--bootstrap-servers") + 1] == broker
    assert traffic[traffic.index("--topic") + 1] == env["AEM_TOPIC"]
    assert SERVICES["traffic"]["image"] == monitor["image"]


def test_compose_monitor_reference_is_mounted():
    monitor = SERVICES["monitor"]
    ref = monitor["command"][monitor["command"].index("--reference") + 1]
    for volume in monitor["volumes"]:
        source, target = volume.split(":")[:2]
        if ref.startswith(target + "/"):
            assert (REPO_ROOT / source / ref[len(target) + 1 :]).is_file()
            break
    else:
        pytest.fail(f"{ref} is not inside a mounted volume")


def test_prometheus_config_scrapes_the_monitor_as_the_job_alerts_expect():
    jobs = {j["job_name"]: j for j in PROM_CONFIG["scrape_configs"]}
    targets = jobs["aem-monitor"]["static_configs"][0]["targets"]
    assert targets == [f"monitor:{METRICS_PORT}"]
    alerts = (REPO_ROOT / "deploy" / "prometheus" / "rules" / "alerts.yml").read_text()
    assert 'up{job="aem-monitor"}' in alerts
    am = PROM_CONFIG["alerting"]["alertmanagers"][0]["static_configs"][0]["targets"]
    assert am == ["alertmanager:9093"]
    assert "9093:9093" in SERVICES["alertmanager"]["ports"]
    # the rule glob, resolved inside the container, reaches the mounted rules directory
    assert PROM_CONFIG["rule_files"] == ["rules/*.yml"]
    assert "./deploy/prometheus/rules:/etc/prometheus/rules:ro" in SERVICES["prometheus"]["volumes"]
    assert "./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro" in SERVICES["prometheus"]["volumes"]


def test_grafana_datasource_url_points_at_compose_prometheus():
    ds = yaml.safe_load((REPO_ROOT / "grafana" / "provisioning" / "datasources" / "prometheus.yml").read_text())
    assert ds["datasources"][0]["url"] == "http://prometheus:9090"
    assert "9090:9090" in SERVICES["prometheus"]["ports"]
    assert "./grafana/provisioning:/etc/grafana/provisioning:ro" in SERVICES["grafana"]["volumes"]


def test_alertmanager_config_routes_to_declared_receivers():
    am = yaml.safe_load((REPO_ROOT / "deploy" / "alertmanager" / "alertmanager.yml").read_text())
    receivers = {r["name"] for r in am["receivers"]}
    routes = [am["route"], *am["route"].get("routes", [])]
    assert all(r["receiver"] in receivers for r in routes)
    alert_names = set(re.findall(r"- alert: (\w+)", (REPO_ROOT / "deploy/prometheus/rules/alerts.yml").read_text()))
    for rule in am.get("inhibit_rules", []):
        for matcher in rule["source_matchers"] + rule["target_matchers"]:
            names = re.search(r'alertname=~"([^"]+)"', matcher).group(1).split("|")
            assert set(names) <= alert_names, names


def test_dockerfile():
    text = (REPO_ROOT / "Dockerfile").read_text()
    base = re.search(r"^FROM (\S+)", text, flags=re.M).group(1)
    assert base.startswith("python:3.11") and "slim" in base and PINNED.match(base)
    assert "torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in text
    assert re.search(r"^USER (?!root|0\b)\S+", text, flags=re.M), "must run as a non-root user"
    assert re.search(r"^HEALTHCHECK .*\n?.*/healthz", text, flags=re.M)
    assert f"EXPOSE {METRICS_PORT}" in text
    # everything the Dockerfile copies is in the repo and not excluded by .dockerignore
    ignored = {line.strip() for line in (REPO_ROOT / ".dockerignore").read_text().splitlines()}
    for line in re.findall(r"^COPY (.+)$", text, flags=re.M):
        for source in line.split()[:-1]:
            assert (REPO_ROOT / source).exists(), source
            assert source not in ignored, source


# ------------------------------------------------------------------ kubernetes


def test_kustomization_resources_exist():
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    for name in kustomization["resources"]:
        assert (K8S / name).is_file(), name
    for generator in kustomization["configMapGenerator"]:
        for f in generator["files"]:
            assert (K8S / f.split("=")[-1]).is_file(), f
    assert set(k8s_docs()) >= {"Deployment", "Service", "ServiceMonitor", "PrometheusRule"}


def test_deployment_replicas_share_one_consumer_group():
    deployment = k8s_docs()["Deployment"]
    assert deployment["spec"]["replicas"] >= 2
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    env = env_of(container)
    assert env["AEM_GROUP_ID"] == "aem-monitor"
    assert env["AEM_TOPIC"] == "aem.traces"
    assert int(env["AEM_METRICS_PORT"]) == METRICS_PORT
    assert container["ports"] == [{"name": "metrics", "containerPort": METRICS_PORT}]
    assert PINNED.match(container["image"]) and ":latest" not in container["image"]
    pod = deployment["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True


def test_reference_configmap_is_mounted_at_the_reference_path():
    docs = k8s_docs()
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    generator = next(g for g in kustomization["configMapGenerator"] if g["name"] == "aem-reference")
    file_names = {Path(f.split("=")[-1]).name for f in generator["files"]}
    pod = docs["Deployment"]["spec"]["template"]["spec"]
    container = pod["containers"][0]
    volume = next(v for v in pod["volumes"] if v.get("configMap", {}).get("name") == "aem-reference")
    mount = next(m for m in container["volumeMounts"] if m["name"] == volume["name"])
    reference = env_of(container)["AEM_REFERENCE"]
    for path in reference.split(","):
        assert Path(path).parent.as_posix() == mount["mountPath"]
        assert Path(path).name in file_names


def test_service_and_servicemonitor_select_the_pods_and_name_the_job():
    docs = k8s_docs()
    pod_labels = docs["Deployment"]["spec"]["template"]["metadata"]["labels"]
    service = docs["Service"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    assert service["spec"]["ports"][0]["port"] == METRICS_PORT
    # the ServiceMonitor's default job label is the Service name; alerts use job="aem-monitor"
    assert service["metadata"]["name"] == "aem-monitor"
    monitor = docs["ServiceMonitor"]
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    assert [e["port"] for e in monitor["spec"]["endpoints"]] == [p["name"] for p in service["spec"]["ports"]]
    assert "jobLabel" not in monitor["spec"]


def test_prometheusrule_embeds_the_rule_files():
    rule = k8s_docs()["PrometheusRule"]
    groups = []
    for name in ("recording.yml", "alerts.yml"):
        groups += yaml.safe_load((REPO_ROOT / "deploy" / "prometheus" / "rules" / name).read_text())["groups"]
    assert rule["spec"]["groups"] == groups
    names = [g["name"] for g in groups]
    assert len(names) == len(set(names)), "group names must be unique within one PrometheusRule"


def test_prometheusrule_is_up_to_date():
    result = subprocess.run(
        [sys.executable, str(K8S / "build_prometheusrule.py"), "--check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def test_prometheusrule_groups_pass_promtool(tmp_path: Path):
    promtool = shutil.which("promtool")
    assert promtool, "promtool not found on PATH: apt-get install prometheus"
    rule = k8s_docs()["PrometheusRule"]
    path = tmp_path / "rules.yml"
    path.write_text(yaml.safe_dump({"groups": rule["spec"]["groups"]}))
    result = subprocess.run([promtool, "check", "rules", str(path)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_probes_use_healthz_and_outlast_the_broker_exit():
    container = k8s_docs()["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    for probe in ("readinessProbe", "livenessProbe"):
        get = container[probe]["httpGet"]
        assert (get["path"], get["port"]) == ("/healthz", "metrics"), probe
    liveness = container["livenessProbe"]
    # `aem run` exits on its own after AEM_BROKER_UNREACHABLE_EXIT_S; liveness restarts no earlier
    exit_s = float(env_of(container)["AEM_BROKER_UNREACHABLE_EXIT_S"])
    assert liveness["periodSeconds"] * liveness["failureThreshold"] >= exit_s


@pytest.mark.parametrize("name", ["deployment.yaml", "service.yaml", "namespace.yaml"])
def test_core_manifests_pass_strict_schema_validation(name: str):
    tool = Path(sys.executable).with_name("kubernetes-validate")
    assert tool.exists(), "kubernetes-validate (a dev dependency) is not installed"
    result = subprocess.run([str(tool), "--strict", str(K8S / name)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "passed" in result.stdout + result.stderr
