"""How the monitor reaches a Kafka cluster: security protocol, SASL and TLS, as kafka-python client options.

:func:`client_kwargs` is the one place settings become kafka-python keyword arguments; every consumer,
producer and admin client of every command is built from it. Secrets are :class:`~pydantic.SecretStr`
(``**********`` in reprs and logs) and only unwrapped here, into the client options.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, SecretStr, model_validator

DEFAULT_KAFKA_PORT = 9092


def bootstrap_addresses(servers: str) -> list[tuple[str, int]]:
    """The (host, port) pairs of a comma-separated bootstrap list (`host:port`, `host` for port 9092,
    `[::1]:9092`); ValueError naming the entry that is not one."""
    entries = [entry.strip() for entry in servers.split(",")]
    if not any(entries):
        raise ValueError("no bootstrap address: give host:port, e.g. 127.0.0.1:9092")
    out = []
    for entry in entries:
        host, colon, port = entry.rpartition(":") if entry.count(":") == 1 or entry.startswith("[") else ("", "", "")
        host, port = (host.strip("[]"), port) if colon else (entry, str(DEFAULT_KAFKA_PORT))
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{entry!r} is not host:port (a host name or address, a port from 1 to 65535)")
        out.append((host, int(port)))
    return out


def _checked_servers(servers: str) -> str:
    bootstrap_addresses(servers)
    return servers


# A bootstrap list as settings and flags give it, checked when read (a typo fails at once, not after a timeout).
BootstrapServers = Annotated[str, AfterValidator(_checked_servers)]


class SecurityProtocol(StrEnum):
    PLAINTEXT = "PLAINTEXT"
    SSL = "SSL"
    SASL_PLAINTEXT = "SASL_PLAINTEXT"
    SASL_SSL = "SASL_SSL"


class SaslMechanism(StrEnum):
    """The SASL mechanisms kafka-python supports with a username and password."""

    PLAIN = "PLAIN"
    SCRAM_SHA_256 = "SCRAM-SHA-256"
    SCRAM_SHA_512 = "SCRAM-SHA-512"


class KafkaSecurity(BaseModel):
    """The ``kafka`` settings section (env ``AEM_KAFKA_<FIELD>``, flags ``--security-protocol`` …)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    security_protocol: SecurityProtocol = SecurityProtocol.PLAINTEXT
    sasl_mechanism: SaslMechanism | None = None
    sasl_username: str | None = None
    sasl_password: SecretStr | None = None
    ssl_cafile: Path | None = None  # CA bundle that signs the brokers' certificates
    ssl_certfile: Path | None = None  # client certificate (mutual TLS)
    ssl_keyfile: Path | None = None  # its private key
    ssl_password: SecretStr | None = None  # passphrase of the private key
    ssl_check_hostname: bool = True

    @property
    def uses_sasl(self) -> bool:
        return self.security_protocol in (SecurityProtocol.SASL_PLAINTEXT, SecurityProtocol.SASL_SSL)

    @property
    def uses_tls(self) -> bool:
        return self.security_protocol in (SecurityProtocol.SSL, SecurityProtocol.SASL_SSL)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.uses_sasl:
            missing = [
                name
                for name in ("sasl_mechanism", "sasl_username", "sasl_password")
                if getattr(self, name) in (None, "")
            ]
            if missing:
                raise ValueError(f"security_protocol {self.security_protocol} needs {', '.join(missing)}")
        elif self.sasl_mechanism is not None or self.sasl_username or self.sasl_password is not None:
            raise ValueError(f"SASL settings given but security_protocol is {self.security_protocol}")
        tls_files = {"ssl_cafile": self.ssl_cafile, "ssl_certfile": self.ssl_certfile, "ssl_keyfile": self.ssl_keyfile}
        given = {name: path for name, path in tls_files.items() if path is not None}
        if given and not self.uses_tls:
            raise ValueError(f"{', '.join(given)} given but security_protocol is {self.security_protocol}")
        for name, path in given.items():
            if not path.is_file():
                raise ValueError(f"{name}: no such file: {path}")
        if self.ssl_keyfile is not None and self.ssl_certfile is None:
            raise ValueError("ssl_keyfile given without ssl_certfile")
        return self


def security_kwargs(security: KafkaSecurity) -> dict[str, Any]:
    """The kafka-python options of a security section (secrets unwrapped; never log the result)."""
    out: dict[str, Any] = {"security_protocol": security.security_protocol.value}
    if security.uses_sasl:
        assert security.sasl_mechanism is not None and security.sasl_password is not None
        out["sasl_mechanism"] = security.sasl_mechanism.value
        out["sasl_plain_username"] = security.sasl_username
        out["sasl_plain_password"] = security.sasl_password.get_secret_value()
    if security.uses_tls:
        out["ssl_check_hostname"] = security.ssl_check_hostname
        for name in ("ssl_cafile", "ssl_certfile", "ssl_keyfile"):
            path = getattr(security, name)
            if path is not None:
                out[name] = str(path)
        if security.ssl_password is not None:
            out["ssl_password"] = security.ssl_password.get_secret_value()
    return out


class KafkaClient(BaseModel):
    """A cluster address and how to authenticate to it: what every Kafka client of a command is built from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bootstrap_servers: BootstrapServers
    security: KafkaSecurity = KafkaSecurity()

    def __str__(self) -> str:  # what logs show: the address, never a secret
        return f"{self.bootstrap_servers} ({self.security.security_protocol})"


def client_kwargs(cluster: str | KafkaClient) -> dict[str, Any]:
    """kafka-python keyword arguments for a consumer, producer or admin client of ``cluster``.

    A bare ``host:port`` string means PLAINTEXT (the embedded broker of tests and the demo).
    """
    if isinstance(cluster, str):
        return {"bootstrap_servers": cluster}
    return {"bootstrap_servers": cluster.bootstrap_servers, **security_kwargs(cluster.security)}
