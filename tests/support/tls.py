"""A TLS front door for Kafka clients: the embedded broker speaks neither TLS nor SASL.

It requires a client certificate and answers just enough of the Kafka protocol (ApiVersions,
SaslHandshake) for a client to send its SASL credentials, recording every request it reads.
"""

from __future__ import annotations

import shutil
import socket
import ssl
import struct
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

PASSWORD = "s3cret-Pa55"


def layered_security(folder: Path, cert: Path) -> tuple[Path, dict[str, str]]:
    """A config file (SASL_SSL, PLAIN, our CA) and an AEM_* environment (user, password, mechanism PLAIN)
    for flags to be layered over."""
    config = folder / "monitor.yaml"
    config.write_text(
        f"monitor:\n  bootstrap_servers: kafka-1:9093,kafka-2:9093\n  kafka:\n    security_protocol: SASL_SSL\n"
        f"    sasl_mechanism: PLAIN\n    ssl_cafile: {cert}\n"
    )
    env = {"AEM_KAFKA_SASL_USERNAME": "aem", "AEM_KAFKA_SASL_PASSWORD": PASSWORD, "AEM_KAFKA_SASL_MECHANISM": "PLAIN"}
    return config, env


def layered_options(cert: Path, key: Path, mechanism: str) -> dict[str, object]:
    """The kafka-python options of `layered_security` with flags giving `mechanism`, a client cert and key."""
    return {
        "bootstrap_servers": "kafka-1:9093,kafka-2:9093",
        "security_protocol": "SASL_SSL",
        "sasl_mechanism": mechanism,
        "sasl_plain_username": "aem",
        "sasl_plain_password": PASSWORD,
        "ssl_check_hostname": True,
        "ssl_cafile": str(cert),
        "ssl_certfile": str(cert),
        "ssl_keyfile": str(key),
    }


def make_pki(folder: Path) -> tuple[Path, Path]:
    """A throw-away self-signed certificate and key for 127.0.0.1 (skips without openssl)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a throw-away certificate")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "1", "-subj", "/CN=aem-test-client", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )
    return cert, key


@dataclass
class FrontDoor:
    """A TLS listener that requires a client certificate and answers just enough Kafka to reach SASL."""

    context: ssl.SSLContext
    sock: socket.socket = field(default_factory=socket.socket)
    peers: list[str] = field(default_factory=list)
    requests: list[bytes] = field(default_factory=list)

    @property
    def port(self) -> int:
        return int(self.sock.getsockname()[1])

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            try:
                with self.context.wrap_socket(conn, server_side=True) as tls:
                    tls.settimeout(5)
                    subject = dict(item[0] for item in tls.getpeercert()["subject"])
                    self.peers.append(subject["commonName"])
                    self._converse(tls)
            except (OSError, ssl.SSLError, KeyError, struct.error):
                continue

    def _converse(self, tls: ssl.SSLSocket) -> None:
        for _ in range(3):
            request = self._read(tls)
            self.requests.append(request)
            api_key, correlation = struct.unpack(">h", request[:2])[0], request[4:8]
            if api_key == 18:  # ApiVersions v3: offer SaslHandshake 0-1, SaslAuthenticate 0-2, Metadata
                keys = [(18, 0, 3), (17, 0, 1), (36, 0, 2), (3, 0, 12)]
                body = struct.pack(">h", 0) + bytes([len(keys) + 1])
                body += b"".join(struct.pack(">hhh", *k) + b"\x00" for k in keys) + struct.pack(">i", 0) + b"\x00"
            elif api_key == 17:  # SaslHandshake v1: PLAIN is fine
                body = struct.pack(">hi", 0, 1) + struct.pack(">h", 5) + b"PLAIN"
            else:
                return
            tls.sendall(struct.pack(">i", len(correlation + body)) + correlation + body)

    @staticmethod
    def _read(tls: ssl.SSLSocket) -> bytes:
        size = struct.unpack(">i", tls.recv(4))[0]
        data = b""
        while len(data) < size:
            data += tls.recv(size - len(data))
        return data


