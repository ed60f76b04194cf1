"""Kafka security settings → kafka-python client options, and those options on the wire.

The embedded Tansu broker speaks neither TLS nor SASL. So the settings are checked down to the
kafka-python options they produce, and then a real kafka-python consumer built by `make_consumer` is
pointed at a TLS front door (Python's ssl, a throw-away CA made with openssl) that requires a client
certificate and reads the client's first Kafka requests: the TLS handshake, the SASL mechanism and the
PLAIN credentials are what the settings said. Nothing past SASL is exercised.
"""

from __future__ import annotations

import ast
import contextlib
import struct
import threading
import time
from pathlib import Path

import pytest
from kafka.errors import KafkaError
from pydantic import ValidationError
from structlog.testing import capture_logs

from monitor.cluster import KafkaClient, KafkaSecurity, client_kwargs, make_consumer
from monitor.commands.common import load_cluster
from monitor.stream.health import BrokerProbe, Health
from monitor.stream.settings import load_settings
from tests.support.tls import PASSWORD, FrontDoor, layered_options, layered_security


def test_sasl_ssl_from_file_env_and_flags(tmp_path: Path, pki: tuple[Path, Path]) -> None:
    cert, key = pki
    config, env = layered_security(tmp_path, cert)
    flags = {"kafka": {"sasl_mechanism": "SCRAM-SHA-256", "ssl_certfile": str(cert), "ssl_keyfile": str(key)}}
    settings = load_settings(config, environ=env, overrides=flags)
    expected = layered_options(cert, key, "SCRAM-SHA-256")  # flag beats env beats file
    assert client_kwargs(settings.cluster) == expected
    assert client_kwargs(load_cluster(config, environ=env, overrides=flags)) == expected  # aem replay's view
    assert client_kwargs("127.0.0.1:9092") == {"bootstrap_servers": "127.0.0.1:9092"}
    shown = repr(settings) + str(settings.cluster) + repr(settings.cluster) + settings.model_dump_json()
    assert PASSWORD not in shown


@pytest.mark.parametrize(
    ("security", "message"),
    [
        ({"security_protocol": "SASL_SSL", "sasl_mechanism": "PLAIN", "sasl_username": "u"}, "sasl_password"),
        ({"security_protocol": "PLAINTEXT", "sasl_username": "u"}, "SASL settings given"),
        ({"security_protocol": "SSL", "ssl_cafile": "/nonexistent/ca.pem"}, "no such file"),
        ({"security_protocol": "SASL_SSL", "sasl_mechanism": "GSSAPI"}, "sasl_mechanism"),
        ({"security_protocol": "TLS"}, "security_protocol"),
    ],
)
def test_bad_security_settings_are_named(security: dict[str, str], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        load_settings(environ={}, overrides={"kafka": security})


def test_every_kafka_client_is_built_through_client_kwargs() -> None:
    """No Kafka client of the package gets its address or security but from `client_kwargs`. The OTLP span
    exporter (`monitor/otel.py`) is the exception: it runs in the agent's process, with the producer settings
    the agent's developer passes it, never the monitor's settings."""
    root = Path(__file__).resolve().parents[2] / "monitor"
    clients = {"KafkaConsumer", "KafkaProducer", "KafkaAdminClient"}
    offenders: list[str] = []
    for path in root.rglob("*.py"):
        if path == root / "otel.py":
            continue
        tree = ast.parse(path.read_text())
        calls = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in clients
        ]
        uses_builder = any(
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "client_kwargs"
            for node in ast.walk(tree)
        )
        for call in calls:
            named = {kw.arg for kw in call.keywords}
            if named & {"bootstrap_servers", "security_protocol", "sasl_mechanism"} or not uses_builder:
                offenders.append(f"{path.relative_to(root)}:{call.lineno}")
    assert offenders == []


def reach(door: FrontDoor, security: KafkaSecurity, wait_for: bytes) -> list[bytes]:
    """Let a consumer made by `make_consumer` talk to the front door until ``wait_for`` was sent."""
    cluster = KafkaClient(bootstrap_servers=f"127.0.0.1:{door.port}", security=security)
    consumer = make_consumer(cluster, [], None, client_id="aem-tls-test", api_version=(2, 8))
    # bootstrap cannot finish (the door stops at SASL); it runs on a thread of its own
    def bootstrap() -> None:
        with contextlib.suppress(KafkaError):
            consumer.bootstrap(timeout_ms=5000)

    threading.Thread(target=bootstrap, daemon=True).start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not any(wait_for in r for r in door.requests):
        time.sleep(0.1)
    threading.Thread(target=consumer.close, daemon=True).start()
    return list(door.requests)


def test_sasl_ssl_scram_with_a_client_certificate_on_the_wire(front_door: FrontDoor, pki: tuple[Path, Path]) -> None:
    cert, key = pki
    security = KafkaSecurity(
        security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512", sasl_username="aem",
        sasl_password=PASSWORD, ssl_cafile=cert, ssl_certfile=cert, ssl_keyfile=key,
    )
    requests = reach(front_door, security, b"SCRAM-SHA-512")
    assert "aem-test-client" in front_door.peers  # TLS, verified against our CA, with our client certificate
    handshakes = [r for r in requests if struct.unpack(">h", r[:2])[0] == 17]
    assert handshakes and handshakes[0].endswith(b"SCRAM-SHA-512")


def test_sasl_plain_credentials_reach_the_broker_and_no_log(front_door: FrontDoor, pki: tuple[Path, Path]) -> None:
    cert, key = pki
    security = KafkaSecurity(
        security_protocol="SASL_SSL", sasl_mechanism="PLAIN", sasl_username="aem", sasl_password=PASSWORD,
        ssl_cafile=cert, ssl_certfile=cert, ssl_keyfile=key,
    )
    with capture_logs() as logs:
        requests = reach(front_door, security, PASSWORD.encode())
        cluster = KafkaClient(bootstrap_servers="127.0.0.1:1", security=security)
        assert BrokerProbe(cluster, Health(), timeout_s=0.5).probe_once() is False  # logs broker_unreachable
    assert any(b"\x00aem\x00" + PASSWORD.encode() in r for r in requests)  # SaslAuthenticate, PLAIN
    assert logs and PASSWORD not in repr(logs)
