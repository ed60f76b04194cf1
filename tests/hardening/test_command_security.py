"""`aem tail`, `aem inspect`, `aem redrive` and `aem replay` reach a secured cluster as `aem run` does.

The embedded broker speaks neither TLS nor SASL: the settings are checked down to the kafka-python
options each command's arguments give (flags over AEM_* environment over the config file), and each
command is pointed at the TLS front door of tests/support/tls.py, which must see our client
certificate and the SASL credentials; nothing a command prints or logs holds the password.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from structlog.testing import capture_logs

from monitor.cli import build_parser, main
from monitor.cluster import client_kwargs
from monitor.commands.common import cluster_of
from monitor.tools.redrive import RedrivePlan
from monitor.tools.topic_reader import TopicReader
from tests.support.tls import PASSWORD, FrontDoor, layered_options, layered_security

COMMANDS = {
    "tail": ["tail", "aem.verdicts"],
    "inspect": ["inspect", "conv-1"],
    "redrive": ["redrive"],
    "replay": ["replay", "--sample"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_flags_env_and_config_file_become_the_client_options(
    command: str, tmp_path: Path, pki: tuple[Path, Path]
) -> None:
    cert, key = pki
    config, env = layered_security(tmp_path, cert)
    flags = ["--config", str(config), "--sasl-mechanism", "SCRAM-SHA-512"]
    flags += ["--ssl-certfile", str(cert), "--ssl-keyfile", str(key)]
    args = build_parser().parse_args([*COMMANDS[command], *flags])
    cluster = cluster_of(args, environ=env)
    assert client_kwargs(cluster) == layered_options(cert, key, "SCRAM-SHA-512")  # flag over env over file
    assert PASSWORD not in str(cluster) + repr(cluster)
    plain = build_parser().parse_args([*COMMANDS[command], "--bootstrap-servers", "127.0.0.1:9999"])
    assert client_kwargs(cluster_of(plain, environ={})) == {
        "bootstrap_servers": "127.0.0.1:9999",
        "security_protocol": "PLAINTEXT",
    }


def test_the_readers_carry_the_cluster_into_their_clients(pki: tuple[Path, Path]) -> None:
    cert, key = pki
    args = ["tail", "t", "--bootstrap-servers", "127.0.0.1:1", "--security-protocol", "SSL"]
    args += ["--ssl-cafile", str(cert), "--ssl-certfile", str(cert), "--ssl-keyfile", str(key)]
    cluster = cluster_of(build_parser().parse_args(args), environ={})
    reader = TopicReader(cluster, "t", api_version=(2, 8))  # a pinned version: no connection at construction
    try:
        config = reader.consumer.config
        got = (config["security_protocol"], config["ssl_cafile"], config["ssl_keyfile"])
        assert got == ("SSL", str(cert), str(key))
    finally:
        reader.close()
    assert RedrivePlan(cluster=cluster).cluster is cluster


@pytest.mark.parametrize("command", ["tail", "inspect", "redrive"])
def test_each_topic_tool_speaks_tls_and_sasl_and_never_shows_the_password(
    command: str,
    front_door: FrontDoor,
    pki: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cert, key = pki
    monkeypatch.setenv("AEM_KAFKA_SASL_PASSWORD", PASSWORD)
    flags = ["--bootstrap-servers", f"127.0.0.1:{front_door.port}", "--connect-timeout", "3"]
    flags += ["--security-protocol", "SASL_SSL", "--sasl-mechanism", "PLAIN", "--sasl-username", "aem"]
    flags += ["--ssl-cafile", str(cert), "--ssl-certfile", str(cert), "--ssl-keyfile", str(key)]
    with capture_logs() as logs:
        code = main([*COMMANDS[command], *flags])
    assert code == 2  # the door stops after SASL: no broker answered
    assert "aem-test-client" in front_door.peers  # TLS, verified against our CA, with our client certificate
    assert any(b"\x00aem\x00" + PASSWORD.encode() in r for r in front_door.requests)  # SaslAuthenticate, PLAIN
    err = capsys.readouterr().err
    assert "SASL_SSL" in err and PASSWORD not in err and PASSWORD not in repr(logs)
